package overlay

import (
	"testing"

	"tremor/cgame"
)

// snapsEvery returns received snapshots from first to last server time,
// every step ms, numbered from 1.
func snapsEvery(first, last, step int32) []SnapRecord {
	var r []SnapRecord
	for t, n := first, int32(1); t <= last; t, n = t+step, n+1 {
		r = append(r, SnapRecord{Num: n, ServerTime: t})
	}
	return r
}

func TestStripLayout(t *testing.T) {
	// 1 px per ms: 100 ms behind the render time, 100 ahead.
	cfg := StripConfig{Width: 200, Behind: 100, Ahead: 100, Grid: 50}
	type tick struct {
		x         float64
		rel       int32
		pair, new bool
		lost      bool
	}
	tests := []struct {
		name  string
		in    StripInput
		recs  []SnapRecord
		ticks []tick
		// want
		renderX, estX, snapX, nextX, extrapX, capX float64
		estOff, haveNext, extrap                   bool
		delay, interval                            int32
	}{
		{
			name: "interpolating between the newest two",
			in:   StripInput{Time: 1030, SnapTime: 1000, NextTime: 1050, HaveSnap: true, HaveNext: true, LatestTime: 1050, Nudge: 20, Frac: 0.6},
			recs: snapsEvery(900, 1050, 50),
			// 900 is before the strip's start at 930.
			ticks: []tick{
				{x: 20, rel: -80},
				{x: 70, rel: -30, pair: true},
				{x: 120, rel: 20, pair: true, new: true},
			},
			renderX: 100, estX: 120, snapX: 70, nextX: 120, extrapX: 120, capX: 200,
			haveNext: true, delay: 20, interval: 50,
		},
		{
			name: "a nudge holds the render time a snapshot further back",
			in:   StripInput{Time: 980, SnapTime: 950, NextTime: 1000, HaveSnap: true, HaveNext: true, LatestTime: 1050, Nudge: 70},
			recs: snapsEvery(900, 1050, 50),
			ticks: []tick{
				{x: 20, rel: -80},
				{x: 70, rel: -30, pair: true},
				{x: 120, rel: 20, pair: true},
				{x: 170, rel: 70, new: true},
			},
			renderX: 100, estX: 170, snapX: 70, nextX: 120, extrapX: 170, capX: 200,
			haveNext: true, delay: 70, interval: 50,
		},
		{
			name: "extrapolating past the newest snapshot",
			in:   StripInput{Time: 1080, SnapTime: 1050, HaveSnap: true, LatestTime: 1050, Extrapolating: true},
			recs: snapsEvery(900, 1050, 50),
			ticks: []tick{
				{x: 20, rel: -80},
				{x: 70, rel: -30, pair: true, new: true},
			},
			renderX: 100, estX: 100, snapX: 70, extrapX: 70, capX: 170,
			extrap: true, delay: -30,
		},
		{
			name: "a lost snapshot is a tick of its own, never of the pair",
			in:   StripInput{Time: 1030, SnapTime: 1000, NextTime: 1100, HaveSnap: true, HaveNext: true, LatestTime: 1100},
			recs: []SnapRecord{{1, 1000, false}, {2, 1050, true}, {3, 1100, false}},
			ticks: []tick{
				{x: 70, rel: -30, pair: true},
				{x: 120, rel: 20, lost: true},
				{x: 170, rel: 70, pair: true, new: true},
			},
			renderX: 100, estX: 100, snapX: 70, nextX: 170, extrapX: 170, capX: 200,
			haveNext: true, delay: 70, interval: 100,
		},
		{
			name:    "times off the strip are clamped to its ends",
			in:      StripInput{Time: 5000, SnapTime: 4000, HaveSnap: true, LatestTime: 4000, Nudge: 500, Extrapolating: true},
			recs:    snapsEvery(3800, 4000, 100),
			renderX: 100, estX: 200, snapX: 0, extrapX: 0, capX: 0,
			estOff: true, extrap: true, delay: -1000,
		},
		{
			name: "a negative nudge puts the estimate behind the render time",
			in:   StripInput{Time: 1000, SnapTime: 1000, HaveSnap: true, LatestTime: 1000, Nudge: -30},
			recs: snapsEvery(1000, 1000, 50),
			ticks: []tick{
				{x: 100, rel: 0, pair: true, new: true},
			},
			renderX: 100, estX: 70, snapX: 100, extrapX: 100, capX: 200,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Strip
			s.Layout(cfg, tt.in, tt.recs)
			check := func(what string, got, want float64) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("RenderX", s.RenderX, tt.renderX)
			check("EstimateX", s.EstimateX, tt.estX)
			check("SnapX", s.SnapX, tt.snapX)
			check("NextX", s.NextX, tt.nextX)
			check("ExtrapX", s.ExtrapX, tt.extrapX)
			check("CapX", s.CapX, tt.capX)
			if s.EstimateOff != tt.estOff || s.HaveNext != tt.haveNext || s.Extrapolating != tt.extrap {
				t.Errorf("EstimateOff %v HaveNext %v Extrapolating %v, want %v %v %v",
					s.EstimateOff, s.HaveNext, s.Extrapolating, tt.estOff, tt.haveNext, tt.extrap)
			}
			if s.Delay != tt.delay || s.Interval != tt.interval {
				t.Errorf("Delay %d Interval %d, want %d %d", s.Delay, s.Interval, tt.delay, tt.interval)
			}
			if s.Start != tt.in.Time-100 || s.End != tt.in.Time+100 {
				t.Errorf("span %d..%d, want %d..%d", s.Start, s.End, tt.in.Time-100, tt.in.Time+100)
			}
			if s.NTicks != len(tt.ticks) {
				t.Fatalf("%d ticks %+v, want %d", s.NTicks, s.Ticks[:s.NTicks], len(tt.ticks))
			}
			for i, w := range tt.ticks {
				g := s.Ticks[i]
				if g.X != w.x || g.Rel != w.rel || g.Pair != w.pair || g.Newest != w.new || g.Lost != w.lost {
					t.Errorf("tick %d = %+v, want %+v", i, g, w)
				}
			}
			// Grid: every 50 ms from -100 to +100.
			if s.NGrid != 5 || s.Grid[0] != (GridMark{0, -100}) || s.Grid[2] != (GridMark{100, 0}) || s.Grid[4] != (GridMark{200, 100}) {
				t.Errorf("grid %+v", s.Grid[:s.NGrid])
			}
		})
	}
}

func TestStripDegenerate(t *testing.T) {
	tests := []struct {
		name string
		cfg  StripConfig
	}{
		{"zero config", StripConfig{}},
		{"negative", StripConfig{Width: -5, Behind: -10, Ahead: -10, Grid: -1}},
		{"tiny grid is bounded", StripConfig{Width: 100, Behind: 1000, Ahead: 1000, Grid: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Strip
			s.Layout(tt.cfg, StripInput{Time: 100, HaveSnap: true, SnapTime: 90, LatestTime: 90}, snapsEvery(0, 100, 10))
			if s.NGrid > MaxGridMarks || s.NTicks > HistorySize {
				t.Fatalf("grid %d ticks %d", s.NGrid, s.NTicks)
			}
			for _, x := range []float64{s.RenderX, s.EstimateX, s.SnapX, s.ExtrapX, s.CapX} {
				if x < 0 || x > s.Width || x != x {
					t.Errorf("x %v outside [0, %v]", x, s.Width)
				}
			}
		})
	}
}

func TestStripInputOf(t *testing.T) {
	if in := StripInputOf(nil, 15); in != (StripInput{Nudge: 15}) {
		t.Errorf("nil cgame: %+v", in)
	}
	cg := &cgame.CGame{Time: 1030, Snap: &cgame.Snapshot{ServerTime: 1000}, NextSnap: &cgame.Snapshot{ServerTime: 1050},
		LatestSnapshotTime: 1100, Frac: 0.6}
	want := StripInput{Time: 1030, SnapTime: 1000, NextTime: 1050, HaveSnap: true, HaveNext: true, LatestTime: 1100, Nudge: 40, Frac: 0.6}
	if in := StripInputOf(cg, 40); in != want {
		t.Errorf("got %+v, want %+v", in, want)
	}
}

func TestStripLayoutAllocs(t *testing.T) {
	recs := snapsEvery(0, 3000, 50)
	in := StripInput{Time: 2980, SnapTime: 2950, NextTime: 3000, HaveSnap: true, HaveNext: true, LatestTime: 3000}
	var s Strip
	if a := testing.AllocsPerRun(100, func() { s.Layout(DefaultStrip, in, recs) }); a != 0 {
		t.Errorf("Layout allocates %v times", a)
	}
}

func BenchmarkStripLayout(b *testing.B) {
	recs := snapsEvery(0, 3150, 50)
	in := StripInput{Time: 2980, SnapTime: 2950, NextTime: 3000, HaveSnap: true, HaveNext: true, LatestTime: 3000}
	var s Strip
	b.ReportAllocs()
	for b.Loop() {
		s.Layout(DefaultStrip, in, recs)
	}
}
