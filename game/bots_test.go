package game_test

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

func TestAddBot(t *testing.T) {
	h := gametest.New(t, "duel1", 1, testConfig())
	n := h.AddBot("Anvil", 4)
	if !h.Game.IsBot(n) || !h.Game.InGame(n) {
		t.Fatal("bot not in the game")
	}
	if cs := h.Engine.Configstring(bg.CSPlayers + n); cs != `\n\Anvil\t\0\skill\4` {
		t.Errorf("configstring %q", cs)
	}
	h.RunFor(1000)
	if h.Entity(n).SvFlags&game.SvfBot == 0 {
		t.Error("bot entity lacks SvfBot")
	}
	if ct := h.PS(n).CommandTime; ct != h.Time() {
		t.Errorf("bot command time %d, want the level time %d: bots think every frame", ct, h.Time())
	}
	// Bots come back as bots after map_restart.
	h.Engine.Restart()
	if !h.Game.IsBot(n) || !h.Game.InGame(n) || h.Game.ClientName(n) != "Anvil" {
		t.Error("bot lost in map_restart")
	}
}

func TestAddBotFull(t *testing.T) {
	h := gametest.NewMap(t, room(t), 1, testConfig())
	h.Engine.MaxClients = 2
	h.AddBot("a", 3)
	h.AddClient("b")
	if _, err := h.Game.AddBot("c", 3); err == nil || !strings.HasPrefix(err.Error(), "game: ") {
		t.Errorf("AddBot on a full server: %v", err)
	}
}

// TestBotMinPlayers: bot_minplayers adds bots up to the count, one a
// second, and removes them as humans join.
func TestBotMinPlayers(t *testing.T) {
	cfg := testConfig()
	cfg.BotMinPlayers = 3
	h := gametest.NewMap(t, room(t), 1, cfg)
	h.AddClient("human")
	h.RunFor(3000)
	count := func() (players, bots int) {
		for i := 0; i < bg.MaxClients; i++ {
			if h.Game.Connected(i) {
				players++
				if h.Game.IsBot(i) {
					bots++
				}
			}
		}
		return
	}
	if p, b := count(); p != 3 || b != 2 {
		t.Fatalf("%d players, %d bots; want 3 and 2", p, b)
	}
	h.AddClient("h2")
	h.AddClient("h3")
	h.RunFor(3000)
	if p, b := count(); p != 3 || b != 0 {
		t.Errorf("%d players, %d bots after two humans joined; want 3 and 0", p, b)
	}
	if d := h.Engine.Drops(); len(d) != 2 {
		t.Errorf("drops %v, want the two bots", d)
	}
}

// TestDeterminism runs the same bot match twice and a third time with
// another seed.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) (uint64, int) {
		h := gametest.New(t, "duel1", seed, game.DefaultConfig())
		for _, name := range []string{"Anvil", "Brick", "Cinder", "Dagger"} {
			h.AddBot(name, 3)
		}
		c := h.AddClient("human")
		c.Script = run
		h.RunFor(20000)
		return h.Checksum(), h.Stats.TotalShots()
	}
	a, shots := run(1)
	b, _ := run(1)
	c, _ := run(2)
	if a != b {
		t.Errorf("same seed, different worlds: %#x and %#x", a, b)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 gave the same world %#x", a)
	}
	if shots == 0 {
		t.Error("nobody fired: the match tested nothing")
	}
}
