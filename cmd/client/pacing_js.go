package main

import "github.com/hajimehoshi/ebiten/v2"

// In a browser the page's animation frames drive Ebitengine, and a
// frame is not to be slept in: com_maxfps stays Ebitengine's TPS.

// pacing is empty: Ebitengine paces the frames.
type pacing struct{}

// setMaxFPS sets the frame rate cap, com_maxfps.
func (g *game) setMaxFPS(fps int) {
	g.maxFPS = fps
	ebiten.SetTPS(fps)
}

// pace does nothing: Ebitengine paces the frames, and the window's
// pacing state is empty.
func (g *game) pace() { _ = g.pacing }
