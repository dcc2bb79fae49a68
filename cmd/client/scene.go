package main

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

// A scene is what the window shows under the console and the menus,
// with the state only it needs: the game (playScene, play.go: a match,
// local or joined, a demo or a journal replay, or the bare background
// behind the main menu) or the classroom (classroomScene, classroom.go).
// The window (game) only picks the scene and runs what every frame does
// around it: the frame pacing, the keys through the router, the
// console's commands, saving the settings, the console and the menus
// over the picture, screenshots and the frame statistics.
//
// The menu and demo playback are not scenes of their own: the menu is a
// model (ui/menu) the window draws over whichever scene runs, and a demo
// is the game scene fed by client.Playback instead of a server.
type scene interface {
	// update runs one frame of the scene, after the keys were routed and
	// the console's commands ran; began is when the frame's Update
	// began.
	update(g *game, began time.Time)
	// draw draws the scene's picture on screen; dt is the real time since
	// the last frame drawn, in seconds (0 for the first).
	draw(g *game, screen *ebiten.Image, began time.Time, dt float64)
	// notify reports whether the console's notify lines, the chat field
	// and the crosshair belong over the scene: the game's, not the
	// classroom's, whose panes' text is where the notify lines would go
	// and whose switches are clicked.
	notify() bool
}

// scene returns the scene that runs: the classroom while it runs, else
// the game.
func (g *game) scene() scene {
	if g.cls != nil {
		return g.cls
	}
	return g.play
}
