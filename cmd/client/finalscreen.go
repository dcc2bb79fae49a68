package main

import "github.com/hajimehoshi/ebiten/v2"

// Ebitengine draws a game into an offscreen image, then copies that onto
// the window's framebuffer (after clearing it). With a software
// renderer (Mesa's llvmpipe under Xvfb) the copy is a full-screen
// textured pass that cost about a quarter of the client's frame
// (docs/PERFORMANCE.md, "Client frame time"). So whenever the offscreen
// and the window have the same pixels, the frame is drawn straight onto
// the framebuffer in DrawFinalScreen, and Draw only marks the offscreen
// as drawn (Ebitengine stops presenting frames whose offscreen did not
// change).
//
// The offscreen is used as before for a frame that is read back (a
// screenshot is due) and whenever the window's pixels differ from the
// offscreen's (a high-DPI or scaled screen), and when the final screen
// is not an *ebiten.Image, as it is in Ebitengine 2.8. It is used too
// while a world overlay is on (cg_showSnapBox, cg_showGhosts,
// cg_showUnlagged): those clip to the screen above the status bar with a
// SubImage, and on the framebuffer, whose rows OpenGL counts from the
// bottom, Ebitengine 2.8 flips what is drawn but not a SubImage's clip,
// so they were cut from the top rows and drawn over the status bar.
// (The classroom's panes draw into images of their own for the same
// reason.)

// finalScreen is the state of drawing to the final screen.
type finalScreen struct {
	// direct: the last final screen had the offscreen's size, no
	// offset and no scale, so the next frame may be drawn onto it.
	direct bool
	// late: Draw left this frame to DrawFinalScreen.
	late bool
	mark ebiten.DrawImageOptions // Draw's one-pixel mark
}

// markImage is the pixel Draw puts on the offscreen when the frame is
// drawn on the final screen: transparent, it changes nothing seen.
var markImage = ebiten.NewImage(1, 1)

// Draw draws the frame on the offscreen, or leaves it to DrawFinalScreen
// (see finalScreen).
func (g *game) Draw(offscreen *ebiten.Image) {
	fs := &g.final
	fs.late = fs.direct && g.shot == "" && !g.clipsScreen()
	if fs.late {
		offscreen.DrawImage(markImage, &fs.mark)
		return
	}
	g.drawFrame(offscreen)
}

// DrawFinalScreen draws the frame onto the window's framebuffer when
// Draw left it, else copies the offscreen there as Ebitengine does:
// nearest at a whole scale, linear otherwise.
func (g *game) DrawFinalScreen(screen ebiten.FinalScreen, offscreen *ebiten.Image, geoM ebiten.GeoM) {
	fs := &g.final
	dst, ok := screen.(*ebiten.Image)
	same := ok && isIdentity(&geoM) && screen.Bounds() == offscreen.Bounds()
	fs.direct = same
	if fs.late {
		fs.late = false
		if same {
			g.drawFrame(dst)
			return
		}
		g.drawFrame(offscreen) // the window changed since Draw
	}
	op := &ebiten.DrawImageOptions{GeoM: geoM, Blend: ebiten.BlendCopy}
	if s := geoM.Element(0, 0); s < 1 || s != float64(int(s)) {
		op.Filter = ebiten.FilterLinear
	}
	screen.DrawImage(offscreen, op)
}

// isIdentity reports whether m maps every pixel onto itself.
func isIdentity(m *ebiten.GeoM) bool {
	return m.Element(0, 0) == 1 && m.Element(1, 1) == 1 && m.Element(0, 1) == 0 &&
		m.Element(1, 0) == 0 && m.Element(0, 2) == 0 && m.Element(1, 2) == 0
}

// clipsScreen reports whether this frame draws through a SubImage of the
// screen (a world overlay), which must not be the framebuffer.
func (g *game) clipsScreen() bool {
	return g.cv.ShowSnapBox || g.cv.ShowGhosts || g.cv.ShowUnlagged
}
