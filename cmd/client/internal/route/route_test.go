package route

import (
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/cmd/client/internal/input"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/ui/keys"
	"tremor/ui/menu"
)

// window is the client's input stack without its window: a console
// table with the input buttons and the default bindings, the console,
// the chat field and the menu, routed as cmd/client routes them.
type window struct {
	t     *console.Table
	sb    *console.Scrollback
	in    input.State
	binds *keys.Binds
	con   *Console
	chat  *Chat
	menu  *menu.Model
	r     *Router
	now   int32
}

// newWindow returns a window with the main menu open and no match.
func newWindow(t *testing.T, extra ...Layer) *window {
	t.Helper()
	w := &window{t: console.NewTable(), sb: console.NewScrollback(console.DefaultScrollback)}
	w.t.SetOutput(w.sb)
	w.in.AddCommands(w.t)
	w.binds = keys.NewBinds(w.t)
	w.binds.SetDefaults()
	w.con = NewConsole(w.t, w.sb)
	w.chat = NewChat(w.t)
	w.menu = menu.New(w.t, menu.Config{Maps: []string{"arena1", "duel1"}, KeysFor: w.binds.KeysFor})
	w.t.AddCommand("toggleconsole", "", func(*cmdargs.Args) { w.chat.Close(); w.con.Toggle() })
	w.t.AddCommand("togglemenu", "", func(*cmdargs.Args) {
		if w.menu.IsOpen() {
			w.menu.Close()
		} else {
			w.menu.Open()
		}
	})
	w.t.AddCommand("messagemode", "", func(*cmdargs.Args) { w.chat.Open() })
	w.t.AddCommand("map", "", func(*cmdargs.Args) { w.t.Printf("MAP STARTED\n") })
	w.t.AddCommand("killserver", "", func(*cmdargs.Args) {})
	w.t.AddCommand("addbot", "", func(*cmdargs.Args) {})
	layers := append([]Layer{w.con, w.chat, NewMenu(w.menu)}, extra...)
	w.r = New(w.binds, layers...)
	w.menu.OpenMain()
	w.menu.Layout(1280, 720)
	return w
}

// frame runs one client frame of events, 16 ms after the last, and the
// commands they queued.
func (w *window) frame(events ...Event) {
	w.now += 16
	for i := range events {
		events[i].Time = w.now - 8
	}
	w.r.Frame(w.now, events)
	w.t.Execute()
	w.menu.Layout(1280, 720)
}

// lines returns the console's text.
func (w *window) lines() []string { return w.sb.Lines(nil) }

func down(k keys.KeyNum) Event { return Event{Kind: KeyDown, Key: k} }
func up(k keys.KeyNum) Event   { return Event{Kind: KeyUp, Key: k} }

// tap is a press and a release of k.
func tap(k keys.KeyNum) []Event { return []Event{down(k), up(k)} }

// typed is what typing s gives: for each character, the character and
// its key going down and up (letters and the space; others type only).
func typed(s string) []Event {
	var evs []Event
	for _, r := range s {
		evs = append(evs, Event{Kind: Typed, Rune: r})
		if r >= 'a' && r <= 'z' || r == ' ' {
			evs = append(evs, tap(keys.KeyNum(r))...)
		}
	}
	return evs
}

// cat joins event lists.
func cat(lists ...[]Event) []Event { return slices.Concat(lists...) }

// menuState is what must not move while the console has the keys: the
// page shown and the item selected.
func menuState(m *menu.Model) (menu.PageID, int) {
	sel := -1
	for i, it := range m.Layout(1280, 720).Items {
		if it.Selected {
			sel = i
		}
	}
	return m.Page(), sel
}

func TestConsoleOverMenu(t *testing.T) {
	tests := []struct {
		name  string
		setup func(w *window)
	}{
		{"main menu at start", func(*window) {}},
		{"after Leave match", func(w *window) {
			w.menu.SetInGame(true)
			w.menu.Open()
			w.menu.SetInGame(false)
			w.menu.OpenMainWithMessage("disconnected")
		}},
		{"after a demo ends", func(w *window) {
			w.menu.Close()
			w.menu.OpenMainWithMessage("demo finished")
		}},
		{"a page a script opened", func(w *window) {
			if err := w.menu.OpenPage("settings", ""); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWindow(t)
			tt.setup(w)
			w.menu.Layout(1280, 720)
			page, sel := menuState(w.menu)

			w.frame(down(keys.KeyConsole), Event{Kind: Typed, Rune: '`'}, up(keys.KeyConsole))
			if !w.con.Active() {
				t.Fatal("the console key did not open the console over the menu")
			}
			if w.r.Top() != w.con {
				t.Fatalf("top layer %T, want the console", w.r.Top())
			}
			w.frame(cat(typed("echo hello"), tap(keys.KeyEnter))...)
			w.frame(cat(tap(keys.KeyDownArrow), tap(keys.KeyMouse1), tap(keys.KeyEscape))...)

			lines := w.lines()
			if !slices.Contains(lines, "]echo hello") || !slices.Contains(lines, "hello") {
				t.Errorf("console text %q, want the line and hello", lines)
			}
			if w.con.Active() {
				t.Error("Escape did not close the console")
			}
			if !w.menu.IsOpen() {
				t.Error("the menu closed under the console")
			}
			if p, s := menuState(w.menu); p != page || s != sel {
				t.Errorf("menu moved: page %v item %d, was page %v item %d", p, s, page, sel)
			}
			if slices.Contains(lines, "MAP STARTED") {
				t.Error("a key reached the menu's Play")
			}
		})
	}
}

func TestTapInsideOneFrame(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(w *window)
		frame  func(w *window) []Event
		action func(w *window) bool // the tap's action happened
	}{
		{"click fires in the game", closeMenu, fixed(tap(keys.KeyMouse1)), func(w *window) bool {
			return w.in.CreateCmd(w.now, 0, 0, nil).Buttons&bg.ButtonAttack != 0
		}},
		{"Enter runs the console line", openConsole, fixed(cat(typed("echo tap"), tap(keys.KeyEnter))), func(w *window) bool {
			return slices.Contains(w.lines(), "tap")
		}},
		{"click on Play locally in the menu", func(*window) {}, clickFirstItem, onPlayPage},
		{"Enter in the menu", func(*window) {}, fixed(tap(keys.KeyEnter)), onPlayPage},
		{"T opens the chat", closeMenu, fixed(tap('t')), func(w *window) bool { return w.chat.Active() }},
		{"Enter says the chat line", func(w *window) { closeMenu(w); w.chat.Open() }, fixed(cat(typed("hi"), tap(keys.KeyEnter))), func(w *window) bool {
			return !w.chat.Active()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWindow(t)
			tt.setup(w)
			if tt.action(w) {
				t.Fatal("the action happened before the tap")
			}
			w.frame(tt.frame(w)...)
			if !tt.action(w) {
				t.Error("the tap's action did not happen")
			}
		})
	}
}

func closeMenu(w *window)   { w.menu.Close() }
func openConsole(w *window) { w.con.Toggle() }

func onPlayPage(w *window) bool { return w.menu.Page() == menu.PagePlay }

// fixed returns a frame of evs.
func fixed(evs []Event) func(*window) []Event { return func(*window) []Event { return evs } }

// clickFirstItem is a click inside one frame on the menu's first item.
func clickFirstItem(w *window) []Event {
	row := w.menu.Layout(1280, 720).Items[0].Row
	x, y := row.X+row.W/2, row.Y+row.H/2
	return []Event{{Kind: KeyDown, Key: keys.KeyMouse1, X: x, Y: y}, {Kind: KeyUp, Key: keys.KeyMouse1, X: x, Y: y}}
}

// scene is a scene layer that plays with held keys, as the classroom
// view does.
type scene struct {
	on       bool
	presses  []keys.KeyNum
	released []keys.KeyNum
}

func (s *scene) Active() bool { return s.on }
func (s *scene) Char(rune)    {}
func (s *scene) Key(e Event) bool {
	if e.Key == keys.KeyEscape || e.Key == keys.KeyConsole {
		return false
	}
	if !e.Repeat {
		s.presses = append(s.presses, e.Key)
	}
	return true
}
func (s *scene) Release(e Event) { s.released = append(s.released, e.Key) }

func TestHeld(t *testing.T) {
	s := &scene{on: true}
	w := newWindow(t, s)
	w.menu.Close()
	tests := []struct {
		name  string
		frame []Event
		held  bool
	}{
		{"tap inside a frame", tap('f'), true},
		{"the frame after", nil, false},
		{"pressed", []Event{down('f')}, true},
		{"still down", nil, true},
		{"released", []Event{up('f')}, false},
		{"released and pressed again", cat(tap('f'), []Event{down('f')}), true},
		{"released, pressed, released", cat([]Event{up('f')}, tap('f')), true},
	}
	for _, tt := range tests {
		w.frame(tt.frame...)
		if got := w.r.Held('f'); got != tt.held {
			t.Errorf("%s: Held = %v, want %v", tt.name, got, tt.held)
		}
	}
	if want := []keys.KeyNum{'f', 'f', 'f', 'f', 'f'}; !slices.Equal(s.presses, want) {
		t.Errorf("scene saw presses %v, want %v", s.presses, want)
	}
	if len(s.released) != 5 {
		t.Errorf("scene saw %d releases, want 5", len(s.released))
	}
	// Escape is not the scene's: the bindings open the menu.
	w.frame(tap(keys.KeyEscape)...)
	if !w.menu.IsOpen() {
		t.Error("Escape in the scene did not reach the bindings")
	}
	if w.r.Top() == Layer(s) {
		t.Error("the scene is on top of the open menu")
	}
}

func TestOrderInOneFrame(t *testing.T) {
	w := newWindow(t)
	w.con.Toggle()
	w.frame(cat(typed("echo one"), tap(keys.KeyEnter), typed("echo two"))...)
	lines := w.lines()
	if !slices.Contains(lines, "one") || slices.Contains(lines, "two") {
		t.Errorf("console text %q: want the first line run and not the second", lines)
	}
	if got := w.con.Prompt.Text(); got != "echo two" {
		t.Errorf("input line %q, want %q", got, "echo two")
	}
}

func TestReleasesReachBindings(t *testing.T) {
	w := newWindow(t)
	w.menu.Close()
	w.frame(down('d'))
	if !w.in.MoveRight.Active() {
		t.Fatal("D did not move right")
	}
	w.frame(tap(keys.KeyConsole)...)
	w.frame(down('a'), up('d'))
	if w.in.MoveRight.Active() {
		t.Error("D released under the console still moves right")
	}
	if w.in.MoveLeft.Active() {
		t.Error("A pressed in the console moves left")
	}
	if got := w.con.Prompt.Text(); got != "" {
		t.Errorf("input line %q: keys type only through characters", got)
	}
}

func TestRepeat(t *testing.T) {
	// Backspace goes down at 8 ms into a frame; repeats are due from
	// RepeatDelay after that, every RepeatInterval.
	tests := []struct {
		name   string
		frames int // of 16 ms with Backspace held after the press's
		want   string
	}{
		{"no repeat before the delay", (RepeatDelay - 8) / 16, "abcdefghijklmnopqrs"},
		{"three repeats", (RepeatDelay-8+2*RepeatInterval)/16 + 1, "abcdefghijklmnop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWindow(t)
			w.con.Toggle()
			w.frame(typed("abcdefghijklmnopqrst")...)
			w.frame(down(keys.KeyBackspace))
			for range tt.frames {
				w.frame()
			}
			if got := w.con.Prompt.Text(); got != tt.want {
				t.Errorf("input line %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("no repeat reaches the bindings", func(t *testing.T) {
		w := newWindow(t)
		w.menu.Close()
		if err := w.binds.Set('x', "echo X"); err != nil {
			t.Fatal(err)
		}
		w.frame(down('x'))
		for range RepeatDelay / 16 * 2 {
			w.frame()
		}
		if n := strings.Count(strings.Join(w.lines(), "\n"), "X"); n != 1 {
			t.Errorf("a held key bound to echo printed %d times, want 1", n)
		}
	})
}

func TestReleaseAll(t *testing.T) {
	w := newWindow(t)
	w.menu.Close()
	w.frame(down('d'), down(keys.KeyMouse1))
	w.r.ReleaseAll(w.now)
	w.t.Execute()
	if w.in.MoveRight.Active() || w.in.Buttons[0].Active() {
		t.Error("a button stays down after ReleaseAll")
	}
	if w.r.Down('d') || w.r.Held(keys.KeyMouse1) {
		t.Error("the router still holds keys")
	}
}

// TestCharsNeverConsoleKey: ` and ~ are the console key, never typed.
func TestCharsNeverConsoleKey(t *testing.T) {
	w := newWindow(t)
	w.con.Toggle()
	w.frame(typed("a`~b")...)
	if got := w.con.Prompt.Text(); !strings.EqualFold(got, "ab") {
		t.Errorf("input line %q, want %q", got, "ab")
	}
}
