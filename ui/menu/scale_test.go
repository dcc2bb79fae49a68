package menu

import (
	"math"
	"testing"
)

// TestHitTestScaled checks that at UI scales 1 and 1.5 the mouse hits
// what is drawn: each item's scaled row, laid edge to edge, is the
// scale-1 row on a screen 1/scale the size, multiplied; a point in a row
// selects it and a click runs it; a point beside the rows hits nothing;
// a click along a slider's scaled bar sets its value.
func TestHitTestScaled(t *testing.T) {
	tests := []struct {
		name  string
		scale float64
		w, h  int
		base  [2]int // the scale-1 screen whose layout, scaled, it must be
	}{
		{"scale 1 at 1280x720", 1, 1280, 720, [2]int{1280, 720}},
		{"scale 1 at 1920x1080", 1, 1920, 1080, [2]int{1920, 1080}},
		{"scale 1.5 at 1920x1080", 1.5, 1920, 1080, [2]int{1280, 720}},
		{"scale 1.5 at 1280x720", 1.5, 1280, 720, [2]int{853, 480}},
	}
	n := func(x int, s float64) int { return int(math.Round(float64(x) * s)) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := newRig(t)
			ref.m.OpenMain()
			want := append([]Item(nil), ref.m.Layout(tt.base[0], tt.base[1]).Items...)

			r := newRig(t)
			r.m.OpenMain()
			r.m.SetScale(tt.scale)
			v := r.m.Layout(tt.w, tt.h)
			if v.Scale != tt.scale {
				t.Fatalf("View.Scale = %v, want %v", v.Scale, tt.scale)
			}
			if len(v.Items) != len(want) || len(v.Items) < 3 {
				t.Fatalf("%d items, want %d (at least 3)", len(v.Items), len(want))
			}
			for i, it := range v.Items {
				w := want[i].Row
				wr := Rect{n(w.X, tt.scale), n(w.Y, tt.scale), n(w.X+w.W, tt.scale) - n(w.X, tt.scale), n(w.Y+w.H, tt.scale) - n(w.Y, tt.scale)}
				if it.Row != wr {
					t.Errorf("item %d row %+v, want %+v", i, it.Row, wr)
				}
				if i > 0 && v.Items[i-1].Row.Y+v.Items[i-1].Row.H != it.Row.Y {
					t.Errorf("item %d does not start where item %d ends", i, i-1)
				}
				if !rectIn(it.Row, v.Panel) {
					t.Errorf("item %d row %+v outside the panel %+v", i, it.Row, v.Panel)
				}
				x, y := centre(it.Row)
				for _, p := range [][2]int{{x, y}, {it.Row.X, it.Row.Y}, {it.Row.X + it.Row.W - 1, it.Row.Y + it.Row.H - 1}} {
					if got := r.m.HitTest(p[0], p[1]); got != i {
						t.Errorf("HitTest(%d, %d) = %d, want %d", p[0], p[1], got, i)
					}
				}
				if got := r.m.HitTest(it.Row.X-1, y); got != -1 {
					t.Errorf("HitTest left of item %d = %d, want -1", i, got)
				}
			}
			if p := v.Panel; p.X < 0 || p.Y < 0 || p.X+p.W > tt.w || p.Y+p.H > tt.h {
				t.Errorf("panel %+v outside the %dx%d screen", p, tt.w, tt.h)
			}
			first := v.Items[0].Row
			if got := r.m.HitTest(first.X+first.W/2, first.Y-1); got != -1 {
				t.Errorf("HitTest above the first row = %d, want -1", got)
			}

			x, y := centre(itemAt(t, r.m.Layout(tt.w, tt.h), "Settings").Row)
			r.m.Click(x, y)
			if r.m.Page() != PageSettings {
				t.Fatalf("page %d after a click on Settings", r.m.Page())
			}
			bar := itemAt(t, r.m.Layout(tt.w, tt.h), "Rate").Bar
			if wantW := n(barWidth, tt.scale); bar.W < wantW-1 || bar.W > wantW+1 {
				t.Errorf("rate bar %d wide, want about %d", bar.W, wantW)
			}
			r.m.Click(bar.X+bar.W/2, bar.Y+bar.H/2)
			if got := r.cvar("rate"); got != "46000" {
				t.Errorf("rate = %q after a click mid-bar, want 46000", got)
			}
		})
	}
}

func rectIn(a, b Rect) bool {
	return a.X >= b.X && a.Y >= b.Y && a.X+a.W <= b.X+b.W && a.Y+a.H <= b.Y+b.H
}

// itemAt returns the item labelled label of v.
func itemAt(tb testing.TB, v *View, label string) Item {
	tb.Helper()
	for _, it := range v.Items {
		if it.Label == label {
			return it
		}
	}
	tb.Fatalf("no item %q", label)
	return Item{}
}
