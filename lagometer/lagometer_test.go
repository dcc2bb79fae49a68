package lagometer

import (
	"math"
	"testing"
)

// col is a Column written short in tables.
func col(k Kind, y, h int) Column { return Column{Kind: k, Y: y, Height: h} }

// A scripted run of frames: each lands in the right column with Quake
// III's height, direction and clamping in a 48-pixel box (range 16,
// centre line at row 16).
func TestFrameColumns(t *testing.T) {
	tests := []struct {
		name   string
		offset int32
		extra  bool
		want   Column
	}{
		{"interpolating", -75, false, col(Interpolate, 16, 4)},        // 75·16/300
		{"interpolating rounds", -28, false, col(Interpolate, 16, 1)}, // 1.49
		{"interpolating rounds down", -9, false, col(Interpolate, 16, 0)},
		{"zero offset", 0, false, col(Interpolate, 16, 0)},
		{"extrapolating", 150, true, col(Extrapolate, 8, 8)},
		{"extrapolating full", 300, true, col(Extrapolate, 0, 16)},
		{"extrapolating clamped", 5000, true, col(Extrapolate, 0, 16)},
		{"interpolating clamped", -301, false, col(Interpolate, 16, 16)},
		{"int32 extremes low", math.MinInt32, false, col(Interpolate, 16, 16)},
		{"int32 extremes high", math.MaxInt32, true, col(Extrapolate, 0, 16)},
		// The newest snapshot received was unusable: extrapolated although
		// the offset is negative. The colour follows the flag, the bar the sign.
		{"extrapolating below the line", -60, true, col(Extrapolate, 16, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Lagometer
			l.AddFrame(tt.offset, tt.extra)
			cols := l.FrameColumns(nil, Size)
			if len(cols) != Size {
				t.Fatalf("%d columns, want %d", len(cols), Size)
			}
			if got := cols[Size-1]; got != tt.want {
				t.Errorf("newest column %+v, want %+v", got, tt.want)
			}
			for i, c := range cols[:Size-1] {
				if c != (Column{}) {
					t.Fatalf("column %d = %+v before any sample", i, c)
				}
			}
		})
	}
}

// A scripted run of snapshots, losses and rate-delayed ones: heights
// from the bottom edge of a 48-pixel box (range 24), lost ones full.
func TestSnapshotColumns(t *testing.T) {
	tests := []struct {
		name string
		add  func(l *Lagometer)
		want Column
	}{
		{"ping", func(l *Lagometer) { l.AddSnapshot(150, false) }, col(Ping, 44, 4)},            // 150·24/900
		{"ping rounds", func(l *Lagometer) { l.AddSnapshot(20, false) }, col(Ping, 47, 1)},      // 0.53
		{"ping rounds down", func(l *Lagometer) { l.AddSnapshot(18, false) }, col(Ping, 48, 0)}, // 0.48
		{"zero ping", func(l *Lagometer) { l.AddSnapshot(0, false) }, col(Ping, 48, 0)},
		{"full", func(l *Lagometer) { l.AddSnapshot(900, false) }, col(Ping, 24, 24)},
		{"clamped", func(l *Lagometer) { l.AddSnapshot(2500, false) }, col(Ping, 24, 24)},
		{"unknown ping", func(l *Lagometer) { l.AddSnapshot(-1, false) }, col(Ping, 24, 24)},
		{"rate delayed", func(l *Lagometer) { l.AddSnapshot(450, true) }, col(RateDelayed, 36, 12)},
		{"lost", func(l *Lagometer) { l.AddLost(1) }, col(Lost, 24, 24)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Lagometer
			tt.add(&l)
			cols := l.SnapshotColumns(nil, Size)
			if got := cols[Size-1]; got != tt.want {
				t.Errorf("newest column %+v, want %+v", got, tt.want)
			}
			if cols[Size-2] != (Column{}) {
				t.Errorf("column before the only sample %+v", cols[Size-2])
			}
		})
	}
}

// A short session: the two graphs scroll independently, one column per
// frame and one per snapshot number, the newest at the right edge.
func TestScriptedSession(t *testing.T) {
	var l Lagometer
	// Snapshot 1 arrives, 2 and 3 are lost, 4 was rate-delayed, 5 fine.
	l.AddSnapshot(60, false)
	l.AddLost(2)
	l.AddSnapshot(90, true)
	l.AddSnapshot(30, false)
	// Frames: three interpolated, then two extrapolated while 2 and 3
	// are missing, then interpolated again.
	for _, f := range []Frame{{Offset: -40}, {Offset: -25}, {Offset: -10}, {Offset: 20, Extrapolating: true}, {Offset: 45, Extrapolating: true}, {Offset: -30}} {
		l.AddFrame(f.Offset, f.Extrapolating)
	}
	const size = 12 // ranges: top 4 (centre at row 4), bottom 6
	top := l.FrameColumns(nil, size)
	bottom := l.SnapshotColumns(nil, size)
	wantTop := []Column{
		{}, {}, {}, {}, {}, {},
		col(Interpolate, 4, 1), // 40·4/300 = 0.53
		col(Interpolate, 4, 0),
		col(Interpolate, 4, 0),
		col(Extrapolate, 4, 0),
		col(Extrapolate, 3, 1),
		col(Interpolate, 4, 0),
	}
	wantBottom := []Column{
		{}, {}, {}, {}, {}, {}, {},
		col(Ping, 12, 0), // 60·6/900 = 0.4
		col(Lost, 6, 6),
		col(Lost, 6, 6),
		col(RateDelayed, 11, 1),
		col(Ping, 12, 0),
	}
	for i := range size {
		if top[i] != wantTop[i] {
			t.Errorf("top column %d = %+v, want %+v", i, top[i], wantTop[i])
		}
		if bottom[i] != wantBottom[i] {
			t.Errorf("bottom column %d = %+v, want %+v", i, bottom[i], wantBottom[i])
		}
	}
	if l.FrameCount() != 6 || l.SnapshotCount() != 5 {
		t.Errorf("counts %d frames %d snapshots, want 6 and 5", l.FrameCount(), l.SnapshotCount())
	}
}

// Past Samples the history wraps: the oldest sample drops off the left,
// and a box wider than the history shows nothing beyond it.
func TestWrap(t *testing.T) {
	var l Lagometer
	// Frame k has offset -k, so every column names its frame.
	const total = Samples + 37
	for k := 1; k <= total; k++ {
		l.AddFrame(int32(-k), false)
		l.AddSnapshot(int32(k), k%3 == 0)
	}
	for age := range Samples {
		f, ok := l.Frame(age)
		if !ok || f.Offset != int32(-(total-age)) {
			t.Fatalf("frame age %d = %+v %v, want offset %d", age, f, ok, -(total - age))
		}
		s, ok := l.Snapshot(age)
		if k := total - age; !ok || s.Ping != int32(k) || s.RateDelayed != (k%3 == 0) {
			t.Fatalf("snapshot age %d = %+v %v, want ping %d", age, s, ok, k)
		}
	}
	if _, ok := l.Frame(Samples); ok {
		t.Error("frame older than Samples still remembered")
	}
	if _, ok := l.Snapshot(-1); ok {
		t.Error("snapshot of negative age")
	}

	// A box of 900 pixels, pings at full scale: height 1 pixel per 2 ms.
	const size = 900
	bottom := l.SnapshotColumns(nil, size)
	for i, c := range bottom {
		age := size - 1 - i
		if age >= Samples {
			if c != (Column{}) {
				t.Fatalf("column %d (age %d) = %+v beyond the history", i, age, c)
			}
			continue
		}
		k := total - age
		want := col(Ping, size-k/2, k/2) // k·450/900 rounds to k/2 (k odd rounds up)
		if k%2 == 1 {
			want = col(Ping, size-k/2-1, k/2+1)
		}
		if k%3 == 0 {
			want.Kind = RateDelayed
		}
		if c != want {
			t.Fatalf("column %d (snapshot %d) = %+v, want %+v", i, k, c, want)
		}
	}
	// Scrolling: one more frame moves every column one to the left.
	before := l.FrameColumns(nil, 64)
	l.AddFrame(-300, false)
	after := l.FrameColumns(nil, 64)
	for i := range 63 {
		if after[i] != before[i+1] {
			t.Fatalf("column %d after = %+v, want %+v (was column %d)", i, after[i], before[i+1], i+1)
		}
	}
	if after[63] != col(Interpolate, 21, 21) {
		t.Errorf("new column %+v", after[63])
	}
}

// AddLost adds one sample per snapshot number, at most Samples of them.
func TestAddLost(t *testing.T) {
	var l Lagometer
	l.AddSnapshot(50, false)
	l.AddLost(0)
	l.AddLost(-3)
	if l.SnapshotCount() != 1 {
		t.Fatalf("AddLost(0), AddLost(-3) added samples: %d", l.SnapshotCount())
	}
	l.AddLost(5)
	for age := range 5 {
		if s, _ := l.Snapshot(age); !s.Lost {
			t.Errorf("age %d not lost: %+v", age, s)
		}
	}
	if s, _ := l.Snapshot(5); s.Lost || s.Ping != 50 {
		t.Errorf("age 5 = %+v, want the received one", s)
	}
	l.AddLost(1 << 40)
	if l.SnapshotCount() != 6+Samples {
		t.Errorf("count %d after a huge gap, want %d", l.SnapshotCount(), 6+Samples)
	}
	for _, c := range l.SnapshotColumns(nil, Samples) {
		if c.Kind != Lost {
			t.Fatalf("column %+v after a gap longer than the history", c)
		}
	}
}

// Odd sizes: the ranges are a third and a half of the box, rounded down;
// no size panics.
func TestSizes(t *testing.T) {
	var l Lagometer
	l.AddFrame(1000, true)
	l.AddFrame(-1000, false)
	l.AddLost(1)
	for _, size := range []int{-5, 0, 1, 2, 3, 7, 48, 100, Samples, Samples + 1} {
		top := l.FrameColumns(nil, size)
		bottom := l.SnapshotColumns(nil, size)
		if len(top) != max(size, 0) || len(bottom) != max(size, 0) {
			t.Fatalf("size %d: %d and %d columns", size, len(top), len(bottom))
		}
		if size <= 0 {
			continue
		}
		r := size / 3
		if got := top[size-1]; got != col(Interpolate, r, r) {
			t.Errorf("size %d: newest frame %+v", size, got)
		}
		if size >= 2 {
			if got := top[size-2]; got != col(Extrapolate, 0, r) {
				t.Errorf("size %d: older frame %+v", size, got)
			}
		}
		if got := bottom[size-1]; got != col(Lost, size-size/2, size/2) {
			t.Errorf("size %d: lost %+v", size, got)
		}
		for i, c := range append(top, bottom...) {
			if c.Y < 0 || c.Height < 0 || c.Y+c.Height > size {
				t.Fatalf("size %d: column %d %+v outside the box", size, i%size, c)
			}
		}
	}
}

// Column buffers are reused: a large enough dst is filled in place and
// nothing allocates per frame.
func TestNoAllocs(t *testing.T) {
	var l Lagometer
	top := make([]Column, 0, Samples)
	bottom := make([]Column, 0, Samples)
	array := &top[:1][0]
	n := 0
	allocs := testing.AllocsPerRun(200, func() {
		n++
		l.AddFrame(int32(n%600-300), n%7 == 0)
		if n%3 == 0 {
			l.AddSnapshot(int32(n%1000), n%5 == 0)
		}
		if n%11 == 0 {
			l.AddLost(2)
		}
		top = l.FrameColumns(top, Size)
		bottom = l.SnapshotColumns(bottom, Size)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per frame, want 0", allocs)
	}
	if &top[0] != array || len(top) != Size {
		t.Error("dst not reused")
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{None: "None", Interpolate: "Interpolate", Extrapolate: "Extrapolate",
		Ping: "Ping", RateDelayed: "RateDelayed", Lost: "Lost", Stalled: "Stalled", Kind(99): "Kind(?)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func BenchmarkFrame(b *testing.B) {
	var l Lagometer
	top := make([]Column, Samples)
	bottom := make([]Column, Samples)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		l.AddFrame(int32(i%600-300), i%7 == 0)
		if i%3 == 0 {
			l.AddSnapshot(int32(i%1000), false)
		}
		top = l.FrameColumns(top, Size)
		bottom = l.SnapshotColumns(bottom, Size)
	}
}

// A frame drawn while the game stalled (frame sync) fills the range
// above the centre line, whatever its offset; the frames around it keep
// theirs.
func TestStalledFrames(t *testing.T) {
	tests := []struct {
		name   string
		offset int32
	}{
		{"no offset", 0},
		{"behind", -40},
		{"past", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Lagometer
			l.AddFrame(-75, false)
			l.AddStalledFrame(tt.offset)
			l.AddFrame(150, true)
			cols := l.FrameColumns(nil, Size)
			want := []Column{col(Interpolate, 16, 4), col(Stalled, 0, 16), col(Extrapolate, 8, 8)}
			for i, w := range want {
				if got := cols[Size-3+i]; got != w {
					t.Errorf("column %d: %+v, want %+v", Size-3+i, got, w)
				}
			}
			if f, ok := l.Frame(1); !ok || !f.Stalled || f.Offset != tt.offset {
				t.Errorf("Frame(1) = %+v, %v", f, ok)
			}
		})
	}
}
