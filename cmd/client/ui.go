package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame"
	"tremor/cgame/overlay"
	"tremor/net/msg"
	"tremor/ui/draw"
)

// consoleSpeed is how much of its height the console slides a second.
const consoleSpeed = 6.0

// drawOverlays draws what lies over the game: notify lines, the chat
// field, the menu and the console.
func (g *game) drawOverlays(screen *ebiten.Image, dt float64) {
	if g.con.Active() {
		g.conFrac = min(1, g.conFrac+dt*consoleSpeed)
	} else {
		g.conFrac = max(0, g.conFrac-dt*consoleSpeed)
	}
	now := int64(g.now)
	if g.conFrac == 0 && !g.menu.IsOpen() {
		g.ui.DrawNotify(screen, g.sb, now)
	}
	if g.chat.Active() {
		g.ui.DrawChatField(screen, &g.chat.Prompt, now)
	}
	g.ui.DrawMenu(screen, g.menu)
	if g.conFrac > 0 {
		g.ui.DrawConsole(screen, draw.ConsoleView{Scrollback: g.sb, Prompt: &g.con.Prompt, Frac: g.conFrac, Now: now, Version: version})
	}
	shape := ebiten.CursorShapeCrosshair
	if g.menu.IsOpen() || g.con.Active() {
		shape = ebiten.CursorShapeDefault
	}
	ebiten.SetCursorShape(shape)
}

// drawTeaching draws the teaching overlays that are switched on
// (cg_showSnapBox, cg_showGhosts, cg_showInterp, cg_showFieldBits).
func (g *game) drawTeaching(screen *ebiten.Image, cg *cgame.CGame, intermission bool) {
	snap, ghosts, interp, fields := g.cv.ShowSnapBox, g.cv.ShowGhosts, g.cv.ShowInterp, g.cv.ShowFieldBits
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
