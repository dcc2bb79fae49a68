package game

import (
	"unsafe"

	"tremor/bg"
)

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

// BytesCopiedForTest returns how many bytes SaveState copied into s (and
// LoadState copies back): the entity slots in use, the player states,
// the client records and the item list.
func (s *State) BytesCopiedForTest() int {
	n := s.numEntities
	return n*int(unsafe.Sizeof(entity{})+unsafe.Sizeof(SharedEntity{})) +
		int(unsafe.Sizeof(s.ps)+unsafe.Sizeof(s.clients)) +
		len(s.lv.itemEnts)*int(unsafe.Sizeof(int(0))) +
		int(unsafe.Sizeof(s.cfg)+unsafe.Sizeof(s.pcg)+unsafe.Sizeof(s.lv))
}

// Hooks for DiffState's tests: each returns a field of a saved state to
// change.

func (s *State) LevelTimeForTest() *int32                 { return &s.lv.time }
func (s *State) NumEntitiesForTest() *int                 { return &s.numEntities }
func (s *State) ReseedForTest(seed uint64)                { s.pcg.Seed(seed, seed) }
func (s *State) PlayerStateForTest(n int) *bg.PlayerState { return &s.ps[n] }
func (s *State) SharedForTest(i int) *SharedEntity        { return &s.shared[i] }
func (s *State) RespawnTimeForTest(n int) *int32          { return &s.clients[n].respawnTime }
func (s *State) ConnectedForTest(n int) *int              { return &s.clients[n].state }
func (s *State) NameForTest(n int) *string                { return &s.clients[n].name }
func (s *State) PingForTest(n int) *int                   { return &s.clients[n].ping }
func (s *State) NextThinkForTest(i int) *int32            { return &s.ents[i].nextThink }
func (s *State) SplashForTest(i int) *int32               { return &s.ents[i].splash }
func (s *State) FreeTimeForTest(i int) *int32             { return &s.ents[i].freeTime }
func (s *State) InUseForTest(i int) *bool                 { return &s.ents[i].inUse }
func (s *State) TeamScoreForTest(team int32) *int         { return &s.lv.teamScores[team] }
func (s *State) ConfigForTest() *Config                   { return &s.cfg }
func (s *State) ItemsForTest() []int                      { return s.lv.itemEnts }
