package draw

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cgame/overlay"
	"tremor/ui/draw/view"
)

// This file and the other overlay_*.go files draw the teaching overlays:
// the local player's snapshot box (cg_showSnapBox), the other players'
// snapshot ghosts (cg_showGhosts), the interpolation strip
// (cg_showInterp) and the bandwidth per delta field (cg_showFieldBits).
// Their data comes from the windowless package cgame/overlay; here is
// only where and how it is drawn. docs/overlays.md explains what they
// show.

// Overlays is the teaching overlays' painter and their state between
// frames: the snapshots seen, the field-bandwidth sampler, the laid-out
// strip and the cached text. Its lifetime is the window's. Create it
// with NewOverlays; call Update once a frame while any overlay is shown,
// then the Draw* methods of Renderer, which hand it the frame's view of
// the world. Not safe for concurrent use.
type Overlays struct {
	textPainter // the small bitmap font

	// Snaps follows the engine's snapshots.
	Snaps overlay.Tracker
	// Fields samples the delta tables' counters once a second.
	Fields *overlay.FieldSampler

	ghosts []overlay.Ghost
	strip  overlay.Strip
	b      batch
	buf    []byte

	// The world overlays are drawn on the screen minus the status bar.
	world     *ebiten.Image
	worldFor  *ebiten.Image
	worldRect image.Rectangle

	// Cached text.
	imgOp                           ebiten.DrawImageOptions
	serverTag, localHead, localErr  ovlLabel
	ghostTag                        ovlLabel
	stripHead, stripSub, stripNudge ovlLabel
	lblSnap, lblNext, lblNow        ovlLabel
	lblExtrap                       ovlLabel
	gridLabels                      map[int64]string

	// The strip's parts that never move (grid labels, legend), drawn
	// once for a panel size.
	stripStatic    *ebiten.Image
	stripStaticFor image.Rectangle

	// The field-bits panel, drawn once a second.
	fieldImg   *ebiten.Image
	fieldSeq   int
	fieldReady bool
	fieldRows  [FieldBitsRows]string
	fieldBits  [FieldBitsRows]string
	fieldHead  string
}

// NewOverlays returns the overlays' state with a field sampler over the
// client's tables (overlay.ClientSources: player and entity states
// received, usercmds sent).
func NewOverlays() *Overlays {
	o := &Overlays{
		textPainter: smallText(),
		Fields:      overlay.NewFieldSampler(overlay.DefaultFieldInterval, overlay.ClientSources()...),
		ghosts:      make([]overlay.Ghost, 0, bg.MaxClients),
		buf:         make([]byte, 0, 128),
		gridLabels:  map[int64]string{},
	}
	o.serverTag.fixed("server (newest snapshot)")
	o.lblSnap.fixed("snap")
	o.lblNext.fixed("next")
	o.lblNow.fixed("no nudge")
	o.lblExtrap.fixed("extrapolate")
	return o
}

// Update takes in the snapshots the engine received since the last call
// and, once a second, the field tables' counters. src is the client
// engine (*client.Client; pass nil, not a nil pointer, when there is
// none), cg the current client game or nil, realTime the client's real
// time in ms. Call it once a frame after cgame's Frame while any overlay
// is on; it reads only new snapshots and allocates nothing but the
// counters' slices once a second.
func (o *Overlays) Update(src overlay.SnapshotSource, cg *cgame.CGame, realTime int32) {
	if cg == nil {
		src = nil
	}
	o.Snaps.Update(src, cg)
	o.Fields.Sample(realTime)
}

// ovlLabel is a line of overlay text kept as an image. Laying text out
// costs an allocation a call (Ebitengine's line advances) and r.text
// draws every glyph twice, shadow and text, so a label is formatted only
// when the numbers it shows change (key), drawn into its image only when
// its text changes, and otherwise costs one DrawImage a frame.
type ovlLabel struct {
	key   [4]int64
	s     string
	set   bool
	img   *ebiten.Image
	drawn string  // the text in img
	scale float64 // its scale
}

// stale reports whether the label must be formatted for values key.
func (l *ovlLabel) stale(key [4]int64) bool { return !l.set || key != l.key }

// put stores the formatted text for values key.
func (l *ovlLabel) put(key [4]int64, s []byte) {
	l.key, l.set = key, true
	if string(s) != l.s { // no allocation for the comparison
		l.s = string(s)
	}
}

// fixed makes the label show s.
func (l *ovlLabel) fixed(s string) { l.s, l.set = s, true }

// drawLabel draws l's text at scale, in colour c, with its top-left
// corner at (x, y), and returns its width.
func (o *Overlays) drawLabel(dst *ebiten.Image, l *ovlLabel, x, y, scale float64, c color.RGBA) float64 {
	if l.s == "" {
		return 0
	}
	if l.img == nil || l.drawn != l.s || l.scale != scale {
		tw, th := text.Measure(l.s, o.face, 0)
		w, h := int(math.Ceil(tw*scale+scale))+2, int(math.Ceil(th*scale+scale))+2
		if l.img == nil || l.img.Bounds().Dx() < w || l.img.Bounds().Dy() < h {
			if l.img != nil {
				l.img.Deallocate()
			}
			// Room to grow: a figure gaining a digit keeps the image.
			l.img = ebiten.NewImage(w+int(24*scale), h)
		} else {
			l.img.Clear()
		}
		o.text(l.img, l.s, 0, 0, scale, colWhite)
		l.drawn, l.scale = l.s, scale
	}
	op := &o.imgOp
	op.GeoM.Reset()
	op.GeoM.Translate(math.Round(x), math.Round(y))
	op.ColorScale.Reset()
	scaleWith(&op.ColorScale, c)
	dst.DrawImage(l.img, op)
	return o.textWidth(l.s, scale)
}

// drawPlacedLabel draws l like drawLabel, at the UI scale, at the first place
// near (x, y) where it covers no label placed in frame fv (the players'
// names, the other overlays' labels: view.Labels), and not at all when
// there is none.
func (o *Overlays) drawPlacedLabel(dst *ebiten.Image, fv *frameView, l *ovlLabel, x, y float64, c color.RGBA) {
	if l.s == "" {
		return
	}
	w, h := o.size(l.s)
	s := fv.ui
	if x, y, ok := fv.labels.Place(math.Round(x), math.Round(y), (w+1)*s, (h+1)*s); ok {
		o.drawLabel(dst, l, x, y, s, c)
	}
}

// tenths is v rounded to tenths, as a label key.
func tenths(v float64) int64 {
	if !(v > -1e12 && v < 1e12) {
		return 0
	}
	if v < 0 {
		return int64(v*10 - 0.5)
	}
	return int64(v*10 + 0.5)
}

// appendTenths appends t tenths with one decimal: 12.3.
func appendTenths(buf []byte, t int64) []byte {
	if t < 0 {
		buf = append(buf, '-')
		t = -t
	}
	buf = strconv.AppendInt(buf, t/10, 10)
	return append(buf, '.', byte('0'+t%10))
}

// appendSigned appends n with its sign: +5, -5, 0.
func appendSigned(buf []byte, n int64) []byte {
	if n > 0 {
		buf = append(buf, '+')
	}
	return strconv.AppendInt(buf, n, 10)
}

// worldTarget returns screen without the status bar (at frame fv's UI
// scale), where the world overlays are drawn so that they never cover
// the HUD's bar.
func (o *Overlays) worldTarget(screen *ebiten.Image, fv *frameView) *ebiten.Image {
	b := screen.Bounds()
	bar := int(float64(StatusBarHeight) * max(fv.ui, view.MinUIScale))
	rect := image.Rect(b.Min.X, b.Min.Y, b.Max.X, max(b.Min.Y, b.Max.Y-bar))
	if o.world == nil || o.worldFor != screen || o.worldRect != rect {
		o.world = screen.SubImage(rect).(*ebiten.Image)
		o.worldFor, o.worldRect = screen, rect
	}
	return o.world
}

// outline adds the outline of a rectangle, t pixels thick, inside it.
func (b *batch) ovlOutline(x, y, w, h, t float32, c rgba) {
	b.rect(x, y, w, t, c)
	b.rect(x, y+h-t, w, t, c)
	b.rect(x, y+t, t, h-2*t, c)
	b.rect(x+w-t, y+t, t, h-2*t, c)
}

// ovlDashed adds a dashed line: dashes of dash pixels, gaps as long.
func (b *batch) ovlDashed(x0, y0, x1, y1, w, dash float32, c rgba) {
	dx, dy := x1-x0, y1-y0
	l := float32(ovlHypot(dx, dy))
	if l < 0.5 || dash <= 0 {
		return
	}
	n := int(l / dash)
	for i := 0; i <= n && i < 400; i += 2 {
		a := float32(i) * dash / l
		e := min(float32(i+1)*dash/l, 1)
		b.line(x0+dx*a, y0+dy*a, x0+dx*e, y0+dy*e, w, c)
	}
}

// ovlArrow adds a line from (x0, y0) to (x1, y1) with a head at the end.
func (b *batch) ovlArrow(x0, y0, x1, y1, w float32, c rgba) {
	dx, dy := x1-x0, y1-y0
	l := float32(ovlHypot(dx, dy))
	if l < 0.5 {
		return
	}
	b.line(x0, y0, x1, y1, w, c)
	h := min(8, l*0.6)
	ux, uy := dx/l, dy/l
	b.tri(x1, y1, x1-ux*h-uy*h*0.5, y1-uy*h+ux*h*0.5, x1-ux*h+uy*h*0.5, y1-uy*h-ux*h*0.5, c)
}

func ovlHypot(x, y float32) float64 { return math.Hypot(float64(x), float64(y)) }
