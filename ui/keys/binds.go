package keys

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// Commands that Escape and the console key run when they are unbound,
// and Shift+Escape always. The program registers them.
const (
	MenuCommand    = "togglemenu"
	ConsoleCommand = "toggleconsole"
)

// MaxBindingLen is the longest binding, so that the line
// [Binds.WriteBinds] writes for it stays within one console line
// (cmdargs.MaxStringChars).
const MaxBindingLen = cmdargs.MaxStringChars - 64

// Binding is one key's command, by key name.
type Binding struct {
	Key, Command string
}

// Defaults are the bindings of a new player, which [Binds.SetDefaults]
// applies. Movement is on A/D and the arrows, jump on W, Up and Space,
// dropping through a platform on S and Down; the left button fires, 1–5
// choose a weapon and the wheel cycles through those held; Tab shows the
// scores while held, T opens the chat field, F11 toggles the cvar
// r_fullscreen (Quake III's name) and F12 saves a screenshot. Escape and
// the console key are bound to the commands they run anyway (see the
// package doc), so that bindlist shows them.
var Defaults = []Binding{
	{"a", "+moveleft"},
	{"leftarrow", "+moveleft"},
	{"d", "+moveright"},
	{"rightarrow", "+moveright"},
	{"w", "+moveup"},
	{"uparrow", "+moveup"},
	{"space", "+moveup"},
	{"s", "+movedown"},
	{"downarrow", "+movedown"},
	{"mouse1", "+attack"},
	{"1", "weapon 1"},
	{"2", "weapon 2"},
	{"3", "weapon 3"},
	{"4", "weapon 4"},
	{"5", "weapon 5"},
	{"mwheelup", "weapprev"},
	{"mwheeldown", "weapnext"},
	{"tab", "+scores"},
	{"t", "messagemode"},
	{"`", ConsoleCommand},
	{"escape", MenuCommand},
	{"f11", "toggle r_fullscreen"},
	{"f12", "screenshot"},
	{"pad_stickleft", "+moveleft"},
	{"pad_left", "+moveleft"},
	{"pad_stickright", "+moveright"},
	{"pad_right", "+moveright"},
	{"pad_a", "+moveup"},
	{"pad_stickdown", "+movedown"},
	{"pad_down", "+movedown"},
	{"pad_rt", "+attack"},
	{"pad_rb", "weapnext"},
	{"pad_lb", "weapprev"},
	{"pad_back", "+scores"},
	{"pad_start", MenuCommand},
}

// Binds holds the command bound to each key and which keys are down
// (Quake III's keys[] array), and queues the commands of key events on a
// console table. Its methods and commands run on the goroutine that runs
// the table's Execute; it is not safe for concurrent use.
type Binds struct {
	t       *console.Table
	binds   [NumKeys]string
	down    [NumKeys]bool
	pressed [NumKeys]string // the binding the press ran, for the release
	buf     []byte
}

// NewBinds returns a Binds with no bindings that queues on t, and adds
// the commands bind, unbind, unbindall and bindlist to t.
func NewBinds(t *console.Table) *Binds {
	b := &Binds{t: t}
	t.AddCommand("bind", "bind <key> [command]: run the command when the key is pressed, or show what it runs", b.bindCommand)
	t.AddCommand("unbind", "unbind <key>: remove the key's binding", b.unbindCommand)
	t.AddCommand("unbindall", "unbindall: remove every key's binding", func(*cmdargs.Args) { b.UnbindAll() })
	t.AddCommand("bindlist", "bindlist: list the bound keys and their commands", b.bindlistCommand)
	return b
}

// Set binds k to command; an empty command unbinds it (Key_SetBinding).
// A command holding a double quote or a line break could not be written
// back in a config file, nor one longer than MaxBindingLen: Set refuses
// them.
func (b *Binds) Set(k KeyNum, command string) error {
	if !k.Valid() {
		return fmt.Errorf("keys: no key numbered %d", int(k))
	}
	if strings.ContainsAny(command, "\"\n\r\x00") {
		return fmt.Errorf("keys: binding for %s holds a double quote or a line break", k)
	}
	if len(command) > MaxBindingLen {
		return fmt.Errorf("keys: binding for %s is %d bytes, the limit is %d", k, len(command), MaxBindingLen)
	}
	b.binds[k] = command
	return nil
}

// Binding returns the command bound to k, or "".
func (b *Binds) Binding(k KeyNum) string {
	if !k.Valid() {
		return ""
	}
	return b.binds[k]
}

// KeysFor returns the names of the keys bound to exactly command
// (ignoring case), in key order: what a menu shows next to an action.
func (b *Binds) KeysFor(command string) []string {
	var names []string
	for k := KeyNum(1); k < NumKeys; k++ {
		if c := b.binds[k]; c != "" && strings.EqualFold(c, command) {
			names = append(names, k.String())
		}
	}
	return names
}

// UnbindAll removes every binding. Keys held down still send the release
// of the button they pressed.
func (b *Binds) UnbindAll() {
	clear(b.binds[:])
}

// SetDefaults replaces the bindings with [Defaults].
func (b *Binds) SetDefaults() {
	b.UnbindAll()
	for _, d := range Defaults {
		k, ok := Lookup(d.Key)
		if !ok {
			panic("keys: default binding for unknown key " + d.Key)
		}
		if err := b.Set(k, d.Command); err != nil {
			panic(err)
		}
	}
}

// IsDown reports whether k is held down, as the last events told.
func (b *Binds) IsDown(k KeyNum) bool {
	return k.Valid() && b.down[k]
}

// KeyEvent takes a press (down) or a release of key k at timeMs, the
// client's real time in milliseconds, and queues the commands of its
// binding on the table's command buffer (the binding part of Quake III's
// CL_KeyEvent). See the package doc for what is queued. A release of a
// key that is not down does nothing, so the program may pass every
// release even while the console or a menu takes the key presses, as it
// should, lest a button stay held.
func (b *Binds) KeyEvent(k KeyNum, down bool, timeMs int32) {
	if !k.Valid() {
		return
	}
	if !down {
		if !b.down[k] {
			return
		}
		b.down[k] = false
		bind := b.pressed[k]
		b.pressed[k] = ""
		b.queue(bind, k, false, false, timeMs)
		return
	}
	repeat := b.down[k]
	b.down[k] = true
	alwaysWorks := k == KeyEscape || k == KeyConsole || k == KeyTilde
	if repeat && alwaysWorks {
		return // a toggle that repeats would flicker
	}
	bind := b.binds[k]
	switch {
	case k == KeyEscape && b.down[KeyShift]:
		bind = ConsoleCommand
	case bind == "" && k == KeyEscape:
		bind = MenuCommand
	case bind == "" && alwaysWorks:
		bind = ConsoleCommand
	}
	if !repeat {
		b.pressed[k] = bind
	}
	b.queue(bind, k, true, repeat, timeMs)
}

// ReleaseAll releases every key that is down, at timeMs (Key_ClearStates).
// The program calls it when the window loses the keyboard, whose
// releases it will never see.
func (b *Binds) ReleaseAll(timeMs int32) {
	for k := range b.down {
		if b.down[k] {
			b.KeyEvent(KeyNum(k), false, timeMs)
		}
	}
}

// queue appends the commands of bind for one event of key k.
func (b *Binds) queue(bind string, k KeyNum, down, repeat bool, timeMs int32) {
	buf := b.buf[:0]
	for rest := bind; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, ";")
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part[0] == '+':
			if down && repeat {
				continue
			}
			if !down {
				buf = append(buf, '-')
				part = part[1:]
			}
			buf = append(buf, part...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(k), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(timeMs), 10)
			buf = append(buf, '\n')
		case down:
			buf = append(buf, part...)
			buf = append(buf, '\n')
		}
	}
	b.buf = buf
	if len(buf) > 0 {
		b.t.Append(string(buf))
	}
}

// WriteBinds writes the bindings as console commands for a config file
// (Key_WriteBindings): "unbindall", then a bind line per bound key in key
// number order, so that executing the text gives back these bindings and
// no others.
func (b *Binds) WriteBinds(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("unbindall\n")
	for k, cmd := range b.binds {
		if cmd != "" {
			fmt.Fprintf(&sb, "bind %s \"%s\"\n", KeyNum(k), cmd)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func (b *Binds) bindCommand(a *cmdargs.Args) {
	if a.Argc() < 2 {
		b.t.Printf("usage: bind <key> [command]\n")
		return
	}
	k, ok := Lookup(a.Argv(1))
	if !ok {
		b.t.Printf("\"%s\" is not a valid key\n", a.Argv(1))
		return
	}
	if a.Argc() == 2 {
		if cmd := b.binds[k]; cmd != "" {
			b.t.Printf("\"%s\" = \"%s\"\n", k, cmd)
		} else {
			b.t.Printf("\"%s\" is not bound\n", k)
		}
		return
	}
	cmd := a.Argv(2)
	if a.Argc() > 3 {
		cmd = a.ArgsFrom(2)
	}
	if err := b.Set(k, cmd); err != nil {
		b.t.Printf("%v\n", err)
	}
}

func (b *Binds) unbindCommand(a *cmdargs.Args) {
	if a.Argc() != 2 {
		b.t.Printf("usage: unbind <key>\n")
		return
	}
	k, ok := Lookup(a.Argv(1))
	if !ok {
		b.t.Printf("\"%s\" is not a valid key\n", a.Argv(1))
		return
	}
	b.binds[k] = ""
}

func (b *Binds) bindlistCommand(*cmdargs.Args) {
	var sb strings.Builder
	n := 0
	for k, cmd := range b.binds {
		if cmd != "" {
			fmt.Fprintf(&sb, "%-12s \"%s\"\n", KeyNum(k), cmd)
			n++
		}
	}
	fmt.Fprintf(&sb, "%d keys bound\n", n)
	b.t.Printf("%s", sb.String())
}
