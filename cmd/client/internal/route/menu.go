package route

import (
	"tremor/ui/keys"
	"tremor/ui/menu"
)

// Menu is the menu (a *menu.Model) as a Layer: navigation keys, typed
// text, the pointer and the wheel, and while a key item waits for the
// key to bind, any key or button.
type Menu struct {
	m *menu.Model
}

// NewMenu returns the Layer of m.
func NewMenu(m *menu.Model) *Menu { return &Menu{m: m} }

// Active reports whether the menu is open.
func (l *Menu) Active() bool { return l.m.IsOpen() }

// Char types r into the selected text field.
func (l *Menu) Char(r rune) { l.m.Type(r) }

// Move selects the item under the pointer.
func (l *Menu) Move(x, y int) { l.m.MouseMove(x, y) }

// menuNav maps the keys that move in a menu.
var menuNav = map[keys.KeyNum]menu.Key{
	keys.KeyUpArrow: menu.KeyUp, keys.KeyDownArrow: menu.KeyDown,
	keys.KeyLeftArrow: menu.KeyLeft, keys.KeyRightArrow: menu.KeyRight,
	keys.KeyEnter: menu.KeyEnter, keys.KeyKPEnter: menu.KeyEnter,
	keys.KeyEscape: menu.KeyBack, keys.KeyBackspace: menu.KeyBackspace,
	keys.KeyTab: menu.KeyTab,
}

// Key drives the menu. It takes every key but the console's, whose
// binding opens the console over the menu.
func (l *Menu) Key(e Event) bool {
	m := l.m
	if m.Capturing() {
		// Escape cancels; any other key or button is the one to bind.
		nav := menu.KeyNone
		if e.Key == keys.KeyEscape {
			nav = menu.KeyBack
		}
		if !e.Repeat {
			m.Press(nav, e.Key.String())
		}
		return true
	}
	switch e.Key {
	case keys.KeyConsole, keys.KeyTilde:
		return false
	case keys.KeyMouse1:
		if !e.Repeat {
			m.Click(e.X, e.Y)
		}
	case keys.KeyMWheelUp:
		m.Wheel(1)
	case keys.KeyMWheelDown:
		m.Wheel(-1)
	default:
		if nav, ok := menuNav[e.Key]; ok && !(e.Repeat && nav == menu.KeyBack) {
			m.Press(nav, e.Key.String())
		}
	}
	return true
}
