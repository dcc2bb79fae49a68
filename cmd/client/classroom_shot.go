//go:build !js

package main

import "github.com/hajimehoshi/ebiten/v2"

// classroomShot saves the screenshot the screenshot command asked for,
// if any, from the classroom view.
func (g *game) classroomShot(screen *ebiten.Image) {
	if g.shot == "" {
		return
	}
	if err := g.saveShot(screen, g.shot); err != nil {
		g.t.Printf("client: screenshot: %v\n", err)
		g.status = 1
	} else {
		g.t.Printf("client: wrote %s\n", g.shot)
	}
	g.shot = ""
}
