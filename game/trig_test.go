package game

import (
	"math"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
)

func TestSinCos(t *testing.T) {
	for a := int32(0); a < 65536; a += 7 {
		r := float64(a) * 2 * math.Pi / 65536
		if d := math.Abs(float64(Sin(a)) - math.Sin(r)*One); d > 3 {
			t.Fatalf("Sin(%d) = %d, want %.1f", a, Sin(a), math.Sin(r)*One)
		}
		if d := math.Abs(float64(Cos(a)) - math.Cos(r)*One); d > 3 {
			t.Fatalf("Cos(%d) = %d, want %.1f", a, Cos(a), math.Cos(r)*One)
		}
	}
	for _, tc := range []struct{ a, sin, cos int32 }{
		{0, 0, One}, {16384, One, 0}, {32768, 0, -One}, {49152, -One, 0}, {65536, 0, One},
	} {
		if Sin(tc.a) != tc.sin || Cos(tc.a) != tc.cos {
			t.Errorf("angle %d: sin %d cos %d, want %d %d", tc.a, Sin(tc.a), Cos(tc.a), tc.sin, tc.cos)
		}
	}
}

func TestAngle(t *testing.T) {
	for a := int32(0); a < 65536; a += 13 {
		x, y := Dir(a, 1<<20)
		got := Angle(int64(x), int64(y))
		if d := (got - a + 32768) & 0xffff; d < 32768-2 || d > 32768+2 {
			t.Fatalf("Angle(Dir(%d)) = %d", a, got)
		}
	}
}

func TestIsqrt(t *testing.T) {
	for _, n := range []int64{0, 1, 2, 3, 4, 15, 16, 17, 1 << 20, 1<<40 + 12345, 1<<62 - 1} {
		r := isqrt(n)
		if r*r > n || (r+1)*(r+1) <= n {
			t.Errorf("isqrt(%d) = %d", n, r)
		}
	}
}

func TestTraceTiles(t *testing.T) {
	m, err := tilemap.Parse("t.map", []byte("name \"t\"\ngrid\n"+
		"##########\n"+
		"#..S....S#\n"+
		"#....#...#\n"+
		"#..====..#\n"+
		"#........#\n"+
		"##########\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	const T = bg.TileUnits
	c := func(x, y int32) bg.Vec { return bg.Vec{X: x*T + T/2, Y: y*T + T/2} }
	for _, tc := range []struct {
		name   string
		a, b   bg.Vec
		hit    bool
		end    bg.Vec
		normal bg.Vec
	}{
		{"free", c(1, 1), c(4, 1), false, c(4, 1), bg.Vec{}},
		{"wall right", c(1, 2), c(8, 2), true, bg.Vec{X: 5 * T, Y: 2*T + T/2}, bg.Vec{X: -1}},
		{"wall left", c(8, 2), c(1, 2), true, bg.Vec{X: 6 * T, Y: 2*T + T/2}, bg.Vec{X: 1}},
		{"platform from above", c(4, 2), c(4, 4), true, bg.Vec{X: 4*T + T/2, Y: 3 * T}, bg.Vec{Y: -1}},
		{"platform from below", c(4, 4), c(4, 1), false, c(4, 1), bg.Vec{}},
		{"ceiling", c(2, 4), c(2, -3), true, bg.Vec{X: 2*T + T/2, Y: T}, bg.Vec{Y: 1}},
		{"diagonal into floor", c(1, 4), c(3, 6), true, bg.Vec{X: 1*T + T/2 + T/2, Y: 5 * T}, bg.Vec{Y: -1}},
		{"start in solid", c(0, 0), c(3, 3), true, c(0, 0), bg.Vec{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := traceTiles(m, tc.a, tc.b)
			if tr.hit != tc.hit || tr.end != tc.end || tr.normal != tc.normal {
				t.Errorf("hit %v end %v normal %v, want %v %v %v", tr.hit, tr.end, tr.normal, tc.hit, tc.end, tc.normal)
			}
		})
	}
}

func TestSegmentBox(t *testing.T) {
	mins, maxs := bg.Vec{X: 100, Y: -10}, bg.Vec{X: 120, Y: 10}
	for _, tc := range []struct {
		name string
		a, d bg.Vec
		ok   bool
		frac int64
	}{
		{"straight", bg.Vec{}, bg.Vec{X: 200}, true, FracOne / 2},
		{"short", bg.Vec{}, bg.Vec{X: 50}, false, 0},
		{"above", bg.Vec{Y: -20}, bg.Vec{X: 200}, false, 0},
		{"inside", bg.Vec{X: 110}, bg.Vec{X: 5}, true, 0},
		{"diagonal", bg.Vec{X: 0, Y: -110}, bg.Vec{X: 200, Y: 200}, true, FracOne / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := segmentBox(tc.a, tc.d, mins, maxs)
			if ok != tc.ok || ok && f != tc.frac {
				t.Errorf("got %d %v, want %d %v", f, ok, tc.frac, tc.ok)
			}
		})
	}
}
