package game_test

import (
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// TestFraglimit plays to fraglimit 2, then through the intermission to
// the map_restart and into the next match.
func TestFraglimit(t *testing.T) {
	cfg := testConfig()
	cfg.FragLimit = 2
	h, c := start(t, room(t), cfg, 2)
	a, b := c[0], c[1]
	kill(t, h, a, b)
	if h.Game.Intermission() {
		t.Fatal("intermission after one frag")
	}
	if got := h.Engine.Configstring(bg.CSScores1); got != "1" {
		t.Errorf("CSScores1 %q, want \"1\"", got)
	}
	b.Cmd.Buttons = bg.ButtonAttack
	h.RunUntil(4000, func() bool { return h.PS(b.Num).PmType == bg.PMNormal })
	b.Cmd.Buttons = 0
	h.Frame()
	kill(t, h, a, b)
	h.Frame()
	if !h.Game.Intermission() {
		t.Fatal("no intermission at the fraglimit")
	}
	ended := h.Time()
	if h.Engine.Configstring(bg.CSIntermission) != "1" {
		t.Error("CSIntermission not set")
	}
	for _, cl := range c {
		if h.PS(cl.Num).PmType != bg.PMIntermission {
			t.Errorf("client %d pm type %d, want PMIntermission", cl.Num, h.PS(cl.Num).PmType)
		}
	}
	if !slices.Contains(h.Stats.Exits, "Fraglimit hit.") {
		t.Errorf("exits %q", h.Stats.Exits)
	}
	cmds := h.Engine.Commands(b.Num)
	if !slices.ContainsFunc(cmds, func(s string) bool { return strings.HasPrefix(s, "scores 2 ") }) {
		t.Errorf("no final scores sent: %q", cmds)
	}
	// Frozen: commands do nothing.
	a.Cmd.RightMove = 127
	o := h.PS(a.Num).Origin
	h.RunFor(game.IntermissionTime - 2*gametest.FrameMsec)
	if h.PS(a.Num).Origin != o {
		t.Error("a player moved during the intermission")
	}
	if h.Engine.Restarts != 0 {
		t.Fatal("restarted before the intermission ended")
	}
	h.RunFor(2 * gametest.FrameMsec)
	if h.Engine.Restarts != 1 || !slices.Contains(h.Engine.Executed(), "map_restart 0") {
		t.Fatalf("restarts %d, executed %q", h.Engine.Restarts, h.Engine.Executed())
	}
	if h.Time()-ended > game.IntermissionTime+gametest.FrameMsec {
		t.Errorf("restart %d ms after the end", h.Time()-ended)
	}
	if h.Game.Intermission() || h.Engine.Configstring(bg.CSIntermission) != "" {
		t.Error("still in intermission after the restart")
	}
	if st := h.Game.StartTime(); st < ended+game.IntermissionTime-gametest.FrameMsec || h.Engine.Configstring(bg.CSLevelStartTime) != itoa(int(st)) {
		t.Errorf("new match started at %d, CSLevelStartTime %q; the old one ended at %d", st, h.Engine.Configstring(bg.CSLevelStartTime), ended)
	}
	for _, cl := range c {
		ps := h.PS(cl.Num)
		if !h.Game.InGame(cl.Num) || ps.PmType != bg.PMNormal || ps.Persistant[bg.PersScore] != 0 {
			t.Errorf("client %d after restart: in game %v, pm type %d, score %d", cl.Num, h.Game.InGame(cl.Num), ps.PmType, ps.Persistant[bg.PersScore])
		}
	}
	if h.Stats.Matches != 2 {
		t.Errorf("%d matches, want 2", h.Stats.Matches)
	}
	h.RunFor(1000)
	if h.PS(a.Num).Origin == o {
		t.Error("nobody moves in the new match")
	}
}

func TestTimelimit(t *testing.T) {
	cfg := testConfig()
	cfg.TimeLimit = 1
	h, _ := start(t, room(t), cfg, 2)
	h.RunUntil(61000, h.Game.Intermission)
	if !h.Game.Intermission() {
		t.Fatal("no intermission after the timelimit")
	}
	if elapsed := h.Game.LevelTime() - h.Game.StartTime(); elapsed != 60000 {
		t.Errorf("match ended after %d ms, want 60000", elapsed)
	}
	if !slices.Contains(h.Stats.Exits, "Timelimit hit.") {
		t.Errorf("exits %q", h.Stats.Exits)
	}
	h.RunFor(game.IntermissionTime)
	if h.Engine.Restarts != 1 {
		t.Errorf("%d restarts, want 1", h.Engine.Restarts)
	}
}

func TestTeamDeathmatch(t *testing.T) {
	cfg := testConfig()
	cfg.GameType = bg.GTTeam
	cfg.FragLimit = 2
	h := gametest.NewMap(t, room(t), 1, cfg)
	r0 := h.AddClient("r0")
	b0 := h.AddClient("b0")
	r1 := h.AddClient("r1")
	b1 := h.AddClientInfo(`\name\b1\team\blue`)
	h.Frame()
	want := map[*gametest.Client]int32{r0: bg.TeamRed, b0: bg.TeamBlue, r1: bg.TeamRed, b1: bg.TeamBlue}
	for cl, team := range want {
		if got := h.Game.ClientTeam(cl.Num); got != team {
			t.Errorf("%s on team %d, want %d", h.Game.ClientName(cl.Num), got, team)
		}
		if info := h.Engine.Configstring(bg.CSPlayers + cl.Num); !strings.Contains(info, `\t\`+itoa(int(team))) {
			t.Errorf("player configstring %q lacks team %d", info, team)
		}
	}
	for cl := range want {
		h.PS(cl.Num).Stats[bg.StatHealth] = 100
	}
	// No friendly fire, but the push.
	h.Place(r0.Num, 5, floorRow)
	h.Place(r1.Num, 15, floorRow)
	h.Place(b0.Num, 25, floorRow)
	h.Place(b1.Num, 35, floorRow)
	shoot(h, r0, bg.WPRailgun, aimRight)
	if health(h, r1) != 100 {
		t.Errorf("teammate took damage: health %d", health(h, r1))
	}
	if h.PS(r1.Num).PmFlags&bg.PMFTimeKnockback == 0 {
		t.Error("teammate not pushed")
	}
	if health(h, b0) != 0 || health(h, b1) != 0 {
		t.Errorf("enemies' health %d %d, want both railed dead", health(h, b0), health(h, b1))
	}
	if h.Game.TeamScore(bg.TeamRed) != 2 {
		t.Errorf("red score %d, want 2", h.Game.TeamScore(bg.TeamRed))
	}
	h.Frame()
	if h.Engine.Configstring(bg.CSScores1) != "2" || h.Engine.Configstring(bg.CSScores2) != "0" {
		t.Errorf("scores configstrings %q %q, want 2 and 0", h.Engine.Configstring(bg.CSScores1), h.Engine.Configstring(bg.CSScores2))
	}
	if !h.Game.Intermission() || !slices.Contains(h.Stats.Exits, "Red hit the fraglimit.") {
		t.Errorf("intermission %v exits %q", h.Game.Intermission(), h.Stats.Exits)
	}
}

func TestTeamCommand(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 2)
	a := c[0]
	h.Command(a.Num, "team spectator")
	if h.Game.ClientTeam(a.Num) != bg.TeamSpectator || h.PS(a.Num).PmType != bg.PMSpectator || h.Entity(a.Num).Linked {
		t.Errorf("spectator: team %d pm type %d linked %v", h.Game.ClientTeam(a.Num), h.PS(a.Num).PmType, h.Entity(a.Num).Linked)
	}
	a.Cmd.UpMove = 127
	y := h.PS(a.Num).Origin.Y
	h.RunFor(500)
	if h.PS(a.Num).Origin.Y >= y {
		t.Error("spectator does not fly")
	}
	h.Command(a.Num, "team free")
	if h.Game.ClientTeam(a.Num) != bg.TeamFree || h.PS(a.Num).PmType != bg.PMNormal {
		t.Errorf("back in: team %d pm type %d", h.Game.ClientTeam(a.Num), h.PS(a.Num).PmType)
	}
}
