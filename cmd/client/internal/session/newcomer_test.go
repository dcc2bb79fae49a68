package session

import (
	"testing"

	"tremor/bg"
)

// TestNewcomer runs the default match's hold through a real embedded
// server with a skill-5 bot on duel1, on a simulated clock: while the menu
// is up the player spectates and is never hurt, and once the menu closes
// the player is in the match. A menu closed before the connection is up
// holds nothing.
func TestNewcomer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server for a minute of game time")
	}
	for _, tc := range []struct {
		name       string
		menuFrames int // frames the menu stays open
		spectate   bool
	}{
		{"menu read for 45 s", 45 * 60, true},
		{"menu closed at once", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := startLocal(t)
			m.t.ExecuteCommandLine([]string{"addbot Rook 5"})
			s := m.s
			var h Newcomer
			h.Arm()
			spectated := false
			frame := func(menuOpen bool) *bg.PlayerState {
				m.frame(bg.UserCmd{})
				if line := h.Step(s.Client(), menuOpen); line != "" {
					if err := s.Client().AddReliableCommand(line); err != nil {
						t.Fatal(err)
					}
				}
				if cg := s.Active(); cg != nil {
					return &cg.Predicted
				}
				return nil
			}
			for range tc.menuFrames {
				ps := frame(true)
				if ps == nil {
					continue
				}
				switch ps.PmType {
				case bg.PMSpectator:
					spectated = true
				case bg.PMDead:
					t.Fatalf("killed at %v while the menu was up", m.now)
				}
				if spectated && ps.PmType != bg.PMSpectator {
					t.Fatalf("back in the match at %v with the menu up", m.now)
				}
			}
			if spectated != tc.spectate {
				t.Fatalf("spectated %v, want %v", spectated, tc.spectate)
			}
			// The menu closes: within two seconds the player is in.
			for i := 0; ; i++ {
				if i == 120 {
					t.Fatal("not in the match 2 s after the menu closed")
				}
				if ps := frame(false); ps != nil && ps.PmType == bg.PMNormal {
					break
				}
			}
			if tc.spectate && h.Step(s.Client(), true) != "" {
				t.Error("the menu opened again: the hold acted again")
			}
		})
	}
}
