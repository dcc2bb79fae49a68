package main

import (
	"syscall/js"

	"tremor/cmd/client/internal/webargs"
)

// commandLine returns the command line the page address gives
// (index.html?+set name Alice&+classroom, package webargs).
func commandLine() []string {
	return webargs.FromQuery(js.Global().Get("location").Get("search").String())
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
}
