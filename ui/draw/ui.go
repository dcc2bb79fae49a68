package draw

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
