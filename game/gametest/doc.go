// Package gametest drives Tremor's server game headless, with no network
// and no clock: a fake engine (Engine) implementing game.Engine, and a
// Harness that runs 50 ms server frames (sv_fps 20) as fast as the
// machine allows, with scripted human clients and bots, and gathers
// statistics from the game's log.
//
// A typical test:
//
//	h := gametest.New(t, "duel1", 1, game.DefaultConfig())
//	a := h.AddClient("alice")
//	h.AddBot("Anvil", 3)
//	a.Cmd.RightMove = 127
//	h.RunFor(5000)
//	t.Log(h.Stats.String())
//
// The order of a frame is the engine's: scripted clients' commands
// arrive (Game.ClientThink), then Game.RunFrame (bots think inside it),
// then the console commands the game issued run (map_restart restarts
// the match in place and reconnects every client).
package gametest
