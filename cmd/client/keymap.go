package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cmd/client/internal/route"
	"tremor/ui/keys"
)

// keyNames maps Ebitengine's keys to Tremor's key names (package
// ui/keys). Shift, Ctrl, Alt and the Meta key are Ebitengine's
// either-side keys: the two Shift keys are one key, as in Quake III.
var keyNames = []struct {
	key  ebiten.Key
	name string
}{
	{ebiten.KeyA, "a"}, {ebiten.KeyB, "b"}, {ebiten.KeyC, "c"}, {ebiten.KeyD, "d"},
	{ebiten.KeyE, "e"}, {ebiten.KeyF, "f"}, {ebiten.KeyG, "g"}, {ebiten.KeyH, "h"},
	{ebiten.KeyI, "i"}, {ebiten.KeyJ, "j"}, {ebiten.KeyK, "k"}, {ebiten.KeyL, "l"},
	{ebiten.KeyM, "m"}, {ebiten.KeyN, "n"}, {ebiten.KeyO, "o"}, {ebiten.KeyP, "p"},
	{ebiten.KeyQ, "q"}, {ebiten.KeyR, "r"}, {ebiten.KeyS, "s"}, {ebiten.KeyT, "t"},
	{ebiten.KeyU, "u"}, {ebiten.KeyV, "v"}, {ebiten.KeyW, "w"}, {ebiten.KeyX, "x"},
	{ebiten.KeyY, "y"}, {ebiten.KeyZ, "z"},
	{ebiten.KeyDigit0, "0"}, {ebiten.KeyDigit1, "1"}, {ebiten.KeyDigit2, "2"},
	{ebiten.KeyDigit3, "3"}, {ebiten.KeyDigit4, "4"}, {ebiten.KeyDigit5, "5"},
	{ebiten.KeyDigit6, "6"}, {ebiten.KeyDigit7, "7"}, {ebiten.KeyDigit8, "8"},
	{ebiten.KeyDigit9, "9"},
	{ebiten.KeyBackquote, "`"}, {ebiten.KeyMinus, "-"}, {ebiten.KeyEqual, "="},
	{ebiten.KeyBracketLeft, "["}, {ebiten.KeyBracketRight, "]"},
	{ebiten.KeyBackslash, "\\"}, {ebiten.KeyIntlBackslash, "\\"},
	{ebiten.KeySemicolon, "semicolon"}, {ebiten.KeyQuote, "'"},
	{ebiten.KeyComma, ","}, {ebiten.KeyPeriod, "."}, {ebiten.KeySlash, "/"},
	{ebiten.KeyTab, "tab"}, {ebiten.KeyEnter, "enter"}, {ebiten.KeyEscape, "escape"},
	{ebiten.KeySpace, "space"}, {ebiten.KeyBackspace, "backspace"},
	{ebiten.KeyArrowUp, "uparrow"}, {ebiten.KeyArrowDown, "downarrow"},
	{ebiten.KeyArrowLeft, "leftarrow"}, {ebiten.KeyArrowRight, "rightarrow"},
	{ebiten.KeyShift, "shift"}, {ebiten.KeyControl, "ctrl"}, {ebiten.KeyAlt, "alt"},
	{ebiten.KeyMeta, "command"}, {ebiten.KeyCapsLock, "capslock"},
	{ebiten.KeyPause, "pause"}, {ebiten.KeyScrollLock, "scrolllock"},
	{ebiten.KeyPrintScreen, "print"}, {ebiten.KeyContextMenu, "menu"},
	{ebiten.KeyInsert, "ins"}, {ebiten.KeyDelete, "del"},
	{ebiten.KeyHome, "home"}, {ebiten.KeyEnd, "end"},
	{ebiten.KeyPageUp, "pgup"}, {ebiten.KeyPageDown, "pgdn"},
	{ebiten.KeyF1, "f1"}, {ebiten.KeyF2, "f2"}, {ebiten.KeyF3, "f3"}, {ebiten.KeyF4, "f4"},
	{ebiten.KeyF5, "f5"}, {ebiten.KeyF6, "f6"}, {ebiten.KeyF7, "f7"}, {ebiten.KeyF8, "f8"},
	{ebiten.KeyF9, "f9"}, {ebiten.KeyF10, "f10"}, {ebiten.KeyF11, "f11"}, {ebiten.KeyF12, "f12"},
	{ebiten.KeyF13, "f13"}, {ebiten.KeyF14, "f14"}, {ebiten.KeyF15, "f15"},
	{ebiten.KeyNumpad7, "kp_home"}, {ebiten.KeyNumpad8, "kp_uparrow"},
	{ebiten.KeyNumpad9, "kp_pgup"}, {ebiten.KeyNumpad4, "kp_leftarrow"},
	{ebiten.KeyNumpad5, "kp_5"}, {ebiten.KeyNumpad6, "kp_rightarrow"},
	{ebiten.KeyNumpad1, "kp_end"}, {ebiten.KeyNumpad2, "kp_downarrow"},
	{ebiten.KeyNumpad3, "kp_pgdn"}, {ebiten.KeyNumpadEnter, "kp_enter"},
	{ebiten.KeyNumpad0, "kp_ins"}, {ebiten.KeyNumpadDecimal, "kp_del"},
	{ebiten.KeyNumpadDivide, "kp_slash"}, {ebiten.KeyNumpadSubtract, "kp_minus"},
	{ebiten.KeyNumpadAdd, "kp_plus"}, {ebiten.KeyNumLock, "kp_numlock"},
	{ebiten.KeyNumpadMultiply, "kp_star"}, {ebiten.KeyNumpadEqual, "kp_equals"},
}

// mouseNames maps Ebitengine's mouse buttons to key names: Quake III
// numbered the right button 2 and the middle one 3.
var mouseNames = []struct {
	button ebiten.MouseButton
	name   string
}{
	{ebiten.MouseButtonLeft, "mouse1"},
	{ebiten.MouseButtonRight, "mouse2"},
	{ebiten.MouseButtonMiddle, "mouse3"},
	{ebiten.MouseButton3, "mouse4"},
	{ebiten.MouseButton4, "mouse5"},
}

// padButtons maps the standard gamepad layout's buttons to keys.
var padButtons = []struct {
	button ebiten.StandardGamepadButton
	key    keys.KeyNum
}{
	{ebiten.StandardGamepadButtonRightBottom, keys.KeyPadA},
	{ebiten.StandardGamepadButtonRightRight, keys.KeyPadB},
	{ebiten.StandardGamepadButtonRightLeft, keys.KeyPadX},
	{ebiten.StandardGamepadButtonRightTop, keys.KeyPadY},
	{ebiten.StandardGamepadButtonFrontTopLeft, keys.KeyPadLB},
	{ebiten.StandardGamepadButtonFrontTopRight, keys.KeyPadRB},
	{ebiten.StandardGamepadButtonFrontBottomLeft, keys.KeyPadLT},
	{ebiten.StandardGamepadButtonFrontBottomRight, keys.KeyPadRT},
	{ebiten.StandardGamepadButtonCenterLeft, keys.KeyPadBack},
	{ebiten.StandardGamepadButtonCenterRight, keys.KeyPadStart},
	{ebiten.StandardGamepadButtonLeftTop, keys.KeyPadUp},
	{ebiten.StandardGamepadButtonLeftBottom, keys.KeyPadDown},
	{ebiten.StandardGamepadButtonLeftLeft, keys.KeyPadLeft},
	{ebiten.StandardGamepadButtonLeftRight, keys.KeyPadRight},
}

// padStick are the left stick's four directions as keys: pushed past
// stickPress it is down, back under stickRelease up (the gap keeps a
// stick resting near the threshold from chattering).
var padStick = [4]keys.KeyNum{keys.KeyPadStickLeft, keys.KeyPadStickRight, keys.KeyPadStickUp, keys.KeyPadStickDown}

const (
	stickPress   = 0.5
	stickRelease = 0.35
	// aimDeadZone is how far the right stick must lean to aim.
	aimDeadZone = 0.3
)

// maxWheelSteps bounds the wheel steps reported in one frame.
const maxWheelSteps = 4

// keymap polls Ebitengine's keyboard, mouse and gamepads once per frame
// and turns what changed into the frame's route.Events. Ebitengine gives
// the state of each key, not timed events: a key found down was pressed
// at some moment since the last poll, so its event is stamped at the
// middle of that interval, the best guess, which gives a press half
// strength in the frame it is seen. A key pressed and released between
// two polls is still seen: GLFW's sticky keys and buttons, which
// Ebitengine turns on, report it down at the next poll, and up at the
// one after, so it acts as a press in one frame and a release in the
// next.
type keymap struct {
	keys     []keys.KeyNum // by index of keyNames, then of mouseNames
	down     []bool        // as last polled, same index
	wheel    float64       // wheel travel not yet reported as steps
	lastPoll int32
	polled   bool

	mouseX, mouseY int
	mouseSet       bool // mouseX, mouseY hold a position read (the first one is no motion)
	chars          []rune

	pads     []ebiten.GamepadID
	padDown  [16]bool // by index of padButtons
	stick    [4]bool  // by index of padStick
	aimX     float64  // the right stick, when it leans past aimDeadZone
	aimY     float64
	aimValid bool
}

// newKeymap resolves the names of the tables; it panics on a name that
// package keys does not know, a programming error.
func newKeymap() *keymap {
	m := &keymap{}
	add := func(name string) {
		k, ok := keys.Lookup(name)
		if !ok {
			panic("client: keymap: unknown key name " + name)
		}
		m.keys = append(m.keys, k)
	}
	for _, e := range keyNames {
		add(e.name)
	}
	for _, e := range mouseNames {
		add(e.name)
	}
	m.down = make([]bool, len(m.keys))
	return m
}

// poll appends to evs what happened since the last call, stamped as
// the type doc says, and returns it: a motion of the pointer, the
// characters typed, each key, button and pad control that went down or
// up, and a press and a release of mwheelup or mwheeldown for each step
// of the wheel. nowMs is the client's real time in milliseconds.
//
// Ebitengine does not say in which order characters and keys came
// within one poll; the characters go first, so that the last letters of
// a line and the Enter that ends it, typed inside one frame, run the
// whole line.
func (m *keymap) poll(nowMs int32, evs []route.Event) []route.Event {
	t := nowMs
	if m.polled {
		t = m.lastPoll + (nowMs-m.lastPoll)/2
	}
	m.lastPoll, m.polled = nowMs, true
	x, y := ebiten.CursorPosition()
	ev := func(kind route.Kind, k keys.KeyNum, r rune) {
		evs = append(evs, route.Event{Kind: kind, Key: k, Rune: r, X: x, Y: y, Time: t})
	}

	if x != m.mouseX || y != m.mouseY {
		// Where the pointer happens to rest when the window opens is no
		// motion: it must not select the menu item under it (Quit, say).
		if m.mouseSet {
			ev(route.Moved, 0, 0)
		}
		m.mouseX, m.mouseY = x, y
	}
	m.mouseSet = true
	m.chars = ebiten.AppendInputChars(m.chars[:0])
	for _, r := range m.chars {
		ev(route.Typed, 0, r)
	}

	report := func(i int, down bool) {
		if m.down[i] != down {
			m.down[i] = down
			kind := route.KeyUp
			if down {
				kind = route.KeyDown
			}
			ev(kind, m.keys[i], 0)
		}
	}
	for i, e := range keyNames {
		report(i, ebiten.IsKeyPressed(e.key))
	}
	for i, e := range mouseNames {
		report(len(keyNames)+i, ebiten.IsMouseButtonPressed(e.button))
	}

	m.pollPads(func(k keys.KeyNum, down bool) {
		kind := route.KeyUp
		if down {
			kind = route.KeyDown
		}
		ev(kind, k, 0)
	})

	_, dy := ebiten.Wheel()
	if dy > 0 != (m.wheel > 0) {
		m.wheel = 0 // the wheel turned back: drop the rest of the old way
	}
	m.wheel += dy
	key := keys.KeyMWheelUp
	if m.wheel < 0 {
		key = keys.KeyMWheelDown
	}
	for n := 0; (m.wheel >= 1 || m.wheel <= -1) && n < maxWheelSteps; n++ {
		ev(route.KeyDown, key, 0)
		ev(route.KeyUp, key, 0)
		if m.wheel > 0 {
			m.wheel--
		} else {
			m.wheel++
		}
	}
	if m.wheel >= 1 || m.wheel <= -1 {
		m.wheel = 0 // more than maxWheelSteps in a frame: drop the excess
	}
	return evs
}

// pollPads reports the gamepads' buttons and left stick as keys (any
// pad with the standard layout; several pads act as one) and keeps the
// right stick for aiming.
func (m *keymap) pollPads(event func(k keys.KeyNum, down bool)) {
	m.pads = ebiten.AppendGamepadIDs(m.pads[:0])
	var buttons [len(m.padDown)]bool
	var lx, ly, rx, ry float64
	for _, id := range m.pads {
		if !ebiten.IsStandardGamepadLayoutAvailable(id) {
			continue
		}
		for i, b := range padButtons {
			buttons[i] = buttons[i] || ebiten.IsStandardGamepadButtonPressed(id, b.button)
		}
		x, y := ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickHorizontal),
			ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickVertical)
		if x*x+y*y > lx*lx+ly*ly {
			lx, ly = x, y
		}
		x, y = ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisRightStickHorizontal),
			ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisRightStickVertical)
		if x*x+y*y > rx*rx+ry*ry {
			rx, ry = x, y
		}
	}
	for i, b := range padButtons {
		if m.padDown[i] != buttons[i] {
			m.padDown[i] = buttons[i]
			event(b.key, buttons[i])
		}
	}
	for i, v := range [4]float64{-lx, lx, -ly, ly} {
		down := v > stickPress || m.stick[i] && v > stickRelease
		if down != m.stick[i] {
			m.stick[i] = down
			event(padStick[i], down)
		}
	}
	m.aimValid = rx*rx+ry*ry > aimDeadZone*aimDeadZone
	m.aimX, m.aimY = rx, ry
}

// padAim returns the right stick's direction when it leans past the dead
// zone: the gamepad's aim, which replaces the mouse's.
func (m *keymap) padAim() (x, y float64, ok bool) {
	return m.aimX, m.aimY, m.aimValid
}

// releaseAll forgets the keys down, as when the window loses the
// keyboard: the caller also calls keys.Binds.ReleaseAll.
func (m *keymap) releaseAll() {
	clear(m.down)
	m.wheel = 0
	m.padDown = [len(m.padDown)]bool{}
	m.stick = [4]bool{}
	m.aimValid = false
}
