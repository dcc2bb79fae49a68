//go:build !js

package main

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cmd/client/internal/frametime"
)

// Ebitengine reads the keys and buttons once a frame, before that
// frame's updates, and a key pressed and released since the last read
// shows as down once (GLFW's sticky keys and buttons). With a fixed TPS
// some frames run no update — whenever frames outrun the TPS, and after
// every frame longer than five ticks, when Ebitengine resets its clock
// — and what such a frame read is gone: a quick Enter at the console or
// a click shorter than a frame was lost about one time in four. So
// every frame runs exactly one Update (ebiten.SyncWithFPS), and the
// client holds its frames to com_maxfps itself, as Quake III's
// Com_Frame did (frametime.Pacer).

// pacing is the window's frame pacing state.
type pacing struct {
	pacer frametime.Pacer // holds frames to maxFPS
}

// setMaxFPS sets the frame rate cap, com_maxfps.
func (g *game) setMaxFPS(fps int) {
	g.maxFPS = fps
	ebiten.SetTPS(ebiten.SyncWithFPS)
}

// pace waits, at the start of Update, until the frame is due. A
// timedemo runs unpaced.
func (g *game) pace() {
	if g.demo.td != nil {
		return
	}
	if d := g.pacer.Wait(time.Now(), g.maxFPS); d > 0 {
		time.Sleep(d)
	}
}
