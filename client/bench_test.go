package client

import (
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/msg"
	"tremor/net/netchan"
)

// discardConn is a netchan.Conn that drops what it is sent and blocks
// reads until closed.
type discardConn struct{ done chan struct{} }

func newDiscardConn() *discardConn { return &discardConn{done: make(chan struct{})} }

func (d *discardConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	<-d.done
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (d *discardConn) WriteTo(p []byte, to netip.AddrPort) error { return nil }
func (d *discardConn) LocalAddr() netip.AddrPort                 { return netip.MustParseAddrPort("127.0.0.1:1") }
func (d *discardConn) SetReadDeadline(t time.Time) error         { return nil }
func (d *discardConn) Close() error                              { close(d.done); return nil }

// snapSource writes a stream of delta-coded snapshot packets, without
// allocating, for benchmarks and allocation tests.
type snapSource struct {
	gs   proto.Gamestate
	seq  uint32
	time int32
	ps   [2]bg.PlayerState
	ents [2][]bg.EntityState
	w    msg.Writer
	wbuf [netchan.MaxMsgLen]byte
	pkt  []byte
}

func newSnapSource(n int) *snapSource {
	s := &snapSource{seq: 1, time: 1000, pkt: make([]byte, 0, netchan.MaxMsgLen+netchan.MaxHeaderLen)}
	s.gs.Reset()
	for k := range s.ents {
		s.ents[k] = make([]bg.EntityState, n)
		for i := range s.ents[k] {
			s.ents[k][i] = bg.EntityState{Number: int32(i * 3), EType: bg.ETPlayer, ClientNum: int32(i),
				Pos: bg.Trajectory{Type: bg.TrLinear, Base: bg.Vec{X: int32(i * 1000), Y: 5000}}}
		}
	}
	return s
}

// next returns the next snapshot packet: full for the first, then a delta
// from the one before.
func (s *snapSource) next() []byte {
	cur, prev := s.seq&1, (s.seq+1)&1
	s.time += 50
	ps := &s.ps[cur]
	*ps = s.ps[prev]
	ps.CommandTime = s.time - 8
	ps.Origin.X += 37
	ents := s.ents[cur]
	for i := range ents {
		ents[i] = s.ents[prev][i]
		ents[i].Pos.Base.X += int32(i%5) * 16
		ents[i].Pos.Time = s.time
	}
	s.w.Reset(s.wbuf[:], msg.Huffman)
	proto.WriteReliableAck(&s.w, 0)
	h := proto.SnapshotHeader{ServerTime: s.time}
	var fromPS *bg.PlayerState
	var fromEnts []bg.EntityState
	if s.seq > 1 {
		h.DeltaNum, h.BaseTime = 1, s.time-50
		fromPS, fromEnts = &s.ps[prev], s.ents[prev]
	}
	proto.WriteSnapshot(&s.w, h, fromPS, ps, fromEnts, ents, &s.gs.Baselines)
	s.w.WriteUint8(proto.SvcEOF)
	s.pkt = netchan.Header{Sequence: s.seq}.Append(s.pkt[:0])
	s.pkt = append(s.pkt, s.w.Bytes()...)
	s.seq++
	return s.pkt
}

// primedClient returns a client that has a gamestate and an open channel,
// talking to nobody.
func primedClient(tb testing.TB) (*Client, netip.AddrPort) {
	c := New(newDiscardConn(), Config{})
	tb.Cleanup(func() { c.Close() })
	addr := netip.MustParseAddrPort("127.0.0.1:27960")
	c.conn.serverAddr = addr
	c.conn.ch = netchan.New(c.out, addr, netchan.ClientSide, c.qport)
	c.conn.ch.Encode = c.encode
	c.state = Primed
	return c, addr
}

// frameLoop runs one client frame with one new snapshot, as a 20 Hz
// server and a client at about that rate would.
type frameLoop struct {
	c    *Client
	addr netip.AddrPort
	src  *snapSource
	now  time.Duration
}

func (l *frameLoop) run() {
	l.c.packetEvent(l.addr, l.src.next())
	l.now += 50 * time.Millisecond
	l.c.Frame(l.now, bg.UserCmd{RightMove: 127, Buttons: bg.ButtonAttack})
}

func newFrameLoop(tb testing.TB, entities int) *frameLoop {
	c, addr := primedClient(tb)
	l := &frameLoop{c: c, addr: addr, src: newSnapSource(entities)}
	for range 100 { // warm up: rings full, active
		l.run()
	}
	if c.State() != Active || c.Stats().Snapshots != 100 {
		tb.Fatalf("state %v, %+v, %v", c.State(), c.Stats(), c.LastError())
	}
	return l
}

func TestFrameWithSnapshotDoesNotAllocate(t *testing.T) {
	l := newFrameLoop(t, 40)
	if n := testing.AllocsPerRun(200, l.run); n != 0 {
		t.Fatalf("%v allocations per frame with a snapshot", n)
	}
	if st := l.c.Stats(); st.SnapshotsInvalid != 0 || st.Malformed != 0 {
		t.Fatalf("%+v", st)
	}
}

// TestFrameWithCGameDoesNotAllocate checks that a frame of the engine
// with the cgame it runs (Config.CGame), interpolating and predicting,
// allocates nothing once the cgame is made.
func TestFrameWithCGameDoesNotAllocate(t *testing.T) {
	c, addr := primedClient(t)
	cfg := c.Config()
	cg := cgame.DefaultConfig()
	cfg.CGame = &cg
	c.SetConfig(cfg)
	m, err := arenas.Load("arena1")
	if err != nil {
		t.Fatal(err)
	}
	c.active.world = m
	l := &frameLoop{c: c, addr: addr, src: newSnapSource(40)}
	for range 100 {
		l.run()
	}
	made := c.CGame()
	if made == nil || made.Stats.Frames == 0 {
		t.Fatalf("the engine ran no cgame: %v", made)
	}
	if n := testing.AllocsPerRun(200, l.run); n != 0 {
		t.Fatalf("%v allocations per frame with a snapshot and the cgame", n)
	}
	if c.CGame() != made {
		t.Fatal("the cgame was remade within a gamestate")
	}
	c.Disconnect()
	if c.CGame() != nil {
		t.Fatal("the cgame outlived the connection")
	}
}

// BenchmarkFrameWithSnapshot measures a client frame that parses one
// delta-coded snapshot (of n moving entities) and sends a usercmd packet.
// The snapshots are encoded outside the timer.
func BenchmarkFrameWithSnapshot(b *testing.B) {
	for _, n := range []int{8, 40, 128} {
		b.Run(strconv.Itoa(n)+" entities", func(b *testing.B) {
			l := newFrameLoop(b, n)
			const batch = 256
			pkts := make([][]byte, batch)
			for i := range pkts {
				pkts[i] = make([]byte, 0, netchan.MaxMsgLen)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%batch == 0 {
					b.StopTimer()
					for k := range pkts {
						pkts[k] = append(pkts[k][:0], l.src.next()...)
					}
					b.StartTimer()
				}
				l.c.packetEvent(l.addr, pkts[i%batch])
				l.now += 50 * time.Millisecond
				l.c.Frame(l.now, bg.UserCmd{RightMove: 127})
			}
		})
	}
}
