package gametest_test

import (
	"slices"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// TestStatsAgree plays a bot match and checks that the statistics
// gathered from the log agree with the game's own counters.
func TestStatsAgree(t *testing.T) {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	h := gametest.New(t, "arena1", 3, cfg)
	var bots []int
	for _, name := range []string{"Anvil", "Brick", "Cinder", "Dagger"} {
		bots = append(bots, h.AddBot(name, 5))
	}
	h.RunFor(60000)
	t.Log(h.Stats.String())
	if h.Stats.Frames != 1200 || h.Stats.Matches != 1 {
		t.Errorf("frames %d matches %d, want 1200 and 1", h.Stats.Frames, h.Stats.Matches)
	}
	for _, n := range bots {
		ps := h.PS(n)
		if got, want := h.Stats.Frags[n]-h.Stats.Suicides[n], int(ps.Persistant[bg.PersScore]); got != want {
			t.Errorf("client %d: frags−suicides %d, score %d", n, got, want)
		}
		if got, want := h.Stats.Deaths[n], int(ps.Persistant[bg.PersDeaths]); got != want {
			t.Errorf("client %d: deaths %d, PersDeaths %d", n, got, want)
		}
	}
	if h.Stats.TotalShots() == 0 || h.Stats.TotalPickups() == 0 {
		t.Error("the bots neither shot nor picked anything up")
	}
}

func TestEngine(t *testing.T) {
	h := gametest.NewMap(t, gametest.ParseMap(t, "", "..S....S.."), 1, game.DefaultConfig())
	a := h.AddClient("a")
	b := h.AddClient("b")
	h.Engine.ClearCommands()
	h.Engine.SendServerCommand(-1, "x")
	h.Engine.SendServerCommand(b.Num, "y")
	if !slices.Equal(h.Engine.Commands(a.Num), []string{"x"}) || !slices.Equal(h.Engine.Commands(b.Num), []string{"x", "y"}) {
		t.Errorf("commands %q %q", h.Engine.Commands(a.Num), h.Engine.Commands(b.Num))
	}
	h.Disconnect(b.Num)
	if h.Game.Connected(b.Num) || len(h.Engine.Drops()) != 1 {
		t.Error("DropClient did not disconnect the client from the game")
	}
	h.Engine.Command("map_restart 0")
	h.Frame()
	if h.Engine.Restarts != 1 || !h.Game.InGame(a.Num) || h.Game.Connected(b.Num) {
		t.Errorf("restart: %d restarts, a in game %v, b connected %v", h.Engine.Restarts, h.Game.InGame(a.Num), h.Game.Connected(b.Num))
	}
	if !h.RunUntil(1000, func() bool { return h.Time() >= 500 }) || h.RunUntil(100, func() bool { return false }) {
		t.Error("RunUntil")
	}
}
