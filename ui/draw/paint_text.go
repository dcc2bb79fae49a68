package draw

import (
	"image/color"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
)

// textPainter draws text in one face: the game's Renderer with the
// small bitmap font, the classroom view with Go Mono at its UI scale.
// It lays a string out once, into a buffer kept between calls, and draws
// its glyphs (twice for a shadow): text.Draw would lay it out for each
// and allocate the glyphs every call. Not safe for concurrent use.
type textPainter struct {
	face    text.Face
	glyphs  []text.Glyph
	glyphOp ebiten.DrawImageOptions
	advance float64 // a character's width: the faces are monospaced
	// zoom magnifies everything drawn, positions and sizes alike (0 or 1:
	// none), so a painter such as the HUD's lays out a screen zoom times
	// smaller than the one it draws on (the UI scale). Measures stay in
	// the unmagnified units the caller lays out in.
	zoom float64
}

// smallText returns a text painter in the small bitmap font, 7×13
// pixels a character at scale 1: the game's, its HUD's, its overlays'
// and the UI's.
func smallText() textPainter {
	var p textPainter
	p.setFace(text.NewGoXFace(basicfont.Face7x13))
	return p
}

// setFace makes the painter draw in face.
func (p *textPainter) setFace(face text.Face) {
	p.face = face
	p.advance = text.Advance("0", face)
}

// monoFont is Go Mono, parsed once.
var monoFont = sync.OnceValues(func() (*opentype.Font, error) {
	return opentype.Parse(gomono.TTF)
})

// monoFace returns Go Mono at size pixels, or nil if it cannot be
// parsed (it is compiled in, so never in practice). It goes through
// text.GoXFace, which caches each glyph and lays text out without
// shaping: a monospaced face of plain text needs none, and shaping
// every line every frame (text.GoTextFace) doubled the classroom
// view's drawing time (docs/PERFORMANCE.md).
func monoFace(size float64) text.Face {
	f, err := monoFont()
	if err != nil {
		return nil
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil
	}
	return text.NewGoXFace(face)
}

// text draws s with its top-left corner at (x, y), scaled, with a shadow.
func (p *textPainter) text(screen *ebiten.Image, s string, x, y, scale float64, c color.RGBA) {
	if s == "" {
		return
	}
	p.glyphs = text.AppendGlyphs(p.glyphs[:0], s, p.face, nil)
	p.drawGlyphs(screen, x+scale, y+scale, scale, colShadow)
	p.drawGlyphs(screen, x, y, scale, c)
}

// plain draws s with its top-left corner at (x, y), without a shadow: on
// a dark panel it is not needed, and it halves the glyphs drawn.
func (p *textPainter) plain(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	if s == "" {
		return
	}
	p.glyphs = text.AppendGlyphs(p.glyphs[:0], s, p.face, nil)
	p.drawGlyphs(screen, x, y, 1, c)
}

// drawGlyphs draws p.glyphs scaled, moved to (x, y), in colour c.
func (p *textPainter) drawGlyphs(dst *ebiten.Image, x, y, scale float64, c color.RGBA) {
	if z := p.zoom; z > 0 && z != 1 {
		x, y, scale = x*z, y*z, scale*z
	}
	o := &p.glyphOp
	o.ColorScale.Reset()
	scaleWith(&o.ColorScale, c)
	for i := range p.glyphs {
		g := &p.glyphs[i]
		if g.Image == nil {
			continue
		}
		o.GeoM.Reset()
		o.GeoM.Translate(g.X, g.Y)
		o.GeoM.Scale(scale, scale)
		o.GeoM.Translate(x, y)
		dst.DrawImage(g.Image, o)
	}
}

// centreText draws s centred on (x, y), with a shadow.
func (p *textPainter) centreText(screen *ebiten.Image, s string, x, y, scale float64, c color.RGBA) {
	w, h := text.Measure(s, p.face, 0)
	p.text(screen, s, x-w*scale/2, y-h*scale/2, scale, c)
}

// rightText draws s with its top-right corner at (x, y), with a shadow.
func (p *textPainter) rightText(screen *ebiten.Image, s string, x, y, scale float64, c color.RGBA) {
	w, _ := text.Measure(s, p.face, 0)
	p.text(screen, s, x-w*scale, y, scale, c)
}

// fit returns s cut to the characters that fit in width pixels.
func (p *textPainter) fit(s string, width float64) string {
	if p.advance <= 0 || width <= 0 {
		return s
	}
	n, i := int(width/p.advance), 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// textWidth returns the width of s at scale.
func (p *textPainter) textWidth(s string, scale float64) float64 {
	w, _ := text.Measure(s, p.face, 0)
	return w * scale
}

// size returns the size of s laid out.
func (p *textPainter) size(s string) (w, h float64) { return text.Measure(s, p.face, 0) }
