package draw

import (
	"image"
	"image/color"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame"
	"tremor/cgame/overlay"
)

// Geometry of the interpolation strip's panel, in screen pixels.
const (
	interpStripWidth  = 640
	interpStripHeight = 136
)

// InterpStripRect returns where the interpolation strip goes on a w×h
// screen whose HUD is drawn at UI scale ui: centred at the bottom, above
// the status bar, between the lagometer's corner and the right edge.
func InterpStripRect(w, h int, ui float64) image.Rectangle {
	lag := LagometerScreenRect(w, h, ui)
	room := w - 2*(lag.Max.X+16)
	pw := min(interpStripWidth, max(room, 320))
	x := (w - pw) / 2
	bottom := h - int(float64(StatusBarHeight)*ui) - 8
	return image.Rect(x, bottom-interpStripHeight, x+pw, bottom)
}

// Colours of the interpolation strip.
var (
	colStripBar     = color.RGBA{0x0c, 0x10, 0x1a, 0xff}
	colStripGrid    = color.RGBA{0x50, 0x5c, 0x74, 0xff}
	colStripTick    = color.RGBA{0xd0, 0xd8, 0xe8, 0xff}
	colStripPair    = color.RGBA{0x50, 0xa8, 0xff, 0xff}
	colStripNewest  = colHealth
	colStripExtrap  = colArmor
	colStripFrozen  = color.RGBA{0xc0, 0x50, 0x30, 0xff}
	colStripEst     = colExplosion
	colStripLost    = colLow
	colStripDimText = color.RGBA{0xa8, 0xb0, 0xc0, 0xff}
)

// DrawInterpStrip draws the interpolation strip (cg_showInterp) in
// InterpStripRect: a line of server time from 250 ms before the render
// time to 200 ms after it, with a tick at every snapshot received (red
// for a lost one, green for the newest), the two the frame interpolates
// between in blue with the span between them, the render time (cg.Time)
// as a white cursor, the render time without the nudge (the client's
// clock of server time, which settles between the two newest snapshots;
// not the server's present) as an orange dashed line, and the
// extrapolation region after the newest snapshot shaded yellow (red past
// cgame.MaxExtrapolateMsec, where players stop). nudge is the time nudge
// in force in ms (client.TimeNudge()); auto says it is cl_autoNudge's
// choice rather than cl_timeNudge. Call it after Draw, with the Overlays
// updated this frame.
func (r *Renderer) DrawInterpStrip(screen *ebiten.Image, cg *cgame.CGame, o *Overlays, nudge int32, auto bool) {
	if cg == nil || cg.Snap == nil || o == nil {
		return
	}
	o.drawInterpStrip(screen, cg, nudge, auto, r.hud.zoom)
}

// drawInterpStrip draws the strip: see Renderer.DrawInterpStrip.
func (o *Overlays) drawInterpStrip(screen *ebiten.Image, cg *cgame.CGame, nudge int32, auto bool, ui float64) {
	sb := screen.Bounds()
	rect := InterpStripRect(sb.Dx(), sb.Dy(), ui)
	const pad = 10
	cfg := overlay.DefaultStrip
	cfg.Width = float64(rect.Dx() - 2*pad)
	s := &o.strip
	s.Layout(cfg, overlay.StripInputOf(cg, nudge), o.Snaps.Records())

	x0, y0 := float32(rect.Min.X), float32(rect.Min.Y)
	bx := x0 + pad // the bar's left end
	by := y0 + 72  // its top
	const bh = 22  // its height
	bw := float32(s.Width)
	b := &o.b
	b.vgrad(x0, y0, float32(rect.Dx()), float32(rect.Dy()),
		rgbaOf(color.RGBA{0x10, 0x14, 0x22, 0xff}, 0.82), rgbaOf(color.RGBA{0x04, 0x06, 0x0c, 0xff}, 0.82))
	b.rect(x0, y0, float32(rect.Dx()), 1, rgbaOf(colStripGrid, 0.6))
	b.flush(screen)
	o.drawStripStatic(screen, s, rect, bx, by, bh)
	b.rect(bx, by, bw, bh, rgbaOf(colStripBar, 1))

	// Extrapolation region, and past the cap where players stand.
	if s.ExtrapX < s.Width {
		b.rect(bx+float32(s.ExtrapX), by, float32(s.Width-s.ExtrapX), bh, rgbaOf(colStripExtrap, 0.22))
	}
	if s.CapX < s.Width {
		b.rect(bx+float32(s.CapX), by, float32(s.Width-s.CapX), bh, rgbaOf(colStripFrozen, 0.3))
	}
	// The interpolation span.
	if s.HaveSnap && s.HaveNext {
		b.rect(bx+float32(s.SnapX), by+4, float32(s.NextX-s.SnapX), bh-8, rgbaOf(colStripPair, 0.35))
	}
	for i := 0; i < s.NGrid; i++ {
		g := s.Grid[i]
		b.rect(bx+float32(g.X), by+bh, 1, 4, rgbaOf(colStripGrid, 1))
		b.rect(bx+float32(g.X), by, 1, bh, rgbaOf(colStripGrid, 0.35))
	}
	for i := 0; i < s.NTicks; i++ {
		t := s.Ticks[i]
		x := bx + float32(t.X)
		switch {
		case t.Lost:
			b.rect(x-1, by+2, 2, bh-4, rgbaOf(colStripLost, 1))
		case t.Pair:
			b.rect(x-1.5, by-3, 3, bh+6, rgbaOf(colStripPair, 1))
		case t.Newest:
			b.rect(x-1, by, 2, bh, rgbaOf(colStripNewest, 1))
		default:
			b.rect(x-0.5, by+2, 1.5, bh-4, rgbaOf(colStripTick, 0.85))
		}
		if t.Newest && t.Pair {
			b.rect(x-1.5, by+bh+1, 3, 3, rgbaOf(colStripNewest, 1))
		}
	}
	// The render time without the nudge, and the nudge back from it.
	rx, ex := bx+float32(s.RenderX), bx+float32(s.EstimateX)
	if s.Nudge != 0 {
		b.ovlDashed(ex, by-4, ex, by+bh+4, 2, 3, rgbaOf(colStripEst, 1))
		b.line(rx, by+bh/2, ex, by+bh/2, 1, rgbaOf(colStripEst, 0.8))
	}
	// The render time.
	b.rect(rx-1, by-6, 2, bh+12, rgbaOf(colWhite, 1))
	b.tri(rx-5, by-10, rx+5, by-10, rx, by-4, rgbaOf(colWhite, 1))
	b.flush(screen)

	o.drawStripText(screen, s, nudge, auto, rect, bx, by, bh)
}

// drawStripStatic draws the strip's parts that depend only on its size
// (the grid labels, the render time's label, the legend) from an image
// made once.
func (o *Overlays) drawStripStatic(screen *ebiten.Image, s *overlay.Strip, rect image.Rectangle, bx, by, bh float32) {
	if o.stripStatic == nil || o.stripStaticFor != rect {
		if o.stripStatic != nil {
			o.stripStatic.Deallocate()
		}
		o.stripStatic = ebiten.NewImage(rect.Dx(), rect.Dy())
		o.stripStaticFor = rect
		img := o.stripStatic
		// Panel coordinates.
		x, y := float64(bx)-float64(rect.Min.X), float64(by+bh)-float64(rect.Min.Y)+5
		right := x + s.Width
		rw := o.textWidth("render", 1)
		rx := min(max(x+s.RenderX-rw/2, x), right-rw)
		o.text(img, "render", rx, y, 1, colWhite)
		for i := 0; i < s.NGrid; i++ {
			g := s.Grid[i]
			if g.Rel == 0 {
				continue
			}
			l := o.gridLabel(g.Rel, i == 0)
			w := o.textWidth(l, 1)
			lx := min(max(x+g.X-w/2, x), right-w)
			if lx+w+6 > rx && lx < rx+rw+6 {
				continue // under the render time's label
			}
			o.text(img, l, lx, y, 1, colStripDimText)
		}
		// Legend: the swatches in one batch, then their names.
		ly := float64(rect.Dy()) - 17
		lx := x
		for _, e := range stripLegend {
			o.b.rect(float32(lx), float32(ly)+3, 8, 8, rgbaOf(e.c, 1))
			lx += 12 + o.textWidth(e.name, 1) + 14
		}
		o.b.flush(img)
		lx = x
		for _, e := range stripLegend {
			o.text(img, e.name, lx+12, ly, 1, colStripDimText)
			lx += 12 + o.textWidth(e.name, 1) + 14
		}
	}
	op := &o.imgOp
	op.GeoM.Reset()
	op.GeoM.Translate(float64(rect.Min.X), float64(rect.Min.Y))
	op.ColorScale.Reset()
	screen.DrawImage(o.stripStatic, op)
}

// drawStripText writes the strip's headline, its details and the labels
// of the marks that move.
func (o *Overlays) drawStripText(screen *ebiten.Image, s *overlay.Strip, nudge int32, auto bool, rect image.Rectangle, bx, by, bh float32) {
	x := float64(rect.Min.X) + 10
	y := float64(rect.Min.Y)

	extrap := int64(0)
	if s.Extrapolating || s.Delay < 0 {
		extrap = 1
	}
	if key := [4]int64{int64(s.Delay), extrap}; o.stripHead.stale(key) {
		t := o.buf[:0]
		if extrap != 0 {
			t = append(t, "EXTRAPOLATING "...)
			t = strconv.AppendInt(t, -key[0], 10)
			t = append(t, " ms past newest snap"...)
		} else {
			t = append(t, "render time "...)
			t = strconv.AppendInt(t, key[0], 10)
			t = append(t, " ms behind newest snap"...)
		}
		o.stripHead.put(key, t)
	}
	headCol := colWhite
	if extrap != 0 {
		headCol = colStripExtrap
	}
	o.drawLabel(screen, &o.stripHead, x, y+6, 2, headCol)

	next := int64(0)
	if s.HaveNext {
		next = 1
	}
	if key := [4]int64{next, int64(s.Interval), int64(s.Frac*100 + 0.5)}; o.stripSub.stale(key) {
		t := o.buf[:0]
		if next != 0 {
			t = append(t, "interpolating between snaps "...)
			t = strconv.AppendInt(t, key[1], 10)
			t = append(t, " ms apart, "...)
			t = strconv.AppendInt(t, key[2], 10)
			t = append(t, "% of the way"...)
		} else {
			t = append(t, "no next snapshot yet: nothing to interpolate to"...)
		}
		o.stripSub.put(key, t)
	}
	o.drawLabel(screen, &o.stripSub, x, y+36, 1, colStripDimText)
	a := int64(0)
	if auto {
		a = 1
	}
	if key := [4]int64{int64(nudge), a}; o.stripNudge.stale(key) {
		t := append(o.buf[:0], "nudge "...)
		t = strconv.AppendInt(t, key[0], 10)
		if auto {
			t = append(t, " ms (cl_autoNudge)"...)
		} else {
			t = append(t, " ms (cl_timeNudge)"...)
		}
		o.stripNudge.put(key, t)
	}
	o.drawLabel(screen, &o.stripNudge, float64(rect.Max.X)-10-o.textWidth(o.stripNudge.s, 1), y+36, 1, colStripEst)

	// The moving marks' labels, in a row above the bar: the pair's,
	// then the estimate's where room is left (the legend says what the
	// orange line is when it has none).
	var pl stripPlacer
	above := float64(by) - 22
	left, right := float64(bx), float64(bx)+s.Width
	if s.HaveSnap {
		o.placeLabel(screen, &pl, &o.lblSnap, float64(bx)+s.SnapX, above, left, right, colStripPair)
	}
	if s.HaveNext {
		o.placeLabel(screen, &pl, &o.lblNext, float64(bx)+s.NextX, above, left, right, colStripPair)
	}
	if s.Nudge != 0 {
		o.placeLabel(screen, &pl, &o.lblNow, float64(bx)+s.EstimateX, above, left, right, colStripEst)
	}
	// Inside the bar: what the shaded region means, when there is room.
	if free := s.Width - s.ExtrapX; free > 90 {
		o.drawLabel(screen, &o.lblExtrap, float64(bx)+s.ExtrapX+4, float64(by)+4, 1, fade(colStripExtrap, 0.9))
	}
}

// stripLegend names the strip's colours.
var stripLegend = [...]struct {
	c    color.RGBA
	name string
}{
	{colStripTick, "snapshot"},
	{colStripPair, "interpolated"},
	{colStripNewest, "newest"},
	{colStripLost, "lost"},
	{colStripEst, "render time without the nudge"},
}

// stripPlacer keeps the strip's moving labels from overlapping.
type stripPlacer struct {
	spans [8][2]float64
	n     int
}

// free reports whether a label w wide at x overlaps none placed.
func (p *stripPlacer) free(x, w float64) bool {
	for i := 0; i < p.n; i++ {
		if x+w+4 > p.spans[i][0] && x-4 < p.spans[i][1] {
			return false
		}
	}
	return true
}

// placeLabel draws l in row y at the first free place among: centred on
// mark x, just right of it, just left of it (kept within [left,
// right]); nowhere if none is free.
func (o *Overlays) placeLabel(screen *ebiten.Image, p *stripPlacer, l *ovlLabel, x, y, left, right float64, c color.RGBA) {
	w := o.textWidth(l.s, 1)
	for _, cx := range [3]float64{x - w/2, x + 4, x - 4 - w} {
		cx = min(max(cx, left), right-w)
		if p.free(cx, w) {
			o.drawLabel(screen, l, cx, y, 1, c)
			if p.n < len(p.spans) {
				p.spans[p.n] = [2]float64{cx, cx + w}
				p.n++
			}
			return
		}
	}
}

// gridLabel returns the text of a grid mark rel ms from the render time
// ("-250", "+50"; with unit, "-250 ms"), made once per value.
func (o *Overlays) gridLabel(rel int32, unit bool) string {
	k := int64(rel) << 1
	if unit {
		k |= 1
	}
	if s, ok := o.gridLabels[k]; ok {
		return s
	}
	s := string(appendSigned(nil, int64(rel)))
	if unit {
		s += " ms"
	}
	o.gridLabels[k] = s
	return s
}
