package draw

import (
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font/basicfont"
)

// UI draws what every scene shows over its own picture: the drop-down
// console and its notify lines, the chat field being typed and the menus
// (ui/menu's models, the server browser among them). The game and the
// classroom share one. Its lifetime is the window's: it holds a text
// painter and nothing of a map, a match or a frame. Not safe for
// concurrent use.
type UI struct {
	textPainter // the small bitmap font
}

// NewUI returns the window's UI painter.
func NewUI() *UI { return &UI{textPainter: smallText()} }

// smallText returns a text painter in the small bitmap font, 7×13
// pixels a character at scale 1: the game's, its HUD's, its overlays'
// and the UI's.
func smallText() textPainter {
	var p textPainter
	p.setFace(text.NewGoXFace(basicfont.Face7x13))
	return p
}

// textWidth returns the width of s at scale.
func (p *textPainter) textWidth(s string, scale float64) float64 {
	w, _ := text.Measure(s, p.face, 0)
	return w * scale
}
