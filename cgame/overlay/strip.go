package overlay

import "tremor/cgame"

// StripConfig is the geometry of the interpolation strip
// (cg_showInterp): a line of server time, Behind ms before the render
// time to Ahead ms after it, Width pixels long. The render time stays at
// the same place; the snapshots move past it from right to left as time
// runs.
type StripConfig struct {
	Width  float64 // pixels
	Behind int32   // ms of server time shown before the render time
	Ahead  int32   // ms shown after it
	Grid   int32   // ms between grid marks (0: none)
}

// DefaultStrip shows 250 ms before the render time and 200 ms after it
// (room for a snapshot interval at 20 Hz, a time nudge up to 150 ms and
// the newest snapshot), over 600 pixels, with a mark every 50 ms.
var DefaultStrip = StripConfig{Width: 600, Behind: 250, Ahead: 200, Grid: 50}

// StripInput is the frame's timing the strip shows, all in server
// milliseconds.
type StripInput struct {
	// Time is the render time (cg.Time): the server time this frame
	// shows.
	Time int32
	// HaveSnap: SnapTime is cgame's Snap; HaveNext: NextTime is its
	// NextSnap. The frame interpolates between the two.
	SnapTime, NextTime int32
	HaveSnap, HaveNext bool
	// LatestTime is the newest snapshot's server time
	// (cg.LatestSnapshotTime): extrapolation starts after it.
	LatestTime int32
	// Nudge is how far the render time is held behind the client's
	// clock of server time (realtime + serverTimeDelta), in ms:
	// cl_timeNudge, or the automatic delay of cl_autoNudge
	// (client.TimeNudge). That clock, Time + Nudge, is the render time
	// without the nudge: it settles between the two newest snapshots,
	// reaching the newest as the next arrives. It is not the server's
	// present, which is later by at least the newest snapshot's one-way
	// delay and the time since it arrived.
	Nudge int32
	// Extrapolating is cg.Extrapolating.
	Extrapolating bool
	// Frac is cg.Frac, the share of the way from Snap to NextSnap.
	Frac float64
}

// StripInputOf returns cgame's timing this frame, with the time nudge
// in force (ms), as the caller reads it from the client engine.
func StripInputOf(cg *cgame.CGame, nudge int32) StripInput {
	in := StripInput{Nudge: nudge}
	if cg == nil || cg.Snap == nil {
		return in
	}
	in.Time = cg.Time
	in.SnapTime, in.HaveSnap = cg.Snap.ServerTime, true
	if cg.NextSnap != nil {
		in.NextTime, in.HaveNext = cg.NextSnap.ServerTime, true
	}
	in.LatestTime = cg.LatestSnapshotTime
	in.Extrapolating = cg.Extrapolating
	in.Frac = cg.Frac
	return in
}

// Tick is one snapshot on the strip.
type Tick struct {
	X    float64 // pixels from the strip's left end
	Time int32   // server time (estimated when Lost)
	Rel  int32   // Time − render time, ms
	Num  int32   // message number
	Lost bool
	// Pair: the snapshot is Snap or NextSnap, one of the two the frame
	// interpolates between.
	Pair bool
	// Newest: the newest snapshot received.
	Newest bool
}

// GridMark is a grid mark every StripConfig.Grid ms from the render
// time.
type GridMark struct {
	X   float64
	Rel int32 // ms from the render time; 0 is the render time
}

// MaxGridMarks bounds the grid marks a Strip holds.
const MaxGridMarks = 64

// Strip is the laid-out interpolation strip of one frame: x positions in
// pixels from its left end, for a drawing to place its marks. Every x is
// within [0, Width]; a time off the strip is clamped to its end and
// flagged.
type Strip struct {
	Width      float64
	Start, End int32 // server times at x 0 and x Width

	// RenderX is the render time (cg.Time), always on the strip.
	RenderX float64
	// EstimateX is the render time without the nudge (the client's
	// clock of server time, StripInput.Nudge); EstimateOff when it lies
	// beyond an end.
	EstimateX   float64
	EstimateOff bool
	// SnapX and NextX are the two snapshots interpolated between
	// (HaveSnap, HaveNext), clamped; Snap is off the left end when the
	// render time has run far past it.
	SnapX, NextX       float64
	HaveSnap, HaveNext bool
	// ExtrapX is where extrapolation starts: the newest snapshot's time
	// (clamped). From there to the right end, a frame would have no
	// NextSnap. CapX is cgame.MaxExtrapolateMsec further: past it,
	// players stop and wait.
	ExtrapX, CapX float64
	// Extrapolating: the render time is past the newest snapshot.
	Extrapolating bool
	// Delay is the newest snapshot's time minus the render time: how far
	// the frame trails the newest news (negative when extrapolating).
	Delay int32
	// Interval is NextSnap − Snap in ms (0 without NextSnap); Frac is
	// cg.Frac.
	Interval int32
	Frac     float64
	// Nudge is StripInput.Nudge.
	Nudge int32

	// Ticks are the snapshots on the strip, oldest first.
	Ticks  [HistorySize]Tick
	NTicks int
	// Grid are the grid marks, left to right.
	Grid  [MaxGridMarks]GridMark
	NGrid int
}

// x maps server time t to the strip, clamped; off reports a clamp.
func (s *Strip) x(t int32) (x float64, off bool) {
	span := float64(s.End - s.Start)
	if span <= 0 {
		return 0, true
	}
	x = float64(t-s.Start) / span * s.Width
	if x < 0 {
		return 0, true
	}
	if x > s.Width {
		return s.Width, true
	}
	return x, false
}

// Layout lays out the strip for one frame: cfg's geometry, in's timing
// and the snapshots recs (oldest first, as Tracker.Records). It
// allocates nothing.
func (s *Strip) Layout(cfg StripConfig, in StripInput, recs []SnapRecord) {
	*s = Strip{Width: max(cfg.Width, 0)}
	behind, ahead := max(cfg.Behind, 0), max(cfg.Ahead, 0)
	if behind+ahead == 0 {
		ahead = 1
	}
	s.Start, s.End = in.Time-behind, in.Time+ahead
	s.Nudge, s.Frac = in.Nudge, in.Frac
	s.RenderX, _ = s.x(in.Time)
	s.EstimateX, s.EstimateOff = s.x(in.Time + in.Nudge)
	if in.HaveSnap {
		s.SnapX, _ = s.x(in.SnapTime)
		s.HaveSnap = true
	}
	if in.HaveNext {
		s.NextX, _ = s.x(in.NextTime)
		s.HaveNext = true
		s.Interval = in.NextTime - in.SnapTime
	}
	latest := in.LatestTime
	if latest == 0 && len(recs) > 0 {
		latest = recs[len(recs)-1].ServerTime
	}
	s.ExtrapX, _ = s.x(latest)
	s.CapX, _ = s.x(latest + cgame.MaxExtrapolateMsec)
	s.Extrapolating = in.Extrapolating
	s.Delay = latest - in.Time

	newest := -1
	for i := len(recs) - 1; i >= 0; i-- {
		if !recs[i].Lost {
			newest = i
			break
		}
	}
	for i, r := range recs {
		if r.ServerTime < s.Start || r.ServerTime > s.End || s.NTicks == len(s.Ticks) {
			continue
		}
		x, _ := s.x(r.ServerTime)
		pair := !r.Lost && (in.HaveSnap && r.ServerTime == in.SnapTime || in.HaveNext && r.ServerTime == in.NextTime)
		s.Ticks[s.NTicks] = Tick{X: x, Time: r.ServerTime, Rel: r.ServerTime - in.Time, Num: r.Num, Lost: r.Lost, Pair: pair, Newest: i == newest}
		s.NTicks++
	}

	if cfg.Grid > 0 {
		// Marks at whole multiples of Grid from the render time.
		first := -(behind / cfg.Grid) * cfg.Grid
		for rel := first; rel <= ahead && s.NGrid < len(s.Grid); rel += cfg.Grid {
			x, _ := s.x(in.Time + rel)
			s.Grid[s.NGrid] = GridMark{X: x, Rel: rel}
			s.NGrid++
		}
	}
}
