package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cmd/client/internal/route"
	"tremor/ui/keys"
)

// Who has the keyboard is route.Router's to say (cmd/client/internal/
// route): the console when open, over every scene; else the chat field;
// else the menu, a demo or the classroom view, whichever is on top;
// else the game's key bindings, which see every release whatever has
// the keyboard, so no button sticks down. This file is the edge: it
// turns Ebitengine's input into route.Events (keymap.go) and wires the
// demo's and the classroom's keys as layers.

// newRouter returns the router of g's layers, on top first.
func (g *game) newRouter() *route.Router {
	return route.New(g.binds, g.con, g.chat, route.NewMenu(g.menu), demoLayer{g}, classroomLayer{g})
}

// keyboard routes this frame's keys, clicks and typed characters.
func (g *game) keyboard() {
	g.events = g.km.poll(g.now, g.events[:0])
	g.router.Frame(g.now, g.events)
}

// toggleConsole opens or closes the console, over the chat field.
func (g *game) toggleConsole() {
	g.chat.Close()
	g.con.Toggle()
}

// demoLayer is demo playback as a route.Layer: while a demo plays and
// nothing over it has the keyboard, it takes the playback keys
// (demoKey) and every other press but Escape and the console key, which
// go to their bindings.
type demoLayer struct{ g *game }

// Active reports whether a demo plays.
func (d demoLayer) Active() bool { return d.g.sess.Playback() != nil }

// Char does nothing: a demo takes no text.
func (demoLayer) Char(rune) {}

// Key runs the playback key k.
func (d demoLayer) Key(e route.Event) bool {
	switch e.Key {
	case keys.KeyEscape, keys.KeyConsole, keys.KeyTilde:
		return false
	}
	if pb := d.g.sess.Playback(); pb != nil && !e.Repeat {
		d.g.demoKey(pb, e.Key)
	}
	return true
}

// classroomLayer is the classroom view as a route.Layer: the players'
// keys (read as held by classroomUpdate), P, [, ] and . for the clock,
// and clicks on the switches and the packets. Other keys go to their
// bindings (Escape opens the menu, F12 saves a screenshot).
type classroomLayer struct{ g *game }

// Active reports whether the classroom view runs.
func (c classroomLayer) Active() bool { return c.g.cls != nil }

// Char does nothing: the classroom takes no text.
func (classroomLayer) Char(rune) {}

// classroomPlayerKeys are the keys that play the two players.
var classroomPlayerKeys = []keys.KeyNum{'a', 'd', 'w', 's', 'f',
	keys.KeyLeftArrow, keys.KeyRightArrow, keys.KeyUpArrow, keys.KeyDownArrow, keys.KeyEnter, keys.KeyCtrl}

// Key runs the classroom's key or click.
func (c classroomLayer) Key(e route.Event) bool {
	cls, t := c.g.cls, c.g.t
	if cls == nil {
		return false
	}
	if e.Repeat {
		return true
	}
	switch e.Key {
	case 'p':
		t.ExecuteString("pause")
	case '[':
		cls.m.SetSpeed(cls.m.Speed() / 2)
	case ']':
		cls.m.SetSpeed(cls.m.Speed() * 2)
	case '.':
		t.ExecuteString("step")
	case keys.KeyMouse1:
		if lines, ok := cls.view.Click(e.X, e.Y); ok {
			for _, l := range lines {
				t.ExecuteString(l)
			}
		} else if id, ok := cls.view.PacketAt(e.X, e.Y); ok {
			cls.m.Select(id)
		}
	default:
		for _, k := range classroomPlayerKeys {
			if e.Key == k {
				return true
			}
		}
		return false
	}
	return true
}

// rightCtrl reports whether the right Ctrl key is down: Player 2's
// other fire key. Package keys has one Ctrl for both sides, as Quake
// III had, so this one is read from Ebitengine directly.
func rightCtrl() bool { return ebiten.IsKeyPressed(ebiten.KeyControlRight) }
