package draw

import (
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame"
	"tremor/cgame/overlay"
)

// Colours of the world overlays.
var (
	colOvlServer = colRail // the server's (snapshot) boxes
	colOvlPred   = colArmor
	colOvlError  = colLow
	colOvlExtrap = colArmor
)

// DrawSnapBox draws the local player as the newest snapshot has it (a
// cyan box, "server") beside the predicted box (a thin yellow outline),
// a dashed line between them labelled with how far the prediction ran
// ahead of the snapshot, and, while a misprediction decays, a red arrow
// from the predicted position to where the player is drawn, labelled
// with its length (cg_showSnapBox). Call it after Draw, with the
// Overlays updated this frame.
func (r *Renderer) DrawSnapBox(screen *ebiten.Image, cg *cgame.CGame, o *Overlays) {
	if cg == nil || cg.Snap == nil || r.lvl.world == nil || o == nil {
		return
	}
	o.drawSnapBox(screen, cg, &r.frame)
}

// drawSnapBox draws the snapshot box (see Renderer.DrawSnapBox) in the
// world's view of frame fv.
func (o *Overlays) drawSnapBox(screen *ebiten.Image, cg *cgame.CGame, fv *frameView) {
	l := overlay.LocalOf(cg, &o.Snaps)
	if !l.Valid {
		return
	}
	dst := o.worldTarget(screen, fv)
	v := fv.view
	hw, hh := playerHalf()
	hw, hh = hw*v.Scale, hh*v.Scale
	sx, sy := v.PointScreen(l.Server)
	px, py := v.PointScreen(l.Predicted)
	dx, dy := v.PointScreen(l.Drawn)
	w, h := float32(2*hw), float32(2*hh)

	b := &o.b
	b.ovlOutline(float32(px-hw), float32(py-hh), w, h, 1, rgbaOf(colOvlPred, 0.9))
	b.rect(float32(sx-hw), float32(sy-hh), w, h, rgbaOf(colOvlServer, 0.12))
	b.ovlOutline(float32(sx-hw), float32(sy-hh), w, h, 2, rgbaOf(colOvlServer, 0.95))
	b.line(float32(sx-4), float32(sy), float32(sx+4), float32(sy), 1, rgbaOf(colOvlServer, 1))
	b.line(float32(sx), float32(sy-4), float32(sx), float32(sy+4), 1, rgbaOf(colOvlServer, 1))
	b.ovlDashed(float32(sx), float32(sy), float32(px), float32(py), 1.5, 4, rgbaOf(colOvlServer, 0.9))
	showErr := l.ErrorPx >= 0.05
	if showErr {
		// A ring at the predicted origin, so that an error of a pixel
		// or two shows too.
		b.ring(float32(px), float32(py), 5, 1.5, rgbaOf(colOvlError, 1))
		b.ovlArrow(float32(px), float32(py), float32(dx), float32(dy), 2, rgbaOf(colOvlError, 1))
	}
	b.flush(dst)

	top := min(sy, py) - hh
	left := min(sx, px) - hw
	// The labels go round the boxes, never over the player they are
	// about.
	fv.labels.Reserve(left, top, max(sx, px)+hw, max(sy, py)+hh)
	o.drawPlacedLabel(dst, fv, &o.serverTag, left, top-44, colOvlServer)
	pred := int64(0)
	if l.Predicting {
		pred = 1
	}
	if key := [4]int64{pred, int64(l.Ahead), tenths(l.OffsetPx)}; o.localHead.stale(key) {
		t := o.buf[:0]
		if l.Predicting {
			t = append(t, "prediction "...)
			t = appendSigned(t, key[1])
			t = append(t, " ms ahead, "...)
			t = appendTenths(t, key[2])
			t = append(t, " px"...)
		} else {
			t = append(t, "no prediction: drawn "...)
			t = appendTenths(t, key[2])
			t = append(t, " px from it"...)
		}
		o.localHead.put(key, t)
	}
	o.drawPlacedLabel(dst, fv, &o.localHead, left, top-30, colOvlPred)
	if showErr {
		if key := [4]int64{tenths(l.ErrorPx), int64(l.ErrorLeft*100 + 0.5)}; o.localErr.stale(key) {
			t := append(o.buf[:0], "error "...)
			t = appendTenths(t, key[0])
			t = append(t, " px, "...)
			t = strconv.AppendInt(t, key[1], 10)
			t = append(t, "% left"...)
			o.localErr.put(key, t)
		}
		o.drawPlacedLabel(dst, fv, &o.localErr, left, max(sy, py)+hh+4, colOvlError)
	}
}

// DrawGhosts draws, for every other player, where the snapshots put it
// beside where it is drawn (cg_showGhosts): a line from its position in
// Snap to its position in NextSnap (the player slides along it as the
// frame interpolates), small dots at both, a dashed line on to its
// position in the newest snapshot, and there an outlined box, the ghost,
// tagged with how much newer than the render time that snapshot is. A
// player carried past Snap on its velocity (extrapolated) gets a yellow
// line from Snap to where it is drawn.
func (r *Renderer) DrawGhosts(screen *ebiten.Image, cg *cgame.CGame, o *Overlays) {
	if cg == nil || cg.Snap == nil || r.lvl.world == nil || o == nil {
		return
	}
	o.drawGhosts(screen, cg, &r.frame)
}

// drawGhosts draws the ghosts (see Renderer.DrawGhosts) in the world's
// view of frame fv.
func (o *Overlays) drawGhosts(screen *ebiten.Image, cg *cgame.CGame, fv *frameView) {
	o.ghosts = overlay.Ghosts(o.ghosts, cg, &o.Snaps)
	if len(o.ghosts) == 0 {
		return
	}
	dst := o.worldTarget(screen, fv)
	v := fv.view
	hw, hh := playerHalf()
	hw, hh = hw*v.Scale, hh*v.Scale
	b := &o.b
	visible := func(x, y float64) bool {
		return x > -hw-40 && y > -hh-40 && x < v.W+hw+40 && y < v.H+hh+40
	}
	for i := range o.ghosts {
		g := &o.ghosts[i]
		col := PlayerColour(g.Client)
		if g.Dead {
			col = colDead
		}
		col = mix(col, colWhite, 0.25)
		lx, ly := v.PointScreen(g.Lerp)
		sx, sy := v.PointScreen(g.Snap)
		gx, gy := sx, sy // the ghost box: the newest position known
		if g.HaveNext {
			nx, ny := v.PointScreen(g.Next)
			b.line(float32(sx), float32(sy), float32(nx), float32(ny), 1.5, rgbaOf(col, 0.8))
			b.circle(float32(nx), float32(ny), 3, rgbaOf(col, 0.95))
			gx, gy = nx, ny
		}
		if g.HaveNewest {
			wx, wy := v.PointScreen(g.Newest)
			b.ovlDashed(float32(gx), float32(gy), float32(wx), float32(wy), 1, 3, rgbaOf(colWhite, 0.6))
			gx, gy = wx, wy
		}
		if g.Extrapolated {
			b.line(float32(sx), float32(sy), float32(lx), float32(ly), 2, rgbaOf(colOvlExtrap, 0.9))
		}
		b.circle(float32(sx), float32(sy), 3, rgbaOf(col, 0.95))
		if !visible(gx, gy) && !visible(lx, ly) {
			continue
		}
		b.rect(float32(gx-hw), float32(gy-hh), float32(2*hw), float32(2*hh), rgbaOf(col, 0.08))
		b.ovlOutline(float32(gx-hw), float32(gy-hh), float32(2*hw), float32(2*hh), 1.5, rgbaOf(col, 0.95))
	}
	b.flush(dst)

	delay := int64(o.Snaps.LatestTime - cg.Time)
	if key := [4]int64{delay}; o.ghostTag.stale(key) {
		t := append(o.buf[:0], "snap "...)
		t = appendSigned(t, delay)
		o.ghostTag.put(key, append(t, " ms"...))
	}
	// The labels go round the ghosts' boxes and the players drawn, never
	// over one.
	for i := range o.ghosts {
		g := &o.ghosts[i]
		gx, gy := v.PointScreen(g.Known())
		lx, ly := v.PointScreen(g.Lerp)
		fv.labels.Reserve(gx-hw, gy-hh, gx+hw, gy+hh)
		fv.labels.Reserve(lx-hw, ly-hh, lx+hw, ly+hh)
	}
	for i := range o.ghosts {
		gx, gy := v.PointScreen(o.ghosts[i].Known())
		if visible(gx, gy) {
			o.drawPlacedLabel(dst, fv, &o.ghostTag, gx-hw, gy+hh+3, fade(colWhite, 0.85))
		}
	}
}
