package lagometer

// Samples is how many frames, and how many snapshots, a Lagometer
// remembers: one pixel column each when drawn. Quake III kept 128; twice
// that lets a box up to 256 pixels wide (a 48-unit box scaled for a large
// screen) scroll over real samples only.
const Samples = 256

// The scale of the two graphs, from Quake III's CG_DrawLagometer.
const (
	// Size is the side of the lagometer's square box on Quake III's
	// 640×480 virtual screen; the box is drawn scaled from it.
	Size = 48
	// MaxRange is the frame offset, in ms, that fills the top graph's
	// range (a third of the box) above or below its centre line
	// (MAX_LAGOMETER_RANGE).
	MaxRange = 300
	// MaxPing is the ping, in ms, that fills the bottom graph's range
	// (half of the box) (MAX_LAGOMETER_PING).
	MaxPing = 900
)

// Frame is one rendered frame on the top graph.
type Frame struct {
	// Offset is the render time minus the server time of the newest
	// snapshot received, in ms: below zero the frame had that much margin
	// left, above zero it was drawn that far past anything received.
	Offset int32
	// Extrapolating says the frame had no next snapshot to interpolate
	// towards and carried entities forward on their velocities.
	Extrapolating bool
	// Stalled says the client's game was stalled (frame sync): it had
	// run cl_maxPredictionFrames past the last confirmed frame and waited
	// for the server, so the frame showed the same moment again.
	Stalled bool
}

// Snapshot is one snapshot number on the bottom graph.
type Snapshot struct {
	// Ping is the time, in ms, since the client sent the newest usercmd
	// packet the snapshot shows executed: a round trip. Below zero means
	// unknown (no recent packet executed yet) and is drawn like a ping
	// past MaxPing, as Quake III's 999 was. Meaningless when Lost.
	Ping int32
	// RateDelayed says the server held a snapshot back before this one
	// to keep under the client's rate (SNAPFLAG_RATE_DELAYED).
	RateDelayed bool
	// Lost says the snapshot never arrived or could not be decoded.
	Lost bool
}

// Lagometer is the history Quake III's lagometer draws: the latest
// Samples frames and the latest Samples snapshot numbers. The zero value
// is empty and ready; adding samples and reading columns allocate
// nothing. It corresponds to cg_draw.c's lagometer_t.
type Lagometer struct {
	frames     [Samples]Frame
	frameCount int
	snaps      [Samples]Snapshot
	snapCount  int
}

// AddFrame records a rendered frame: offsetMs is the render time minus
// the newest received snapshot's server time; extrapolating says no
// next snapshot was at hand (CG_AddLagometerFrameInfo).
func (l *Lagometer) AddFrame(offsetMs int32, extrapolating bool) {
	l.frames[l.frameCount%Samples] = Frame{Offset: offsetMs, Extrapolating: extrapolating}
	l.frameCount++
}

// AddStalledFrame records a frame drawn while the client's game was
// stalled (frame sync), offsetMs as for AddFrame.
func (l *Lagometer) AddStalledFrame(offsetMs int32) {
	l.frames[l.frameCount%Samples] = Frame{Offset: offsetMs, Stalled: true}
	l.frameCount++
}

// AddSnapshot records a snapshot that arrived, with its ping in ms and
// whether the server flagged it rate-delayed
// (CG_AddLagometerSnapshotInfo).
func (l *Lagometer) AddSnapshot(ping int32, rateDelayed bool) {
	l.snaps[l.snapCount%Samples] = Snapshot{Ping: ping, RateDelayed: rateDelayed}
	l.snapCount++
}

// AddLost records n snapshot numbers that never arrived, or arrived
// unusable: the gap between two message numbers read. More than Samples
// at once show the same as Samples.
func (l *Lagometer) AddLost(n int) {
	for range min(n, Samples) {
		l.snaps[l.snapCount%Samples] = Snapshot{Lost: true}
		l.snapCount++
	}
}

// FrameCount returns how many frames were added so far.
func (l *Lagometer) FrameCount() int { return l.frameCount }

// SnapshotCount returns how many snapshot samples (lost ones included)
// were added so far.
func (l *Lagometer) SnapshotCount() int { return l.snapCount }

// Frame returns the frame added age frames ago (0 the newest), false if
// it is not remembered.
func (l *Lagometer) Frame(age int) (Frame, bool) {
	if age < 0 || age >= min(l.frameCount, Samples) {
		return Frame{}, false
	}
	return l.frames[(l.frameCount-1-age)%Samples], true
}

// Snapshot returns the snapshot sample added age samples ago (0 the
// newest), false if it is not remembered.
func (l *Lagometer) Snapshot(age int) (Snapshot, bool) {
	if age < 0 || age >= min(l.snapCount, Samples) {
		return Snapshot{}, false
	}
	return l.snaps[(l.snapCount-1-age)%Samples], true
}

// Kind says what a column's bar shows, and so its colour.
type Kind uint8

// The kinds of bar.
const (
	// None: no sample for this column yet; nothing to draw.
	None Kind = iota
	// Interpolate: a frame drawn between two snapshots (Quake III: blue).
	Interpolate
	// Extrapolate: a frame drawn past the newest snapshot (yellow).
	Extrapolate
	// Ping: a snapshot received, height its ping (green).
	Ping
	// RateDelayed: a snapshot received after the server held one back
	// for the client's rate, height its ping (yellow).
	RateDelayed
	// Lost: a snapshot number that never arrived; a bar the full height
	// of the bottom graph (red).
	Lost
	// Stalled: a frame drawn while the client's game was stalled (frame
	// sync); a bar the full range above the top graph's centre line
	// (magenta).
	Stalled
)

var kindNames = [...]string{"None", "Interpolate", "Extrapolate", "Ping", "RateDelayed", "Lost", "Stalled"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Column is one pixel column of a graph: a vertical bar covering rows
// [Y, Y+Height) of the box, row 0 at the top of the box. A bar of
// Height 0 draws nothing (a zero offset or ping), as in Quake III.
type Column struct {
	Kind   Kind
	Y      int
	Height int
}

// columns returns dst resized to n columns, growing it only when its
// capacity is short.
func columns(dst []Column, n int) []Column {
	if cap(dst) < n {
		return make([]Column, n)
	}
	return dst[:n]
}

// scale returns v·rng/full rounded to the nearest pixel and clamped to
// rng; v ≥ 0.
func scale(v int32, rng, full int) int {
	if int64(v) >= int64(full) {
		return rng
	}
	return (int(v)*rng + full/2) / full
}

// FrameColumns lays out the top graph of a size×size-pixel box in dst,
// resized to size columns (growing only if its capacity is short), and
// returns it. Column size-1, at the right edge, is the newest frame;
// each column to the left is one frame older. The graph's range is a
// third of the box: its centre line lies a third of the way down, a
// positive offset rises above it and a negative one hangs below it, each
// MaxRange ms to the full range and clamped there. The Kind comes from
// the extrapolating flag (Quake III coloured by the offset's sign; the
// two agree but in corner cases, see the package documentation); a
// stalled frame fills the range above the line whatever its offset.
func (l *Lagometer) FrameColumns(dst []Column, size int) []Column {
	dst = columns(dst, max(size, 0))
	rng := len(dst) / 3
	mid := rng
	for i := range dst {
		f, ok := l.Frame(len(dst) - 1 - i)
		if !ok {
			dst[i] = Column{}
			continue
		}
		if f.Stalled {
			dst[i] = Column{Kind: Stalled, Y: mid - rng, Height: rng}
			continue
		}
		c := Column{Kind: Interpolate, Y: mid}
		if f.Extrapolating {
			c.Kind = Extrapolate
		}
		if f.Offset > 0 {
			c.Height = scale(f.Offset, rng, MaxRange)
			c.Y = mid - c.Height
		} else {
			// -Offset without overflow for math.MinInt32.
			c.Height = scale(-max(f.Offset, -MaxRange), rng, MaxRange)
		}
		dst[i] = c
	}
	return dst
}

// SnapshotColumns lays out the bottom graph of a size×size-pixel box in
// dst, resized to size columns (growing only if its capacity is short),
// and returns it. Column size-1 is the newest snapshot number; each
// column to the left is one older. The graph's range is the lower half
// of the box: a ping rises from the bottom edge, MaxPing ms to the full
// range and clamped there (an unknown ping, below zero, too); a lost
// snapshot fills the whole range.
func (l *Lagometer) SnapshotColumns(dst []Column, size int) []Column {
	dst = columns(dst, max(size, 0))
	n := len(dst)
	rng := n / 2
	for i := range dst {
		s, ok := l.Snapshot(n - 1 - i)
		switch {
		case !ok:
			dst[i] = Column{}
		case s.Lost:
			dst[i] = Column{Kind: Lost, Y: n - rng, Height: rng}
		default:
			c := Column{Kind: Ping}
			if s.RateDelayed {
				c.Kind = RateDelayed
			}
			p := s.Ping
			if p < 0 {
				p = MaxPing
			}
			c.Height = scale(p, rng, MaxPing)
			c.Y = n - c.Height
			dst[i] = c
		}
	}
	return dst
}
