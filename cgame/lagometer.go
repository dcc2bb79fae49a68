package cgame

import "tremor/common/proto"

// addLagometerSnapshot feeds the lagometer one snapshot number: s as
// received, or a lost one for nil (CG_AddLagometerSnapshotInfo). Frames
// go to the lagometer at the end of Frame (addLagometerFrame). In frame
// sync the snapshots are the engine's own frames, not messages: the
// engine feeds the bottom graph with FrameMessage instead.
func (g *CGame) addLagometerSnapshot(s *Snapshot) {
	if g.frameSync {
		return
	}
	if s == nil {
		g.Lagometer.AddLost(1)
		return
	}
	g.Lagometer.AddSnapshot(s.Ping, s.Flags&proto.SnapRateDelayed != 0)
}

// addLagometerFrame feeds the lagometer this frame: the render time
// against the newest snapshot (in frame sync, the newest frame the
// engine's game ran), and whether it extrapolated or, in frame sync,
// the game was stalled (CG_AddLagometerFrameInfo).
func (g *CGame) addLagometerFrame() {
	if g.frameSync && g.stalled {
		g.Lagometer.AddStalledFrame(g.Time - g.LatestSnapshotTime)
		return
	}
	g.Lagometer.AddFrame(g.Time-g.LatestSnapshotTime, g.Extrapolating)
}

// FrameMessage tells cgame, in frame sync, that a frames message arrived
// with ping ms (below zero: unknown) after lost messages that did not:
// the lagometer's bottom graph shows the messages from the server, as it
// shows snapshots otherwise.
func (g *CGame) FrameMessage(ping int32, lost int) {
	g.Lagometer.AddLost(lost)
	g.Lagometer.AddSnapshot(ping, false)
}

// SetStalled tells cgame, in frame sync, before its Frame, whether the
// engine's game is stalled (it ran cl_maxPredictionFrames past the last
// confirmed frame and waits for the server): the lagometer marks the
// frame.
func (g *CGame) SetStalled(on bool) { g.stalled = on }
