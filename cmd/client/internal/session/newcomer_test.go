package session

import (
	"io"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
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
			tbl := console.NewTable()
			tbl.SetOutput(io.Discard)
			tbl.Register(Cvars...)
			if err := tbl.Set("net_port", "-1"); err != nil {
				t.Fatal(err)
			}
			s := New(tbl, io.Discard, 1)
			defer s.Close()
			if err := s.StartMap("duel1"); err != nil {
				t.Fatal(err)
			}
			tbl.ExecuteCommandLine([]string{"addbot Rook 5"})
			var h Newcomer
			h.Arm()
			var now time.Duration
			spectated := false
			frame := func(menuOpen bool) *bg.PlayerState {
				now += 16 * time.Millisecond
				time.Sleep(200 * time.Microsecond) // the loopback's pump
				tbl.Execute()
				s.Frame(now, bg.UserCmd{}, false)
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
					t.Fatalf("killed at %v while the menu was up", now)
				}
				if spectated && ps.PmType != bg.PMSpectator {
					t.Fatalf("back in the match at %v with the menu up", now)
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
