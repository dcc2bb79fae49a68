package keys

import (
	"slices"
	"strconv"
	"strings"
)

// KeyNum numbers a key (Quake III's keyNum_t): the ASCII code for the
// keys that type a character, lower case for letters, and the constants
// from 128 up for the others. 0 is no key.
type KeyNum int

// NumKeys bounds the key numbers: every key is in [1, NumKeys).
const NumKeys = 256

// Keys that type a control character keep its ASCII code.
const (
	KeyTab       KeyNum = 9
	KeyEnter     KeyNum = 13
	KeyEscape    KeyNum = 27
	KeySpace     KeyNum = 32
	KeyBackspace KeyNum = 127

	// KeyConsole is the console key, ` (with ~ on most layouts).
	KeyConsole KeyNum = '`'
	// KeyTilde is ~, for keyboards that report the console key shifted.
	KeyTilde KeyNum = '~'
)

// Keys that type no character.
const (
	KeyCommand KeyNum = 128 + iota
	KeyCapsLock
	KeyPause
	KeyUpArrow
	KeyDownArrow
	KeyLeftArrow
	KeyRightArrow
	KeyAlt
	KeyCtrl
	KeyShift
	KeyIns
	KeyDel
	KeyPgDn
	KeyPgUp
	KeyHome
	KeyEnd
	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12
	KeyF13
	KeyF14
	KeyF15
	KeyKPHome
	KeyKPUpArrow
	KeyKPPgUp
	KeyKPLeftArrow
	KeyKP5
	KeyKPRightArrow
	KeyKPEnd
	KeyKPDownArrow
	KeyKPPgDn
	KeyKPEnter
	KeyKPIns
	KeyKPDel
	KeyKPSlash
	KeyKPMinus
	KeyKPPlus
	KeyKPNumLock
	KeyKPStar
	KeyKPEquals
	KeyMouse1
	KeyMouse2
	KeyMouse3
	KeyMouse4
	KeyMouse5
	KeyMWheelDown
	KeyMWheelUp
	KeyScrollLock
	KeyPrint
	KeyMenu

	// The gamepad's buttons in the standard layout (A at the bottom of
	// the right cluster, as on an Xbox pad), and its left stick pushed
	// past half way, as keys.
	KeyPadA
	KeyPadB
	KeyPadX
	KeyPadY
	KeyPadLB
	KeyPadRB
	KeyPadLT
	KeyPadRT
	KeyPadBack
	KeyPadStart
	KeyPadUp
	KeyPadDown
	KeyPadLeft
	KeyPadRight
	KeyPadStickLeft
	KeyPadStickRight
	KeyPadStickUp
	KeyPadStickDown
	lastKey
)

// Every key number fits below NumKeys.
var _ [NumKeys - lastKey]struct{}

// names holds each key's name; "" for numbers that are no key.
var names [NumKeys]string

// byName maps a lower-case name to its key.
var byName = make(map[string]KeyNum, NumKeys)

func init() {
	add := func(k KeyNum, name string) {
		if names[k] != "" || byName[name] != 0 {
			panic("keys: key named twice: " + name)
		}
		names[k] = name
		byName[name] = k
	}
	for c := 'a'; c <= 'z'; c++ {
		add(KeyNum(c), string(c))
	}
	for c := '0'; c <= '9'; c++ {
		add(KeyNum(c), string(c))
	}
	for _, c := range "`~-=[]\\',./" {
		add(KeyNum(c), string(c))
	}
	add(';', "semicolon")
	for _, n := range []struct {
		k    KeyNum
		name string
	}{
		{KeyTab, "tab"}, {KeyEnter, "enter"}, {KeyEscape, "escape"},
		{KeySpace, "space"}, {KeyBackspace, "backspace"},
		{KeyCommand, "command"}, {KeyCapsLock, "capslock"}, {KeyPause, "pause"},
		{KeyUpArrow, "uparrow"}, {KeyDownArrow, "downarrow"},
		{KeyLeftArrow, "leftarrow"}, {KeyRightArrow, "rightarrow"},
		{KeyAlt, "alt"}, {KeyCtrl, "ctrl"}, {KeyShift, "shift"},
		{KeyIns, "ins"}, {KeyDel, "del"}, {KeyPgDn, "pgdn"}, {KeyPgUp, "pgup"},
		{KeyHome, "home"}, {KeyEnd, "end"},
		{KeyKPHome, "kp_home"}, {KeyKPUpArrow, "kp_uparrow"}, {KeyKPPgUp, "kp_pgup"},
		{KeyKPLeftArrow, "kp_leftarrow"}, {KeyKP5, "kp_5"},
		{KeyKPRightArrow, "kp_rightarrow"}, {KeyKPEnd, "kp_end"},
		{KeyKPDownArrow, "kp_downarrow"}, {KeyKPPgDn, "kp_pgdn"},
		{KeyKPEnter, "kp_enter"}, {KeyKPIns, "kp_ins"}, {KeyKPDel, "kp_del"},
		{KeyKPSlash, "kp_slash"}, {KeyKPMinus, "kp_minus"}, {KeyKPPlus, "kp_plus"},
		{KeyKPNumLock, "kp_numlock"}, {KeyKPStar, "kp_star"}, {KeyKPEquals, "kp_equals"},
		{KeyMWheelDown, "mwheeldown"}, {KeyMWheelUp, "mwheelup"},
		{KeyScrollLock, "scrolllock"}, {KeyPrint, "print"}, {KeyMenu, "menu"},
		{KeyPadA, "pad_a"}, {KeyPadB, "pad_b"}, {KeyPadX, "pad_x"}, {KeyPadY, "pad_y"},
		{KeyPadLB, "pad_lb"}, {KeyPadRB, "pad_rb"}, {KeyPadLT, "pad_lt"}, {KeyPadRT, "pad_rt"},
		{KeyPadBack, "pad_back"}, {KeyPadStart, "pad_start"},
		{KeyPadUp, "pad_up"}, {KeyPadDown, "pad_down"}, {KeyPadLeft, "pad_left"}, {KeyPadRight, "pad_right"},
		{KeyPadStickLeft, "pad_stickleft"}, {KeyPadStickRight, "pad_stickright"},
		{KeyPadStickUp, "pad_stickup"}, {KeyPadStickDown, "pad_stickdown"},
	} {
		add(n.k, n.name)
	}
	for i := range KeyF15 - KeyF1 + 1 {
		add(KeyF1+i, "f"+strconv.Itoa(int(i)+1))
	}
	for i := range KeyMouse5 - KeyMouse1 + 1 {
		add(KeyMouse1+i, "mouse"+strconv.Itoa(int(i)+1))
	}
}

// Lookup returns the key with the given name, ignoring ASCII case
// (Key_StringToKeynum), and whether there is one.
func Lookup(name string) (KeyNum, bool) {
	k, ok := byName[name]
	if !ok {
		k, ok = byName[strings.ToLower(name)]
	}
	return k, ok
}

// String returns the key's name, or "" for a number that is no key
// (Key_KeynumToString).
func (k KeyNum) String() string {
	if !k.Valid() {
		return ""
	}
	return names[k]
}

// Valid reports whether k is a key.
func (k KeyNum) Valid() bool {
	return k > 0 && k < NumKeys && names[k] != ""
}

// Names returns the names of all keys, sorted, for completing the
// arguments of bind and unbind.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
