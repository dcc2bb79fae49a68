package main

import (
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"tremor/cgame"
	"tremor/cgame/overlay"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/net/msg"
	"tremor/ui/draw"
	"tremor/ui/keys"
	"tremor/ui/menu"
)

// Who has the keyboard, in order: the menu, the console, the chat field,
// the game. The game's key bindings see every release whatever has the
// keyboard (so no button sticks down), but presses only when nothing
// else has it; ` and Escape always reach their bindings when the game
// has the keyboard, and close the console or the chat field otherwise.

// consoleSpeed is how much of its height the console slides a second.
const consoleSpeed = 6.0

// keyboard routes this frame's keys and typed characters.
func (g *game) keyboard() {
	g.chars = ebiten.AppendInputChars(g.chars[:0])
	switch {
	case g.menu.IsOpen():
		g.km.poll(g.now, g.releasesOnly)
		g.menuKeys()
	case g.conOpen:
		g.km.poll(g.now, g.releasesOnly)
		g.consoleKeys()
	case g.chatOpen:
		g.km.poll(g.now, g.releasesOnly)
		g.chatKeys()
	case g.sess.Playback() != nil:
		// A demo: the playback keys; the bindings see only releases and
		// the console and menu keys.
		g.km.poll(g.now, g.demoKeyEvent)
		g.demoKeys(g.sess.Playback())
	default:
		g.km.poll(g.now, g.binds.KeyEvent)
	}
}

// demoKeyEvent passes releases and the console and menu keys to the
// bindings while a demo plays.
func (g *game) demoKeyEvent(k keys.KeyNum, down bool, timeMs int32) {
	if !down || k == keys.KeyEscape || k == keys.KeyConsole || k == keys.KeyTilde {
		g.binds.KeyEvent(k, down, timeMs)
	}
}

// releasesOnly passes key releases to the bindings.
func (g *game) releasesOnly(k keys.KeyNum, down bool, timeMs int32) {
	if !down {
		g.binds.KeyEvent(k, false, timeMs)
	}
}

// repeated reports whether k was pressed this frame or is repeating, as
// a held key repeats in a text field.
func repeated(k ebiten.Key) bool {
	d := inpututil.KeyPressDuration(k)
	return d == 1 || d >= 30 && (d-30)%3 == 0
}

// toggleConsole opens or closes the console.
func (g *game) toggleConsole() {
	g.conOpen = !g.conOpen
	g.sb.ClearNotify()
	g.chatOpen = false
}

// consoleKeys edits the console's input line.
func (g *game) consoleKeys() {
	p := &g.prompt
	ctrl := ebiten.IsKeyPressed(ebiten.KeyControl)
	for _, r := range g.chars {
		if r == '`' || r == '~' {
			continue // the console key
		}
		p.InsertRune(r)
	}
	switch {
	case inpututil.IsKeyJustPressed(ebiten.KeyBackquote), inpututil.IsKeyJustPressed(ebiten.KeyEscape):
		g.toggleConsole()
	case inpututil.IsKeyJustPressed(ebiten.KeyEnter), inpututil.IsKeyJustPressed(ebiten.KeyNumpadEnter):
		line := p.Submit()
		fmt.Fprintf(g.sb, "]%s\n", line)
		g.sb.Bottom()
		if cmd, _ := console.TrimSlash(line); cmd != "" {
			g.t.Append(cmd + "\n")
		}
	case inpututil.IsKeyJustPressed(ebiten.KeyTab):
		before := p.Text()
		if matches := p.Complete(g.t); len(matches) > 1 {
			fmt.Fprintf(g.sb, "]%s\n", before)
			for _, m := range matches {
				fmt.Fprintf(g.sb, "    %s\n", console.DescribeMatch(g.t, m))
			}
		}
	case repeated(ebiten.KeyBackspace):
		if ctrl {
			p.DeleteWord()
		} else {
			p.Backspace()
		}
	case repeated(ebiten.KeyDelete):
		p.Delete()
	case repeated(ebiten.KeyArrowLeft):
		if ctrl {
			p.WordLeft()
		} else {
			p.Left()
		}
	case repeated(ebiten.KeyArrowRight):
		if ctrl {
			p.WordRight()
		} else {
			p.Right()
		}
	case repeated(ebiten.KeyArrowUp):
		p.Up()
	case repeated(ebiten.KeyArrowDown):
		p.Down()
	case repeated(ebiten.KeyPageUp):
		g.sb.ScrollUp(4)
	case repeated(ebiten.KeyPageDown):
		g.sb.ScrollDown(4)
	case inpututil.IsKeyJustPressed(ebiten.KeyHome):
		if ctrl {
			g.sb.Top()
		} else {
			p.Home()
		}
	case inpututil.IsKeyJustPressed(ebiten.KeyEnd):
		if ctrl {
			g.sb.Bottom()
		} else {
			p.End()
		}
	case ctrl && inpututil.IsKeyJustPressed(ebiten.KeyL):
		g.sb.Clear()
	case ctrl && inpututil.IsKeyJustPressed(ebiten.KeyW):
		p.DeleteWord()
	}
	switch _, wy := ebiten.Wheel(); {
	case wy > 0:
		g.sb.ScrollUp(2)
	case wy < 0:
		g.sb.ScrollDown(2)
	}
}

// chatKeys edits the chat line: Enter says it, Escape drops it.
func (g *game) chatKeys() {
	p := &g.chat
	for _, r := range g.chars {
		p.InsertRune(r)
	}
	switch {
	case inpututil.IsKeyJustPressed(ebiten.KeyEscape):
		g.chatOpen = false
	case inpututil.IsKeyJustPressed(ebiten.KeyEnter), inpututil.IsKeyJustPressed(ebiten.KeyNumpadEnter):
		if line := p.Submit(); line != "" {
			g.t.Append("say " + cmdargs.QuoteText(line) + "\n")
		}
		g.chatOpen = false
	case repeated(ebiten.KeyBackspace):
		p.Backspace()
	case repeated(ebiten.KeyArrowLeft):
		p.Left()
	case repeated(ebiten.KeyArrowRight):
		p.Right()
	}
}

// menuNav maps the keys that move in a menu.
var menuNav = []struct {
	key ebiten.Key
	nav menu.Key
}{
	{ebiten.KeyArrowUp, menu.KeyUp}, {ebiten.KeyArrowDown, menu.KeyDown},
	{ebiten.KeyArrowLeft, menu.KeyLeft}, {ebiten.KeyArrowRight, menu.KeyRight},
	{ebiten.KeyEnter, menu.KeyEnter}, {ebiten.KeyNumpadEnter, menu.KeyEnter},
	{ebiten.KeyEscape, menu.KeyBack}, {ebiten.KeyBackspace, menu.KeyBackspace},
	{ebiten.KeyTab, menu.KeyTab},
}

// menuKeys drives the menu: navigation keys, typed text, the mouse, and
// while it waits for a key to bind, any key or button.
func (g *game) menuKeys() {
	m := g.menu
	if m.Capturing() {
		for _, k := range inpututil.AppendJustPressedKeys(g.keyBuf[:0]) {
			if name := keyName(k); name != "" {
				nav := menu.KeyNone
				if k == ebiten.KeyEscape {
					nav = menu.KeyBack
				}
				m.Press(nav, name)
				return
			}
		}
		for _, b := range mouseNames {
			if inpututil.IsMouseButtonJustPressed(b.button) {
				m.Press(menu.KeyNone, b.name)
				return
			}
		}
		return
	}
	for _, n := range menuNav {
		if n.key == ebiten.KeyEscape && inpututil.IsKeyJustPressed(n.key) || n.key != ebiten.KeyEscape && repeated(n.key) {
			m.Press(n.nav, keyName(n.key))
		}
	}
	for _, r := range g.chars {
		m.Type(r)
	}
	x, y := ebiten.CursorPosition()
	if x != g.mouseX || y != g.mouseY {
		// Where the pointer happens to rest when the window opens is no
		// motion: it must not select the item under it (Quit, say).
		if g.mouseSet {
			m.MouseMove(x, y)
		}
		g.mouseX, g.mouseY = x, y
	}
	g.mouseSet = true
	if inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft) {
		m.Click(x, y)
	}
	switch _, wy := ebiten.Wheel(); {
	case wy > 0:
		m.Wheel(1)
	case wy < 0:
		m.Wheel(-1)
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyBackquote) {
		g.toggleConsole()
		m.Close()
	}
}

// keyName returns the bind name of an Ebitengine key, or "".
func keyName(k ebiten.Key) string {
	for _, e := range keyNames {
		if e.key == k {
			return e.name
		}
	}
	return ""
}

// drawOverlays draws what lies over the game: notify lines, the chat
// field, the menu and the console.
func (g *game) drawOverlays(screen *ebiten.Image, dt float64) {
	if g.conOpen {
		g.conFrac = min(1, g.conFrac+dt*consoleSpeed)
	} else {
		g.conFrac = max(0, g.conFrac-dt*consoleSpeed)
	}
	now := int64(g.now)
	if g.conFrac == 0 && !g.menu.IsOpen() {
		g.r.DrawNotify(screen, g.sb, now)
	}
	if g.chatOpen {
		g.r.DrawChatField(screen, &g.chat, now)
	}
	g.r.DrawMenu(screen, g.menu)
	if g.conFrac > 0 {
		g.r.DrawConsole(screen, draw.ConsoleView{Scrollback: g.sb, Prompt: &g.prompt, Frac: g.conFrac, Now: now, Version: version})
	}
	shape := ebiten.CursorShapeCrosshair
	if g.menu.IsOpen() || g.conOpen {
		shape = ebiten.CursorShapeDefault
	}
	ebiten.SetCursorShape(shape)
}

// drawTeaching draws the teaching overlays that are switched on
// (cg_showSnapBox, cg_showGhosts, cg_showInterp, cg_showFieldBits).
func (g *game) drawTeaching(screen *ebiten.Image, cg *cgame.CGame, intermission bool) {
	snap, ghosts, interp, fields := g.showSnapBox.Bool(), g.showGhosts.Bool(), g.showInterp.Bool(), g.showFieldBits.Bool()
	if !snap && !ghosts && !interp && !fields {
		return
	}
	c := g.sess.Engine() // the demo's during playback: the overlays replay too
	var src overlay.SnapshotSource
	var counted *msg.FieldStats // this engine's only, not the embedded server's
	if c != nil {
		src = c // never a nil *client.Client inside the interface
		counted = c.FieldStats()
	}
	g.ovl.Fields.SetStats(counted)
	g.ovl.Update(src, cg, g.now)
	if cg == nil || intermission {
		return
	}
	if ghosts {
		g.r.DrawGhosts(screen, cg, g.ovl)
	}
	if snap {
		g.r.DrawSnapBox(screen, cg, g.ovl)
	}
	if interp && c != nil {
		g.r.DrawInterpStrip(screen, cg, g.ovl, c.TimeNudge(), c.AutoNudge().On)
	}
	if fields {
		g.r.DrawFieldBits(screen, g.ovl)
	}
}
