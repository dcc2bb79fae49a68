package netchan

import (
	"bytes"
	"testing"
)

// TestSequenceWindow feeds one channel a script of packets and checks
// what each does to the sequence, the reassembly and the counters.
func TestSequenceWindow(t *testing.T) {
	type step struct {
		seq      uint32
		frag     bool   // a first fragment of FragmentSize bytes (else a whole message)
		fragEnd  bool   // with frag: the 7-byte fragment that ends the message at FragmentSize
		ok       bool   // a message delivered
		incoming uint32 // IncomingSequence after the step
		jumps    uint64 // Stats.SequenceJumps after the step
	}
	const w = MaxSequenceJump
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"first packet at the window's edge", []step{
			{seq: w, ok: true, incoming: w},
		}},
		{"first packet past the window", []step{
			{seq: w + 1, incoming: 0, jumps: 1},
			{seq: 1, ok: true, incoming: 1, jumps: 1},
		}},
		{"first packets lost", []step{
			{seq: 40, ok: true, incoming: 40},
			{seq: 41, ok: true, incoming: 41},
		}},
		{"forged far sequence changes nothing", []step{
			{seq: 1, ok: true, incoming: 1},
			{seq: 1 + w + 5000, incoming: 1, jumps: 1}, // past the window ahead, far behind: dropped
			{seq: 2, ok: true, incoming: 2, jumps: 1},
			{seq: 2 + w, ok: true, incoming: 2 + w, jumps: 1},
			{seq: 2 + 2*w + 1, incoming: 2 + w, jumps: 2},
		}},
		{"forged fragments leave the reassembly alone", []step{
			{seq: 5, ok: true, incoming: 5},
			{seq: 6, frag: true, incoming: 5},
			{seq: 6 + w, frag: true, incoming: 5, jumps: 1},
			{seq: 6 + w, frag: true, fragEnd: true, incoming: 5, jumps: 2},
			{seq: 6, frag: true, fragEnd: true, ok: true, incoming: 6, jumps: 2},
		}},
		{"duplicates are not jumps", []step{
			{seq: 3, ok: true, incoming: 3},
			{seq: 1, incoming: 3},
			{seq: 3, incoming: 3},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []Side{ServerSide, ClientSide} {
				ch := New(&captureConn{}, clientAddr, side, testQport)
				var last PacketEvent
				ch.Trace = func(ev PacketEvent) { last = ev }
				for i, s := range tc.steps {
					h := Header{Sequence: s.seq, HasQport: side == ServerSide, Qport: testQport}
					body := []byte("body")
					if s.frag {
						h.Fragment = true
						h.FragmentLength = FragmentSize
						if s.fragEnd {
							h.FragmentStart, h.FragmentLength = FragmentSize, 7
						}
						body = make([]byte, h.FragmentLength)
					}
					before := ch.Stats()
					fragSeq, fragLen := ch.fragSequence, ch.fragLen
					msg, ok, err := ch.Process(packet(h, body))
					st := ch.Stats()
					if err != nil || ok != s.ok || ch.IncomingSequence() != s.incoming || st.SequenceJumps != s.jumps {
						t.Fatalf("%v step %d (seq %d): ok %v err %v incoming %d jumps %d, want ok %v incoming %d jumps %d",
							side, i, s.seq, ok, err, ch.IncomingSequence(), st.SequenceJumps, s.ok, s.incoming, s.jumps)
					}
					if ok && s.frag && len(msg) != FragmentSize+7 {
						t.Fatalf("%v step %d: reassembled %d bytes", side, i, len(msg))
					}
					if st.SequenceJumps > before.SequenceJumps {
						if last.Result != ResultSequenceJump || last.Sequence != s.seq || last.Dropped != 0 {
							t.Errorf("%v step %d: traced %v seq %d dropped %d", side, i, last.Result, last.Sequence, last.Dropped)
						}
						if ch.fragSequence != fragSeq || ch.fragLen != fragLen || ch.Dropped() != before.Dropped ||
							st.LastReceivedSequence != before.LastReceivedSequence || st.MessagesIn != before.MessagesIn ||
							st.PacketsDropped != before.PacketsDropped || st.OutOfOrder != before.OutOfOrder ||
							st.FragmentsReceived != before.FragmentsReceived || st.FragmentsDropped != before.FragmentsDropped ||
							st.Malformed != before.Malformed {
							t.Errorf("%v step %d: a jump changed the channel: %+v -> %+v", side, i, before, st)
						}
						if st.PacketsIn != before.PacketsIn+1 {
							t.Errorf("%v step %d: jump not counted in PacketsIn", side, i)
						}
					}
				}
			}
		})
	}
}

// TestSequenceWindowEnds checks a real connection across the longest
// outage the window allows, and that one sequence more only times out.
func TestSequenceWindowEnds(t *testing.T) {
	for _, lost := range []int{MaxSequenceJump - 1, MaxSequenceJump} {
		e := newEndpoints()
		for i := range lost + 1 {
			if err := e.client.Transmit([]byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		packets := e.clientConn.take()
		// All but the last were lost: the last one skips lost sequences.
		msg, ok, err := e.server.Process(packets[len(packets)-1])
		want := lost < MaxSequenceJump
		if err != nil || ok != want {
			t.Fatalf("after %d lost: ok %v err %v, want ok %v", lost, ok, err, want)
		}
		if ok && (!bytes.Equal(msg, []byte{byte(lost)}) || e.server.Dropped() != uint32(lost)) {
			t.Fatalf("after %d lost: message %v, dropped %d", lost, msg, e.server.Dropped())
		}
	}
}
