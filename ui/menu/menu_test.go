package menu

import (
	"io"
	"slices"
	"strings"
	"testing"

	"tremor/client"
	"tremor/common/console"
	"tremor/net/cmdargs"
)

var testMaps = []string{"arena1", "arena2", "duel1"}

// rig is a table with the client's cvars and recording commands, and a
// menu on it.
type rig struct {
	t    *console.Table
	m    *Model
	ran  []string // commands run, arguments joined by "|"
	keys map[string][]string
	cv   client.Cvars
	last *string // bound to cl_lastServer when an extra declares it
}

// newRig makes the rig; an extra declaration of cl_lastServer is bound
// to r.last, as the window binds it, and given to the menu.
func newRig(tb testing.TB, extra ...console.Decl) *rig {
	tb.Helper()
	r := &rig{t: console.NewTable(), keys: map[string][]string{}}
	r.t.SetOutput(io.Discard)
	client.BindCvars(r.t.Bind(nil), &r.cv, "Player", client.CvarHooks{})
	r.t.Register(console.Decl{Name: "r_vsync", Default: "1", Flags: console.Integral, Min: 0, Max: 1})
	for _, d := range extra {
		if d.Name == "cl_lastServer" {
			r.last = new(string)
			r.t.Bind(nil).StringVar(r.last, d.Name, d.Default, 0, "")
			continue
		}
		r.t.Register(d)
	}
	for _, name := range []string{"killserver", "map", "addbot", "connect", "disconnect", "quit", "bind", "unbind"} {
		r.t.AddCommand(name, "test", func(a *cmdargs.Args) {
			argv := make([]string, a.Argc())
			for i := range argv {
				argv[i] = a.Argv(i)
			}
			r.ran = append(r.ran, strings.Join(argv, "|"))
		})
	}
	r.m = New(r.t, Config{Maps: testMaps, KeysFor: func(cmd string) []string { return r.keys[cmd] }, LastServer: r.last})
	return r
}

// exec runs the command buffer and returns what ran since the last call.
func (r *rig) exec() []string {
	r.t.Execute()
	ran := r.ran
	r.ran = nil
	return ran
}

func (r *rig) press(keys ...Key) {
	for _, k := range keys {
		r.m.Press(k, "")
	}
}

func (r *rig) typeText(s string) {
	for _, c := range s {
		r.m.Type(c)
	}
}

// item returns the laid-out item labelled label, failing if it is not
// shown.
func (r *rig) item(tb testing.TB, label string) Item {
	tb.Helper()
	for _, it := range r.m.Layout(1280, 720).Items {
		if it.Label == label {
			return it
		}
	}
	tb.Fatalf("no item %q on page %d", label, r.m.Page())
	return Item{}
}

// selected returns the label of the selected item.
func (r *rig) selected() string {
	for _, it := range r.m.Layout(1280, 720).Items {
		if it.Selected {
			return it.Label
		}
	}
	return ""
}

// goTo selects the item labelled label on the current page with Down.
func (r *rig) goTo(tb testing.TB, label string) {
	tb.Helper()
	for range 40 {
		if r.selected() == label {
			return
		}
		r.press(KeyDown)
	}
	tb.Fatalf("cannot select %q on page %d", label, r.m.Page())
}

// open opens the main menu and enters the pages named by labels.
func (r *rig) open(tb testing.TB, labels ...string) {
	tb.Helper()
	r.m.OpenMain()
	for _, l := range labels {
		r.goTo(tb, l)
		r.press(KeyEnter)
	}
}

func (r *rig) cvar(name string) string { return r.t.Get(name).Value() }

func TestNavigationWraps(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		keys  []Key
		want  string
	}{
		{"main start", nil, nil, "Play locally"},
		{"main down", nil, []Key{KeyDown}, "Join"},
		{"main up wraps to last", nil, []Key{KeyUp}, "Quit"},
		{"main down wraps to first", nil, []Key{KeyDown, KeyDown, KeyDown, KeyDown}, "Play locally"},
		{"main down past end", nil, []Key{KeyDown, KeyDown, KeyDown, KeyDown, KeyDown}, "Join"},
		{"settings up wraps to back", []string{"Settings"}, []Key{KeyUp}, "Back"},
		{"settings hides missing cvars", []string{"Settings"}, []Key{KeyUp, KeyUp, KeyUp}, "Vertical sync"},
		{"left right do not move", []string{"Settings"}, []Key{KeyDown, KeyLeft, KeyRight}, "Rate"},
		{"play", []string{"Play locally"}, []Key{KeyDown, KeyDown, KeyDown}, "Start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, tt.pages...)
			r.press(tt.keys...)
			if got := r.selected(); got != tt.want {
				t.Errorf("selected %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHiddenItemsAppearWhenDeclared(t *testing.T) {
	r := newRig(t)
	r.open(t, "Settings")
	for _, it := range r.m.Layout(1280, 720).Items {
		if it.Detail == "s_volume" || it.Detail == "r_fullscreen" {
			t.Fatalf("item %q shown without its cvar", it.Label)
		}
	}
	r.t.Register(console.Decl{Name: "s_volume", Default: "0.8", Min: 0, Max: 1})
	if it := r.item(t, "Volume"); it.Value != "0.8" || it.Fraction < 0.79 || it.Fraction > 0.81 {
		t.Errorf("volume item %+v, want value 0.8 at 0.8", it)
	}
}

func TestChoices(t *testing.T) {
	tests := []struct {
		name      string
		label     string
		cvar      string
		keys      []Key
		want      string // cvar value
		wantLabel string
	}{
		{"prediction off", "Prediction", "cl_nopredict", []Key{KeyRight}, "1", "off"},
		{"prediction back on", "Prediction", "cl_nopredict", []Key{KeyRight, KeyRight}, "0", "on"},
		{"prediction left wraps", "Prediction", "cl_nopredict", []Key{KeyLeft}, "1", "off"},
		{"enter cycles", "Prediction", "cl_nopredict", []Key{KeyEnter}, "1", "off"},
		{"vsync off", "Vertical sync", "r_vsync", []Key{KeyRight}, "0", "off"},
		{"vsync on again", "Vertical sync", "r_vsync", []Key{KeyLeft, KeyEnter}, "1", "on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, "Settings")
			r.goTo(t, tt.label)
			r.press(tt.keys...)
			if got := r.cvar(tt.cvar); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.cvar, got, tt.want)
			}
			if it := r.item(t, tt.label); it.Value != tt.wantLabel || it.Kind != KindChoice {
				t.Errorf("item shows %q (kind %d), want %q", it.Value, it.Kind, tt.wantLabel)
			}
		})
	}
}

func TestChoiceOverMaps(t *testing.T) {
	r := newRig(t)
	r.open(t, "Play locally")
	for _, want := range []string{"arena2", "duel1", "arena1"} {
		r.press(KeyRight)
		if got := r.item(t, "Map").Value; got != want {
			t.Fatalf("map %q, want %q", got, want)
		}
	}
	r.press(KeyLeft)
	if got := r.item(t, "Map").Value; got != "duel1" {
		t.Errorf("map after Left %q, want duel1", got)
	}
}

func TestConsoleChangesShowAtOnce(t *testing.T) {
	r := newRig(t)
	r.open(t, "Settings")
	r.t.Append("set cl_nopredict 1; set rate 4000; set name Console")
	r.t.Execute()
	tests := []struct{ label, want string }{
		{"Prediction", "off"},
		{"Rate", "4000"},
		{"Name", "Console"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			if got := r.item(t, tt.label).Value; got != tt.want {
				t.Errorf("shows %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSliders(t *testing.T) {
	tests := []struct {
		name  string
		label string
		cvar  string
		start string
		keys  []Key
		want  string
	}{
		{"rate up", "Rate", "rate", "25000", []Key{KeyRight}, "26000"},
		{"rate down", "Rate", "rate", "25000", []Key{KeyLeft, KeyLeft}, "23000"},
		{"rate off grid snaps up", "Rate", "rate", "25500", []Key{KeyRight}, "26000"},
		{"rate off grid snaps down", "Rate", "rate", "25500", []Key{KeyLeft}, "25000"},
		{"rate clamps at max", "Rate", "rate", "89500", []Key{KeyRight, KeyRight}, "90000"},
		{"rate clamps at min", "Rate", "rate", "1500", []Key{KeyLeft, KeyLeft}, "1000"},
		{"snaps step 5", "Snapshots", "snaps", "20", []Key{KeyRight}, "25"},
		{"snaps below own range never steps up", "Snapshots", "snaps", "1", []Key{KeyLeft}, "1"},
		{"time nudge clamps to cvar range", "Time nudge", "cl_timeNudge", "0", slices.Repeat([]Key{KeyLeft}, 10), "-30"},
		{"time nudge up", "Time nudge", "cl_timeNudge", "-30", []Key{KeyRight}, "-25"},
		{"packet dup uses cvar range", "Packet dup", "cl_packetdup", "4", []Key{KeyRight, KeyRight, KeyRight}, "5"},
		{"packet dup to zero", "Packet dup", "cl_packetdup", "1", []Key{KeyLeft, KeyLeft}, "0"},
		{"max packets min", "Max packets", "cl_maxpackets", "20", []Key{KeyLeft, KeyLeft}, "15"},
		{"error decay", "Error decay", "cg_errorDecay", "100", []Key{KeyRight}, "150"},
		{"error decay own max", "Error decay", "cg_errorDecay", "5000", []Key{KeyRight}, "5000"},
		{"volume tenths", "Volume", "s_volume", "0.7", []Key{KeyRight, KeyRight}, "0.9"},
		{"volume clamps", "Volume", "s_volume", "0.9", []Key{KeyRight, KeyRight}, "1"},
		{"volume down to zero", "Volume", "s_volume", "0.1", []Key{KeyLeft, KeyLeft}, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, console.Decl{Name: "s_volume", Default: "0.8", Min: 0, Max: 1})
			if err := r.t.Set(tt.cvar, tt.start); err != nil {
				t.Fatal(err)
			}
			r.open(t, "Settings")
			r.goTo(t, tt.label)
			r.press(tt.keys...)
			if got := r.cvar(tt.cvar); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.cvar, got, tt.want)
			}
			it := r.item(t, tt.label)
			if it.Value != tt.want || it.Fraction < 0 || it.Fraction > 1 || it.Bar.W == 0 {
				t.Errorf("item %+v", it)
			}
		})
	}
}

func TestSliderFraction(t *testing.T) {
	r := newRig(t)
	r.open(t, "Settings")
	tests := []struct {
		value string
		want  float64
	}{{"1000", 0}, {"90000", 1}, {"45500", 0.5}}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			_ = r.t.Set("rate", tt.value)
			if got := r.item(t, "Rate").Fraction; got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("fraction %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNameField(t *testing.T) {
	tests := []struct {
		name  string
		do    func(r *rig)
		want  string // name cvar
		shown string // field shows
	}{
		{"type and enter", func(r *rig) { r.typeText("xy"); r.press(KeyEnter) }, "Playerxy", "Playerxy"},
		{"backspace", func(r *rig) {
			r.press(KeyBackspace, KeyBackspace, KeyBackspace)
			r.typeText("ty")
			r.press(KeyEnter)
		}, "Platy", "Platy"},
		{"not set before enter", func(r *rig) { r.typeText("xy") }, "Player", "Playerxy"},
		{"escape cancels the edit", func(r *rig) { r.typeText("xy"); r.press(KeyBack) }, "Player", "Player"},
		{"leaving the field sets it", func(r *rig) { r.typeText("z"); r.press(KeyDown) }, "Playerz", "Playerz"},
		{"quote and semicolon refused", func(r *rig) { r.typeText(`";quit;"\`); r.press(KeyEnter) }, "Playerquit", "Playerquit"},
		{"injection attempt", func(r *rig) {
			for range 6 {
				r.press(KeyBackspace)
			}
			r.typeText(`Bob"; quit; set name "x`)
			r.press(KeyEnter)
		}, "Bob quit set name x", "Bob quit set name x"},
		{"spaces kept", func(r *rig) { r.typeText(" the Great"); r.press(KeyEnter) }, "Player the Great", "Player the Great"},
		{"non-ASCII refused", func(r *rig) { r.typeText("é\t\x7f"); r.press(KeyEnter) }, "Player", "Player"},
		{"length capped", func(r *rig) { r.typeText(strings.Repeat("a", 60)); r.press(KeyEnter) }, "Player" + strings.Repeat("a", MaxNameLen-6), "Player" + strings.Repeat("a", MaxNameLen-6)},
		{"typing elsewhere ignored", func(r *rig) { r.press(KeyDown); r.typeText("abc"); r.press(KeyUp) }, "Player", "Player"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, "Settings")
			r.goTo(t, "Name")
			tt.do(r)
			if got := r.cvar("name"); got != tt.want {
				t.Errorf("name = %q, want %q", got, tt.want)
			}
			if got := r.item(t, "Name").Value; got != tt.shown {
				t.Errorf("field shows %q, want %q", got, tt.shown)
			}
			if ran := r.exec(); len(ran) != 0 {
				t.Errorf("commands ran: %q", ran)
			}
		})
	}
}

func TestEditingFlags(t *testing.T) {
	r := newRig(t)
	r.open(t, "Settings")
	r.goTo(t, "Name")
	if it := r.item(t, "Name"); !it.Editing || it.Changed {
		t.Errorf("selected field: Editing %v Changed %v, want true false", it.Editing, it.Changed)
	}
	r.typeText("a")
	if it := r.item(t, "Name"); !it.Editing || !it.Changed {
		t.Errorf("edited field: Editing %v Changed %v, want true true", it.Editing, it.Changed)
	}
	r.press(KeyBack) // cancels the edit
	r.press(KeyBack) // leaves the page
	if r.m.Page() != PageMain {
		t.Errorf("page %d after two Backs, want main", r.m.Page())
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name    string
		last    bool // declare cl_lastServer = "10.0.0.7"
		typed   string
		enterOn string
		want    []string
		open    bool
	}{
		{"connect item", false, "192.168.1.5:27960", "Connect", []string{"connect|192.168.1.5:27960"}, false},
		{"enter in field", false, "lan-host", "Address", []string{"connect|lan-host"}, false},
		{"empty refused", false, "", "Connect", nil, true},
		{"semicolon and quote refused", false, `a;quit"b`, "Connect", []string{"connect|aquitb"}, false},
		{"default from cl_lastServer", true, "", "Connect", []string{"connect|10.0.0.7"}, false},
		{"ipv6", false, "[::1]:27961", "Connect", []string{"connect|[::1]:27961"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []console.Decl
			if tt.last {
				extra = append(extra, console.Decl{Name: "cl_lastServer", Default: "10.0.0.7"})
			}
			r := newRig(t, extra...)
			r.open(t, "Join")
			r.typeText(tt.typed)
			r.goTo(t, tt.enterOn)
			r.press(KeyEnter)
			if got := r.exec(); !slices.Equal(got, tt.want) {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if r.m.IsOpen() != tt.open {
				t.Errorf("open %v, want %v", r.m.IsOpen(), tt.open)
			}
			if tt.open && r.m.Message() == "" {
				t.Error("refusal without a message")
			}
		})
	}
}

func TestJoinRemembersServer(t *testing.T) {
	r := newRig(t, console.Decl{Name: "cl_lastServer", Default: ""})
	r.open(t, "Join")
	r.typeText("example.org")
	r.goTo(t, "Connect")
	r.press(KeyEnter)
	if got := r.cvar("cl_lastServer"); got != "example.org" {
		t.Errorf("cl_lastServer = %q", got)
	}
}

func TestPlayStart(t *testing.T) {
	tests := []struct {
		name string
		keys []Key // from Map
		want []string
	}{
		{"defaults", nil, []string{"killserver", "map|arena1", "addbot|Anvil|2", "addbot|Brick|2", "addbot|Cinder|2"}},
		{"second map, one bot, skill 5", []Key{KeyRight, KeyDown, KeyLeft, KeyLeft, KeyDown, KeyRight, KeyRight, KeyRight},
			[]string{"killserver", "map|arena2", "addbot|Anvil|5"}},
		{"no bots", []Key{KeyLeft, KeyDown, KeyLeft, KeyLeft, KeyLeft, KeyLeft}, []string{"killserver", "map|duel1"}},
		{"skill clamps at 1", []Key{KeyDown, KeyLeft, KeyLeft, KeyDown, KeyLeft, KeyLeft, KeyLeft, KeyLeft, KeyLeft},
			[]string{"killserver", "map|arena1", "addbot|Anvil|1"}},
		{"bots clamp at 15", append([]Key{KeyDown}, slices.Repeat([]Key{KeyRight}, 20)...), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, "Play locally")
			r.press(tt.keys...)
			r.goTo(t, "Start")
			r.press(KeyEnter)
			got := r.exec()
			if tt.want == nil { // the 15-bot case
				if len(got) != 2+MaxBots || got[0] != "killserver" || got[1] != "map|arena1" || got[1+MaxBots] != "addbot|Onyx|2" {
					t.Errorf("ran %q", got)
				}
			} else if !slices.Equal(got, tt.want) {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if r.m.IsOpen() {
				t.Error("menu still open after Start")
			}
		})
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		name    string
		label   string
		presses []struct {
			k    Key
			name string
		}
		want    []string
		capture bool // still capturing at the end
		page    PageID
	}{
		{"bind", "Move left", presses(KeyEnter, "ENTER", KeyNone, "Q"), []string{"bind|Q|+moveleft"}, false, PageKeys},
		{"bind a navigation key", "Jump", presses(KeyEnter, "ENTER", KeyUp, "UPARROW"), []string{"bind|UPARROW|+moveup"}, false, PageKeys},
		{"bind a command with a space", "Railgun", presses(KeyEnter, "ENTER", KeyNone, "5"), []string{"bind|5|weapon 5"}, false, PageKeys},
		{"bind semicolon", "Chat", presses(KeyEnter, "ENTER", KeyNone, ";"), []string{"bind|;|messagemode"}, false, PageKeys},
		{"quote key refused", "Chat", presses(KeyEnter, "ENTER", KeyNone, `"`), nil, false, PageKeys},
		{"escape cancels", "Fire", presses(KeyEnter, "ENTER", KeyBack, "ESCAPE"), nil, false, PageKeys},
		{"waits for a named key", "Fire", presses(KeyEnter, "ENTER", KeyNone, ""), nil, true, PageKeys},
		{"escape after cancel goes back", "Fire", presses(KeyEnter, "ENTER", KeyBack, "ESCAPE", KeyBack, "ESCAPE"), nil, false, PageSettings},
		{"backspace unbinds", "Move left", presses(KeyBackspace, "BACKSPACE"), []string{"unbind|A", "unbind|LEFTARROW"}, false, PageKeys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.keys["+moveleft"] = []string{"A", "LEFTARROW"}
			r.open(t, "Settings", "Keys")
			r.goTo(t, tt.label)
			for _, p := range tt.presses {
				r.m.Press(p.k, p.name)
			}
			if got := r.exec(); !slices.Equal(got, tt.want) {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if r.m.Capturing() != tt.capture {
				t.Errorf("capturing %v, want %v", r.m.Capturing(), tt.capture)
			}
			if r.m.Page() != tt.page {
				t.Errorf("page %d, want %d", r.m.Page(), tt.page)
			}
		})
	}
}

func presses(a ...any) []struct {
	k    Key
	name string
} {
	var out []struct {
		k    Key
		name string
	}
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, struct {
			k    Key
			name string
		}{a[i].(Key), a[i+1].(string)})
	}
	return out
}

func TestKeysShown(t *testing.T) {
	r := newRig(t)
	r.keys["+moveleft"] = []string{"A", "LEFTARROW"}
	r.open(t, "Settings", "Keys")
	tests := []struct {
		label, value, detail string
		capture              bool
	}{
		{"Move left", "A, LEFTARROW", "+moveleft", false},
		{"Jump", "---", "+moveup", false},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			it := r.item(t, tt.label)
			if it.Value != tt.value || it.Detail != tt.detail || it.Kind != KindKey {
				t.Errorf("item %+v", it)
			}
		})
	}
	r.keys["+moveleft"] = []string{"Z"}
	if got := r.item(t, "Move left").Value; got != "Z" {
		t.Errorf("after a rebind shows %q, want Z", got)
	}
	r.press(KeyEnter)
	if it := r.item(t, "Move left"); !it.Capturing || it.Value != "press a key..." {
		t.Errorf("capturing item %+v", it)
	}
	if v := r.m.Layout(1280, 720); v.Hint != hintCapture {
		t.Errorf("hint %q while capturing", v.Hint)
	}
}

func TestInGameMenu(t *testing.T) {
	t.Run("escape opens the in-game menu", func(t *testing.T) {
		r := newRig(t)
		r.m.SetInGame(true)
		if r.m.Press(KeyUp, "UPARROW") {
			t.Error("closed menu took Up")
		}
		if !r.m.Press(KeyBack, "ESCAPE") || !r.m.IsOpen() || r.m.Page() != PageInGame {
			t.Fatalf("open %v page %d", r.m.IsOpen(), r.m.Page())
		}
		var labels []string
		for _, it := range r.m.Layout(1280, 720).Items {
			labels = append(labels, it.Label)
		}
		if want := []string{"Resume", "Settings", "Leave match", "Quit"}; !slices.Equal(labels, want) {
			t.Errorf("items %q, want %q", labels, want)
		}
		r.press(KeyBack)
		if r.m.IsOpen() {
			t.Error("Escape did not close the in-game menu")
		}
	})
	tests := []struct {
		item string
		want []string
		open bool
		page PageID
	}{
		{"Resume", nil, false, PageInGame},
		{"Settings", nil, true, PageSettings},
		{"Leave match", []string{"disconnect"}, true, PageMain},
		{"Quit", []string{"quit"}, true, PageInGame},
	}
	for _, tt := range tests {
		t.Run(tt.item, func(t *testing.T) {
			r := newRig(t)
			r.m.SetInGame(true)
			r.m.Open()
			r.goTo(t, tt.item)
			r.press(KeyEnter)
			if got := r.exec(); !slices.Equal(got, tt.want) {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if r.m.IsOpen() != tt.open {
				t.Errorf("open %v, want %v", r.m.IsOpen(), tt.open)
			}
			if tt.open && r.m.Page() != tt.page {
				t.Errorf("page %d, want %d", r.m.Page(), tt.page)
			}
		})
	}
}

func TestRoot(t *testing.T) {
	t.Run("escape on the main menu outside a match", func(t *testing.T) {
		r := newRig(t)
		r.m.Open()
		r.press(KeyBack, KeyBack)
		if !r.m.IsOpen() || r.m.Page() != PageMain {
			t.Errorf("open %v page %d", r.m.IsOpen(), r.m.Page())
		}
	})
	t.Run("escape on the main menu over a match", func(t *testing.T) {
		r := newRig(t)
		r.m.SetInGame(true)
		r.m.OpenMain()
		r.press(KeyBack)
		if r.m.IsOpen() {
			t.Error("still open")
		}
	})
	t.Run("back climbs the stack", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "Settings", "Keys")
		r.press(KeyBack)
		if r.m.Page() != PageSettings {
			t.Fatalf("page %d", r.m.Page())
		}
		r.goTo(t, "Back")
		r.press(KeyEnter)
		if r.m.Page() != PageMain {
			t.Fatalf("page %d", r.m.Page())
		}
	})
	t.Run("match lost under the in-game menu", func(t *testing.T) {
		r := newRig(t)
		r.m.SetInGame(true)
		r.m.Open()
		r.m.SetInGame(false)
		if r.m.Page() != PageMain || !r.m.IsOpen() {
			t.Errorf("page %d open %v", r.m.Page(), r.m.IsOpen())
		}
	})
	t.Run("main quit", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "Quit")
		if got := r.exec(); !slices.Equal(got, []string{"quit"}) {
			t.Errorf("ran %q", got)
		}
	})
	t.Run("closed menu ignores typing and mouse", func(t *testing.T) {
		r := newRig(t)
		r.m.Type('a')
		r.m.Click(640, 360)
		if r.m.IsOpen() || len(r.exec()) != 0 {
			t.Error("closed menu reacted")
		}
	})
}

func centre(rc Rect) (int, int) { return rc.X + rc.W/2, rc.Y + rc.H/2 }

func TestMouse(t *testing.T) {
	t.Run("hit test before layout", func(t *testing.T) {
		r := newRig(t)
		r.m.OpenMain()
		if i := r.m.HitTest(640, 360); i != -1 {
			t.Errorf("HitTest = %d before any layout", i)
		}
	})
	t.Run("move selects, click runs", func(t *testing.T) {
		r := newRig(t)
		r.m.OpenMain()
		v := r.m.Layout(1280, 720)
		x, y := centre(v.Items[2].Row)
		if i := r.m.HitTest(x, y); i != 2 {
			t.Fatalf("HitTest = %d, want 2", i)
		}
		r.m.MouseMove(x, y)
		if got := r.selected(); got != "Settings" {
			t.Fatalf("selected %q after move", got)
		}
		r.m.MouseMove(v.Panel.X-5, y) // outside: selection stays
		if got := r.selected(); got != "Settings" {
			t.Fatalf("selected %q after move outside", got)
		}
		r.m.Click(x, y)
		if r.m.Page() != PageSettings {
			t.Fatalf("page %d after click", r.m.Page())
		}
	})
	t.Run("click outside does nothing", func(t *testing.T) {
		r := newRig(t)
		r.m.OpenMain()
		r.m.Layout(1280, 720)
		r.m.Click(2, 2)
		if r.m.Page() != PageMain || len(r.exec()) != 0 {
			t.Error("click outside acted")
		}
	})
	tests := []struct {
		name string
		at   float64 // position along the rate bar
		want string
	}{
		{"bar start", 0, "1000"},
		{"bar end", 1, "90000"},
		{"bar middle", 0.5, "46000"},
		{"past the end clamps", 1.02, "90000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, "Settings")
			bar := r.item(t, "Rate").Bar
			r.m.Click(bar.X+int(tt.at*float64(bar.W)), bar.Y+bar.H/2)
			if got := r.cvar("rate"); got != tt.want {
				t.Errorf("rate = %q, want %q", got, tt.want)
			}
			if got := r.selected(); got != "Rate" {
				t.Errorf("selected %q", got)
			}
		})
	}
	t.Run("click cycles a choice", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "Settings")
		x, y := centre(r.item(t, "Prediction").Row)
		r.m.Click(x, y)
		if got := r.cvar("cl_nopredict"); got != "1" {
			t.Errorf("cl_nopredict = %q", got)
		}
	})
	t.Run("click on a key item captures", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "Settings", "Keys")
		x, y := centre(r.item(t, "Fire").Row)
		r.m.Click(x, y)
		if !r.m.Capturing() {
			t.Fatal("not capturing")
		}
		r.m.Click(x, y) // ignored: the program sends Press(KeyNone, "MOUSE1")
		r.m.Press(KeyNone, "MOUSE1")
		if got := r.exec(); !slices.Equal(got, []string{"bind|MOUSE1|+attack"}) {
			t.Errorf("ran %q", got)
		}
	})
	t.Run("click on a text field only selects it", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "Settings")
		r.goTo(t, "Rate")
		x, y := centre(r.item(t, "Name").Row)
		r.m.Click(x, y)
		if r.selected() != "Name" || r.cvar("name") != "Player" {
			t.Errorf("selected %q name %q", r.selected(), r.cvar("name"))
		}
	})
}

func TestLayout(t *testing.T) {
	tests := []struct {
		name  string
		w, h  int
		pages []string
		down  int
		rows  int
		above bool
		below bool
		sel   string
	}{
		{"keys fit 1280x720", 1280, 720, []string{"Settings", "Keys"}, 0, len(DefaultActions) + 1, false, false, "Move left"},
		{"keys scroll in 400 px", 1280, 400, []string{"Settings", "Keys"}, 0, 7, false, true, "Move left"},
		{"keys scroll to the end", 1280, 400, []string{"Settings", "Keys"}, len(DefaultActions), 7, true, false, "Back"},
		{"tiny window keeps one row", 200, 100, nil, 2, 1, true, true, "Settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.open(t, tt.pages...)
			for range tt.down {
				r.press(KeyDown)
			}
			v := r.m.Layout(tt.w, tt.h)
			if len(v.Items) != tt.rows || v.MoreAbove != tt.above || v.MoreBelow != tt.below {
				t.Errorf("rows %d above %v below %v, want %d %v %v", len(v.Items), v.MoreAbove, v.MoreBelow, tt.rows, tt.above, tt.below)
			}
			sel := ""
			for _, it := range v.Items {
				if it.Selected {
					sel = it.Label
				}
				if it.Row.Y < v.Panel.Y || it.Row.Y+it.Row.H > v.Panel.Y+v.Panel.H {
					t.Errorf("row %q outside the panel", it.Label)
				}
			}
			if sel != tt.sel {
				t.Errorf("selected %q shown, want %q", sel, tt.sel)
			}
			if v.Hint == "" || v.Title == "" {
				t.Error("no hint or title")
			}
		})
	}
}

func TestHints(t *testing.T) {
	tests := []struct {
		name   string
		inGame bool
		pages  []string
		label  string
		want   string
	}{
		{"main outside a match", false, nil, "Join", hintAction},
		{"main over a match", true, nil, "Join", hintAction + escClose},
		{"settings slider", false, []string{"Settings"}, "Rate", hintChange + escBack},
		{"settings text", false, []string{"Settings"}, "Name", hintText + escBack},
		{"keys", false, []string{"Settings", "Keys"}, "Jump", hintKey + escBack},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.m.SetInGame(tt.inGame)
			r.open(t, tt.pages...)
			r.goTo(t, tt.label)
			if got := r.m.Layout(1280, 720).Hint; got != tt.want {
				t.Errorf("hint %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToken(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"arena1", "arena1", true},
		{"", `""`, true},
		{"a b", `"a b"`, true},
		{";", `";"`, true},
		{"a;quit", `"a;quit"`, true},
		{"//x", `"//x"`, true},
		{"/*x", `"/*x"`, true},
		{"a/b", "a/b", true},
		{`a"b`, "", false},
		{"a\nb", "", false},
		{"a\x00", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := token(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("token(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if !ok {
				return
			}
			// The command buffer and tokenizer give the argument back.
			tab := console.NewTable()
			tab.SetOutput(io.Discard)
			var argv []string
			tab.AddCommand("probe", "", func(a *cmdargs.Args) { argv = []string{a.Argv(1), a.Argv(2)} })
			tab.Append("probe " + got + " end")
			tab.Execute()
			if argv == nil || argv[0] != tt.in || argv[1] != "end" {
				t.Errorf("read back %q", argv)
			}
		})
	}
}

func TestLayoutAllocs(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
	}{
		{"main", nil},
		{"settings", []string{"Settings"}},
		{"keys", []string{"Settings", "Keys"}},
		{"play", []string{"Play locally"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.keys["+moveleft"] = []string{"A", "LEFTARROW"}
			r.open(t, tt.pages...)
			r.m.Layout(1280, 720)
			if n := testing.AllocsPerRun(100, func() { r.m.Layout(1280, 720) }); n != 0 {
				t.Errorf("Layout allocates %v times a frame", n)
			}
		})
	}
}

func BenchmarkLayout(b *testing.B) {
	r := newRig(b)
	r.keys["+moveleft"] = []string{"A", "LEFTARROW"}
	r.open(b, "Settings")
	b.ReportAllocs()
	for b.Loop() {
		r.m.Layout(1280, 720)
	}
}

func TestInviteNote(t *testing.T) {
	r := newRig(t)
	url := "students open http://192.168.1.20:27960/"
	r.m.cfg.Invite = func() string { return url }
	tests := []struct {
		name string
		set  func()
		want string
	}{
		{"main page", func() { r.m.OpenMain() }, url},
		{"a message goes first", func() { r.m.OpenMainWithMessage("server disconnected: was kicked") }, ""},
		{"in-game page", func() { r.m.SetInGame(true); r.m.Open() }, url},
		{"a page below: no note", func() { r.m.SetInGame(false); r.m.OpenMain(); _ = r.m.OpenPage("settings", "") }, ""},
		{"no server page to offer", func() { url = ""; r.m.OpenMain() }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.set()
			if got := r.m.Layout(1280, 720).Note; got != tt.want {
				t.Fatalf("Note = %q, want %q", got, tt.want)
			}
		})
	}
}
