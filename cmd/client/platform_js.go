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

// reportNet sets globalThis.tremorNet to the connection's figures, for
// the page's scripts and its end-to-end test (internal/e2e/web): the
// client's state and server, and its counters of server messages,
// snapshots, lost and malformed packets, the mean ping, and how many
// chat lines the game showed with the last one; null while there is no
// client engine.
func reportNet(g *game) {
	c := g.sess.Client()
	if c == nil {
		js.Global().Set("tremorNet", js.Null())
		return
	}
	st := c.Stats()
	chats, lastChat := 0, ""
	if cg := g.sess.Active(); cg != nil {
		chats, lastChat = cg.Chat.Total, cg.Chat.Last().Text
	}
	js.Global().Set("tremorNet", map[string]any{
		"chats":            chats,
		"lastChat":         lastChat,
		"state":            c.State().String(),
		"server":           c.ServerAddr().String(),
		"messages":         float64(st.Messages),
		"snapshots":        float64(st.Snapshots),
		"snapshotsDropped": float64(st.SnapshotsDropped),
		"malformed":        float64(st.Malformed),
		"packetsDown":      float64(st.PacketsDown),
		"packetsUp":        float64(st.PacketsUp),
		"ping":             st.PingAvg(),
	})
}
