package main

import (
	"os"
	"syscall/js"

	"tremor/cmd/client/internal/webargs"
)

// commandLine returns the command line the page address gives
// (index.html?+set name Alice&+classroom, package webargs), with
// +connect added when the page came from a Tremor server and the
// address starts no game of its own (joinPageServer).
func commandLine() []string {
	return joinPageServer(webargs.FromQuery(js.Global().Get("location").Get("search").String()), os.Stderr)
}

// framesDrawn counts the frames drawn so far.
var framesDrawn int

// frameDrawn tells the page (web/index.html) that a frame was drawn:
// it calls globalThis.tremorFrame(frames, inGame) when the page defines
// it, which hides the loading line and, with #report, reports the first
// frame's time. inGame is true when a game or the classroom view is
// drawn rather than the menu over nothing.
func frameDrawn(g *game) {
	framesDrawn++
	if f := js.Global().Get("tremorFrame"); f.Type() == js.TypeFunction {
		f.Invoke(framesDrawn, g.sess.Active() != nil || g.cls != nil)
	}
	if framesDrawn%netReportFrames == 0 {
		reportNet(g)
	}
}

// netReportFrames is how often, in frames, reportNet runs.
const netReportFrames = 30

// recentChatLines is how many of the latest chat lines reportNet gives.
const recentChatLines = 8

// reportNet sets globalThis.tremorNet to the connection's figures, for
// the page's scripts and its end-to-end tests (internal/e2e/web): the
// client's state and server, and its counters of server messages,
// snapshots, lost and malformed packets, the mean ping; how many chat
// lines the game showed, the last and the last few (recentChat, newest
// last, so that a test reading every few seconds sees a line that other
// chat soon followed); and the cgame's prediction misses and
// corrections (cgame.Stats: misses of the shared movement code, and
// differences the server explains; cmd/headless reports the same, less
// the misses in the second after a gamestate). null while there is no
// client engine. lastError says why the last malformed message was
// dropped.
func reportNet(g *game) {
	c := g.sess.Client()
	if c == nil {
		js.Global().Set("tremorNet", js.Null())
		return
	}
	st := c.Stats()
	lastError := ""
	if err := c.LastError(); err != nil {
		lastError = err.Error()
	}
	chats, lastChat, misses, corrections := 0, "", 0, 0
	recent := []any{}
	if cg := g.sess.Active(); cg != nil {
		chats, lastChat = cg.Chat.Total, cg.Chat.Last().Text
		for i := max(0, cg.Chat.Len()-recentChatLines); i < cg.Chat.Len(); i++ {
			recent = append(recent, cg.Chat.At(i).Text)
		}
		misses, corrections = cg.Stats.PredictionMisses, cg.Stats.PredictionCorrections
	}
	js.Global().Set("tremorNet", map[string]any{
		"chats":                 chats,
		"lastChat":              lastChat,
		"recentChat":            recent,
		"state":                 c.State().String(),
		"server":                c.ServerAddr().String(),
		"messages":              float64(st.Messages),
		"snapshots":             float64(st.Snapshots),
		"snapshotsDropped":      float64(st.SnapshotsDropped),
		"malformed":             float64(st.Malformed),
		"packetsDown":           float64(st.PacketsDown),
		"packetsUp":             float64(st.PacketsUp),
		"ping":                  st.PingAvg(),
		"predictionMisses":      misses,
		"predictionCorrections": corrections,
		"lastError":             lastError,
	})
}
