package server

import (
	"errors"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"tremor/net/netchan"
)

// batchMemConn is a memConn that is also a netchan.BatchConn: it counts
// the server's batched and single writes.
type batchMemConn struct {
	*memConn
	writeBatches int   // WriteBatch calls
	batchSizes   []int // packets per WriteBatch call
	writes       int   // WriteTo calls
}

func (c *batchMemConn) WriteTo(p []byte, to netip.AddrPort) error {
	c.writes++
	return c.memConn.WriteTo(p, to)
}

func (c *batchMemConn) ReadBatch(ps []netchan.Packet) (int, error) {
	for i := range ps {
		n, from, err := c.memConn.ReadFrom(ps[i].Buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return i, nil
		}
		ps[i].N, ps[i].Addr, ps[i].Time = n, from, time.Time{}
	}
	return len(ps), nil
}

func (c *batchMemConn) WriteBatch(ps []netchan.Packet) (int, error) {
	c.writeBatches++
	c.batchSizes = append(c.batchSizes, len(ps))
	for i, p := range ps {
		if err := c.memConn.WriteTo(p.Buf, p.Addr); err != nil {
			return i, err
		}
	}
	return len(ps), nil
}

// On a BatchConn, everything one Frame sends goes out in one WriteBatch,
// in the order it was sent: here a snapshot to each of four clients, who
// decode them as usual. Packet's replies, outside a Frame, go out at once.
func TestFrameSendsOneBatch(t *testing.T) {
	n := newMemNet()
	conn := &batchMemConn{memConn: n.conn(serverAddr)}
	h := &harness{t: t, net: n, log: &syncBuffer{}, buf: make([]byte, 1<<16)}
	h.conn = conn.memConn
	srv, err := New(conn, testConfig(), h.log)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	srv.Frame(h.now)
	names := []string{"Ana", "Bob", "Cid", "Dee"}
	for _, name := range names {
		h.connect(h.client(name))
	}
	h.run(500)
	if conn.writes == 0 {
		t.Error("the handshake's replies, sent by Packet outside a Frame, did not go out singly")
	}
	writes, batches := conn.writes, conn.writeBatches
	snaps := make([]int, len(h.cls))
	for i, c := range h.cls {
		snaps[i] = len(c.snaps)
	}
	h.step(50)
	if conn.writes != writes || conn.writeBatches != batches+1 {
		t.Fatalf("a frame made %d WriteTo and %d WriteBatch calls, want 0 and 1", conn.writes-writes, conn.writeBatches-batches)
	}
	if got := conn.batchSizes[len(conn.batchSizes)-1]; got != len(names) {
		t.Errorf("the frame's batch held %d packets, want %d (a snapshot per client)", got, len(names))
	}
	for i, c := range h.cls {
		if len(c.snaps) != snaps[i]+1 || len(c.errs) > 0 {
			t.Errorf("%s decoded %d snapshots from the frame, want 1 (errors %v)", c.name, len(c.snaps)-snaps[i], c.errs)
		}
	}
}

// On a real UDP socket (a BatchConn on Linux) Run reads packets when a
// frame is due and hands each to Packet at the time it arrived: in
// order, never before the previous iteration's time nor after its own
// iteration's, as the journal sees them.
func TestRunBatchedPacketTimes(t *testing.T) {
	type event struct {
		begin bool
		now   int32
	}
	var (
		mu     sync.Mutex
		events []event
	)
	hooks := &JournalHooks{
		Begin: func(now int32) {
			mu.Lock()
			events = append(events, event{true, now})
			mu.Unlock()
		},
		Packet: func(now int32, _ netip.AddrPort, _ []byte) {
			mu.Lock()
			events = append(events, event{false, now})
			mu.Unlock()
		},
	}
	u := startUDPServer(t, testConfig(), func(s *Server) { s.SetJournal(hooks) })
	if _, ok := u.srv.conn.(netchan.BatchConn); !ok {
		t.Skip("UDPConn is a BatchConn on Linux only")
	}
	c := udpClient(t, u.srv.Addr(), "Ana")
	c.start()
	if !c.poll(10*time.Second, func() bool { return c.active() && len(c.snaps) >= 20 }) {
		t.Fatalf("not active with 20 snapshots: %d snapshots, oob %q\nlog:\n%s", len(c.snaps), c.oob, u.log)
	}
	mu.Lock()
	defer mu.Unlock()
	prevBegin, begin, last, packets := int32(-1<<31), int32(-1<<31), int32(-1<<31), 0
	for i, e := range events {
		if e.begin {
			if e.now < begin {
				t.Fatalf("event %d: iteration at %d after one at %d", i, e.now, begin)
			}
			prevBegin, begin = begin, e.now
			continue
		}
		packets++
		if e.now < prevBegin || e.now < last || e.now > begin {
			t.Fatalf("event %d: packet at %d, before the iteration before (%d) or the packet before (%d), or after its own iteration (%d)",
				i, e.now, prevBegin, last, begin)
		}
		last = e.now
	}
	if packets < 20 {
		t.Fatalf("the journal saw %d packets, want the client's 20 or more", packets)
	}
}
