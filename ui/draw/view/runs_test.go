package view

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"

	"tremor/bg/tilemap"
	"tremor/maps/arenas"
)

func TestRuns(t *testing.T) {
	for _, tt := range []struct {
		name string
		rows []string // '#' kept
		want []image.Rectangle
	}{
		{"none", []string{"...", "..."}, nil},
		{"all, merged into one", []string{"###", "###"}, []image.Rectangle{image.Rect(0, 0, 3, 2)}},
		{"two runs in a row", []string{"#.#"}, []image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(2, 0, 3, 1)}},
		{"same columns merge, others start anew", []string{"##.", "##.", "###", "##."},
			[]image.Rectangle{image.Rect(0, 0, 2, 2), image.Rect(0, 2, 3, 3), image.Rect(0, 3, 2, 4)}},
		{"one run under two", []string{"#.#", "###"},
			[]image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(2, 0, 3, 1), image.Rect(0, 1, 3, 2)}},
		{"the second of two runs merges", []string{"#.##", "..##"},
			[]image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(2, 0, 4, 2)}},
		{"a gap breaks a merge", []string{"##", "..", "##"},
			[]image.Rectangle{image.Rect(0, 0, 2, 1), image.Rect(0, 2, 2, 3)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rb Runs
			got := rb.Build(0, 0, len(tt.rows[0]), len(tt.rows), func(x, y int) bool { return tt.rows[y][x] == '#' })
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRunsCover checks on random grids, with one Runs reused, that the
// rectangles cover exactly the kept cells, each once.
func TestRunsCover(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var rb Runs
	for n := range 300 {
		w, h := 1+rnd.IntN(24), 1+rnd.IntN(24)
		x0, y0 := rnd.IntN(9)-4, rnd.IntN(9)-4
		density := rnd.Float64()
		kept := make([]bool, w*h)
		for i := range kept {
			kept[i] = rnd.Float64() < density
		}
		count := make([]int, w*h)
		for _, r := range rb.Build(x0, y0, x0+w, y0+h, func(x, y int) bool { return kept[(y-y0)*w+x-x0] }) {
			if r.Empty() || !r.In(image.Rect(x0, y0, x0+w, y0+h)) {
				t.Fatalf("grid %d: rectangle %v outside %dx%d at (%d, %d)", n, r, w, h, x0, y0)
			}
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					count[(y-y0)*w+x-x0]++
				}
			}
		}
		for i, c := range count {
			want := 0
			if kept[i] {
				want = 1
			}
			if c != want {
				t.Fatalf("grid %d: cell (%d, %d) covered %d times, want %d", n, i%w+x0, i/w+y0, c, want)
			}
		}
	}
}

// BenchmarkRunsSky is the sky's rectangles of one frame: arena2's open
// tiles in a 1280×720 screen's worth of tiles.
func BenchmarkRunsSky(b *testing.B) {
	m, err := arenas.Load("arena2")
	if err != nil {
		b.Fatal(err)
	}
	const w, h = 1280/tilemap.TileSize + 1, 720/tilemap.TileSize + 1
	x0, y0 := max(0, m.Width/2-w/2), max(0, m.Height/2-h/2)
	open := func(x, y int) bool {
		t := m.At(x, y)
		return t != tilemap.Solid && t != tilemap.Lava
	}
	var rb Runs
	b.ReportAllocs()
	for b.Loop() {
		rb.Build(x0, y0, x0+w, y0+h, open)
	}
	b.ReportMetric(float64(len(rb.Build(x0, y0, x0+w, y0+h, open))), "rects/op")
}
