package client

import (
	"math"
	"slices"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/net/netsim"
)

// linkRun is what one pass of a simulated link gave.
type linkRun struct {
	frames       int     // cgame frames measured
	extrapolated int     // of those, frames cgame extrapolated
	renderTimes  []int32 // the engine's render time at every measured frame
	deltas       []int32 // and its server-time delta
	nudges       []int32 // and the time nudge in force
	status       AutoNudgeStatus
	lost         int // snapshots the link lost over the whole run
	engine       Stats
}

// maxNudge returns the largest time nudge over the measured frames.
func (r *linkRun) maxNudge() int32 {
	m := int32(math.MinInt32)
	for _, n := range r.nudges {
		m = max(m, n)
	}
	return m
}

// share returns the extrapolated frames as a percentage.
func (r *linkRun) share() float64 { return 100 * float64(r.extrapolated) / float64(r.frames) }

// meanNudge returns the mean time nudge over the measured frames.
func (r *linkRun) meanNudge() float64 {
	s := 0.0
	for _, n := range r.nudges {
		s += float64(n)
	}
	return s / float64(len(r.nudges))
}

// runLink drives the real engine and a cgame on it over a simulated
// clock: the fake server makes a snapshot every 50 ms of server time
// (7000 ms ahead of the client's clock), the server-to-client direction
// of link (a netsim.Link, seeded) decides when each arrives or whether it
// is lost, and the client runs a frame every 16 ms. The first warm ms
// are not measured, then measure ms are. The snapshot stream and the
// frame times do not depend on cfg.
func runLink(t *testing.T, cfg Config, link netsim.Config, seed uint64, warm, measure int32) linkRun {
	return runLinkEvery(t, cfg, link, seed, warm, measure, nil)
}

// runLinkEvery is runLink with a function called before every frame, at
// ms milliseconds since the measure began (negative before), to change
// the link or the client on the way.
func runLinkEvery(t *testing.T, cfg Config, link netsim.Config, seed uint64, warm, measure int32,
	every func(c *Client, l *netsim.Link, ms int32)) linkRun {
	t.Helper()
	c, s := newPair(t, cfg)
	now := int32(0)
	connect(t, c, s, &now)
	cg := cgame.New(c, c.Map(), nil)
	l := netsim.NewLink(link, seed)
	const offset, interval = 7000, 50
	nextSnap := now + offset - now%interval + interval
	type pending struct {
		at, serverTime int32
		lost           bool
	}
	var queue []pending
	var r linkRun
	start := now + warm
	var extrap0 int
	for end := start + measure; now < end; now += 16 {
		if every != nil {
			every(c, l, now-start)
		}
		for nextSnap <= now+offset {
			sent := nextSnap - offset
			p := pending{serverTime: nextSnap}
			if out := l.Send(time.Duration(sent)*time.Millisecond, 200); len(out) == 0 {
				// Lost: it leaves the fake server right after the one
				// before, so that message numbers keep the order of
				// server times.
				p.lost = true
				p.at = sent
				if len(queue) > 0 {
					p.at = queue[len(queue)-1].at
				}
				r.lost++
			} else {
				p.at = int32(out[0] / time.Millisecond)
			}
			queue = append(queue, p)
			nextSnap += interval
		}
		for len(queue) > 0 && queue[0].at <= now {
			q := queue[0]
			s.conn.lose.Store(q.lost)
			s.sendSnapshot(q.serverTime, bg.PlayerState{CommandTime: q.serverTime - 10, ClientNum: 3}, nil, s.deltaFor(), 0)
			s.conn.lose.Store(false)
			queue = queue[1:]
		}
		step(t, c, s, now, bg.UserCmd{})
		cg.Frame(c.Realtime())
		if now < start {
			extrap0 = cg.Stats.FramesExtrapolated
			continue
		}
		if !cg.Ready() {
			t.Fatalf("cgame has no snapshot at %d", now)
		}
		r.frames++
		r.renderTimes = append(r.renderTimes, c.ServerTime())
		r.deltas = append(r.deltas, c.ServerTimeDelta())
		r.nudges = append(r.nudges, c.TimeNudge())
	}
	r.extrapolated = cg.Stats.FramesExtrapolated - extrap0
	r.status = c.AutoNudge()
	r.engine = c.Stats()
	return r
}

// jitter40 is the link: 60 ms ± 40 ms one way (netsim's Jitter
// is the ± range), in order.
var jitter40 = netsim.Config{Delay: 60 * time.Millisecond, Jitter: 40 * time.Millisecond}

// The demonstration. On a link with 40 ms of jitter, cl_autoNudge
// brings the share of frames cgame extrapolates under 1 % while the delay
// it adds to the render time stays under the jitter plus one snapshot
// interval (40 + 50 ms); on a clean link it adds at most
// extrapolateMargin (5 ms: the frame-phase slack Quake III's drift rule
// leaves, by which it extrapolates 4 % of the frames) and 3 ms on
// average. Everything runs on a simulated clock, so the numbers are the
// same on any machine. The added delay is measured against the same run
// without cl_autoNudge: the estimate is the same frame for frame (the
// nudge never feeds back into it), and the render times differ by the
// time nudge alone.
func TestAutoNudge(t *testing.T) {
	const warm, measure = 8000, 20000
	for _, tc := range []struct {
		name     string
		link     netsim.Config
		seeds    []uint64
		maxShare float64 // percent of frames extrapolated with cl_autoNudge
		maxDelay int32   // ms the render time may be held further back
		maxMean  float64 // ms: mean of that delay
	}{
		{"jitter 40 ms", jitter40, []uint64{1, 2}, 1, 40 + 50 - 1, 40},
		{"clean", netsim.Config{Delay: 60 * time.Millisecond}, []uint64{1}, 1, extrapolateMargin, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, seed := range tc.seeds {
				off := runLink(t, Config{}, tc.link, seed, warm, measure)
				on := runLink(t, Config{AutoNudge: true}, tc.link, seed, warm, measure)
				st := on.status
				t.Logf("seed %d: without cl_autoNudge %d of %d frames extrapolated (%.2f %%); with it %d (%.2f %%), delay mean %.1f ms, max %d ms; at the end %.1f ms (target %d, jitter %d ms, loss %.1f %%, %d gaps)",
					seed, off.extrapolated, off.frames, off.share(), on.extrapolated, on.share(),
					on.meanNudge(), on.maxNudge(), st.Delay, st.Target, st.Jitter, 100*st.Loss, st.Samples)
				if on.frames != off.frames || on.frames < 1200 {
					t.Fatalf("%d and %d frames measured", on.frames, off.frames)
				}
				for i := range on.frames {
					if on.deltas[i] != off.deltas[i] {
						t.Fatalf("frame %d: estimate delta %d, without cl_autoNudge %d", i, on.deltas[i], off.deltas[i])
					}
					added := off.renderTimes[i] - on.renderTimes[i]
					if added != on.nudges[i] {
						t.Fatalf("frame %d: render time %d ms behind the run without, nudge %d", i, added, on.nudges[i])
					}
					if added < 0 || added > tc.maxDelay {
						t.Fatalf("frame %d: %d ms of delay added, want 0 to %d", i, added, tc.maxDelay)
					}
					if i > 0 && on.renderTimes[i] < on.renderTimes[i-1] {
						t.Fatalf("frame %d: render time went back from %d to %d", i, on.renderTimes[i-1], on.renderTimes[i])
					}
				}
				if s := on.share(); s >= tc.maxShare {
					t.Errorf("seed %d: %.2f %% of frames extrapolated, want under %v %%", seed, s, tc.maxShare)
				}
				if m := on.meanNudge(); m > tc.maxMean {
					t.Errorf("seed %d: mean delay %.1f ms, want at most %v", seed, m, tc.maxMean)
				}
				if on.extrapolated >= off.extrapolated {
					t.Errorf("seed %d: %d frames extrapolated, not fewer than %d without", seed, on.extrapolated, off.extrapolated)
				}
				if !st.On || st.Samples != AutoNudgeWindow || st.Loss != 0 || st.Outages != 0 {
					t.Errorf("status %+v", st)
				}
			}
		})
	}
}

// Loss: a lost snapshot makes the next gap one interval longer. With 5 %
// loss on top of the jitter, the delay grows to cover the lost ones too
// (still within MaxAutoNudge) and extrapolation falls under 2 % and a
// tenth of what it is without; the status reports the loss.
func TestAutoNudgeLoss(t *testing.T) {
	link := jitter40
	link.Loss = 0.05
	off := runLink(t, Config{}, link, 3, 6000, 15000)
	on := runLink(t, Config{AutoNudge: true}, link, 3, 6000, 15000)
	st := on.status
	t.Logf("without cl_autoNudge %.2f %% of frames extrapolated; with it %.2f %%, delay mean %.1f ms, max %d ms; status %+v",
		off.share(), on.share(), on.meanNudge(), on.maxNudge(), st)
	if s := on.share(); s >= 2 || s > off.share()/10 {
		t.Errorf("%.2f %% of frames extrapolated, want under 2 %% and a tenth of %.2f %%", s, off.share())
	}
	if m := on.maxNudge(); m > MaxAutoNudge {
		t.Errorf("delay reached %d ms", m)
	}
	if st.Loss < 0.02 || st.Loss > 0.09 {
		t.Errorf("loss measured %.3f, want about 0.05", st.Loss)
	}
}

// Turning cl_autoNudge on starts from cl_timeNudge (here -10 ms) and
// moves the render time smoothly; turning it off gives cl_timeNudge back
// at once. Time never runs backwards through it all.
func TestAutoNudgeSwitch(t *testing.T) {
	const on, off = 4000, 10000 // ms after the start of the measure
	r := runLinkEvery(t, Config{TimeNudge: -10}, jitter40, 4, 2000, 12000, func(c *Client, _ *netsim.Link, ms int32) {
		cfg := c.Config()
		cfg.AutoNudge = ms >= on && ms < off
		c.SetConfig(cfg)
	})
	for i, n := range r.nudges {
		at := int32(i) * 16 // ms since the measure began
		switch {
		case at < on || at >= off:
			if n != -10 {
				t.Fatalf("%d ms: nudge %d with cl_autoNudge off, want cl_timeNudge -10", at, n)
			}
		case at < on+16:
			// The render time stays; the estimate may have stepped.
			if n < -10-2 || n > -10+2 {
				t.Fatalf("%d ms: nudge %d as cl_autoNudge goes on, want to start from -10", at, n)
			}
		default:
			// 16 ms frames: the render time is slowed by at most
			// AutoNudgeRise (0.32 ms a frame) or sped up by
			// AutoNudgeFall, give or take rounding and the estimate's
			// steps back (2 ms), or halved when it jumps back.
			if d := r.renderTimes[i] - r.renderTimes[i-1]; d < 8 || d > 16+1 {
				t.Fatalf("%d ms: render time moved %d ms in a 16 ms frame", at, d)
			}
		}
		if i > 0 && r.renderTimes[i] < r.renderTimes[i-1] {
			t.Fatalf("%d ms: render time went back from %d to %d", at, r.renderTimes[i-1], r.renderTimes[i])
		}
	}
	if got := r.nudges[(off-16)/16]; got <= 0 {
		t.Errorf("nudge %d after %d s of cl_autoNudge on a jittery link", got, (off-on)/1000)
	}
}

// A latency jump of 600 ms resets the estimate: the samples start over,
// the delay stays within its bounds and time never runs backwards.
func TestAutoNudgeLatencyJump(t *testing.T) {
	jumped := false
	r := runLinkEvery(t, Config{AutoNudge: true}, jitter40, 5, 3000, 8000, func(_ *Client, l *netsim.Link, ms int32) {
		if ms >= 3000 && !jumped {
			jumped = true
			cfg := l.Config()
			cfg.Delay += 600 * time.Millisecond
			l.SetConfig(cfg)
		}
	})
	if r.engine.TimeResets < 2 {
		t.Fatalf("%d resets of the estimate, want the jump to cause one", r.engine.TimeResets)
	}
	for i, n := range r.nudges {
		if n < 0 || n > MaxAutoNudge {
			t.Fatalf("frame %d: nudge %d", i, n)
		}
		if i > 0 && r.renderTimes[i] < r.renderTimes[i-1] {
			t.Fatalf("frame %d: render time went back from %d to %d", i, r.renderTimes[i-1], r.renderTimes[i])
		}
	}
	if st := r.status; st.Samples >= AutoNudgeWindow || st.Samples < autoNudgeMinSamples {
		t.Errorf("%d samples after the jump, want the window restarted", st.Samples)
	}
}

// fillNudge returns an autoNudge whose window holds samples (gaps of
// 50 ms, frames of 16 ms).
func fillNudge(samples []int32) *autoNudge {
	a := &autoNudge{frameAvg: 16}
	for _, s := range samples {
		a.add(s, 50, 0, 1)
	}
	a.choose()
	return a
}

func repeat(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// The choice: the smallest lag with which the frames that would have
// extrapolated stay within AutoNudgeBudget of the window's frames (256
// gaps of 50 ms at 16 ms a frame: 800 frames, 4 allowed).
func TestAutoNudgeChoose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []int32
		want    int32
		ok      bool
	}{
		{"too few", repeat(autoNudgeMinSamples-1, 7), 0, false},
		{"steady", repeat(AutoNudgeWindow, 7), 7, true},
		{"one late gap", append(repeat(AutoNudgeWindow-1, 0), 40), 0, true},       // 3 frames: within budget
		{"one very late gap", append(repeat(AutoNudgeWindow-1, 0), 90), 26, true}, // 4 frames of 16 ms
		{"2 % late", append(repeat(AutoNudgeWindow-6, 0), repeat(6, 30)...), 30, true},
		{"spread", func() []int32 {
			s := make([]int32, AutoNudgeWindow)
			for i := range s {
				s[i] = int32(i % 64) // 4 gaps at each of 0..63
			}
			return s
		}(), 62, true}, // the 4 gaps at 63: 4 frames
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fillNudge(tc.samples)
			if a.haveLag != tc.ok || (tc.ok && a.targetLag != tc.want) {
				t.Fatalf("target %d (chosen %v), want %d (%v)", a.targetLag, a.haveLag, tc.want, tc.ok)
			}
			if tc.ok && a.frames(a.targetLag, 16) > 4 || tc.ok && a.targetLag > a.sorted[0] && a.frames(a.targetLag-1, 16) <= 4 {
				t.Fatalf("target %d is not the smallest within budget", a.targetLag)
			}
		})
	}
}

// The window slides: the oldest sample leaves the ring and the sorted
// copy together.
func TestAutoNudgeWindowSlides(t *testing.T) {
	a := &autoNudge{frameAvg: 16}
	for i := range 3 * AutoNudgeWindow {
		a.add(int32((i*7919)%101), 50, int32(i%2), 1)
	}
	if a.n != AutoNudgeWindow || a.spanSum != 50*AutoNudgeWindow || a.lostSum != AutoNudgeWindow/2 {
		t.Fatalf("n %d, span %d, lost %d", a.n, a.spanSum, a.lostSum)
	}
	want := slices.Clone(a.sample[:])
	slices.Sort(want)
	if !slices.Equal(want, a.sorted[:]) {
		t.Fatalf("sorted copy %v, ring sorted %v", a.sorted, want)
	}
}

// The delay moves towards the target at AutoNudgeRise and AutoNudgeFall
// ms per second, within 0..MaxAutoNudge, whatever the estimate does.
func TestAutoNudgeRate(t *testing.T) {
	a := &autoNudge{}
	const delta = 5000
	a.frame(16, delta, false, 0)
	a.targetLag, a.haveLag = 80-delta, true // 80 ms at this delta
	for range 125 {                         // 2 s
		a.frame(16, delta, true, 0)
	}
	if want := 2.0 * AutoNudgeRise; math.Abs(a.delay-want) > 0.01 {
		t.Fatalf("delay %.2f after 2 s, want %v", a.delay, want)
	}
	a.targetLag = 0 - delta
	for range 125 {
		a.frame(16, delta, true, 0)
	}
	if want := 2.0*AutoNudgeRise - 2*AutoNudgeFall; math.Abs(a.delay-want) > 0.01 {
		t.Fatalf("delay %.2f after 2 s down, want %v", a.delay, want)
	}
	// The estimate jumps forward 200 ms: the render time stays, up to
	// MaxAutoNudge behind it.
	a.frame(16, delta+200, true, 0)
	if a.delay != MaxAutoNudge || a.nudge != MaxAutoNudge {
		t.Fatalf("delay %.2f (nudge %d), want the bound %d", a.delay, a.nudge, MaxAutoNudge)
	}
	// And back: never ahead of the estimate.
	a.frame(16, delta-200, true, 0)
	if a.delay != 0 {
		t.Fatalf("delay %.2f, want 0", a.delay)
	}
}

// The first target after a gamestate or a reset is taken at once; the
// next ones at the rates. Off, the first target is not kept for later.
func TestAutoNudgeSettles(t *testing.T) {
	for _, on := range []bool{true, false} {
		a := &autoNudge{frameAvg: 16}
		const delta = 3000
		a.frame(16, delta, on, 0)
		a.start(1000, 0, delta, 0, 0)
		a.frame(16, delta, on, 0)
		a.targetLag, a.haveLag = 60-delta, true
		a.frame(16, delta, on, 0)
		want := 60.0
		if !on {
			want = 0
		}
		if a.delay != want {
			t.Fatalf("on %v: delay %.2f after the first target, want %v", on, a.delay, want)
		}
		a.targetLag = 100 - delta
		a.frame(16, delta, true, 0)
		if want += AutoNudgeRise * 0.016; math.Abs(a.delay-want) > 1e-9 {
			t.Fatalf("on %v: delay %.2f after the second target, want %v", on, a.delay, want)
		}
	}
}

// Measuring and choosing allocate nothing, with cl_autoNudge on.
func TestAutoNudgeDoesNotAllocate(t *testing.T) {
	l := newFrameLoop(t, 40)
	cfg := l.c.Config()
	cfg.AutoNudge = true
	l.c.SetConfig(cfg)
	if n := testing.AllocsPerRun(300, l.run); n != 0 {
		t.Fatalf("%v allocations per frame with a snapshot", n)
	}
	if st := l.c.AutoNudge(); !st.On || st.Samples < autoNudgeMinSamples {
		t.Fatalf("%+v", st)
	}
}

// BenchmarkAutoNudgeSnapshot measures recording one gap in a full window
// and choosing the delay again.
func BenchmarkAutoNudgeSnapshot(b *testing.B) {
	a := &autoNudge{frameAvg: 16}
	for i := range AutoNudgeWindow {
		a.add(int32(i*37%80), 50, 0, 1)
	}
	b.ReportAllocs()
	var st, now int32 = 1000, 0
	for i := 0; b.Loop(); i++ {
		st += 50
		now += 50
		// The estimate is the server time; the gap's sample varies.
		a.snapshot(st, now, now-int32(i*37%80), st-now, uint64(i), 0)
	}
	if a.outages != 0 || a.n != AutoNudgeWindow {
		b.Fatalf("%d outages, %d samples", a.outages, a.n)
	}
}
