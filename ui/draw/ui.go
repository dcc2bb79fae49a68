package draw

import "tremor/ui/draw/view"

// UI draws what every scene shows over its own picture: the drop-down
// console and its notify lines, the chat field being typed and the menus
// (ui/menu's models, the server browser among them). The game and the
// classroom share one. Its lifetime is the window's: it holds a text
// painter and nothing of a map, a match or a frame. Not safe for
// concurrent use.
type UI struct {
	textPainter // the small bitmap font
	// Scale is ui_scale: the size of the console, the notify lines, the
	// chat field and the menus; 0 picks it from the window
	// (view.UIScale), as the classroom view and the game's labels do.
	Scale float64
}

// uiScale returns the UI scale on a w×h screen.
func (u *UI) uiScale(w, h int) float64 { return view.UIScale(u.Scale, w, h) }

// NewUI returns the window's UI painter.
func NewUI() *UI { return &UI{textPainter: smallText()} }
