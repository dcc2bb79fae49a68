package keys

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// recorder is a table whose commands of interest record their lines.
type recorder struct {
	t     *console.Table
	b     *Binds
	out   strings.Builder
	lines []string
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{t: console.NewTable()}
	r.t.SetOutput(&r.out)
	r.b = NewBinds(r.t)
	for _, name := range []string{"+attack", "-attack", "+moveup", "-moveup", "+moveleft", "-moveleft",
		"weapnext", "weapprev", "weapon", MenuCommand, ConsoleCommand, "say"} {
		r.t.AddCommand(name, "", func(a *cmdargs.Args) { r.lines = append(r.lines, a.ArgsFrom(0)) })
	}
	return r
}

// run executes the command buffer and returns the recorded lines since
// the last run.
func (r *recorder) run() []string {
	r.t.Execute()
	l := r.lines
	r.lines = nil
	return l
}

func mustKey(t *testing.T, name string) KeyNum {
	t.Helper()
	k, ok := Lookup(name)
	if !ok {
		t.Fatalf("no key %q", name)
	}
	return k
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) < 100 {
		t.Fatalf("only %d key names", len(names))
	}
	for _, n := range names {
		k, ok := Lookup(n)
		if !ok || k.String() != n {
			t.Errorf("Lookup(%q) = %v, %v; String %q", n, k, ok, k.String())
		}
		if strings.ToLower(n) != n {
			t.Errorf("name %q not lower case", n)
		}
		// The name must survive a bind line.
		a := cmdargs.Tokenize("bind " + n + " \"x\"")
		if a.Argc() != 3 || a.Argv(1) != n {
			t.Errorf("bind line for %q tokenizes as %d tokens, key %q", n, a.Argc(), a.Argv(1))
		}
	}
	for _, n := range []string{"a", "z", "0", "9", "space", "tab", "enter", "escape", "backspace",
		"uparrow", "downarrow", "leftarrow", "rightarrow", "shift", "ctrl", "alt", "f1", "f12",
		"mouse1", "mouse5", "mwheelup", "mwheeldown", "`", "~", "pgup", "pgdn", "home", "end",
		"ins", "del", "kp_enter", "semicolon"} {
		if !slices.Contains(names, n) {
			t.Errorf("no key %q", n)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		want KeyNum
		ok   bool
	}{
		{"a", 'a', true},
		{"A", 'a', true},
		{"MOUSE1", KeyMouse1, true},
		{"UpArrow", KeyUpArrow, true},
		{"F11", KeyF11, true},
		{"`", KeyConsole, true},
		{"semicolon", ';', true},
		{";", 0, false},
		{"", 0, false},
		{"f16", 0, false},
		{"nosuchkey", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := Lookup(tt.name)
			if k != tt.want || ok != tt.ok {
				t.Errorf("Lookup(%q) = %d, %v; want %d, %v", tt.name, k, ok, tt.want, tt.ok)
			}
		})
	}
	if KeyNum(0).Valid() || KeyNum(-1).String() != "" || KeyNum(NumKeys).Valid() || KeyNum('A').Valid() {
		t.Error("a number that is no key is valid")
	}
}

func TestBindCommands(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  string
	}{
		{"usage", "bind", "usage: bind <key> [command]\n"},
		{"bad key", "bind nosuch +attack", "\"nosuch\" is not a valid key\n"},
		{"not bound", "bind x", "\"x\" is not bound\n"},
		{"show", "bind x +attack; bind X", "\"x\" = \"+attack\"\n"},
		{"quoted", "bind f11 \"toggle r_fullscreen\"; bind f11", "\"f11\" = \"toggle r_fullscreen\"\n"},
		{"several words", "bind f11 toggle r_fullscreen; bind f11", "\"f11\" = \"toggle r_fullscreen\"\n"},
		{"several commands", "bind j \"+attack; say hi\"; bind j", "\"j\" = \"+attack; say hi\"\n"},
		{"empty unbinds", "bind x +attack; bind x \"\"; bind x", "\"x\" is not bound\n"},
		{"unbind", "bind x +attack; unbind x; bind x", "\"x\" is not bound\n"},
		{"unbind usage", "unbind", "usage: unbind <key>\n"},
		{"unbind bad key", "unbind nosuch", "\"nosuch\" is not a valid key\n"},
		{"bindlist empty", "bindlist", "0 keys bound\n"},
		{"bindlist", "bind mouse1 +attack; bind a \"say hi\"; bind escape togglemenu; bindlist",
			"escape       \"togglemenu\"\n" +
				"a            \"say hi\"\n" +
				"mouse1       \"+attack\"\n" +
				"3 keys bound\n"},
		{"unbindall", "bind mouse1 +attack; bind a x; unbindall; bindlist", "0 keys bound\n"},
		{"too long", "bind x " + strings.Repeat("y", MaxBindingLen+1),
			"keys: binding for x is 961 bytes, the limit is 960\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder(t)
			r.t.Append(tt.lines)
			r.run()
			if got := r.out.String(); got != tt.want {
				t.Errorf("printed\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSetRefuses(t *testing.T) {
	var b Binds
	for _, cmd := range []string{"say \"hi\"", "a\nb", "a\rb", "a\x00"} {
		if err := b.Set('a', cmd); err == nil {
			t.Errorf("Set(%q) accepted", cmd)
		}
	}
	if err := b.Set(0, "x"); err == nil {
		t.Error("Set on key 0 accepted")
	}
	if b.Binding('a') != "" {
		t.Error("a refused binding was kept")
	}
}

// event is a key event for TestKeyEvent: key name, down, time.
type event struct {
	key  string
	down bool
	at   int32
}

func TestKeyEvent(t *testing.T) {
	m1 := strconv.Itoa(int(KeyMouse1))
	sh := strconv.Itoa(int(KeyShift))
	tests := []struct {
		name   string
		binds  string
		events []event
		want   []string
	}{
		{"press and release", "bind mouse1 +attack",
			[]event{{"mouse1", true, 100}, {"mouse1", false, 130}},
			[]string{"+attack " + m1 + " 100", "-attack " + m1 + " 130"}},
		{"two keys on one button", "bind w +moveup; bind space +moveup",
			[]event{{"w", true, 10}, {"space", true, 20}, {"w", false, 30}, {"space", false, 40}},
			[]string{"+moveup 119 10", "+moveup 32 20", "-moveup 119 30", "-moveup 32 40"}},
		{"held key does not repeat", "bind a +moveleft",
			[]event{{"a", true, 10}, {"a", true, 20}, {"a", true, 30}, {"a", false, 40}},
			[]string{"+moveleft 97 10", "-moveleft 97 40"}},
		{"other commands repeat", "bind mwheeldown weapnext",
			[]event{{"mwheeldown", true, 10}, {"mwheeldown", true, 20}, {"mwheeldown", false, 30}},
			[]string{"weapnext", "weapnext"}},
		{"release without press", "bind a +moveleft",
			[]event{{"a", false, 10}}, nil},
		{"unbound key", "",
			[]event{{"x", true, 10}, {"x", false, 20}}, nil},
		{"several commands", "bind j \"+attack; say hi;weapon 2 ;+moveup\"",
			[]event{{"j", true, 10}, {"j", false, 20}},
			[]string{"+attack 106 10", "say hi", "weapon 2", "+moveup 106 10", "-attack 106 20", "-moveup 106 20"}},
		{"rebound while held", "bind a +moveleft",
			[]event{{"a", true, 10}}, // then rebound below
			[]string{"+moveleft 97 10", "-moveleft 97 20"}},
		{"escape bound", "bind escape \"say esc\"",
			[]event{{"escape", true, 10}, {"escape", false, 20}}, []string{"say esc"}},
		{"escape unbound", "",
			[]event{{"escape", true, 10}, {"escape", true, 15}, {"escape", false, 20}}, []string{MenuCommand}},
		{"console key unbound", "",
			[]event{{"`", true, 10}, {"`", false, 20}, {"~", true, 30}}, []string{ConsoleCommand, ConsoleCommand}},
		{"shift escape", "bind escape \"say esc\"; bind shift +attack",
			[]event{{"shift", true, 10}, {"escape", true, 20}, {"escape", false, 30}, {"shift", false, 40}},
			[]string{"+attack " + sh + " 10", ConsoleCommand, "-attack " + sh + " 40"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder(t)
			r.t.Append(tt.binds)
			r.run()
			for _, e := range tt.events {
				r.b.KeyEvent(mustKey(t, e.key), e.down, e.at)
			}
			got := r.run()
			if tt.name == "rebound while held" {
				r.t.Append("bind a weapnext; unbindall")
				r.run()
				r.b.KeyEvent('a', false, 20)
				got = append(got, r.run()...)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if r.out.Len() > 0 {
				t.Errorf("printed %q", r.out.String())
			}
		})
	}
}

func TestReleaseAll(t *testing.T) {
	r := newRecorder(t)
	r.b.SetDefaults()
	r.b.KeyEvent('a', true, 10)
	r.b.KeyEvent(KeyMouse1, true, 20)
	r.b.KeyEvent('1', true, 20)
	r.run()
	r.b.ReleaseAll(50)
	got := r.run()
	want := []string{"-moveleft 97 50", "-attack " + strconv.Itoa(int(KeyMouse1)) + " 50"}
	if !slices.Equal(got, want) {
		t.Fatalf("ReleaseAll ran %q, want %q", got, want)
	}
	if r.b.IsDown('a') || r.b.IsDown('1') {
		t.Fatal("a key still down")
	}
}

func TestWriteBindsRoundTrip(t *testing.T) {
	r := newRecorder(t)
	r.b.SetDefaults()
	r.t.Append(`bind j "+attack; say hi // there"; bind semicolon "say ;"; unbind t; bind \ weapnext`)
	r.run()
	var text strings.Builder
	if err := r.b.WriteBinds(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text.String(), "unbindall\n") || !strings.Contains(text.String(), "bind mouse1 \"+attack\"\n") {
		t.Errorf("WriteBinds wrote\n%s", text.String())
	}

	r2 := newRecorder(t)
	r2.b.SetDefaults() // the written lines must replace these
	r2.t.Append("bind t foo; bind x bar")
	r2.t.Append(text.String())
	r2.run()
	if r2.out.Len() > 0 {
		t.Errorf("executing the bindings printed %q", r2.out.String())
	}
	if r2.b.binds != r.b.binds {
		for k := range NumKeys {
			if r.b.binds[k] != r2.b.binds[k] {
				t.Errorf("key %s: %q after the round trip, want %q", KeyNum(k), r2.b.binds[k], r.b.binds[k])
			}
		}
	}
}

func TestDefaults(t *testing.T) {
	var b Binds
	b.SetDefaults()
	for _, d := range []Binding{
		{"a", "+moveleft"}, {"LEFTARROW", "+moveleft"}, {"d", "+moveright"}, {"rightarrow", "+moveright"},
		{"w", "+moveup"}, {"uparrow", "+moveup"}, {"space", "+moveup"},
		{"s", "+movedown"}, {"downarrow", "+movedown"}, {"mouse1", "+attack"},
		{"1", "weapon 1"}, {"5", "weapon 5"}, {"mwheelup", "weapprev"}, {"mwheeldown", "weapnext"},
		{"tab", "+scores"}, {"t", "messagemode"}, {"`", "toggleconsole"}, {"escape", "togglemenu"},
		{"f11", "toggle r_fullscreen"}, {"f12", "screenshot"},
	} {
		if got := b.Binding(mustKey(t, d.Key)); got != d.Command {
			t.Errorf("%s bound to %q, want %q", d.Key, got, d.Command)
		}
	}
}

func BenchmarkKeyEvent(b *testing.B) {
	tbl := console.NewTable()
	bs := NewBinds(tbl)
	bs.SetDefaults()
	b.ReportAllocs()
	for b.Loop() {
		bs.KeyEvent('a', true, 10)
		bs.KeyEvent('a', false, 20)
		tbl.ClearBuffer()
	}
}

func TestKeysFor(t *testing.T) {
	tab := console.NewTable()
	b := NewBinds(tab)
	b.SetDefaults()
	got := b.KeysFor("+MOVELEFT")
	if !slices.Equal(got, []string{"a", "leftarrow", "pad_left", "pad_stickleft"}) {
		t.Errorf("KeysFor(+moveleft) = %q", got)
	}
	if got := b.KeysFor("no such command"); got != nil {
		t.Errorf("unbound command: %q", got)
	}
}
