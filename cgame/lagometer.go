package cgame

import "tremor/common/proto"

// addLagometerSnapshot feeds the lagometer one snapshot number: s as
// received, or a lost one for nil (CG_AddLagometerSnapshotInfo). Frames
// go straight to Lagometer.AddFrame at the end of Frame.
func (g *CGame) addLagometerSnapshot(s *Snapshot) {
	if s == nil {
		g.Lagometer.AddLost(1)
		return
	}
	g.Lagometer.AddSnapshot(s.Ping, s.Flags&proto.SnapRateDelayed != 0)
}
