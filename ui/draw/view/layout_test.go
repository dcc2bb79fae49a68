package view

import (
	"image"
	"testing"
	"unicode/utf8"
)

func TestClamp(t *testing.T) {
	const mapW, mapH = 1280, 704
	tests := []struct {
		name           string
		v              View
		wantCX, wantCY float64
	}{
		{"inside: kept", View{CX: 640, CY: 352, Scale: 2, W: 1280, H: 720}, 640, 352},
		{"left edge", View{CX: 10, CY: 352, Scale: 2, W: 1280, H: 720}, 320, 352},
		{"right edge", View{CX: 1270, CY: 352, Scale: 2, W: 1280, H: 720}, 960, 352},
		{"top and bottom", View{CX: 640, CY: -50, Scale: 2, W: 1280, H: 720}, 640, 180},
		{"below the map", View{CX: 640, CY: 900, Scale: 2, W: 1280, H: 720}, 640, 524},
		{"map narrower than the view: centred", View{CX: 100, CY: 100, Scale: 0.5, W: 1280, H: 720}, 640, 352},
		{"one axis wider", View{CX: 100, CY: 100, Scale: 1, W: 1280, H: 360}, 640, 180},
		{"in a viewport", View{CX: 0, CY: 0, Scale: 0.5, W: 320, H: 240, X0: 500, Y0: 60}, 320, 240},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.v.Clamp(mapW, mapH)
			if got.CX != tt.wantCX || got.CY != tt.wantCY {
				t.Fatalf("centre %v,%v, want %v,%v", got.CX, got.CY, tt.wantCX, tt.wantCY)
			}
			if got.Scale != tt.v.Scale || got.W != tt.v.W || got.X0 != tt.v.X0 {
				t.Fatalf("Clamp changed more than the centre: %+v", got)
			}
			// Nothing outside the map shows where the map is bigger.
			x0, y0, x1, y1 := got.WorldRect()
			if tt.v.W/tt.v.Scale <= mapW && (x0 < -1e-9 || x1 > mapW+1e-9) {
				t.Errorf("shows x %v..%v of a map 0..%d wide", x0, x1, mapW)
			}
			if tt.v.H/tt.v.Scale <= mapH && (y0 < -1e-9 || y1 > mapH+1e-9) {
				t.Errorf("shows y %v..%v of a map 0..%d high", y0, y1, mapH)
			}
		})
	}
}

func TestViewportRoundTrip(t *testing.T) {
	v := View{CX: 500, CY: 300, Scale: 0.4, W: 330, H: 260, X0: 480, Y0: 58}
	if x, y := v.ToScreen(500, 300); x != 480+165 || y != 58+130 {
		t.Fatalf("camera centre at %v,%v, want the viewport's centre", x, y)
	}
	x, y := v.ToWorld(v.ToScreen(123, -45))
	if x-123 > 1e-9 || 123-x > 1e-9 || y+45 > 1e-9 || -45-y > 1e-9 {
		t.Fatalf("round trip gave %v,%v", x, y)
	}
}

func TestUIScale(t *testing.T) {
	tests := []struct {
		name string
		set  float64
		w, h int
		want float64
	}{
		{"1280x720 auto", 0, 1280, 720, 1},
		{"1366x768 auto", 0, 1366, 768, 1},
		{"1920x1080 auto", 0, 1920, 1080, 1.5},
		{"2560x1440 auto", 0, 2560, 1440, 2},
		{"3840x2160 auto", 0, 3840, 2160, 3},
		{"wide and short: the height decides", 0, 2560, 720, 1},
		{"small window: not below the floor", 0, 640, 360, MinAutoUIScale},
		{"set", 2, 1280, 720, 2},
		{"set too big", 9, 1280, 720, MaxUIScale},
		{"set too small", 0.1, 1280, 720, MinUIScale},
		{"no window yet", 0, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UIScale(tt.set, tt.w, tt.h); got != tt.want {
				t.Fatalf("UIScale(%v, %d, %d) = %v, want %v", tt.set, tt.w, tt.h, got, tt.want)
			}
		})
	}
}

func TestClassroomLayout(t *testing.T) {
	tests := []struct {
		name      string
		w, h      int
		ui        float64
		minPaneW  int
		minPaneH  int
		minPanelH int
	}{
		// Before issue 24 the panes were 313×165 at 1280×720 and the
		// panel had no fixed room; issue 26's fifth row of switches (the
		// carrier of reliable commands) took 258 down to 230.
		{"1280x720", 1280, 720, 1, 320, 225, 7 * 18},
		{"1920x1080", 1920, 1080, 1.5, 480, 340, 7 * 27},
		{"1920x1080 at scale 1", 1920, 1080, 1, 480, 580, 7 * 18},
		{"1024x768", 1024, 768, 1, 250, 270, 7 * 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ClassroomLayout(tt.w, tt.h, tt.ui)
			win := image.Rect(0, 0, tt.w, tt.h)
			type part struct {
				name string
				r    image.Rectangle
			}
			parts := []part{{"header", l.Header}, {"panel", l.Panel}}
			for i := range 3 {
				parts = append(parts, part{"title", l.Title[i]}, part{"pane", l.Pane[i]}, part{"info", l.Info[i]})
			}
			for i := range 2 {
				parts = append(parts, part{"lane", l.Lane[i]}, part{"lane info", l.LaneInfo[i]})
			}
			for i, a := range parts {
				if a.r.Empty() || !a.r.In(win) {
					t.Errorf("%s %v: empty or outside the %v window", a.name, a.r, win)
				}
				for _, b := range parts[i+1:] {
					if a.r.Overlaps(b.r) {
						t.Errorf("%s %v overlaps %s %v", a.name, a.r, b.name, b.r)
					}
				}
			}
			for i := range 3 {
				if p := l.Pane[i]; p.Dx() < tt.minPaneW || p.Dy() < tt.minPaneH {
					t.Errorf("pane %d is %d×%d, want at least %d×%d", i, p.Dx(), p.Dy(), tt.minPaneW, tt.minPaneH)
				}
			}
			if l.Panel.Dy() < tt.minPanelH {
				t.Errorf("panel %d high, want at least %d", l.Panel.Dy(), tt.minPanelH)
			}
			if got := tt.h - l.Panel.Max.Y; got > 2*l.Pad {
				t.Errorf("%d pixels left empty under the panel", got)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		name   string
		placed [][4]float64 // x, y, w, h placed before
		want   [4]float64   // the label asked for
		wantY  float64
		wantOK bool
	}{
		{"free", nil, [4]float64{10, 100, 60, 13}, 100, true},
		{"apart", [][4]float64{{200, 100, 60, 13}}, [4]float64{10, 100, 60, 13}, 100, true},
		{"on another: one step down", [][4]float64{{20, 100, 60, 13}}, [4]float64{10, 104, 60, 13}, 104 + 15, true},
		{"below taken too: one step up", [][4]float64{{20, 106, 60, 13}, {10, 121, 60, 13}}, [4]float64{10, 104, 60, 13}, 104 - 15, true},
		{"everything taken", [][4]float64{{0, 0, 300, 300}}, [4]float64{10, 100, 60, 13}, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Labels
			for _, b := range tt.placed {
				p.boxes = append(p.boxes, labelBox{b[0], b[1], b[0] + b[2], b[1] + b[3]})
			}
			x, y, ok := p.Place(tt.want[0], tt.want[1], tt.want[2], tt.want[3])
			if ok != tt.wantOK || y != tt.wantY || x != tt.want[0] {
				t.Fatalf("Place = %v,%v,%v, want %v,%v,%v", x, y, ok, tt.want[0], tt.wantY, tt.wantOK)
			}
			if ok {
				for _, b := range p.boxes[:len(p.boxes)-1] {
					n := p.boxes[len(p.boxes)-1]
					if n.x0 < b.x1 && b.x0 < n.x1 && n.y0 < b.y1 && b.y0 < n.y1 {
						t.Fatalf("placed %v over %v", n, b)
					}
				}
			}
			p.Reset()
			if _, _, ok := p.Place(0, 0, 300, 300); !ok {
				t.Fatal("Reset left labels placed")
			}
		})
	}
}

func TestLabelsBoundAndReserve(t *testing.T) {
	tests := []struct {
		name         string
		reserve      [][4]float64 // x0, y0, x1, y1
		x, y, w, h   float64
		wantX, wantY float64
		wantOK       bool
	}{
		{"inside", nil, 100, 100, 60, 13, 100, 100, true},
		{"past the right edge: moved in", nil, 620, 100, 60, 13, 580, 100, true},
		{"past the left edge: moved in", nil, -30, 100, 60, 13, 0, 100, true},
		{"over the top: one step down", nil, 100, -5, 60, 13, 100, 10, true},
		{"under the bottom: one step up", nil, 100, 470, 60, 13, 100, 455, true},
		{"on a reserved panel: below it", [][4]float64{{80, 0, 200, 40}}, 100, 30, 60, 13, 100, 45, true},
		{"reserved all round", [][4]float64{{0, 0, 640, 480}}, 100, 100, 60, 13, 100, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Labels
			p.Bound(640, 480)
			for _, r := range tt.reserve {
				p.Reserve(r[0], r[1], r[2], r[3])
			}
			x, y, ok := p.Place(tt.x, tt.y, tt.w, tt.h)
			if x != tt.wantX || y != tt.wantY || ok != tt.wantOK {
				t.Fatalf("Place = %v,%v,%v, want %v,%v,%v", x, y, ok, tt.wantX, tt.wantY, tt.wantOK)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name string
		line string
		cols int
		want []string
	}{
		{"fits", "  deltaNum = 9      8 bits", 40, []string{"  deltaNum = 9      8 bits"}},
		{"padding squeezed", "  netchan header (raw bytes)          16 bits", 38, []string{"  netchan header (raw bytes)   16 bits"}},
		{"squeezed as far as two spaces, then broken", "  abcdefghij      16 bits", 18, []string{"  abcdefghij  16 b", "    its"}},
		{"long, no padding: broken, indented", "  snapshot base=811 valid=true step=50", 20, []string{"  snapshot base=811 ", "    valid=true step=", "    50"}},
		{"deep indent is not kept past half", "            x y z w", 10, []string{"          ", "  x y z w"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Wrap(nil, []string{tt.line}, tt.cols)
			if len(got) != len(tt.want) {
				t.Fatalf("Wrap = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Wrap = %q, want %q", got, tt.want)
				}
				if n := utf8.RuneCountInString(got[i]); n > tt.cols {
					t.Fatalf("line %q is %d characters, more than %d", got[i], n, tt.cols)
				}
			}
		})
	}
}
