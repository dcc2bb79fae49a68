package cgame

import "tremor/internal/proto"

// LagometerSamples is how many samples of each kind Lagometer keeps
// (one pixel column each when drawn).
const LagometerSamples = 128

// LagFrame is one rendered frame on the lagometer's upper graph
// (CG_AddLagometerFrameInfo).
type LagFrame struct {
	// Offset is the render time minus the newest snapshot's server time,
	// ms: negative while interpolating (how much margin was left),
	// positive while extrapolating.
	Offset        int32
	Extrapolating bool
}

// LagSnapshot is one snapshot number on the lower graph
// (CG_AddLagometerSnapshotInfo).
type LagSnapshot struct {
	Ping        int32
	RateDelayed bool // the server held it back for the client's rate
	Dropped     bool // it never arrived, or could not be decoded
}

// Lagometer holds the latest frame and snapshot samples, the data Quake
// III's lagometer drew (drawing comes with the window).
type Lagometer struct {
	Frames        [LagometerSamples]LagFrame
	FrameCount    int // frames ever added; the newest is Frames[(FrameCount-1)%LagometerSamples]
	Snapshots     [LagometerSamples]LagSnapshot
	SnapshotCount int // snapshot samples ever added, likewise
}

func (l *Lagometer) addFrame(offset int32, extrapolating bool) {
	l.Frames[l.FrameCount%LagometerSamples] = LagFrame{Offset: offset, Extrapolating: extrapolating}
	l.FrameCount++
}

// addSnapshot adds a sample for s, or a dropped one for nil.
func (l *Lagometer) addSnapshot(s *Snapshot) {
	v := LagSnapshot{Dropped: true}
	if s != nil {
		v = LagSnapshot{Ping: s.Ping, RateDelayed: s.Flags&proto.SnapRateDelayed != 0}
	}
	l.Snapshots[l.SnapshotCount%LagometerSamples] = v
	l.SnapshotCount++
}
