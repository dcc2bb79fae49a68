// Package route gives each key, click and typed character to whoever
// has the keyboard, as Quake III's CL_KeyEvent and CL_CharEvent did with
// their key catchers: the console when it is open, over everything;
// else the chat field; else the scene on top (the menu, a demo, the
// classroom view); else the key bindings. It knows no window system:
// the window turns what Ebitengine reports into [Event]s and hands a
// frame's worth to [Router.Frame], so it is tested without a display.
//
// # Who gets what
//
// A press goes to the first active [Layer]; a layer that does not take
// it (the console key in the menu, Escape in a demo) passes it to the
// bindings, and with no layer active the bindings get every press. A
// release goes to the bindings always (they ignore keys they did not
// see go down), so a button held when the console opened never sticks,
// and to every layer that tracks held keys ([Releaser]). A typed
// character goes to the first active layer or nowhere; ` and ~ are
// never typed, as in Quake III: they are the console key. Auto-repeats
// of a held key reach the layers only, never the bindings.
//
// # Within one frame
//
// Events are handled in the order given. A press and a release inside
// one frame both count: the press acts, and [Router.Held] reports the
// key for that frame, so a tap shorter than a frame still moves or
// fires once.
package route

import "tremor/ui/keys"

// Kind says what an Event is.
type Kind uint8

// The kinds of event.
const (
	KeyDown Kind = iota + 1 // a key or mouse button went down (or repeats)
	KeyUp                   // a key or mouse button came up
	Typed                   // a character was typed
	Moved                   // the pointer moved
)

// Event is one thing the player did. Mouse buttons and wheel steps are
// keys (keys.KeyMouse1, keys.KeyMWheelUp, ...).
type Event struct {
	Kind   Kind
	Key    keys.KeyNum // KeyDown, KeyUp
	Rune   rune        // Typed
	Repeat bool        // KeyDown: an auto-repeat of a held key
	// Ctrl and Shift: held when the event happened (the Router fills
	// them in from the keys it saw go down).
	Ctrl, Shift bool
	X, Y        int   // the pointer
	Time        int32 // the client's real time, ms
}

// Layer is something that takes the keyboard while it is active: the
// console, the chat field, a scene.
type Layer interface {
	// Active reports whether the layer is shown and has the keyboard.
	Active() bool
	// Key handles a press or an auto-repeat; false passes a press on
	// to the bindings (a repeat goes nowhere).
	Key(e Event) bool
	// Char handles a typed character.
	Char(r rune)
}

// Releaser is a Layer that wants every key release, active or not.
type Releaser interface {
	Release(e Event)
}

// Mover is a Layer that follows the pointer while it is active.
type Mover interface {
	Move(x, y int)
}

// Bindings take the presses no layer takes and every release: a
// *keys.Binds.
type Bindings interface {
	KeyEvent(k keys.KeyNum, down bool, timeMs int32)
}

// Auto-repeat of the key held last, as a text field expects.
const (
	RepeatDelay    = 500 // ms from the press to the first repeat
	RepeatInterval = 50  // ms between repeats
	maxRepeats     = 4   // repeats handed out by one Frame at most
)

// Router routes a frame's events (see the package doc). The zero
// Router is not ready: use New.
type Router struct {
	binds  Bindings
	layers []Layer

	down   [keys.NumKeys]bool
	tapped [keys.NumKeys]bool // went down during the last Frame

	repKey  keys.KeyNum // the key that repeats while held, 0 none
	repNext int32       // when it next repeats
	repX    int
	repY    int
}

// New returns a Router that gives presses to the first active layer of
// layers, in that order, and what none takes to b.
func New(b Bindings, layers ...Layer) *Router {
	return &Router{binds: b, layers: layers}
}

// Top returns the layer that has the keyboard, or nil when the bindings
// have it.
func (r *Router) Top() Layer {
	for _, l := range r.layers {
		if l.Active() {
			return l
		}
	}
	return nil
}

// Down reports whether key k is held down.
func (r *Router) Down(k keys.KeyNum) bool { return k.Valid() && r.down[k] }

// Held reports whether key k is down, or went down during the last
// Frame: a key tapped inside one frame counts as held for that frame.
func (r *Router) Held(k keys.KeyNum) bool { return k.Valid() && (r.down[k] || r.tapped[k]) }

// Frame routes the events of one frame, in order, then hands out the
// auto-repeats due at nowMs.
func (r *Router) Frame(nowMs int32, events []Event) {
	r.tapped = [keys.NumKeys]bool{}
	for i := range events {
		r.Event(events[i])
	}
	r.repeat(nowMs)
}

// Event routes one event.
func (r *Router) Event(e Event) {
	if e.Kind == KeyDown || e.Kind == KeyUp {
		if !e.Key.Valid() {
			return
		}
		if !e.Repeat {
			r.track(e)
		}
	}
	e.Ctrl, e.Shift = r.down[keys.KeyCtrl], r.down[keys.KeyShift]
	top := r.Top()
	switch e.Kind {
	case KeyDown:
		switch {
		case top != nil && top.Key(e):
		case e.Repeat:
		default:
			r.binds.KeyEvent(e.Key, true, e.Time)
		}
	case KeyUp:
		r.binds.KeyEvent(e.Key, false, e.Time)
		for _, l := range r.layers {
			if rl, ok := l.(Releaser); ok {
				rl.Release(e)
			}
		}
	case Typed:
		if top != nil && e.Rune != '`' && e.Rune != '~' {
			top.Char(e.Rune)
		}
	case Moved:
		if m, ok := top.(Mover); ok {
			m.Move(e.X, e.Y)
		}
	}
}

// track keeps the keys held, the taps and the key that repeats.
func (r *Router) track(e Event) {
	down := e.Kind == KeyDown
	r.down[e.Key] = down
	switch {
	case down:
		r.tapped[e.Key] = true
		if repeats(e.Key) {
			r.repKey, r.repNext = e.Key, e.Time+RepeatDelay
			r.repX, r.repY = e.X, e.Y
		}
	case e.Key == r.repKey:
		r.repKey = 0
	}
}

// repeats reports whether k auto-repeats while held: not a modifier,
// a mouse button or a wheel step.
func repeats(k keys.KeyNum) bool {
	switch {
	case k == keys.KeyShift, k == keys.KeyCtrl, k == keys.KeyAlt, k == keys.KeyCommand:
		return false
	case k >= keys.KeyMouse1 && k <= keys.KeyMWheelUp:
		return false
	}
	return true
}

// repeat hands the repeats of the held key due at nowMs to the layer
// on top.
func (r *Router) repeat(nowMs int32) {
	for n := 0; r.repKey != 0 && nowMs >= r.repNext; n++ {
		if n == maxRepeats {
			r.repNext = nowMs + RepeatInterval // far behind: skip the rest
			return
		}
		r.Event(Event{Kind: KeyDown, Key: r.repKey, Repeat: true, X: r.repX, Y: r.repY, Time: r.repNext})
		r.repNext += RepeatInterval
	}
}

// ReleaseAll releases every key held, at timeMs, as when the window
// loses the keyboard and will never see their releases
// (Key_ClearStates).
func (r *Router) ReleaseAll(timeMs int32) {
	for k, d := range r.down {
		if d {
			r.Event(Event{Kind: KeyUp, Key: keys.KeyNum(k), Time: timeMs})
		}
	}
	r.tapped = [keys.NumKeys]bool{}
}
