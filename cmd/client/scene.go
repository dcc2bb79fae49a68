package main

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/ui/draw"
)

// A scene is what the window shows under the console and the menus,
// with the state only it needs:
//   - the main menu's backdrop while the player is in no game
//     (menuScene, below);
//   - a match, local or joined, or a journal replay (playScene, play.go);
//   - a demo played back (demoScene, demo.go), drawn through the game
//     scene from the demo's camera;
//   - the classroom (classroomScene, classroom.go).
//
// The window (game) only picks the scene and runs what every frame does
// around it: the frame pacing, the keys through the router, the
// console's commands, saving the settings, the console and the menus
// over the picture (ui.go), screenshots, the frame statistics, and the
// last step onto the window's framebuffer (finalScreen,
// finalscreen.go). The menus are a model (ui/menu) drawn over whichever
// scene runs: the in-game menu over a match, the classroom's over the
// classroom, the main menu over its backdrop.
type scene interface {
	// update runs one frame of the scene, after the keys were routed and
	// the console's commands ran; began is when the frame's Update
	// began.
	update(g *game, began time.Time)
	// draw draws the scene's picture on screen; dt is the real time since
	// the last frame drawn, in seconds (0 for the first).
	draw(g *game, screen *ebiten.Image, began time.Time, dt float64)
	// notify reports whether the console's notify lines, the chat field
	// and the crosshair belong over the scene: the game's and the demo's,
	// not the classroom's, whose panes' text is where the notify lines
	// would go and whose switches are clicked, nor the menu's backdrop.
	notify() bool
}

// scene returns the scene that runs: the classroom while it runs, a
// demo while one plays (and until its timedemo has ended), the main
// menu's backdrop while the player was in no game at the last frame,
// else the game.
func (g *game) scene() scene {
	switch {
	case g.cls != nil:
		return g.cls
	case g.sess.Playback() != nil || g.demo.td != nil:
		return g.demo
	case g.wasIdle:
		return &g.idle
	}
	return g.play
}

// runSession runs the session's frame at now with cmd (Com_Frame's
// client and embedded server), then what follows from it in every scene
// that has a session: the main menu when idle, the newcomer's hold, the
// server browser.
func (g *game) runSession(now time.Duration, cmd bg.UserCmd) {
	g.menu.SetInGame(g.sess.Active() != nil)
	g.in.Talk = g.con.Active() || g.chat.Active()
	g.sess.Frame(now, cmd, g.in.ShowScores())
	g.menuWhenIdle()
	g.holdNewcomer()
	if g.br != nil {
		g.br.Frame(time.Now())
	}
}

// menuScene is the main menu's scene while the player is in no game (at
// start with a command line that starts none, after Leave match, a
// failed connect, a kick or the end of a demo): the session still runs
// its frames, so that what the menu starts (a map, a connection, a
// demo) begins, and the picture is the backdrop the menu is drawn over.
type menuScene struct {
	frame draw.Frame // Idle: only the backdrop
}

// notify: over the main menu there are no notify lines or chat.
func (*menuScene) notify() bool { return false }

// update runs the session's frame; the keys' usercmd is sampled so that
// the buttons' frame timing stays current, but there is no game for it.
func (m *menuScene) update(g *game, began time.Time) {
	g.runSession(time.Since(g.start), g.in.CreateCmd(g.now, 0, 0, nil))
}

// draw draws the backdrop.
func (m *menuScene) draw(g *game, screen *ebiten.Image, began time.Time, dt float64) {
	m.frame.Idle, m.frame.Dt = true, dt
	g.play.r.Draw(screen, &m.frame)
}
