package client

import (
	"math"
	"slices"
)

// Limits and rates of cl_autoNudge, the adaptive interpolation delay.
const (
	// MaxAutoNudge bounds the automatic delay, in milliseconds. It may go
	// beyond cl_timeNudge's ±MaxTimeNudge: it is measured, not guessed,
	// and a link with 40 ms of jitter needs more than 30. 150 ms is three
	// snapshot intervals at 20 snapshots a second; a link that needs more
	// has outages, not jitter, and is better shown extrapolating.
	MaxAutoNudge = 150
	// AutoNudgeWindow is how many snapshot gaps the delay is chosen from:
	// about 13 s at 20 snapshots a second.
	AutoNudgeWindow = 256
	// AutoNudgeBudget is the share of the frames the delay lets
	// extrapolate, over the window: 0.5 %.
	AutoNudgeBudget = 0.005
	// AutoNudgeRise is how fast the delay grows, in ms per second: the
	// render time then runs 2 % slow, about as fast as the estimate's
	// own drift correction (2 ms a snapshot).
	AutoNudgeRise = 20
	// AutoNudgeFall is how fast the delay shrinks, in ms per second (the
	// render time runs 0.5 % fast): slower than it grows, so that a quiet
	// moment does not take away the margin a bad link needs.
	AutoNudgeFall = 5
	// autoNudgeMinSamples is how many gaps the window must hold before a
	// target is chosen from it (half a second at 20 snapshots a second;
	// with so few the budget covers them all).
	autoNudgeMinSamples = 10
)

// AutoNudgeStatus is what cl_autoNudge measured and chose, for overlays
// and reports (Client.AutoNudge).
type AutoNudgeStatus struct {
	// On: cl_autoNudge is set and Delay replaces cl_timeNudge.
	On bool
	// Delay is the time nudge in force at the last frame, in
	// milliseconds: the automatic one when On (0 to MaxAutoNudge; for
	// a moment after cl_autoNudge is turned on from a negative
	// cl_timeNudge it is under 0 and rises to 0 at AutoNudgeRise),
	// cl_timeNudge otherwise. The render
	// time is the server-time estimate minus Delay rounded
	// (Client.TimeNudge).
	Delay float64
	// Target is the delay the measurements ask for, at the current
	// estimate; the render time moves towards it at AutoNudgeRise or
	// AutoNudgeFall ms per second. It is computed when cl_autoNudge is
	// off too, to show what it would choose.
	Target int32
	// Jitter is how much later than the median snapshot gap the 99th
	// percentile one ends, in milliseconds: the spread of arrivals the
	// delay has to absorb (lost snapshots included).
	Jitter int32
	// Loss is the share of server messages lost over the window.
	Loss float64
	// Samples is how many snapshot gaps the window holds.
	Samples int
	// Outages counts gaps longer than any delay could cover (more than
	// MaxAutoNudge past the estimate), left out of the window.
	Outages uint64
}

// autoNudge chooses cl_autoNudge's delay. At every new snapshot it
// measures how long after the snapshot before it the render time would
// have had to wait, and it chooses the smallest delay that would have
// kept the frames extrapolating under AutoNudgeBudget of all frames over
// the last AutoNudgeWindow gaps.
//
// A sample is taken at the first frame that has a new snapshot: the
// realtime of the frame before (the last one without it) minus the server
// time of the newest snapshot that frame had. A render time of realtime
// minus lag extrapolated in that gap if and only if the sample exceeds
// lag, and then for (sample-lag)/frame time frames, at least one. A lost
// snapshot makes the gap one interval longer, so loss is counted by the
// same measure.
//
// The samples and the lag do not involve the server-time estimate: with
// cl_autoNudge the render time is realtime minus lag, moved smoothly and
// kept between the estimate minus MaxAutoNudge and the estimate. So the
// estimate's own corrections (its ±2 ms drift, halving it when it is
// 100 ms off) do not move the render time unless they cross those
// bounds. A reset of the estimate (500 ms off: the link or the server
// changed) or a new gamestate clears the samples; the delay in force is
// kept until autoNudgeMinSamples new ones choose another, which is taken
// at once.
type autoNudge struct {
	sample  [AutoNudgeWindow]int32 // ring: realtime minus server time, per gap
	span    [AutoNudgeWindow]int32 // ring: realtime between the gap's two arrivals
	lost    [AutoNudgeWindow]int32 // ring: server messages lost in the gap
	msgs    [AutoNudgeWindow]int32 // ring: and received
	sorted  [AutoNudgeWindow]int32 // the samples, ascending
	n, head int
	spanSum int64
	lostSum int64
	msgSum  int64

	prevTime    int32  // server time of the newest snapshot at the last frame; 0: none
	prevArrival int32  // realtime of the frame that brought it
	prevMsgs    uint64 // Stats.Messages then
	prevDropped uint64 // Stats.SnapshotsDropped then

	lag       float64 // ms: realtime minus render time, with cl_autoNudge
	targetLag int32   // what the samples ask for
	haveLag   bool    // targetLag was chosen from enough samples
	settle    bool    // since start: the first target is taken at once
	delta     int32   // the server-time delta at the last frame
	delay     float64 // the nudge in force at the last frame: delta+lag when on
	nudge     int32   // delay rounded
	frameAvg  float64 // ms between frames, smoothed
	jitter    int32
	outages   uint64
}

// clear forgets the samples. The delay in force is kept.
func (a *autoNudge) clear() {
	a.n, a.head = 0, 0
	a.spanSum, a.lostSum, a.msgSum = 0, 0, 0
	a.haveLag, a.jitter = false, 0
}

// start clears the samples for a new estimate of server time, delta
// (a new gamestate, or a reset), keeping the delay in force. serverTime
// is the newest snapshot's, now the realtime; msgs and dropped are
// Stats.Messages and Stats.SnapshotsDropped.
func (a *autoNudge) start(serverTime, now, delta int32, msgs, dropped uint64) {
	a.clear()
	a.prevTime, a.prevArrival = serverTime, now
	a.prevMsgs, a.prevDropped = msgs, dropped
	a.lag = a.delay - float64(delta)
	a.delta = delta
	a.settle = true
}

// snapshot records the gap that the newest snapshot, of server time
// serverTime, ended at the frame of realtime now; before is the realtime
// of the frame before, delta the server-time delta in force, msgs and
// dropped the counters Stats.Messages and Stats.SnapshotsDropped.
func (a *autoNudge) snapshot(serverTime, now, before, delta int32, msgs, dropped uint64) {
	prevTime, prevArrival := a.prevTime, a.prevArrival
	lost := int32(min(dropped-a.prevDropped, AutoNudgeWindow))
	received := int32(min(msgs-a.prevMsgs, AutoNudgeWindow))
	a.prevTime, a.prevArrival = serverTime, now
	a.prevMsgs, a.prevDropped = msgs, dropped
	if prevTime == 0 || serverTime <= prevTime {
		return
	}
	sample := before - prevTime
	if sample+delta > MaxAutoNudge {
		// Not even the largest delay would have covered it.
		a.outages++
		return
	}
	a.add(sample, max(now-prevArrival, 0), lost, received)
	a.choose()
}

// add puts a sample in the ring and the sorted copy, evicting the oldest.
func (a *autoNudge) add(sample, span, lost, received int32) {
	if a.n == AutoNudgeWindow {
		old := a.sample[a.head]
		a.spanSum -= int64(a.span[a.head])
		a.lostSum -= int64(a.lost[a.head])
		a.msgSum -= int64(a.lost[a.head] + a.msgs[a.head])
		i, _ := slices.BinarySearch(a.sorted[:a.n], old)
		copy(a.sorted[i:a.n-1], a.sorted[i+1:a.n])
		a.n--
	}
	a.sample[a.head], a.span[a.head], a.lost[a.head], a.msgs[a.head] = sample, span, lost, received
	a.head = (a.head + 1) % AutoNudgeWindow
	a.spanSum += int64(span)
	a.lostSum += int64(lost)
	a.msgSum += int64(lost + received)
	i, _ := slices.BinarySearch(a.sorted[:a.n], sample)
	copy(a.sorted[i+1:a.n+1], a.sorted[i:a.n])
	a.sorted[i] = sample
	a.n++
}

// choose sets the target lag: the smallest with which the frames that
// would have extrapolated over the window stay within AutoNudgeBudget of
// all of them (a binary search: fewer frames the larger the lag).
func (a *autoNudge) choose() {
	if a.n < autoNudgeMinSamples {
		return
	}
	frame := max(a.frameAvg, 1)
	budget := AutoNudgeBudget * float64(a.spanSum) / frame
	lo, hi := a.sorted[0]-1, a.sorted[a.n-1] // the answer is in [lo, hi]
	for lo < hi {
		l := lo + (hi-lo)/2
		if a.frames(l, frame) <= budget {
			hi = l
		} else {
			lo = l + 1
		}
	}
	a.targetLag, a.haveLag = lo, true
	a.jitter = a.sorted[quantile(a.n, 0.99)] - a.sorted[quantile(a.n, 0.5)]
}

// frames returns how many frames of the window would have extrapolated
// with a lag of l ms.
func (a *autoNudge) frames(l int32, frame float64) float64 {
	f := 0.0
	for k := a.n - 1; k >= 0 && a.sorted[k] > l; k-- {
		f += math.Ceil(float64(a.sorted[k]-l) / frame)
	}
	return f
}

// quantile returns the index of the q quantile of n sorted values.
func quantile(n int, q float64) int {
	return min(int(q*float64(n)), n-1)
}

// frame runs at every active frame, msec after the one before, with the
// server-time delta in force. With cl_autoNudge (on) it moves the lag
// towards the target, never faster than AutoNudgeRise or AutoNudgeFall,
// and towards a delay of 0..MaxAutoNudge; without, the delay is the
// manual nudge, so that turning cl_autoNudge on starts from there.
func (a *autoNudge) frame(msec, delta int32, on bool, manual int) {
	switch {
	case msec <= 0: // the same millisecond, or the first frame
	case a.frameAvg == 0:
		a.frameAvg = float64(msec)
	default:
		a.frameAvg += (float64(msec) - a.frameAvg) / 16
	}
	a.delta = delta
	if !on {
		a.delay, a.nudge = float64(manual), int32(manual)
		a.lag = a.delay - float64(delta)
		a.settle = a.settle && !a.haveLag
		return
	}
	d := float64(delta)
	t := a.lag
	if a.haveLag {
		t = float64(a.targetLag)
	}
	t = min(max(t, -d), MaxAutoNudge-d) // a delay of 0..MaxAutoNudge
	if a.settle && a.haveLag {
		// The first target of a gamestate or of a reset estimate is
		// taken at once: the render time jumped with the estimate
		// anyway, and setCGameTime slows it down rather than let it run
		// backwards.
		a.settle = false
		a.lag = t
	}
	switch {
	case a.lag < t:
		a.lag = min(t, a.lag+AutoNudgeRise*float64(msec)/1000)
	case a.lag > t:
		a.lag = max(t, a.lag-AutoNudgeFall*float64(msec)/1000)
	}
	// Never further behind the estimate than MaxAutoNudge, nor ahead of
	// it: when the estimate moves back, so does the render time (and
	// setCGameTime slows it down rather than let it run backwards). A
	// delay under 0, left by a negative cl_timeNudge, rises to 0 at
	// AutoNudgeRise instead.
	a.lag = min(max(a.lag, min(a.delay, 0)-d), MaxAutoNudge-d)
	a.delay = d + a.lag
	a.nudge = int32(math.Round(a.delay))
}

// status returns the public view of the state.
func (a *autoNudge) status(on bool) AutoNudgeStatus {
	s := AutoNudgeStatus{On: on, Delay: a.delay, Jitter: a.jitter, Samples: a.n, Outages: a.outages}
	if a.haveLag {
		s.Target = min(max(a.targetLag+a.delta, 0), MaxAutoNudge)
	}
	if a.msgSum > 0 {
		s.Loss = float64(a.lostSum) / float64(a.msgSum)
	}
	return s
}

// AutoNudge returns what cl_autoNudge measured and the delay in force.
func (c *Client) AutoNudge() AutoNudgeStatus { return c.auto.status(c.cfg.AutoNudge) }

// TimeNudge returns the milliseconds the render time was held behind the
// server-time estimate at the last active frame: cl_timeNudge, or with
// cl_autoNudge the automatic delay (AutoNudgeStatus.Delay rounded).
func (c *Client) TimeNudge() int32 { return c.auto.nudge }
