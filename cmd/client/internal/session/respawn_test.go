package session

import (
	"testing"

	"tremor/bg"
	"tremor/game"
)

// TestIdleRespawn kills the local player of a local match (the kill
// command) and checks, through the window's session and embedded server
// on a simulated clock, that it is back in the game after
// g_forcerespawn's 3 s without pressing anything, and after the least
// delay, 1.7 s, when it holds fire: Quake III's rule, on the path the
// window's idle player takes.
func TestIdleRespawn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server for a few seconds of game time")
	}
	// A session frame may run several server frames, so the death and
	// the new life are seen up to a frame or two late.
	const slack = 150
	for _, tc := range []struct {
		name     string
		buttons  int32
		min, max int32 // ms of server time from death to the new life
	}{
		{"idle", 0, 3000 - slack, 3000 + slack},
		{"holding fire", bg.ButtonAttack, game.RespawnDelay - slack, game.RespawnDelay + slack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := startLocal(t)
			// frame runs a frame and returns the server's time and its
			// state of the local player (client 0), as the game left
			// them: what the client sees later, here read at once.
			frame := func(cmd bg.UserCmd) (int32, *bg.PlayerState) {
				m.frame(cmd)
				var ps *bg.PlayerState
				srv := m.s.Server()
				srv.GameStates(func(n int, p *bg.PlayerState) {
					if n == 0 && m.s.Active() != nil {
						cp := *p
						ps = &cp
					}
				}, func(*bg.EntityState) {})
				return srv.Time(), ps
			}
			until := func(what string, cmd bg.UserCmd, cond func(*bg.PlayerState) bool) int32 {
				for range 600 {
					if st, ps := frame(cmd); ps != nil && cond(ps) {
						return st
					}
				}
				t.Fatalf("no %s within 600 frames", what)
				return 0
			}
			until("game", bg.UserCmd{}, func(ps *bg.PlayerState) bool { return ps.PmType == bg.PMNormal })
			if err := m.s.Client().AddReliableCommand("kill"); err != nil {
				t.Fatal(err)
			}
			died := until("death", bg.UserCmd{}, func(ps *bg.PlayerState) bool { return ps.PmType == bg.PMDead })
			back := until("respawn", bg.UserCmd{Buttons: tc.buttons}, func(ps *bg.PlayerState) bool { return ps.PmType == bg.PMNormal })
			if d := back - died; d < tc.min || d > tc.max {
				t.Errorf("back %d ms after death, want %d..%d", d, tc.min, tc.max)
			}
		})
	}
}
