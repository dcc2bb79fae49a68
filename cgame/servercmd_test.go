package cgame

import (
	"strconv"
	"testing"
)

// Server commands run once each, in order, when the snapshot that
// follows them becomes current.
func TestServerCommands(t *testing.T) {
	c, g := newScripted(t, nil)
	c.scmds = []string{
		`print "alice entered the game\n"`,
		`chat "alice: hello"`,
		`tchat "(bob): to my team"`,
		`cp "FIGHT!"`,
		`scores 2 0 0 3 12 1 48 2 0 1 5 4 15 1 0`,
		`cs 6 12`,
		`frobnicate`,
		"", // overwritten before cgame read it
		`chat "bob: after the gap"`,
		`map_restart`,
	}
	s := c.add(1000)
	s.ServerCommandSequence = 2
	c.scmdMax = 2
	c.frame(g, 1000)
	if g.Prints.Total != 1 || g.Chat.Total != 1 || g.Chat.Last().Text != "alice: hello" {
		t.Fatalf("after the first snapshot: prints %d chat %+v", g.Prints.Total, g.Chat.Last())
	}
	c.scmdMax = int32(len(c.scmds))
	s = c.add(1050)
	s.ServerCommandSequence = 7
	c.frame(g, 1040) // not current yet
	if g.Chat.Total != 1 {
		t.Fatal("commands ran before their snapshot became current")
	}
	c.frame(g, 1050)
	if g.Chat.Total != 2 || !g.Chat.Last().Team || g.Chat.Last().Text != "(bob): to my team" {
		t.Errorf("team chat %+v", g.Chat.Last())
	}
	if g.CenterPrint.Text != "FIGHT!" || g.CenterPrint.Time != 1050 {
		t.Errorf("centre print %+v", g.CenterPrint)
	}
	want := Scores{Count: 2, Time: 1050}
	want.Players[0] = Score{Client: 3, Score: 12, Deaths: 1, Ping: 48, Minutes: 2, Team: 0}
	want.Players[1] = Score{Client: 1, Score: 5, Deaths: 4, Ping: 15, Minutes: 1, Team: 0}
	if g.Scores != want {
		t.Errorf("scores %+v", g.Scores.Players[:2])
	}
	if g.Stats.UnknownServerCommands != 1 {
		t.Errorf("%d unknown commands", g.Stats.UnknownServerCommands)
	}
	s = c.add(1100)
	s.ServerCommandSequence = 10
	c.frame(g, 1100)
	if g.Stats.ServerCommandsLost != 1 || g.Chat.Total != 3 || g.Chat.Last().Text != "bob: after the gap" {
		t.Errorf("lost %d, chat %+v", g.Stats.ServerCommandsLost, g.Chat.Last())
	}
	if g.Stats.MapRestarts != 1 || g.CenterPrint.Text != "" {
		t.Errorf("map_restart: %d restarts, centre print %q", g.Stats.MapRestarts, g.CenterPrint.Text)
	}
	if g.Stats.ServerCommands != 9 {
		t.Errorf("%d commands executed, want 9", g.Stats.ServerCommands)
	}
}

// Chat rings keep the newest lines, oldest first, and count them all.
func TestLinesRing(t *testing.T) {
	var l Lines
	for i := 0; i < MaxLines+5; i++ {
		l.add(Line{Text: strconv.Itoa(i)})
	}
	if l.Len() != MaxLines || l.Total != MaxLines+5 || l.At(0).Text != "5" || l.Last().Text != strconv.Itoa(MaxLines+4) {
		t.Fatalf("len %d total %d first %q last %q", l.Len(), l.Total, l.At(0).Text, l.Last().Text)
	}
}

// A client started after some commands, and told where the gamestate
// left off, runs only the later ones.
func TestServerCommandSequenceStart(t *testing.T) {
	c, g := newScripted(t, nil)
	c.scmds = []string{`chat "old"`, `chat "older"`, `chat "new"`}
	c.scmdMax = 3
	g.SetServerCommandSequence(2)
	s := c.add(1000)
	s.ServerCommandSequence = 3
	c.frame(g, 1000)
	if g.Chat.Total != 1 || g.Chat.Last().Text != "new" || g.Stats.ServerCommandsLost != 0 {
		t.Fatalf("chat %d %+v", g.Chat.Total, g.Chat.Last())
	}
}

// Malformed scores never index past the text.
func TestScoresMalformed(t *testing.T) {
	for _, cmd := range []string{"scores", "scores 64 1 2 3", "scores -5", "scores 99999999999 0 0 1 2 3 4 5 6", "scores x y z"} {
		c, g := newScripted(t, nil)
		c.scmds, c.scmdMax = []string{cmd}, 1
		s := c.add(1000)
		s.ServerCommandSequence = 1
		c.frame(g, 1000)
		if g.Scores.Count < 0 || g.Scores.Count > 1 {
			t.Errorf("%q: %d rows", cmd, g.Scores.Count)
		}
	}
}

// The server's text is kept as the window draws it: its control
// characters escaped, a print's final newline dropped.
func TestServerTextEscaped(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		line      func(g *CGame) Line
		want      string
	}{
		{"print", "print \"\x1b]0;TITLE\x07 joined\n\"", func(g *CGame) Line { return g.Prints.Last() }, `\x1b]0;TITLE\a joined`},
		{"chat", "chat \"eve: \x1b[2J\x1b[6n\"", func(g *CGame) Line { return g.Chat.Last() }, `eve: \x1b[2J\x1b[6n`},
		{"team chat", "tchat \"eve: \u009b6n\"", func(g *CGame) Line { return g.Chat.Last() }, `eve: \u009b6n`},
		{"centre print", "cp \"\u202eFIGHT\r\"", func(g *CGame) Line { return g.CenterPrint }, `\u202eFIGHT\r`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, g := newScripted(t, nil)
			g.serverCommand(tc.cmd)
			if got := tc.line(g).Text; got != tc.want {
				t.Errorf("%q kept as %q, want %q", tc.cmd, got, tc.want)
			}
		})
	}
}
