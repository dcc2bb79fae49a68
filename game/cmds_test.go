package game_test

import (
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
	"tremor/net/cmdargs"
)

func TestChat(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gametype int32
		cmd      string
		to       [3]string // what clients 0, 1, 2 receive
	}{
		{"say", bg.GTFFA, `say hello there`, [3]string{`chat "p0: hello there"`, `chat "p0: hello there"`, `chat "p0: hello there"`}},
		{"say_team in ffa is say", bg.GTFFA, "say_team gg", [3]string{`chat "p0: gg"`, `chat "p0: gg"`, `chat "p0: gg"`}},
		{"say_team", bg.GTTeam, "say_team push left", [3]string{`tchat "(p0): push left"`, "", `tchat "(p0): push left"`}},
		{"tell by number", bg.GTFFA, "tell 1 psst", [3]string{`chat "[p0]: psst"`, `chat "[p0]: psst"`, ""}},
		{"tell by name", bg.GTFFA, "tell P2 psst", [3]string{`chat "[p0]: psst"`, "", `chat "[p0]: psst"`}},
		{"tell nobody", bg.GTFFA, "tell zed psst", [3]string{`print "no such player` + "\n" + `"`, "", ""}},
		{"empty", bg.GTFFA, "say   ", [3]string{}},
		{"unknown", bg.GTFFA, "fly", [3]string{`print "unknown command fly` + "\n" + `"`, "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.GameType = tc.gametype
			h, c := start(t, room(t), cfg, 3)
			h.Engine.ClearCommands()
			h.Command(c[0].Num, tc.cmd)
			for i, want := range tc.to {
				got := h.Engine.Commands(c[i].Num)
				if want == "" && len(got) != 0 || want != "" && !slices.Equal(got, []string{want}) {
					t.Errorf("client %d got %q, want %q", i, got, want)
				}
			}
		})
	}
	t.Run("quotes", func(t *testing.T) {
		// An engine that tokenizes chat ignoring quotes (as Quake III did
		// for say) passes them on; they must not end the command's string.
		h, c := start(t, room(t), testConfig(), 1)
		h.Engine.ClearCommands()
		args := cmdargs.TokenizeIgnoreQuotes(`say hello "there"`)
		h.Game.ClientCommand(c[0].Num, &args)
		if got := h.Engine.Commands(c[0].Num); !slices.Equal(got, []string{`chat "p0: hello 'there'"`}) {
			t.Errorf("got %q", got)
		}
	})
	t.Run("long text is cut", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 1)
		h.Engine.ClearCommands()
		h.Command(c[0].Num, "say "+strings.Repeat("x", 400))
		got := h.Engine.Commands(c[0].Num)
		if len(got) != 1 || len(got[0]) != len(`chat "p0: "`)+game.MaxSayText {
			t.Errorf("got %q", got)
		}
	})
}

// TestScoreCommand checks the scoreboard format: count, red, blue, then
// client score deaths ping minutes team per player, best first.
func TestScoreCommand(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 3)
	h.Command(c[2].Num, "team spectator")
	kill(t, h, c[1], c[0])
	h.Game.SetPing(c[1].Num, 42)
	h.RunFor(61000)
	h.Engine.ClearCommands()
	h.Command(c[0].Num, "score")
	got := h.Engine.Commands(c[0].Num)
	want := "scores 3 0 0 1 1 0 42 1 0 0 0 1 0 1 0 2 0 0 0 1 3"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestNames(t *testing.T) {
	h := gametest.NewMap(t, room(t), 1, testConfig())
	a := h.AddClient("bob")
	b := h.AddClient("BOB")
	c := h.AddClientInfo("\\name\\ \x01ev il\x7f \\team\\free")
	d := h.AddClientInfo(`\team\free`)
	for _, tc := range []struct {
		c    *gametest.Client
		want string
	}{{a, "bob"}, {b, "BOB(2)"}, {c, "ev il"}, {d, "UnnamedPlayer"}} {
		if got := h.Game.ClientName(tc.c.Num); got != tc.want {
			t.Errorf("name %q, want %q", got, tc.want)
		}
		if cs := h.Engine.Configstring(bg.CSPlayers + tc.c.Num); cs != `\n\`+tc.want+`\t\0` {
			t.Errorf("configstring %q", cs)
		}
	}
	h.Engine.ClearCommands()
	h.Engine.SetUserinfo(a.Num, `\name\alice`)
	if h.Game.ClientName(a.Num) != "alice" || !slices.Contains(h.Engine.Commands(b.Num), `print "bob renamed to alice`+"\n\"") {
		t.Errorf("rename: name %q, commands %q", h.Game.ClientName(a.Num), h.Engine.Commands(b.Num))
	}
	h.Disconnect(b.Num)
	if h.Engine.Configstring(bg.CSPlayers+b.Num) != "" || h.Game.Connected(b.Num) {
		t.Error("disconnected client still has a configstring or a slot")
	}
}
