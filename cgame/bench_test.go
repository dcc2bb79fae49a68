package cgame

import (
	"testing"
)

// steadySim returns a running sim and cgame past their warm-up: the rings
// have filled and every buffer has grown.
func steadySim(tb testing.TB, opts ...simOpt) (*sim, *CGame) {
	s := newSim(tb, opts...)
	g := New(s, s.m, nil)
	s.run(g, 500, nil)
	if !g.Ready() || !g.Predicting {
		tb.Fatal("not running")
	}
	return s, g
}

// Frame allocates nothing in steady state: snapshots, prediction, events
// and entity positions all reuse cgame's storage.
func TestFrameAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	tests := []struct {
		name string
		opts []simOpt
	}{
		{"copying engine", nil},
		{"aliasing engine", []simOpt{withAlias()}},
		{"lossy", []simOpt{withLatency(80, 20), withLoss(5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, g := steadySim(t, tt.opts...)
			// The sim itself allocates nothing per frame either, so all
			// of this is cgame's.
			allocs := testing.AllocsPerRun(1000, func() {
				s.frame()
				g.Frame(s.t)
			})
			if allocs != 0 {
				t.Errorf("%.2f allocations per frame", allocs)
			}
		})
	}
}

// BenchmarkFrame is one client frame of cgame at 60 fps with 40 ms of
// latency (about six usercmds replayed): the sim's work (a fraction of
// it) included; BenchmarkSim is that part alone.
func BenchmarkFrame(b *testing.B) {
	s, g := steadySim(b)
	b.ReportAllocs()
	for b.Loop() {
		s.frame()
		g.Frame(s.t)
	}
	b.ReportMetric(float64(g.Stats.CommandsReplayed)/float64(g.Stats.Frames), "cmds/frame")
}

// BenchmarkSim is the test harness alone, to subtract from BenchmarkFrame.
func BenchmarkSim(b *testing.B) {
	s, _ := steadySim(b)
	b.ReportAllocs()
	for b.Loop() {
		s.frame()
	}
}
