package netsim

import (
	"math"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// sendAll sends n packets of size bytes, the i-th at time i*gap, and
// returns every delivery in send order (copying the Link's slice).
func sendAll(l *Link, n, size int, gap time.Duration) [][]time.Duration {
	out := make([][]time.Duration, n)
	for i := range n {
		out[i] = slices.Clone(l.Send(time.Duration(i)*gap, size))
	}
	return out
}

func TestConfigNormalized(t *testing.T) {
	tests := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, Config{}},
		{"negative", Config{Delay: -ms, Jitter: -ms, Loss: -1, Duplicate: -0.5, Reorder: -2, ReorderDelay: -ms, Bandwidth: -1, QueueLimit: -1}, Config{}},
		{"above one", Config{Loss: 2, Duplicate: 1.5, Reorder: math.Inf(1)}, Config{Loss: 1, Duplicate: 1, Reorder: 1}},
		{"nan", Config{Loss: math.NaN(), Duplicate: math.NaN(), Reorder: math.NaN()}, Config{}},
		{"valid", Config{Delay: ms, Jitter: 2 * ms, Loss: 0.1, Duplicate: 0.2, Reorder: 0.3, ReorderDelay: 3 * ms, Bandwidth: 4, QueueLimit: 5},
			Config{Delay: ms, Jitter: 2 * ms, Loss: 0.1, Duplicate: 0.2, Reorder: 0.3, ReorderDelay: 3 * ms, Bandwidth: 4, QueueLimit: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewLink(tt.in, 1).Config(); got != tt.want {
				t.Errorf("Config() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLinkZeroConfig(t *testing.T) {
	l := NewLink(Config{}, 1)
	for i, d := range sendAll(l, 1000, 100, ms) {
		if want := time.Duration(i) * ms; len(d) != 1 || d[0] != want {
			t.Fatalf("packet %d: deliveries %v, want [%v]", i, d, want)
		}
	}
	want := Stats{Sent: 1000, Delivered: 1000}
	if s := l.Stats(); s != want {
		t.Errorf("Stats() = %+v, want %+v", s, want)
	}
}

func TestLinkLoss(t *testing.T) {
	tests := []struct {
		name     string
		loss     float64
		min, max int
	}{
		{"none", 0, 0, 0},
		{"all", 1, 10000, 10000},
		{"30%", 0.3, 2800, 3200},
		{"2%", 0.02, 150, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLink(Config{Loss: tt.loss}, 42)
			lost := 0
			for _, d := range sendAll(l, 10000, 100, ms) {
				switch len(d) {
				case 0:
					lost++
				case 1:
				default:
					t.Fatalf("deliveries %v with only loss set", d)
				}
			}
			if lost < tt.min || lost > tt.max {
				t.Errorf("lost %d of 10000, want %d..%d", lost, tt.min, tt.max)
			}
			s := l.Stats()
			if s.Dropped != uint64(lost) || s.Delivered != uint64(10000-lost) || s.Sent != 10000 {
				t.Errorf("Stats() = %+v, lost %d", s, lost)
			}
		})
	}
}

func TestLinkDuplicate(t *testing.T) {
	tests := []struct {
		name     string
		dup      float64
		min, max int
	}{
		{"all", 1, 10000, 10000},
		{"25%", 0.25, 2300, 2700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLink(Config{Duplicate: tt.dup, Delay: 5 * ms}, 7)
			dups := 0
			for i, d := range sendAll(l, 10000, 100, ms) {
				want := time.Duration(i)*ms + 5*ms
				for _, at := range d {
					if at != want {
						t.Fatalf("packet %d: deliveries %v, want all at %v", i, d, want)
					}
				}
				if len(d) == 2 {
					dups++
				}
			}
			if dups < tt.min || dups > tt.max {
				t.Errorf("duplicated %d of 10000, want %d..%d", dups, tt.min, tt.max)
			}
			if s := l.Stats(); s.Duplicated != uint64(dups) || s.Delivered != uint64(10000+dups) {
				t.Errorf("Stats() = %+v, duplicated %d", s, dups)
			}
		})
	}
}

func TestLinkDelayJitter(t *testing.T) {
	tests := []struct {
		name          string
		delay, jitter time.Duration
	}{
		{"delay only", 50 * ms, 0},
		{"jitter", 50 * ms, 10 * ms},
		{"jitter beyond delay", 5 * ms, 20 * ms},
		{"jitter only", 0, 3 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Sends far apart, so queueing never binds: each delay is the
			// plain draw.
			l := NewLink(Config{Delay: tt.delay, Jitter: tt.jitter}, 3)
			lo, hi := max(tt.delay-tt.jitter, 0), tt.delay+tt.jitter
			gotLo, gotHi := time.Duration(math.MaxInt64), time.Duration(0)
			var sum time.Duration
			const n = 5000
			for i, d := range sendAll(l, n, 100, time.Second) {
				now := time.Duration(i) * time.Second
				if len(d) != 1 {
					t.Fatalf("packet %d: deliveries %v", i, d)
				}
				got := d[0] - now
				if got < lo || got > hi {
					t.Fatalf("packet %d: delay %v, want %v..%v", i, got, lo, hi)
				}
				gotLo, gotHi = min(gotLo, got), max(gotHi, got)
				sum += got
			}
			// The draws cover the range.
			slack := tt.jitter / 20
			if gotLo > lo+slack || gotHi < hi-slack {
				t.Errorf("delays span %v..%v, want close to %v..%v", gotLo, gotHi, lo, hi)
			}
			if tt.delay >= tt.jitter {
				mean := sum / n
				if d := mean - tt.delay; d < -tt.jitter/20 || d > tt.jitter/20 {
					t.Errorf("mean delay %v, want about %v", mean, tt.delay)
				}
			}
		})
	}
}

func TestLinkJitterKeepsOrder(t *testing.T) {
	l := NewLink(Config{Delay: 30 * ms, Jitter: 20 * ms}, 5)
	var last time.Duration
	for i, d := range sendAll(l, 10000, 100, ms) {
		now := time.Duration(i) * ms
		if len(d) != 1 || d[0] < last || d[0] < now+10*ms || d[0] > now+50*ms {
			t.Fatalf("packet %d sent at %v: deliveries %v after %v", i, now, d, last)
		}
		last = d[0]
	}
}

// overtaken counts the packets that arrive after a packet sent later.
func overtaken(arrivals []time.Duration) int {
	n := 0
	later := time.Duration(math.MaxInt64) // earliest arrival among later packets
	for i := len(arrivals) - 1; i >= 0; i-- {
		if later < arrivals[i] {
			n++
		}
		later = min(later, arrivals[i])
	}
	return n
}

func TestLinkReorder(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		gap     time.Duration
		min     float64
		max     float64
		overMin float64
	}{
		{"none", Config{Delay: 20 * ms, Jitter: 5 * ms}, ms, 0, 0, 0},
		{"10%", Config{Delay: 20 * ms, Reorder: 0.1, ReorderDelay: 50 * ms}, ms, 0.09, 0.11, 0.085},
		{"30% with jitter", Config{Delay: 20 * ms, Jitter: 5 * ms, Reorder: 0.3, ReorderDelay: 50 * ms}, ms, 0.28, 0.32, 0.26},
		{"default hold at snapshot rate", Config{Reorder: 0.2}, 50 * ms, 0.18, 0.22, 0.08},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLink(tt.cfg, 11)
			const n = 10000
			arrivals := make([]time.Duration, n)
			hold := tt.cfg.ReorderDelay
			if hold == 0 {
				hold = DefaultReorderDelay
			}
			for i, d := range sendAll(l, n, 100, tt.gap) {
				now := time.Duration(i) * tt.gap
				if len(d) != 1 || d[0] < now || d[0] > now+tt.cfg.Delay+tt.cfg.Jitter+hold {
					t.Fatalf("packet %d sent at %v: deliveries %v", i, now, d)
				}
				arrivals[i] = d[0]
			}
			held := float64(l.Stats().Reordered) / n
			if held < tt.min || held > tt.max {
				t.Errorf("held back %.3f of packets, want %.2f..%.2f", held, tt.min, tt.max)
			}
			over := float64(overtaken(arrivals)) / n
			if over < tt.overMin || over > held {
				t.Errorf("%.3f of packets overtaken, want %.3f..%.3f (held %.3f)", over, tt.overMin, held, held)
			}
		})
	}
}

func TestLinkReorderHold(t *testing.T) {
	// Every packet held: each arrives within (0, ReorderDelay] after its
	// plain arrival, and a held packet does not hold up later ones.
	l := NewLink(Config{Delay: 10 * ms, Reorder: 1, ReorderDelay: 7 * ms}, 9)
	for i, d := range sendAll(l, 5000, 100, ms) {
		base := time.Duration(i)*ms + 10*ms
		if len(d) != 1 || d[0] <= base || d[0] > base+7*ms {
			t.Fatalf("packet %d: deliveries %v, want in (%v, %v]", i, d, base, base+7*ms)
		}
	}
}

func TestLinkBandwidth(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		gap   time.Duration
		n     int
		want  []time.Duration // nil: dropped
		drops uint64
	}{
		{"burst serialised", Config{Bandwidth: 1000}, 0, 4,
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms}, 0},
		{"burst plus delay", Config{Bandwidth: 1000, Delay: 10 * ms}, 0, 3,
			[]time.Duration{110 * ms, 210 * ms, 310 * ms}, 0},
		{"slower than link", Config{Bandwidth: 1000}, 200 * ms, 3,
			[]time.Duration{100 * ms, 300 * ms, 500 * ms}, 0},
		{"half link rate", Config{Bandwidth: 1000}, 50 * ms, 4,
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms}, 0},
		{"queue limit", Config{Bandwidth: 1000, QueueLimit: 250}, 0, 5,
			[]time.Duration{100 * ms, 200 * ms, -1, -1, -1}, 3},
		{"queue limit exact fit", Config{Bandwidth: 1000, QueueLimit: 300}, 0, 4,
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, -1}, 1},
		// Sent every 60 ms, the backlog grows by 40 bytes a packet until
		// the fifth would make it 260.
		{"queue fills slowly", Config{Bandwidth: 1000, QueueLimit: 250}, 60 * ms, 5,
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms, -1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLink(tt.cfg, 1)
			for i, d := range sendAll(l, tt.n, 100, tt.gap) {
				want := tt.want[i]
				if want < 0 {
					if len(d) != 0 {
						t.Errorf("packet %d: deliveries %v, want dropped", i, d)
					}
					continue
				}
				if len(d) != 1 || d[0] != want {
					t.Errorf("packet %d: deliveries %v, want [%v]", i, d, want)
				}
			}
			if s := l.Stats(); s.Dropped != tt.drops {
				t.Errorf("Dropped = %d, want %d", s.Dropped, tt.drops)
			}
		})
	}
}

func TestLinkBacklog(t *testing.T) {
	l := NewLink(Config{Bandwidth: 1000}, 1)
	for range 3 {
		l.Send(0, 100)
	}
	for _, c := range []struct {
		now  time.Duration
		want int
	}{{0, 300}, {50 * ms, 250}, {150 * ms, 150}, {300 * ms, 0}, {time.Hour, 0}} {
		if got := l.Backlog(c.now); got != c.want {
			t.Errorf("Backlog(%v) = %d, want %d", c.now, got, c.want)
		}
	}
	// Rounding: 1 byte at 3 B/s takes a third of a second, rounded up, and
	// counts as one byte until it is out.
	l = NewLink(Config{Bandwidth: 3}, 1)
	if d := l.Send(0, 1); len(d) != 1 || d[0] != 333333334 {
		t.Errorf("1 byte at 3 B/s: deliveries %v", d)
	}
	if got := l.Backlog(0); got != 1 {
		t.Errorf("Backlog(0) = %d, want 1", got)
	}
	if got := NewLink(Config{}, 1).Backlog(0); got != 0 {
		t.Errorf("unlimited link: Backlog = %d", got)
	}
}

func TestLinkSetConfig(t *testing.T) {
	l := NewLink(Config{Delay: 100 * ms}, 1)
	steps := []struct {
		cfg  *Config
		now  time.Duration
		want []time.Duration
	}{
		{nil, 0, []time.Duration{100 * ms}},
		// A shorter delay does not let a packet overtake the one before.
		{&Config{}, 10 * ms, []time.Duration{100 * ms}},
		{nil, 200 * ms, []time.Duration{200 * ms}},
		{&Config{Delay: 300 * ms}, 210 * ms, []time.Duration{510 * ms}},
		{&Config{Delay: 300 * ms, Loss: 1}, 220 * ms, []time.Duration{}},
		{&Config{Duplicate: 1}, 600 * ms, []time.Duration{600 * ms, 600 * ms}},
	}
	for i, s := range steps {
		if s.cfg != nil {
			l.SetConfig(*s.cfg)
		}
		if got := l.Send(s.now, 10); !slices.Equal(got, s.want) {
			t.Errorf("step %d: deliveries %v, want %v", i, got, s.want)
		}
	}
}

func TestLinkDeterministic(t *testing.T) {
	cfg := Config{Delay: 40 * ms, Jitter: 15 * ms, Loss: 0.2, Duplicate: 0.1, Reorder: 0.1, Bandwidth: 100000, QueueLimit: 3000}
	run := func(cfg Config, seed uint64) [][]time.Duration {
		return sendAll(NewLink(cfg, seed), 5000, 200, 500*time.Microsecond)
	}
	a, b := run(cfg, 99), run(cfg, 99)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatal("same seed and sends gave different deliveries")
	}
	if c := run(cfg, 100); slices.EqualFunc(a, c, slices.Equal) {
		t.Error("different seeds gave the same deliveries")
	}
	// Each packet's loss decision does not depend on the other settings.
	lossOnly := run(Config{Loss: 0.2}, 99)
	noQueue := cfg
	noQueue.Bandwidth, noQueue.QueueLimit = 0, 0
	for i, d := range run(noQueue, 99) {
		if (len(d) == 0) != (len(lossOnly[i]) == 0) {
			t.Fatalf("packet %d: lost with all settings %v, with loss only %v", i, d, lossOnly[i])
		}
	}
}

func TestLinkSendAllocs(t *testing.T) {
	l := NewLink(Config{Delay: 40 * ms, Jitter: 15 * ms, Loss: 0.1, Duplicate: 0.1, Reorder: 0.1, Bandwidth: 1 << 20, QueueLimit: 1 << 16}, 1)
	var now time.Duration
	if a := testing.AllocsPerRun(1000, func() {
		now += ms
		l.Send(now, 1200)
	}); a != 0 {
		t.Errorf("Send allocates %v times per call", a)
	}
}

// Bursts drop every packet for BurstLength after a burst starts, and
// start at about BurstLoss per packet outside a burst.
func TestLinkBurstLoss(t *testing.T) {
	l := NewLink(Config{BurstLoss: 0.01, BurstLength: 200 * time.Millisecond}, 9)
	const n = 20000
	var lost, runs, run int
	longest := 0
	for i := 0; i < n; i++ {
		now := time.Duration(i) * 10 * time.Millisecond // a packet every 10 ms
		if len(l.Send(now, 100)) == 0 {
			lost++
			run++
			longest = max(longest, run)
			continue
		}
		if run > 0 {
			runs++
			if run < 20 {
				t.Fatalf("a burst of %d packets, want at least 20 (200 ms at 10 ms)", run)
			}
		}
		run = 0
	}
	st := l.Stats()
	if st.Bursts == 0 || int(st.Dropped) != lost {
		t.Fatalf("stats %+v, lost %d", st, lost)
	}
	// Each burst loses 20 packets; bursts start at ~1% of the packets
	// outside bursts: about n/(100+20) bursts.
	if want := n / 120; runs < want*7/10 || runs > want*13/10 {
		t.Fatalf("%d bursts, want about %d", runs, want)
	}
	if longest > 40 {
		t.Fatalf("a run of %d lost packets: bursts should not chain so long this often", longest)
	}
}
