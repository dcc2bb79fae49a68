package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"tremor/ui/draw"
)

// consoleSpeed is how much of its height the console slides a second.
const consoleSpeed = 6.0

// drawOverlays draws what lies over the scene: with notify (the game's)
// the notify lines and the chat field, then the menu and the console.
func (g *game) drawOverlays(screen *ebiten.Image, dt float64, notify bool) {
	if g.con.Active() {
		g.conFrac = min(1, g.conFrac+dt*consoleSpeed)
	} else {
		g.conFrac = max(0, g.conFrac-dt*consoleSpeed)
	}
	now := int64(g.now)
	g.ui.Scale = g.cv.UIScale
	if notify && g.conFrac == 0 && !g.menu.IsOpen() {
		g.ui.DrawNotify(screen, g.sb, now)
	}
	if notify && g.chat.Active() {
		g.ui.DrawChatField(screen, &g.chat.Prompt, now)
	}
	g.ui.DrawMenu(screen, g.menu)
	if g.conFrac > 0 {
		g.ui.DrawConsole(screen, draw.ConsoleView{Scrollback: g.sb, Prompt: &g.con.Prompt, Frac: g.conFrac, Now: now, Version: version})
	}
	shape := ebiten.CursorShapeCrosshair
	if !notify || g.menu.IsOpen() || g.con.Active() {
		shape = ebiten.CursorShapeDefault
	}
	ebiten.SetCursorShape(shape)
}
