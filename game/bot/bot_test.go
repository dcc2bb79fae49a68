package bot

import (
	"math"
	"testing"

	"tremor/bg"
)

func TestLineOfSight(t *testing.T) {
	m := testMap(t, "",
		"..........",
		"....#.....",
		"..........",
		"..======..",
		"S........S",
	)
	n := NewNav(m, nil)
	// centre of tile (x, y) of the grid (border included)
	c := func(x, y int) bg.Vec {
		return bg.Vec{X: int32(x)*bg.TileUnits + bg.TileUnits/2, Y: int32(y)*bg.TileUnits + bg.TileUnits/2}
	}
	tests := []struct {
		name       string
		a, b       bg.Vec
		want, back bool // a to b, b to a
	}{
		{"same tile", c(1, 1), c(1, 1), true, true},
		{"open row", c(1, 1), c(10, 1), true, true},
		{"through the block", c(1, 2), c(10, 2), false, false},
		{"past the block", c(7, 1), c(6, 3), true, true},
		{"clipping the block", c(6, 1), c(5, 3), false, false},
		{"into the block by its corner", c(4, 1), c(6, 3), false, false},
		{"between corners onto a platform", c(3, 1), c(6, 4), false, true},
		{"up through a platform", c(4, 5), c(4, 3), true, false},
		{"diagonal through a platform", c(2, 3), c(6, 5), false, true},
		{"under the platform", c(1, 5), c(10, 5), true, true},
		{"into the border", c(1, 1), c(0, 1), false, false},
		{"vertical next to the block", c(4, 1), c(4, 3), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.LineOfSight(tt.a, tt.b); got != tt.want {
				t.Errorf("LineOfSight(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := n.LineOfSight(tt.b, tt.a); got != tt.back {
				t.Errorf("LineOfSight(%v, %v) = %v, want %v", tt.b, tt.a, got, tt.back)
			}
		})
	}
}

func TestAngles(t *testing.T) {
	tests := []struct {
		name   string
		dx, dy float64
		want   int32
	}{
		{"right", 1, 0, 0},
		{"down", 0, 1, turn / 4},
		{"left", -1, 0, halfTurn},
		{"up", 0, -1, 3 * turn / 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := angleOf(tt.dx, tt.dy); got != tt.want {
				t.Errorf("angleOf(%v, %v) = %d, want %d", tt.dx, tt.dy, got, tt.want)
			}
		})
	}
	if d := angleDiff(100, turn-100); d != 200 {
		t.Errorf("angleDiff across zero = %d, want 200", d)
	}
	if a := turnToward(turn-100, 100, 50); a != turn-50 {
		t.Errorf("turnToward = %d, want %d", a, turn-50)
	}
}

// TestBallistic checks the grenade arc by flying it.
func TestBallistic(t *testing.T) {
	v, g := float64(bg.Weapons[bg.WPGrenadeLauncher].Speed), float64(bg.Gravity)
	for _, tgt := range [][2]float64{{200 * 16, 0}, {-150 * 16, -64 * 16}, {150 * 16, 100 * 16}, {-40 * 16, 0}} {
		a, ok := ballistic(tgt[0], tgt[1], v, g)
		if !ok {
			t.Fatalf("no arc to %v", tgt)
		}
		tr := bg.Trajectory{Type: bg.TrGravity, Delta: bg.Vec{
			X: int32(v * cosTurn(a)), Y: int32(v * sinTurn(a)),
		}}
		// time at which x is reached
		ms := int32(1000 * tgt[0] / float64(tr.Delta.X))
		p := tr.Evaluate(ms)
		if d := float64(p.Y) - tgt[1]; d > 8*16 || d < -8*16 {
			t.Errorf("arc to %v passes %v px off", tgt, d/bg.UnitsPerPixel)
		}
	}
}

func TestPathSearch(t *testing.T) {
	m := shippedMap(t, "duel1")
	n := NewNav(m, nil)
	s := newSearch(n)
	from := n.Locate(bg.TileFeet(m.Spawns[0].X, m.Spawns[0].Y, nil))
	s.run(from, 0, nil)
	var buf []int32
	for to := int32(0); int(to) < n.NumNodes(); to++ {
		buf = s.path(to, buf)
		if s.dist[to] == unreached {
			continue
		}
		at, cost := from, int32(0)
		for _, e := range buf {
			ed := n.Edge(e)
			if ed.From != at {
				t.Fatalf("path to %v is not a chain at edge %d", n.Node(to), e)
			}
			at, cost = ed.To, cost+ed.Cost
		}
		if at != to || cost != s.dist[to] {
			t.Errorf("path to %v ends at %v costing %d, want cost %d", n.Node(to), n.Node(at), cost, s.dist[to])
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { s.run(from, 0, nil); buf = s.path(0, buf) }); allocs != 0 {
		t.Errorf("search allocates %v times", allocs)
	}
}

// TestNavDeterministic builds a map's graph twice and compares.
func TestNavDeterministic(t *testing.T) {
	m := shippedMap(t, "duel1")
	a, b := buildNav(m, &bg.DefaultParams), buildNav(m, &bg.DefaultParams)
	if len(a.edges) != len(b.edges) || len(a.scripts) != len(b.scripts) {
		t.Fatalf("%d/%d edges, %d/%d script frames", len(a.edges), len(b.edges), len(a.scripts), len(b.scripts))
	}
	for i := range a.edges {
		if a.edges[i] != b.edges[i] {
			t.Fatalf("edge %d differs: %+v vs %+v", i, a.edges[i], b.edges[i])
		}
	}
	if first, second := NewNav(m, nil), NewNav(m, nil); first != second {
		t.Error("NewNav does not cache")
	}
}

// TestBotDeterministic runs the same bots twice and compares every state.
func TestBotDeterministic(t *testing.T) {
	m := shippedMap(t, "duel1")
	run := func() []bg.PlayerState {
		w := newMiniWorld(m)
		for i := 0; i < 3; i++ {
			w.addBot(2+i, uint64(7*i+1), m.Spawns[i])
		}
		var out []bg.PlayerState
		for f := 0; f < 600; f++ {
			w.frame()
			out = append(out, w.ps...)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at state %d: %+v vs %+v", i, a[i], b[i])
		}
	}
}

func TestThinkDoesNotAllocate(t *testing.T) {
	for _, m := range shippedMaps(t) {
		w := newMiniWorld(m)
		for i := 0; i < 4; i++ {
			w.addBot(1+i, uint64(i+1), m.Spawns[i%len(m.Spawns)])
		}
		for f := 0; f < 100; f++ {
			w.frame()
		}
		if allocs := testing.AllocsPerRun(200, w.frame); allocs != 0 {
			t.Errorf("%s: a frame of 4 bots allocates %v times", m.Name, allocs)
		}
	}
}

func BenchmarkNewNav(b *testing.B) {
	for _, m := range shippedMaps(b) {
		b.Run(m.Name, func(b *testing.B) {
			b.ReportAllocs()
			var n *Nav
			for b.Loop() {
				n = buildNav(m, &bg.DefaultParams)
			}
			b.ReportMetric(float64(len(n.nodes)), "nodes")
			b.ReportMetric(float64(len(n.edges)), "edges")
		})
	}
}

// BenchmarkThink measures one bot's Think (with its Pmove) among eight on
// the largest map, in five-minute matches of the test world played over
// and over.
func BenchmarkThink(b *testing.B) {
	var big = shippedMaps(b)[0]
	for _, m := range shippedMaps(b) {
		if m.Width*m.Height > big.Width*big.Height {
			big = m
		}
	}
	var w *miniWorld
	start := func() {
		w = newMiniWorld(big)
		for i := 0; i < 8; i++ {
			w.addBot(1+i%5, uint64(i+1), big.Spawns[i%len(big.Spawns)])
		}
		w.frame() // allocate the buffers
	}
	start()
	b.ReportAllocs()
	frames := 0
	for b.Loop() {
		if frames%6000 == 5999 {
			b.StopTimer()
			start()
			b.StartTimer()
		}
		w.frame()
		frames++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames*len(w.bots)), "ns/think")
}

func cosTurn(a int32) float64 { return math.Cos(float64(a) / radToTurn) }
func sinTurn(a int32) float64 { return math.Sin(float64(a) / radToTurn) }
