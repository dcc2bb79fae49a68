package netchan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestFragmentRoundTrip(t *testing.T) {
	lengths := []int{0, 1, 1299, 1300, 1301, 2599, 2600, 2601, 3900, MaxMsgLen - 1, MaxMsgLen}
	for _, dir := range []string{"c2s", "s2c"} {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/%d", dir, n), func(t *testing.T) {
				e := newEndpoints()
				from, conn, to := e.direction(dir)
				msg := makeMsg(n, 0x5a)
				if err := from.Transmit(msg); err != nil {
					t.Fatal(err)
				}
				if n >= FragmentSize && !from.HasUnsentFragments() {
					t.Fatal("fragmented message: HasUnsentFragments false after Transmit")
				}
				if err := from.Flush(); err != nil {
					t.Fatal(err)
				}
				if from.HasUnsentFragments() {
					t.Fatal("HasUnsentFragments true after Flush")
				}
				packets := conn.take()

				wantPackets := 1
				if n >= FragmentSize {
					wantPackets = n/FragmentSize + 1
				}
				if len(packets) != wantPackets {
					t.Fatalf("%d packets, want %d", len(packets), wantPackets)
				}
				side := ClientSide
				if dir == "c2s" {
					side = ServerSide
				}
				for i, p := range packets {
					if len(p) > MaxPacketLen {
						t.Errorf("packet %d: %d bytes > MaxPacketLen", i, len(p))
					}
					h, err := PeekHeader(p, side)
					if err != nil {
						t.Fatalf("packet %d: %v", i, err)
					}
					if h.Sequence != 1 {
						t.Errorf("packet %d: sequence %d, want 1", i, h.Sequence)
					}
					if h.Fragment != (n >= FragmentSize) {
						t.Errorf("packet %d: fragment %v", i, h.Fragment)
					}
					if h.HasQport && h.Qport != testQport {
						t.Errorf("packet %d: qport %#x", i, h.Qport)
					}
					if h.Fragment && int(h.FragmentStart) != i*FragmentSize {
						t.Errorf("packet %d: fragment start %d", i, h.FragmentStart)
					}
				}
				if n >= FragmentSize {
					last, _ := PeekHeader(packets[len(packets)-1], side)
					if want := n % FragmentSize; int(last.FragmentLength) != want {
						t.Errorf("last fragment length %d, want %d", last.FragmentLength, want)
					}
				}

				// Only the last packet completes the message.
				for i, p := range packets {
					got, ok, err := to.Process(p)
					if err != nil {
						t.Fatalf("packet %d: %v", i, err)
					}
					if ok != (i == len(packets)-1) {
						t.Fatalf("packet %d: ok=%v", i, ok)
					}
					if ok && !bytes.Equal(got, msg) {
						t.Fatalf("message differs: got %d bytes, want %d", len(got), n)
					}
				}
				if to.IncomingSequence() != 1 || from.OutgoingSequence() != 2 {
					t.Errorf("sequences: incoming %d outgoing %d, want 1 and 2", to.IncomingSequence(), from.OutgoingSequence())
				}
			})
		}
	}
}

func TestFragmentLoss(t *testing.T) {
	for _, n := range []int{1300, 2601, 3900} {
		count := n/FragmentSize + 1
		for lost := range count {
			t.Run(fmt.Sprintf("len%d/lose%d", n, lost), func(t *testing.T) {
				e := newEndpoints()
				big, next := makeMsg(n, 1), makeMsg(100, 2)
				if err := e.server.Transmit(big); err != nil {
					t.Fatal(err)
				}
				if err := e.server.Flush(); err != nil {
					t.Fatal(err)
				}
				if err := e.server.Transmit(next); err != nil {
					t.Fatal(err)
				}
				packets := e.serverConn.take()
				if len(packets) != count+1 {
					t.Fatalf("%d packets, want %d", len(packets), count+1)
				}
				packets = append(packets[:lost:lost], packets[lost+1:]...)
				got := deliver(t, e.client, packets)
				if len(got) != 1 || !bytes.Equal(got[0], next) {
					t.Fatalf("delivered %d messages, want only the next one", len(got))
				}
				if e.client.IncomingSequence() != 2 || e.client.Dropped() != 1 {
					t.Errorf("incoming %d dropped %d, want 2 and 1", e.client.IncomingSequence(), e.client.Dropped())
				}
				if s := e.client.Stats(); s.PacketsDropped != 1 {
					t.Errorf("PacketsDropped %d, want 1", s.PacketsDropped)
				}
			})
		}
	}
}

func TestFragmentReorder(t *testing.T) {
	orders := [][]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, order := range orders {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			e := newEndpoints()
			big, next := makeMsg(2601, 1), makeMsg(10, 2)
			if err := e.client.Transmit(big); err != nil {
				t.Fatal(err)
			}
			if err := e.client.Flush(); err != nil {
				t.Fatal(err)
			}
			frags := e.clientConn.take()
			var packets [][]byte
			for _, i := range order {
				packets = append(packets, frags[i])
			}
			if err := e.client.Transmit(next); err != nil {
				t.Fatal(err)
			}
			packets = append(packets, e.clientConn.take()...)
			got := deliver(t, e.server, packets)
			if len(got) != 1 || !bytes.Equal(got[0], next) {
				t.Fatalf("delivered %d messages, want only the next one", len(got))
			}
			if s := e.server.Stats(); s.FragmentsDropped == 0 {
				t.Error("no fragment counted as dropped")
			}
		})
	}
}

func TestStaleFragmentKeepsNewerReassembly(t *testing.T) {
	e := newEndpoints()
	a, b := makeMsg(2000, 1), makeMsg(2000, 2)
	for _, m := range [][]byte{a, b} {
		if err := e.server.Transmit(m); err != nil {
			t.Fatal(err)
		}
		if err := e.server.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	p := e.serverConn.take() // a0 a1 b0 b1
	got := deliver(t, e.client, [][]byte{p[0], p[2], p[1], p[3]})
	if len(got) != 1 || !bytes.Equal(got[0], b) {
		t.Fatalf("delivered %d messages, want b only", len(got))
	}
	if e.client.Dropped() != 1 {
		t.Errorf("Dropped %d, want 1", e.client.Dropped())
	}
}

func TestDuplicates(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		e := newEndpoints()
		if err := e.client.Transmit(makeMsg(50, 1)); err != nil {
			t.Fatal(err)
		}
		p := e.clientConn.take()[0]
		got := deliver(t, e.server, [][]byte{p, p, p})
		if len(got) != 1 {
			t.Fatalf("delivered %d, want 1", len(got))
		}
		if s := e.server.Stats(); s.OutOfOrder != 2 || s.MessagesIn != 1 {
			t.Errorf("OutOfOrder %d MessagesIn %d, want 2 and 1", s.OutOfOrder, s.MessagesIn)
		}
	})
	t.Run("fragments", func(t *testing.T) {
		e := newEndpoints()
		msg := makeMsg(2601, 1)
		if err := e.client.Transmit(msg); err != nil {
			t.Fatal(err)
		}
		if err := e.client.Flush(); err != nil {
			t.Fatal(err)
		}
		var packets [][]byte
		for _, p := range e.clientConn.take() {
			packets = append(packets, p, p)
		}
		got := deliver(t, e.server, packets)
		if len(got) != 1 || !bytes.Equal(got[0], msg) {
			t.Fatalf("delivered %d, want the message once", len(got))
		}
		s := e.server.Stats()
		// The duplicates of the first two fragments do not continue the
		// message; the duplicate of the last is an old sequence.
		if s.FragmentsReceived != 3 || s.FragmentsDropped != 2 || s.OutOfOrder != 1 {
			t.Errorf("FragmentsReceived %d FragmentsDropped %d OutOfOrder %d, want 3 2 1",
				s.FragmentsReceived, s.FragmentsDropped, s.OutOfOrder)
		}
	})
}

func TestQueueOrder(t *testing.T) {
	e := newEndpoints()
	type encoded struct {
		seq uint32
		n   int
	}
	var log []encoded
	e.client.Encode = func(seq uint32, msg []byte) { log = append(log, encoded{seq, len(msg)}) }

	msgs := [][]byte{makeMsg(2601, 1), makeMsg(20, 2), makeMsg(1500, 3), makeMsg(30, 4)}
	for _, m := range msgs {
		if err := e.client.Transmit(m); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.clientConn.packets); n != 1 {
		t.Fatalf("%d packets after Transmit, want only the first fragment", n)
	}
	if len(log) != 1 {
		t.Fatalf("Encode called %d times before the queue moved, want 1", len(log))
	}
	if s := e.client.Stats(); s.QueuedMessages != 3 || s.QueuedBytes != 20+1500+30 {
		t.Errorf("queued %d messages, %d bytes", s.QueuedMessages, s.QueuedBytes)
	}
	// The caller may reuse its buffers: queued messages were copied.
	for _, m := range msgs {
		copy(m, make([]byte, len(m)))
	}

	// One packet per call.
	for i := 2; e.client.HasUnsentFragments(); i++ {
		if err := e.client.TransmitNextFragment(); err != nil {
			t.Fatal(err)
		}
		if n := len(e.clientConn.packets); n != i {
			t.Fatalf("%d packets after %d calls", n, i-1)
		}
	}
	packets := e.clientConn.take()
	type want struct {
		seq   uint32
		frag  bool
		start uint16
	}
	wants := []want{{1, true, 0}, {1, true, 1300}, {1, true, 2600}, {2, false, 0}, {3, true, 0}, {3, true, 1300}, {4, false, 0}}
	if len(packets) != len(wants) {
		t.Fatalf("%d packets, want %d", len(packets), len(wants))
	}
	for i, p := range packets {
		h, err := PeekHeader(p, ServerSide)
		if err != nil {
			t.Fatal(err)
		}
		if w := wants[i]; h.Sequence != w.seq || h.Fragment != w.frag || h.FragmentStart != w.start {
			t.Errorf("packet %d: seq %d frag %v start %d, want %+v", i, h.Sequence, h.Fragment, h.FragmentStart, w)
		}
	}
	wantLog := []encoded{{1, 2601}, {2, 20}, {3, 1500}, {4, 30}}
	if fmt.Sprint(log) != fmt.Sprint(wantLog) {
		t.Errorf("Encode calls %v, want %v", log, wantLog)
	}
	got := deliver(t, e.server, packets)
	if len(got) != 4 {
		t.Fatalf("delivered %d, want 4", len(got))
	}
	for i := range got {
		if !bytes.Equal(got[i], makeMsg(len(got[i]), byte(i+1))) {
			t.Errorf("message %d differs", i)
		}
	}
}

func TestQueueOverflow(t *testing.T) {
	t.Run("messages", func(t *testing.T) {
		e := newEndpoints()
		if err := e.server.Transmit(makeMsg(3000, 1)); err != nil {
			t.Fatal(err)
		}
		for i := range QueueMaxMessages {
			if err := e.server.Transmit(makeMsg(10, 2)); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
		}
		if err := e.server.Transmit(nil); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("got %v, want ErrQueueFull", err)
		}
		if err := e.server.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := e.server.Transmit(makeMsg(10, 3)); err != nil {
			t.Fatalf("after Flush: %v", err)
		}
		if got := len(deliver(t, e.client, e.serverConn.take())); got != QueueMaxMessages+2 {
			t.Errorf("delivered %d, want %d", got, QueueMaxMessages+2)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		e := newEndpoints()
		if err := e.server.Transmit(makeMsg(3000, 1)); err != nil {
			t.Fatal(err)
		}
		for i := range QueueMaxBytes / MaxMsgLen {
			if err := e.server.Transmit(makeMsg(MaxMsgLen, 2)); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
		}
		if err := e.server.Transmit(makeMsg(1, 3)); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("got %v, want ErrQueueFull", err)
		}
	})
	t.Run("too long", func(t *testing.T) {
		e := newEndpoints()
		if err := e.server.Transmit(makeMsg(MaxMsgLen+1, 1)); !errors.Is(err, ErrMsgTooLong) {
			t.Fatalf("got %v, want ErrMsgTooLong", err)
		}
		if len(e.serverConn.packets) != 0 || e.server.OutgoingSequence() != 1 {
			t.Error("refused message changed the channel")
		}
	})
}

// TestQueueModel interleaves Transmit and TransmitNextFragment at random
// (fixed seed) so the queue wraps and compacts, and checks every message
// arrives intact and in order.
func TestQueueModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEndpoints()
	var sent [][]byte
	for i := range 2000 {
		if rng.IntN(3) == 0 {
			n := rng.IntN(600)
			if rng.IntN(4) == 0 {
				n = rng.IntN(MaxMsgLen + 1)
			}
			m := makeMsg(n, byte(i))
			err := e.server.Transmit(m)
			if errors.Is(err, ErrQueueFull) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, m)
		} else if err := e.server.TransmitNextFragment(); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.server.Flush(); err != nil {
		t.Fatal(err)
	}
	got := deliver(t, e.client, e.serverConn.take())
	if len(got) != len(sent) {
		t.Fatalf("delivered %d, sent %d", len(got), len(sent))
	}
	for i := range got {
		if !bytes.Equal(got[i], sent[i]) {
			t.Fatalf("message %d differs", i)
		}
	}
	if e.client.Dropped() != 0 || e.client.Stats().PacketsDropped != 0 {
		t.Error("drops counted on a lossless run")
	}
}

func TestSequenceGaps(t *testing.T) {
	e := newEndpoints()
	steps := []struct {
		seq      uint32
		ok       bool
		dropped  uint32 // Dropped() after the step
		total    uint64 // Stats().PacketsDropped
		outOfOrd uint64
	}{
		{1, true, 0, 0, 0},
		{2, true, 0, 0, 0},
		{5, true, 2, 2, 0},
		{4, false, 2, 2, 1},
		{5, false, 2, 2, 2},
		{6, true, 0, 2, 2},
		{100, true, 93, 95, 2},
	}
	for _, s := range steps {
		p := packet(Header{Sequence: s.seq, HasQport: true, Qport: testQport}, []byte("body"))
		msg, ok, err := e.server.Process(p)
		if err != nil {
			t.Fatalf("seq %d: %v", s.seq, err)
		}
		st := e.server.Stats()
		if ok != s.ok || e.server.Dropped() != s.dropped || st.PacketsDropped != s.total || st.OutOfOrder != s.outOfOrd {
			t.Errorf("seq %d: ok %v dropped %d total %d outOfOrder %d, want %v %d %d %d",
				s.seq, ok, e.server.Dropped(), st.PacketsDropped, st.OutOfOrder, s.ok, s.dropped, s.total, s.outOfOrd)
		}
		if ok && string(msg) != "body" {
			t.Errorf("seq %d: body %q", s.seq, msg)
		}
		if st.LastReceivedSequence != s.seq {
			t.Errorf("seq %d: LastReceivedSequence %d", s.seq, st.LastReceivedSequence)
		}
	}
}

func TestMalformed(t *testing.T) {
	frag := func(side Side, start, length uint16, body int) []byte {
		return packet(Header{Sequence: 1, Fragment: true, HasQport: side == ServerSide, Qport: testQport,
			FragmentStart: start, FragmentLength: length}, make([]byte, body))
	}
	tests := []struct {
		name   string
		side   Side
		packet []byte
		err    error
	}{
		{"empty", ClientSide, nil, ErrShortPacket},
		{"1 byte", ClientSide, []byte{1}, ErrShortPacket},
		{"no qport", ServerSide, []byte{1, 0}, ErrShortPacket},
		{"half qport", ServerSide, []byte{1, 0, 0x34}, ErrShortPacket},
		{"client fragment header cut", ClientSide, []byte{1, 0x80, 0, 0, 0}, ErrShortPacket},
		{"server fragment header cut", ServerSide, []byte{1, 0x80, 0x34, 0x12, 0, 0, 0}, ErrShortPacket},
		{"connectionless", ClientSide, []byte{0xff, 0xff, 0xff, 0xff, 'h', 'i'}, ErrConnectionless},
		{"qport mismatch", ServerSide, packet(Header{Sequence: 1, HasQport: true, Qport: 0x4321}, nil), ErrQportMismatch},
		{"fragment too long", ClientSide, frag(ClientSide, 0, FragmentSize+1, FragmentSize+1), ErrFragmentTooLong},
		{"fragment length over packet", ServerSide, frag(ServerSide, 0, 100, 99), ErrFragmentLength},
		{"fragment length under packet", ClientSide, frag(ClientSide, 0, 100, 101), ErrFragmentLength},
		{"message too long", ClientSide, packet(Header{Sequence: 1}, make([]byte, MaxMsgLen+1)), ErrMsgTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(&captureConn{}, clientAddr, tt.side, testQport)
			msg, ok, err := c.Process(tt.packet)
			if !errors.Is(err, tt.err) || ok || msg != nil {
				t.Fatalf("got %v ok=%v, want %v", err, ok, tt.err)
			}
			if s := c.Stats(); s.Malformed != 1 || s.IncomingSequence != 0 {
				t.Errorf("Malformed %d IncomingSequence %d", s.Malformed, s.IncomingSequence)
			}
		})
	}
}

func TestFragmentOverflow(t *testing.T) {
	for _, lastLen := range []int{FragmentSize, MaxMsgLen - 12*FragmentSize + 1} {
		t.Run(fmt.Sprint(lastLen), func(t *testing.T) {
			c := New(&captureConn{}, serverAddr, ClientSide, 0)
			for i := range 12 {
				p := packet(Header{Sequence: 1, Fragment: true, FragmentStart: uint16(i * FragmentSize), FragmentLength: FragmentSize}, make([]byte, FragmentSize))
				if _, ok, err := c.Process(p); ok || err != nil {
					t.Fatalf("fragment %d: ok=%v err=%v", i, ok, err)
				}
			}
			p := packet(Header{Sequence: 1, Fragment: true, FragmentStart: 12 * FragmentSize, FragmentLength: uint16(lastLen)}, make([]byte, lastLen))
			if _, ok, err := c.Process(p); ok || !errors.Is(err, ErrFragmentOverflow) {
				t.Fatalf("ok=%v err=%v, want ErrFragmentOverflow", ok, err)
			}
			if c.IncomingSequence() != 0 {
				t.Error("incoming sequence advanced")
			}
		})
	}
}

func TestWriteErrorAdvances(t *testing.T) {
	conn := &captureConn{err: errors.New("boom")}
	c := New(conn, serverAddr, ClientSide, 1)
	if err := c.Transmit(makeMsg(10, 0)); err == nil {
		t.Fatal("write error not returned")
	}
	if c.OutgoingSequence() != 2 {
		t.Errorf("OutgoingSequence %d, want 2", c.OutgoingSequence())
	}
}

func TestTrace(t *testing.T) {
	e := newEndpoints()
	var events []PacketEvent
	e.client.Trace = func(ev PacketEvent) { events = append(events, ev) }
	e.server.Trace = e.client.Trace
	if err := e.client.Transmit(makeMsg(1300, 1)); err != nil {
		t.Fatal(err)
	}
	if err := e.client.Flush(); err != nil {
		t.Fatal(err)
	}
	packets := e.clientConn.take()
	deliver(t, e.server, append(packets, packets[1]))
	want := []string{
		"send sent seq=1 frag=true 0+1300 size=1308 dropped=0",
		"send sent seq=1 frag=true 1300+0 size=8 dropped=0",
		"recv partial seq=1 frag=true 0+1300 size=1308 dropped=0",
		"recv delivered seq=1 frag=true 1300+0 size=8 dropped=0",
		"recv duplicate seq=1 frag=true 1300+0 size=8 dropped=0",
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i, ev := range events {
		got := fmt.Sprintf("%v %v seq=%d frag=%v %d+%d size=%d dropped=%d",
			ev.Dir, ev.Result, ev.Sequence, ev.Fragment, ev.FragmentStart, ev.FragmentLength, ev.Size, ev.Dropped)
		if got != want[i] {
			t.Errorf("event %d: %s, want %s", i, got, want[i])
		}
	}
	s := e.server.Stats()
	if s.PacketsIn != 3 || s.BytesIn != 1324 {
		t.Errorf("PacketsIn %d BytesIn %d", s.PacketsIn, s.BytesIn)
	}
	if s := e.client.Stats(); s.PacketsOut != 2 || s.BytesOut != 1316 || s.LastSentSequence != 1 {
		t.Errorf("PacketsOut %d BytesOut %d LastSentSequence %d", s.PacketsOut, s.BytesOut, s.LastSentSequence)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		side Side
		h    Header
	}{
		{"plain", ClientSide, Header{Sequence: 7}},
		{"qport", ServerSide, Header{Sequence: SequenceMask, HasQport: true, Qport: 0xbeef}},
		{"fragment", ClientSide, Header{Sequence: 3, Fragment: true, FragmentStart: 2600, FragmentLength: 12}},
		{"all", ServerSide, Header{Sequence: 9, Fragment: true, HasQport: true, Qport: 1, FragmentStart: 1300, FragmentLength: 1300}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.h.Append(nil)
			if len(b) != tt.h.Len() {
				t.Fatalf("%d bytes, Len %d", len(b), tt.h.Len())
			}
			got, err := PeekHeader(append(b, 1, 2, 3), tt.side)
			if err != nil || got != tt.h {
				t.Fatalf("got %+v %v, want %+v", got, err, tt.h)
			}
		})
	}
	// The sequence's low 15 bits, little-endian, with the fragment bit
	// on top.
	b := Header{Sequence: 0x01020304, Fragment: true}.Append(nil)
	if binary.LittleEndian.Uint16(b) != 0x8304 {
		t.Errorf("sequence bytes % x", b[:2])
	}
}

func TestEncodeScrambleRoundTrip(t *testing.T) {
	const challenge = 0xdeadbeef
	const text = "say hello%\xff"
	e := newEndpoints()
	e.server.Encode = func(seq uint32, msg []byte) { Scramble(msg, ServerKey(challenge, seq), text) }
	msgs := [][]byte{makeMsg(100, 1), makeMsg(5000, 2), makeMsg(0, 3)}
	for _, m := range msgs {
		if err := e.server.Transmit(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.server.Flush(); err != nil {
		t.Fatal(err)
	}
	packets := e.serverConn.take()
	if bytes.Contains(packets[0], msgs[0][:50]) {
		t.Error("message went out unscrambled")
	}
	i := 0
	for _, p := range packets {
		msg, ok, err := e.client.Process(p)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		Scramble(msg, ServerKey(challenge, e.client.IncomingSequence()), text)
		if !bytes.Equal(msg, msgs[i]) {
			t.Fatalf("message %d differs after unscrambling", i)
		}
		i++
	}
	if i != len(msgs) {
		t.Fatalf("delivered %d, want %d", i, len(msgs))
	}
	// The caller's buffers were not scrambled.
	if !bytes.Equal(msgs[0], makeMsg(100, 1)) || !bytes.Equal(msgs[1], makeMsg(5000, 2)) {
		t.Error("Encode changed the caller's buffer")
	}
}

func TestZeroAllocs(t *testing.T) {
	conn := &ringConn{}
	client := New(conn, serverAddr, ClientSide, testQport)
	server := New(conn, clientAddr, ServerSide, testQport)
	for _, n := range []int{200, 4000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			msg := makeMsg(n, 1)
			allocs := testing.AllocsPerRun(100, func() {
				conn.reset()
				if err := client.Transmit(msg); err != nil {
					t.Fatal(err)
				}
				if err := client.Flush(); err != nil {
					t.Fatal(err)
				}
				delivered := false
				for _, p := range conn.packets() {
					_, ok, err := server.Process(p)
					if err != nil {
						t.Fatal(err)
					}
					delivered = delivered || ok
				}
				if !delivered {
					t.Fatal("not delivered")
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocs per round trip, want 0", allocs)
			}
		})
	}
}
