package cgame

import (
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/common/safetext"
)

// This file is Quake III's cg_servercmds.c: the reliable commands the
// server sends, executed in order as the snapshots that follow them
// become current.

// Line is one line of text from the server, its control characters
// written as escapes (safetext.Line).
type Line struct {
	Text string
	Time int32 // real time it arrived, ms
	Team bool  // a team chat line (tchat)
}

// MaxLines is how many lines a Lines ring keeps.
const MaxLines = 32

// Lines is a ring of the latest lines of one kind.
type Lines struct {
	list  [MaxLines]Line
	Total int // lines ever added
}

// Len returns how many lines are held.
func (l *Lines) Len() int { return min(l.Total, MaxLines) }

// At returns line i, 0 the oldest held.
func (l *Lines) At(i int) Line { return l.list[(l.Total-l.Len()+i)%MaxLines] }

// Last returns the newest line, or a zero Line.
func (l *Lines) Last() Line {
	if l.Total == 0 {
		return Line{}
	}
	return l.At(l.Len() - 1)
}

func (l *Lines) add(line Line) {
	l.list[l.Total%MaxLines] = line
	l.Total++
}

// Score is one player's row of the scoreboard.
type Score struct {
	Client, Score, Deaths, Ping, Minutes, Team int32
}

// Scores is the last scoreboard the server sent (the scores command):
// players sorted as the server ranked them.
type Scores struct {
	Count     int // rows in Players
	Red, Blue int32
	Players   [bg.MaxClients]Score
	Time      int32 // real time it arrived; 0 if none yet
}

// executeNewServerCommands runs the server commands up to latest
// (CG_ExecuteNewServerCommands), each once, in order.
func (g *CGame) executeNewServerCommands(latest int32) {
	if !g.cmdSeqSet {
		// Start with the oldest command the engine still holds.
		g.cmdSeqSet = true
		g.cmdSeq = latest
		for k := latest; k > 0 && k > latest-proto.MaxReliableCommands; k-- {
			if _, ok := g.c.GetServerCommand(k); !ok {
				break
			}
			g.cmdSeq = k - 1
		}
	}
	if gap := latest - g.cmdSeq; gap > proto.MaxReliableCommands {
		g.Stats.ServerCommandsLost += int(gap - proto.MaxReliableCommands)
		g.cmdSeq = latest - proto.MaxReliableCommands
	}
	for g.cmdSeq < latest {
		g.cmdSeq++
		text, ok := g.c.GetServerCommand(g.cmdSeq)
		if !ok {
			g.Stats.ServerCommandsLost++
			continue
		}
		g.serverCommand(text)
	}
}

// serverCommand executes one server command (CG_ServerCommand).
// Configstrings are the engine's: "cs" needs nothing here, the drawing
// reads them through the Client. "disconnect" is the engine's too.
func (g *CGame) serverCommand(text string) {
	g.Stats.ServerCommands++
	a := &g.args
	a.Tokenize(text)
	switch a.Argv(0) {
	case "cp":
		g.CenterPrint = Line{Text: shown(a.Argv(1)), Time: g.RealTime}
	case "print":
		g.Prints.add(Line{Text: shown(a.Argv(1)), Time: g.RealTime})
	case "chat":
		g.Chat.add(Line{Text: shown(a.Argv(1)), Time: g.RealTime})
	case "tchat":
		g.Chat.add(Line{Text: shown(a.Argv(1)), Time: g.RealTime, Team: true})
	case "scores":
		g.parseScores()
	case "map_restart":
		g.mapRestart()
	case "cs", "bcs0", "bcs1", "bcs2", "disconnect", "":
	default:
		g.Stats.UnknownServerCommands++
	}
}

// shown returns a line of the server's text as it is shown: without its
// final newline, its control characters written as escapes
// (safetext.Line), so the window, a log or a terminal shows the text and
// never obeys it.
func shown(text string) string {
	return safetext.Line(strings.TrimSuffix(text, "\n"))
}

// parseScores reads "scores COUNT RED BLUE {CLIENT SCORE DEATHS PING
// MINUTES TEAM}×COUNT" (CG_ParseScores). Rows beyond the text or beyond
// MaxClients are left out.
func (g *CGame) parseScores() {
	a := &g.args
	sc := &g.Scores
	count := min(atoi(a.Argv(1)), bg.MaxClients, (a.Argc()-4)/6)
	sc.Count = max(count, 0)
	sc.Red, sc.Blue = int32(atoi(a.Argv(2))), int32(atoi(a.Argv(3)))
	for i := 0; i < sc.Count; i++ {
		k := 4 + 6*i
		sc.Players[i] = Score{
			Client: int32(atoi(a.Argv(k))), Score: int32(atoi(a.Argv(k + 1))),
			Deaths: int32(atoi(a.Argv(k + 2))), Ping: int32(atoi(a.Argv(k + 3))),
			Minutes: int32(atoi(a.Argv(k + 4))), Team: int32(atoi(a.Argv(k + 5))),
		}
	}
	sc.Time = g.RealTime
}

// mapRestart handles map_restart (CG_MapRestart): the level starts over
// on the same map, so what was on screen from before goes.
func (g *CGame) mapRestart() {
	g.Stats.MapRestarts++
	g.CenterPrint = Line{}
	g.PredictedError = Point{}
	g.havePredicted = false
}

// atoi is a forgiving strconv.Atoi: 0 for anything that is not a number,
// clamped to the int32 range.
func atoi(s string) int {
	n, _ := strconv.ParseInt(s, 10, 32) // clamps out-of-range values, 0 on syntax errors
	return int(n)
}
