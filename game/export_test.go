package game

import "tremor/bg"

// Hooks for the external tests (package game_test).

// FireForTest makes client n shoot weapon along aim at once, as if Pmove
// had produced the EvFireWeapon event.
func (g *Arena) FireForTest(n int, weapon, aim int32) {
	g.ps[n].Aim = aim & 0xffff
	g.cmdTime = g.lv.time
	g.fireWeapon(n, weapon, g.ps[n].Origin, g.lv.time)
}

// TraceTilesForTest exposes the tile raycast.
func (g *Arena) TraceTilesForTest(a, b bg.Vec) (hit bool, end, normal bg.Vec) {
	tr := traceTiles(g.m, a, b)
	return tr.hit, tr.end, tr.normal
}

// FireAtForTest is FireForTest for a usercmd stamped cmdTime: the shot
// is lag-compensated as a human's command of that time would be.
func (g *Arena) FireAtForTest(n int, weapon, aim, cmdTime int32) {
	g.ps[n].Aim = aim & 0xffff
	g.cmdTime = cmdTime
	g.fireWeapon(n, weapon, g.ps[n].Origin, g.lv.time)
}
