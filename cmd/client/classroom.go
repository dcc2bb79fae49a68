package main

import (
	"crypto/rand"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/classroom"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/ui/draw"
	"tremor/ui/keys"
)

// The classroom view (docs/classroom.md): `classroom [MAP [BOTS]]` on the
// command line or the console, or the main menu's Classroom, replaces the
// game with a classroom.Model — its own server and two players — drawn
// by draw.ClassroomView. Starting any game (map, connect, demo) ends it;
// so do `classroom off`, disconnect (the menu's Leave match) and
// killserver.

// classroomScene is the classroom scene while it runs: the model and
// its view.
type classroomScene struct {
	m    *classroom.Model
	view *draw.ClassroomView
	last time.Time // the last Update
}

// classroomKeys are the keys that play each player, for the panes' hint.
var classroomKeys = [2]string{"A D W S F", "arrows Enter"}

// addClassroomCommands adds the classroom command.
func (g *game) addClassroomCommands() {
	t := g.t
	t.AddCommand("classroom", "show the server and two players side by side with their packets in flight: classroom [MAP [BOTS]] (default "+classroom.DefaultMap+" 1); classroom off leaves it", func(a *cmdargs.Args) {
		if a.Argv(1) == "off" {
			if g.cls != nil {
				g.stopClassroom()
				g.menu.OpenMain()
			}
			return
		}
		cfg := classroom.Config{Map: a.Argv(1), Bots: 1, Log: consoleWriter{t}, Keys: classroomKeys}
		if a.Argc() > 2 {
			n, err := strconv.Atoi(a.Argv(2))
			if err != nil || n < 0 || n > 8 {
				t.Printf("usage: classroom [MAP [BOTS]] (0 to 8 bots)\n")
				return
			}
			cfg.Bots = n
		}
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:]) | 1
		g.sess.Disconnect() // the classroom runs its own server
		g.stopClassroom()
		m, err := classroom.New(cfg)
		if err != nil {
			t.Printf("%v\n", err)
			g.status = 1
			return
		}
		m.AddCommands(t)
		g.cls = &classroomScene{m: m, view: draw.NewClassroomView()}
		g.menu.Close()
	})
}

// stopClassroom ends the classroom, if one runs.
func (g *game) stopClassroom() {
	if g.cls == nil {
		return
	}
	classroom.RemoveCommands(g.t)
	g.cls.m.Close()
	g.cls = nil
}

// consoleWriter prints what the classroom logs on the console.
type consoleWriter struct{ t *console.Table }

func (w consoleWriter) Write(b []byte) (int, error) {
	w.t.Printf("%s", b)
	return len(b), nil
}

// update runs the players' keys and the model's clock (the clicks and
// the clock's keys are classroomLayer's, keyboard.go).
func (c *classroomScene) update(g *game, began time.Time) {
	if g.sess.Client() != nil || g.sess.Playback() != nil {
		// A game began (the menu's Play, map, connect, demo).
		g.stopClassroom()
		return
	}
	real := time.Second / 60
	if !c.last.IsZero() {
		real = began.Sub(c.last)
	}
	c.last = began
	g.menu.SetInGame(true) // Escape opens and closes the menu; Leave match (disconnect) ends the classroom
	var in [2]classroom.Input
	if _, ok := g.router.Top().(classroomLayer); ok {
		// Held: a key tapped inside one frame still counts for a frame.
		h := g.router.Held
		in[0] = classroom.Input{Left: h('a'), Right: h('d'), Jump: h('w'), Down: h('s'), Attack: h('f')}
		in[1] = classroom.Input{Left: h(keys.KeyLeftArrow), Right: h(keys.KeyRightArrow),
			Jump: h(keys.KeyUpArrow), Down: h(keys.KeyDownArrow), Attack: h(keys.KeyEnter) || rightCtrl()}
	}
	for i := range in {
		c.m.Player(i).In = in[i]
	}
	c.m.Advance(real)
}

// draw draws the classroom view.
func (c *classroomScene) draw(g *game, screen *ebiten.Image, began time.Time, dt float64) {
	x, y := ebiten.CursorPosition()
	c.view.Draw(screen, c.m, &draw.ClassroomFrame{CursorX: x, CursorY: y, UIScale: g.cv.UIScale})
}

// notify: no notify lines, chat field or crosshair over the classroom,
// whose panes' text is where the notify lines would go and whose
// switches are clicked.
func (c *classroomScene) notify() bool { return false }
