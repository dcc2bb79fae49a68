package reliable

import (
	"math"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestAckFields(t *testing.T) {
	tests := []struct {
		name     string
		received []uint16
		ack      uint16
		bits     uint32
	}{
		{"nothing", nil, 0, 0},
		{"one", []uint16{7}, 7, 1},
		{"run", []uint16{1, 2, 3, 4}, 4, 0xF},
		{"gaps", []uint16{10, 12, 15}, 15, 1 | 1<<3 | 1<<5},
		{"reordered", []uint16{15, 10, 12}, 15, 1 | 1<<3 | 1<<5},
		{"older than 31 not in bits", []uint16{100, 68, 69}, 100, 1 | 1<<31},
		{"across the wrap", []uint16{65534, 65535, 0, 1}, 1, 0xF},
		{"duplicate", []uint16{3, 3}, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEndpoint(EndpointConfig{})
			for _, s := range tt.received {
				e.Received(s, 0)
			}
			ack, bits := e.AckFields()
			if ack != tt.ack || bits != tt.bits {
				t.Fatalf("AckFields = %d %#b, want %d %#b", ack, bits, tt.ack, tt.bits)
			}
		})
	}
}

func TestReceivedCounts(t *testing.T) {
	e := NewEndpoint(EndpointConfig{ReceivedPackets: 64})
	for _, s := range []uint16{1, 2, 2, 100, 36, 37} {
		e.Received(s, 0)
	}
	st := e.Stats()
	// 36 is 64 behind 100: outside the window; 37 is its oldest slot.
	if st.Received != 4 || st.Duplicates != 1 || st.Stale != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// collect returns an Acks callback appending to *got.
func collect(got *[]uint16) func(uint16) { return func(s uint16) { *got = append(*got, s) } }

func TestAcks(t *testing.T) {
	e := NewEndpoint(EndpointConfig{LossTimeout: -1})
	for s := uint16(65530); s != 6; s++ {
		e.Sent(s, time.Duration(s)*ms, 100)
	}
	var got []uint16
	// 65531, 65533 and 2 (bits 7, 5, 0 of ack 2).
	e.Acks(2, 1|1<<5|1<<7, 0, collect(&got))
	if want := []uint16{65531, 65533, 2}; !slices.Equal(got, want) {
		t.Fatalf("acked %v, want %v (oldest first)", got, want)
	}
	// Repeated: nothing new; 3 new.
	got = got[:0]
	e.Acks(3, 0b11|1<<6|1<<8, 0, collect(&got))
	if want := []uint16{3}; !slices.Equal(got, want) {
		t.Fatalf("acked %v, want %v", got, want)
	}
	st := e.Stats()
	if st.Acked != 4 || st.AcksRepeated != 3 {
		t.Fatalf("stats %+v", st)
	}
	// Never sent (older than the first) is unknown; newer than any sent
	// refuses the header.
	got = got[:0]
	e.Acks(65529, 1, 0, collect(&got))
	e.Acks(6, 0xFFFFFFFF, 0, collect(&got))
	if len(got) != 0 {
		t.Fatalf("acked %v for unsent packets", got)
	}
	if st := e.Stats(); st.AcksUnknown != 1 || st.HeadersRefused != 1 {
		t.Fatalf("stats %+v", st)
	}
	for s, want := range map[uint16]PacketState{65530: PacketPending, 65531: PacketAcked, 3: PacketAcked, 5: PacketPending, 6: PacketUnknown, 100: PacketUnknown} {
		if got := e.State(s); got != want {
			t.Errorf("State(%d) = %v, want %v", s, got, want)
		}
	}
	// Before anything was sent every header with acks is refused.
	f := NewEndpoint(EndpointConfig{})
	f.Acks(0, 1, 0, collect(&got))
	f.Acks(0, 0, 0, collect(&got)) // nothing received by the peer: not refused
	if len(got) != 0 || f.Stats().HeadersRefused != 1 {
		t.Fatalf("fresh endpoint acked %v, stats %+v", got, f.Stats())
	}
}

func TestSentRefusesOld(t *testing.T) {
	e := NewEndpoint(EndpointConfig{})
	if !e.Sent(10, 0, 1) || e.Sent(10, 0, 1) || e.Sent(9, 0, 1) || !e.Sent(12, 0, 1) {
		t.Fatal("Sent accepted a sequence not newer than the last, or refused a newer one")
	}
	if e.NextSequence() != 13 || e.Stats().SendsRefused != 2 {
		t.Fatalf("NextSequence %d, stats %+v", e.NextSequence(), e.Stats())
	}
}

func TestLossJudgement(t *testing.T) {
	t.Run("32 behind the newest ack", func(t *testing.T) {
		e := NewEndpoint(EndpointConfig{LossTimeout: -1})
		for s := range uint16(40) {
			e.Sent(s, 0, 1)
		}
		e.Acks(33, 1, 0, nil) // 0 and 1 can no longer be acked by a header this new
		if e.State(0) != PacketLost || e.State(1) != PacketLost || e.State(2) != PacketPending {
			t.Fatalf("states %v %v %v", e.State(0), e.State(1), e.State(2))
		}
		if st := e.Stats(); st.Lost != 2 || st.Acked != 1 {
			t.Fatalf("stats %+v", st)
		}
		// A reordered older header acks 1 after all.
		var got []uint16
		e.Acks(20, 1<<19, 0, collect(&got))
		if !slices.Equal(got, []uint16{1}) || e.State(1) != PacketAcked {
			t.Fatalf("late ack: %v, state %v", got, e.State(1))
		}
		if st := e.Stats(); st.Lost != 1 || st.LateAcks != 1 || st.Acked != 2 || st.RTTSamples != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		e := NewEndpoint(EndpointConfig{LossTimeout: 500 * ms})
		e.Sent(1, 0, 1)
		e.Sent(2, 100*ms, 1)
		e.Sent(3, 499*ms, 1)
		if e.State(1) != PacketPending {
			t.Fatal("lost before its timeout")
		}
		e.Sent(4, 550*ms, 1)
		if e.State(1) != PacketLost || e.State(2) != PacketPending {
			t.Fatalf("states %v %v", e.State(1), e.State(2))
		}
		e.Acks(4, 0b11, 601*ms, nil) // 3, 4 acked; 2 timed out at 600
		if e.State(2) != PacketLost || e.State(3) != PacketAcked {
			t.Fatalf("states %v %v", e.State(2), e.State(3))
		}
	})
	t.Run("forgotten", func(t *testing.T) {
		e := NewEndpoint(EndpointConfig{SentPackets: 16, LossTimeout: -1})
		e.Sent(0, 0, 1)
		e.Sent(1, 0, 1)
		e.Sent(16, 0, 1) // 0 leaves the buffer unacked
		if st := e.Stats(); st.Lost != 1 {
			t.Fatalf("stats %+v", st)
		}
		e.Sent(1000, 0, 1)
		if st := e.Stats(); st.Lost != 3 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestRTT(t *testing.T) {
	e := NewEndpoint(EndpointConfig{})
	if e.RTT() != 0 {
		t.Fatal("RTT before any ack")
	}
	e.Sent(1, 0, 1)
	e.Acks(1, 1, 100*ms, nil)
	if e.RTT() != 100*ms {
		t.Fatalf("first sample: RTT %v", e.RTT())
	}
	e.Sent(2, 100*ms, 1)
	e.Acks(2, 1, 300*ms, nil) // sample 200: 100 + (200-100)/10
	if e.RTT() != 110*ms {
		t.Fatalf("RTT %v, want 110ms", e.RTT())
	}
	for s := uint16(3); s < 200; s++ {
		e.Sent(s, time.Duration(s)*ms, 1)
		e.Acks(s, 1, time.Duration(s)*ms+50*ms, nil)
	}
	if d := e.RTT() - 50*ms; d < 0 || d > ms {
		t.Fatalf("RTT %v after many 50 ms samples", e.RTT())
	}
}

// TestLossEstimates drops every fourth packet each way between two
// endpoints and checks both ends' estimates of both directions.
func TestLossEstimates(t *testing.T) {
	a, b := NewEndpoint(EndpointConfig{}), NewEndpoint(EndpointConfig{})
	now := time.Duration(0)
	for s := uint16(0); s < 2000; s++ {
		now += 10 * ms
		a.Sent(s, now, 100)
		if s%4 != 3 {
			b.Received(s, now)
		}
		b.Sent(s, now, 100)
		if s%4 != 1 {
			a.Received(s, now)
		}
		ack, bits := b.AckFields()
		a.Acks(ack, bits, now, nil)
		ack, bits = a.AckFields()
		b.Acks(ack, bits, now, nil)
	}
	for _, c := range []struct {
		name string
		got  float64
	}{
		{"a upstream", a.UpstreamLoss()}, {"a downstream", a.DownstreamLoss()},
		{"b upstream", b.UpstreamLoss()}, {"b downstream", b.DownstreamLoss()},
	} {
		if math.Abs(c.got-0.25) > 0.01 {
			t.Errorf("%s loss %.3f, want 0.25", c.name, c.got)
		}
	}
	// The newest ack is 1998: the lost packets up to 1966 are judged,
	// 1967 to 1995 still pending.
	if st := a.Stats(); st.Lost != 491 || st.Acked != 1500 {
		t.Errorf("a stats %+v", st)
	}
}

func TestEndpointNoAllocs(t *testing.T) {
	a, b := NewEndpoint(EndpointConfig{}), NewEndpoint(EndpointConfig{})
	var s uint16
	var now time.Duration
	acked := 0
	fn := func(uint16) { acked++ }
	allocs := testing.AllocsPerRun(5000, func() {
		now += ms
		a.Sent(s, now, 100)
		if s%3 != 0 {
			b.Received(s, now)
		}
		ack, bits := b.AckFields()
		a.Acks(ack, bits, now, fn)
		_ = a.UpstreamLoss() + b.DownstreamLoss()
		s++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
}

func TestClockAcrossTheWrap(t *testing.T) {
	var c Clock
	start := int32(math.MaxInt32 - 50)
	if got := c.Tick(start); got != 0 {
		t.Fatalf("first Tick = %v, want 0", got)
	}
	if got := c.Tick(start + 30); got != 30*time.Millisecond {
		t.Fatalf("Tick 30 ms later = %v", got)
	}
	if got := c.Tick(start + 100); got != 100*time.Millisecond { // wrapped past MaxInt32
		t.Fatalf("Tick across the int32 wrap = %v, want 100ms", got)
	}
}
