package console

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"tremor/net/cmdargs"
)

// testDecls is a small declarative table in the style the server and
// client use.
var testDecls = []Decl{
	{Name: "sv_fps", Default: "20", Flags: Integral, Min: 1, Max: 125, Help: "server frames per second"},
	{Name: "sv_hostname", Default: "noname", Flags: ServerInfo | Archive, Help: "server name in browsers"},
	{Name: "sv_maxclients", Default: "8", Flags: ServerInfo | Latch | Integral, Min: 1, Max: 64, Help: "player slots"},
	{Name: "g_gametype", Default: "0", Flags: ServerInfo | Latch, Help: "game type"},
	{Name: "timescale", Default: "1", Flags: Cheat, Min: 0.1, Max: 10, Help: "speed of time"},
	{Name: "version", Default: "tremor 0.1", Flags: ReadOnly | ServerInfo, Help: "program version"},
	{Name: "dedicated", Default: "1", Flags: Init, Help: "run without a window"},
	{Name: "name", Default: "Player", Flags: UserInfo | Archive, Help: "player name"},
	{Name: "rate", Default: "25000", Flags: UserInfo | Archive | Integral, Min: 1000, Max: math.Inf(1), Help: "bytes per second"},
	{Name: "cl_timeNudge", Default: "0", Flags: Archive | Integral, Min: -100, Max: 100, Help: "extra interpolation delay, ms"},
	{Name: "cl_nopredict", Default: "0", Aliases: []string{"cg_nopredict"}, Help: "turn off prediction"},
	{Name: "cg_errorDecay", Default: "100", Min: 0, Max: 1000, Help: "prediction error decay, ms"},
}

func newTestTable(t testing.TB) (*Table, *bytes.Buffer) {
	t.Helper()
	tab := NewTable()
	var out bytes.Buffer
	tab.SetOutput(&out)
	tab.Register(testDecls...)
	return tab, &out
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		f    float64
		i    int
		isNo bool
	}{
		{"0", 0, 0, true},
		{"20", 20, 20, true},
		{"-7", -7, -7, true},
		{"+3", 3, 3, true},
		{" 12 ", 12, 12, true},
		{"1.9", 1.9, 1, true},
		{"-1.9", -1.9, -1, true},
		{".5", 0.5, 0, true},
		{"5.", 5, 5, true},
		{"1e3", 1000, 1000, true},
		{"2.5E-1", 0.25, 0, true},
		{"1e400", 0, 0, false},
		{"9223372036854775807", 9223372036854775807, math.MaxInt, true},
		{"1e30", 1e30, math.MaxInt, true},
		{"-1e30", -1e30, math.MinInt, true},
		{"", 0, 0, false},
		{"abc", 0, 0, false},
		{"12abc", 0, 0, false},
		{"0x10", 0, 0, false},
		{"1_000", 0, 0, false},
		{"NaN", 0, 0, false},
		{"Inf", 0, 0, false},
		{"1e", 0, 0, false},
		{".", 0, 0, false},
		{"-", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, i, ok := parseNumber(tt.in)
			if f != tt.f || i != tt.i || ok != tt.isNo {
				t.Errorf("parseNumber(%q) = %v, %v, %v; want %v, %v, %v", tt.in, f, i, ok, tt.f, tt.i, tt.isNo)
			}
		})
	}
}

func TestDeclareAndGet(t *testing.T) {
	tab, _ := newTestTable(t)
	tests := []struct {
		name  string
		want  string // canonical name, "" for none
		value string
		i     int
		f     float64
		b     bool
	}{
		{"sv_fps", "sv_fps", "20", 20, 20, true},
		{"SV_FPS", "sv_fps", "20", 20, 20, true},
		{"Sv_Fps", "sv_fps", "20", 20, 20, true},
		{"cl_timenudge", "cl_timeNudge", "0", 0, 0, false},
		{"CG_NOPREDICT", "cl_nopredict", "0", 0, 0, false},
		{"sv_hostname", "sv_hostname", "noname", 0, 0, false},
		{"timescale", "timescale", "1", 1, 1, true},
		{"nosuch", "", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tab.Get(tt.name)
			if tt.want == "" {
				if c != nil {
					t.Fatalf("Get(%q) = %s, want nil", tt.name, c.Name())
				}
				return
			}
			if c == nil {
				t.Fatalf("Get(%q) = nil", tt.name)
			}
			if c.Name() != tt.want || c.Value() != tt.value || c.Int() != tt.i || c.Float() != tt.f || c.Bool() != tt.b {
				t.Errorf("Get(%q) = %s %q int %d float %v bool %v; want %s %q %d %v %v",
					tt.name, c.Name(), c.Value(), c.Int(), c.Float(), c.Bool(), tt.want, tt.value, tt.i, tt.f, tt.b)
			}
		})
	}
	c := tab.Get("sv_fps")
	if c.Default() != "20" || c.Help() != "server frames per second" || c.Flags() != Integral {
		t.Errorf("sv_fps: default %q help %q flags %v", c.Default(), c.Help(), c.Flags())
	}
	if mn, mx, ok := c.Range(); !ok || mn != 1 || mx != 125 {
		t.Errorf("sv_fps range = %v, %v, %v", mn, mx, ok)
	}
	if _, _, ok := tab.Get("sv_hostname").Range(); ok {
		t.Errorf("sv_hostname has a range")
	}
}

func TestRegisterPanics(t *testing.T) {
	tests := []struct {
		name string
		decl Decl
	}{
		{"declared twice", Decl{Name: "sv_fps", Default: "1"}},
		{"declared twice other case", Decl{Name: "SV_FPS", Default: "1"}},
		{"alias taken", Decl{Name: "cg_x", Default: "1", Aliases: []string{"cl_nopredict"}}},
		{"alias repeats name", Decl{Name: "cg_y", Default: "1", Aliases: []string{"CG_Y"}}},
		{"command name", Decl{Name: "echo", Default: "1"}},
		{"empty name", Decl{Name: "", Default: "1"}},
		{"space in name", Decl{Name: "a b", Default: "1"}},
		{"semicolon in name", Decl{Name: "a;b", Default: "1"}},
		{"quote in name", Decl{Name: `a"b`, Default: "1"}},
		{"comment in name", Decl{Name: "a//b", Default: "1"}},
		{"default below min", Decl{Name: "x", Default: "0", Min: 1, Max: 2}},
		{"default not a number", Decl{Name: "x", Default: "abc", Min: 1, Max: 2}},
		{"min above max", Decl{Name: "x", Default: "1", Min: 2, Max: 1}},
		{"integral default fraction", Decl{Name: "x", Default: "1.5", Flags: Integral}},
		{"info default with backslash", Decl{Name: "x", Default: `a\b`, Flags: ServerInfo}},
		{"user-created flag", Decl{Name: "x", Default: "1", Flags: UserCreated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, _ := newTestTable(t)
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", tt.decl)
				}
			}()
			tab.Register(tt.decl)
		})
	}
}

func TestSetClamp(t *testing.T) {
	tests := []struct {
		name, cvar, value string
		want              string
		wantErr           bool
		note              string // substring of the printed note, "" for none
	}{
		{"in range", "sv_fps", "40", "40", false, ""},
		{"above max", "sv_fps", "1000", "125", false, "above the maximum 125"},
		{"below min", "sv_fps", "0", "1", false, "below the minimum 1"},
		{"negative", "sv_fps", "-5", "1", false, "below the minimum 1"},
		{"fraction truncated", "sv_fps", "30.7", "30", false, "not an integer"},
		{"fraction and above", "sv_fps", "200.5", "125", false, "not an integer and above the maximum"},
		{"not a number", "sv_fps", "fast", "20", true, ""},
		{"empty", "sv_fps", "", "20", true, ""},
		{"float range", "timescale", "0.01", "0.1", false, "below the minimum 0.1"},
		{"open range", "rate", "99999999", "99999999", false, ""},
		{"open range low", "rate", "10", "1000", false, "below the minimum 1000"},
		{"negative range", "cl_timeNudge", "-200", "-100", false, "below the minimum -100"},
		{"free text", "sv_hostname", "My Server", "My Server", false, ""},
		{"info refuses backslash", "sv_hostname", `a\b`, "noname", true, ""},
		{"info refuses semicolon", "name", "a;b", "Player", true, ""},
		{"info refuses quote", "name", `a"b`, "Player", true, ""},
		{"non-info keeps backslash", "cl_nopredict", `a\b`, `a\b`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, out := newTestTable(t)
			tab.SetCheats(true)
			err := tab.Set(tt.cvar, tt.value)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Set(%q, %q) error = %v, want error %v", tt.cvar, tt.value, err, tt.wantErr)
			}
			if got := tab.Get(tt.cvar).Value(); got != tt.want {
				t.Errorf("after Set(%q, %q) value = %q, want %q", tt.cvar, tt.value, got, tt.want)
			}
			if tt.note == "" && out.Len() != 0 {
				t.Errorf("unexpected output %q", out.String())
			}
			if tt.note != "" && !strings.Contains(out.String(), tt.note) {
				t.Errorf("output %q does not contain %q", out.String(), tt.note)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	type step struct {
		do      func(tab *Table) error
		cvar    string
		want    string
		wantErr bool
	}
	set := func(n, v string) func(*Table) error { return func(t *Table) error { return t.Set(n, v) } }
	cmdline := func(n, v string) func(*Table) error {
		return func(t *Table) error { return t.SetFromCommandLine(n, v) }
	}
	force := func(n, v string) func(*Table) error { return func(t *Table) error { return t.ForceSet(n, v) } }
	reset := func(n string) func(*Table) error { return func(t *Table) error { return t.Reset(n) } }
	cheats := func(on bool) func(*Table) error { return func(t *Table) error { t.SetCheats(on); return nil } }
	apply := func(t *Table) error { t.ApplyLatched(); return nil }
	tests := []struct {
		name  string
		steps []step
	}{
		{"read-only refuses console and command line", []step{
			{set("version", "x"), "version", "tremor 0.1", true},
			{cmdline("version", "x"), "version", "tremor 0.1", true},
			{reset("version"), "version", "tremor 0.1", true},
			{force("version", "tremor 0.2"), "version", "tremor 0.2", false},
		}},
		{"init only from the command line", []step{
			{cmdline("dedicated", "0"), "dedicated", "0", false},
			{set("dedicated", "1"), "dedicated", "0", true},
			{force("dedicated", "2"), "dedicated", "2", false},
		}},
		{"cheat refused while cheats are off", []step{
			{set("timescale", "2"), "timescale", "1", true},
			{set("timescale", "1"), "timescale", "1", false},
			{cheats(true), "timescale", "1", false},
			{set("timescale", "2"), "timescale", "2", false},
			{cheats(false), "timescale", "1", false},
			{set("timescale", "3"), "timescale", "1", true},
		}},
		{"reset of a cheat is allowed", []step{
			{force("timescale", "5"), "timescale", "5", false},
			{reset("timescale"), "timescale", "1", false},
		}},
		{"latch waits for ApplyLatched", []step{
			{set("sv_maxclients", "16"), "sv_maxclients", "8", false},
			{set("sv_maxclients", "100"), "sv_maxclients", "8", false}, // latched as 64
			{apply, "sv_maxclients", "64", false},
			{apply, "sv_maxclients", "64", false},
		}},
		{"latch cancelled by setting the current value", []step{
			{set("g_gametype", "3"), "g_gametype", "0", false},
			{set("g_gametype", "0"), "g_gametype", "0", false},
			{apply, "g_gametype", "0", false},
		}},
		{"latch takes the command line at once", []step{
			{cmdline("sv_maxclients", "4"), "sv_maxclients", "4", false},
		}},
		{"forced latch is immediate", []step{
			{set("sv_maxclients", "16"), "sv_maxclients", "8", false},
			{force("sv_maxclients", "2"), "sv_maxclients", "2", false},
			{apply, "sv_maxclients", "2", false},
		}},
		{"reset of a latch is latched", []step{
			{force("sv_maxclients", "2"), "sv_maxclients", "2", false},
			{reset("sv_maxclients"), "sv_maxclients", "2", false},
			{apply, "sv_maxclients", "8", false},
		}},
		{"set creates a user cvar", []step{
			{set("my_var", "hello"), "my_var", "hello", false},
			{reset("my_var"), "my_var", "hello", false},
		}},
		{"set refuses a command name", []step{
			{set("echo", "1"), "echo", "", true},
		}},
		{"reset of an unknown cvar", []step{
			{reset("nosuch"), "nosuch", "", true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, _ := newTestTable(t)
			for i, s := range tt.steps {
				err := s.do(tab)
				if (err != nil) != s.wantErr {
					t.Fatalf("step %d: error = %v, want error %v", i, err, s.wantErr)
				}
				got := ""
				if c := tab.Get(s.cvar); c != nil {
					got = c.Value()
				}
				if got != s.want {
					t.Fatalf("step %d: %s = %q, want %q", i, s.cvar, got, s.want)
				}
			}
		})
	}
}

func TestLatchedValueAndNote(t *testing.T) {
	tab, out := newTestTable(t)
	c := tab.Get("sv_maxclients")
	calls := 0
	c.OnChange(func(c *Cvar) { calls++ })
	if err := tab.Set("sv_maxclients", "16"); err != nil {
		t.Fatal(err)
	}
	if l, ok := c.Latched(); !ok || l != "16" {
		t.Errorf("Latched() = %q, %v; want 16, true", l, ok)
	}
	if !strings.Contains(out.String(), "sv_maxclients will be changed to \"16\" at the next map") {
		t.Errorf("no latch note in %q", out.String())
	}
	if calls != 0 || c.ModificationCount() != 0 {
		t.Errorf("latching changed the value: %d calls, count %d", calls, c.ModificationCount())
	}
	tab.ApplyLatched()
	if calls != 1 || c.ModificationCount() != 1 || c.Int() != 16 {
		t.Errorf("after ApplyLatched: %d calls, count %d, value %d", calls, c.ModificationCount(), c.Int())
	}
	if _, ok := c.Latched(); ok {
		t.Errorf("latched value left after ApplyLatched")
	}
}

func TestAliases(t *testing.T) {
	t.Run("one cvar under two names", func(t *testing.T) {
		tab, _ := newTestTable(t)
		cl, cg := tab.Get("cl_nopredict"), tab.Get("cg_nopredict")
		if cl == nil || cl != cg {
			t.Fatalf("Get(cl_nopredict) = %p, Get(cg_nopredict) = %p", cl, cg)
		}
		if err := tab.Set("cg_nopredict", "1"); err != nil {
			t.Fatal(err)
		}
		if !cl.Bool() {
			t.Errorf("cl_nopredict did not see cg_nopredict 1")
		}
		tab.ExecuteString("cl_nopredict 0")
		if cg.Bool() {
			t.Errorf("cg_nopredict did not see cl_nopredict 0")
		}
		if got := cl.Aliases(); !slices.Equal(got, []string{"cg_nopredict"}) {
			t.Errorf("Aliases() = %q", got)
		}
	})
	t.Run("set before declaration", func(t *testing.T) {
		for _, name := range []string{"cl_nopredict", "cg_nopredict", "CG_NOPREDICT"} {
			tab := NewTable()
			tab.SetOutput(&bytes.Buffer{})
			if err := tab.SetFromCommandLine(name, "1"); err != nil {
				t.Fatal(err)
			}
			tab.Register(testDecls...)
			c := tab.Get("cl_nopredict")
			if c != tab.Get("cg_nopredict") || c.Value() != "1" || c.Flags()&UserCreated != 0 || c.Name() != "cl_nopredict" {
				t.Errorf("%s set first: value %q flags %v name %s", name, c.Value(), c.Flags(), c.Name())
			}
			if n := len(tab.CvarNames()); n != len(testDecls)+1 {
				t.Errorf("%s set first: %d cvar names, want %d", name, n, len(testDecls)+1)
			}
		}
	})
}

func TestRegisterAdopts(t *testing.T) {
	tests := []struct {
		name, line, cvar, want string
		console                bool  // run the line from the console, not the command line
		flags                  Flags // extra flags expected
	}{
		{"keeps the value", "set sv_hostname Box", "sv_hostname", "Box", false, 0},
		{"clamps the value", "set sv_fps 900", "sv_fps", "125", false, 0},
		{"default for non-number", "set sv_fps fast", "sv_fps", "20", false, 0},
		{"read-only takes the default", "set version hacked", "version", "tremor 0.1", false, 0},
		{"init keeps the command line", "set dedicated 0", "dedicated", "0", false, 0},
		{"init refuses the console", "set dedicated 0", "dedicated", "1", true, 0},
		{"cheat refuses the console", "set timescale 5", "timescale", "1", true, 0},
		{"seta adds archive", "seta cg_errorDecay 50", "cg_errorDecay", "50", false, Archive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable()
			var out bytes.Buffer
			tab.SetOutput(&out)
			if tt.console {
				tab.ExecuteString(tt.line)
			} else {
				tab.ExecuteCommandLine([]string{tt.line})
			}
			held := tab.Get(tt.cvar)
			tab.Register(testDecls...)
			c := tab.Get(tt.cvar)
			if c != held {
				t.Errorf("Register replaced the user cvar instead of adopting it")
			}
			if c.Value() != tt.want {
				t.Errorf("%s = %q, want %q (output %q)", tt.cvar, c.Value(), tt.want, out.String())
			}
			if c.Flags()&UserCreated != 0 || c.Flags()&tt.flags != tt.flags {
				t.Errorf("flags = %v", c.Flags())
			}
		})
	}
}

func TestInfoString(t *testing.T) {
	tests := []struct {
		name  string
		setup []string
		flag  Flags
		want  string
	}{
		{"serverinfo", nil, ServerInfo, `\g_gametype\0\sv_hostname\noname\sv_maxclients\8\version\tremor 0.1`},
		{"userinfo", []string{"name Visor"}, UserInfo, `\name\Visor\rate\25000`},
		{"sets adds a key", []string{`sets Admin "Jane Doe"`}, ServerInfo, `\Admin\Jane Doe\g_gametype\0\sv_hostname\noname\sv_maxclients\8\version\tremor 0.1`},
		{"setu adds a key", []string{"setu color 4"}, UserInfo, `\color\4\name\Player\rate\25000`},
		{"empty value left out", []string{`name ""`}, UserInfo, `\rate\25000`},
		{"latched value not yet", []string{"sv_maxclients 16"}, ServerInfo, `\g_gametype\0\sv_hostname\noname\sv_maxclients\8\version\tremor 0.1`},
		{"either flag", nil, UserInfo | SystemInfo, `\name\Player\rate\25000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, _ := newTestTable(t)
			for _, l := range tt.setup {
				tab.ExecuteString(l)
			}
			if got := tab.InfoString(tt.flag); got != tt.want {
				t.Errorf("InfoString(%v) = %q, want %q", tt.flag, got, tt.want)
			}
		})
	}
	t.Run("too long", func(t *testing.T) {
		tab, out := newTestTable(t)
		long := strings.Repeat("x", 600)
		tab.ExecuteString("sets aaa " + long)
		tab.ExecuteString("sets bbb " + long)
		got := tab.InfoString(ServerInfo)
		if len(got) >= 1024 || !strings.Contains(got, `\aaa\`) || strings.Contains(got, `\bbb\`) {
			t.Errorf("InfoString = %d bytes %.40q...", len(got), got)
		}
		if !strings.Contains(out.String(), "left out bbb") {
			t.Errorf("no note about bbb in %q", out.String())
		}
	})
}

func TestChangeNotification(t *testing.T) {
	tab, _ := newTestTable(t)
	if got := tab.TakeModifiedFlags(ServerInfo | UserInfo); got != ServerInfo|UserInfo {
		t.Errorf("after Register TakeModifiedFlags = %v", got)
	}
	if got := tab.TakeModifiedFlags(ServerInfo | UserInfo); got != 0 {
		t.Errorf("second TakeModifiedFlags = %v", got)
	}
	c := tab.Get("sv_hostname")
	var seen []string
	c.OnChange(func(c *Cvar) { seen = append(seen, c.Value()) })
	tab.ExecuteString("sv_hostname one")
	tab.ExecuteString("sv_hostname one") // same value: no change
	tab.ExecuteString("set SV_HOSTNAME two")
	tab.ExecuteString("sv_fps 30")
	if !slices.Equal(seen, []string{"one", "two"}) || c.ModificationCount() != 2 {
		t.Errorf("OnChange saw %q, count %d", seen, c.ModificationCount())
	}
	if got := tab.TakeModifiedFlags(ServerInfo | SystemInfo | UserInfo); got != ServerInfo {
		t.Errorf("TakeModifiedFlags = %v, want ServerInfo", got)
	}
	// A callback may set another cvar without deadlocking.
	tab.Get("sv_fps").OnChange(func(c *Cvar) { _ = tab.Set("cg_errorDecay", c.Value()) })
	tab.ExecuteString("sv_fps 40")
	if got := tab.Get("cg_errorDecay").Value(); got != "40" {
		t.Errorf("cg_errorDecay = %q after callback", got)
	}
}

func TestNames(t *testing.T) {
	tab, _ := newTestTable(t)
	tab.AddCommand("map", "map <name>: load a map", func(*cmdargs.Args) {})
	tab.AddCommand("Map_Restart", "restart the map", func(*cmdargs.Args) {})
	cmds := tab.CommandNames()
	want := []string{"cmdlist", "cvarlist", "echo", "exec", "help", "map", "Map_Restart", "reset", "set", "seta", "sets", "setu", "toggle", "vstr", "wait"}
	if !slices.Equal(cmds, want) {
		t.Errorf("CommandNames() = %q\nwant %q", cmds, want)
	}
	cvars := tab.CvarNames()
	if !slices.IsSortedFunc(cvars, func(a, b string) int { return strings.Compare(lower(a), lower(b)) }) || !slices.Contains(cvars, "cg_nopredict") {
		t.Errorf("CvarNames() = %q", cvars)
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"se", []string{"set", "seta", "sets", "setu"}},
		{"MAP", []string{"map", "Map_Restart"}},
		{"cl_", []string{"cl_nopredict", "cl_timeNudge"}},
		{"cg_", []string{"cg_errorDecay", "cg_nopredict"}},
		{"zz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if got := tab.Complete(tt.prefix); !slices.Equal(got, tt.want) {
				t.Errorf("Complete(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
		})
	}
	tab.RemoveCommand("MAP")
	if slices.Contains(tab.CommandNames(), "map") {
		t.Errorf("map still listed after RemoveCommand")
	}
}

func TestAddCommandPanics(t *testing.T) {
	for _, name := range []string{"echo", "ECHO", "sv_fps", "", "two words"} {
		t.Run(name, func(t *testing.T) {
			tab, _ := newTestTable(t)
			defer func() {
				if recover() == nil {
					t.Errorf("AddCommand(%q) did not panic", name)
				}
			}()
			tab.AddCommand(name, "", func(*cmdargs.Args) {})
		})
	}
}

func TestConcurrentGetSet(t *testing.T) {
	tab, _ := newTestTable(t)
	fps := tab.Get("sv_fps")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 { // the network goroutine and a status query
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := fps.Int()
				if v < 1 || v > 125 {
					t.Errorf("sv_fps read %d, outside its range", v)
					return
				}
				_ = tab.Get("SV_FPS").Value()
				_ = tab.InfoString(ServerInfo)
				_ = fps.Default()
			}
		})
	}
	wg.Go(func() { // rcon text arriving on another goroutine
		for i := range 200 {
			tab.Append("sv_hostname host" + string(rune('a'+i%26)))
		}
	})
	for i := range 500 {
		if err := tab.Set("sv_fps", string(rune('1'+i%9))); err != nil {
			t.Error(err)
		}
		tab.Execute()
	}
	close(stop)
	wg.Wait()
	tab.Execute()
	if got := tab.Get("sv_hostname").Value(); !strings.HasPrefix(got, "host") {
		t.Errorf("sv_hostname = %q", got)
	}
}
