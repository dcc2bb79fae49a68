package console

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"tremor/net/cmdargs"
)

// Every way of setting a bound cvar stores the value in its variable at
// once and runs the group's apply function; ranges clamp, string
// variables refuse what a command line could not carry, latched ones wait.
func TestBoundVars(t *testing.T) {
	type vars struct {
		fps   int
		gt    int32
		scr   bool
		name  string
		dir   string
		apply []string
	}
	setup := func(t *testing.T) (*Table, *vars, *strings.Builder) {
		tab := NewTable()
		var out strings.Builder
		tab.SetOutput(&out)
		v := &vars{}
		b := tab.Bind(func(c *Cvar) { v.apply = append(v.apply, c.Name()+"="+c.Value()) })
		b.IntVar(&v.fps, "sv_fps", 20, 1, 250, Remote, "frames")
		b.Int32Var(&v.gt, "g_gametype", 0, 0, 3, Latch|ServerInfo|Remote, "game type")
		b.BoolVar(&v.scr, "sv_scramble", true, Remote, "scramble")
		b.StringVar(&v.name, "sv_hostname", "Tremor", ServerInfo|Archive|Remote, "name")
		b.StringVar(&v.dir, "sv_configdir", ".", 0, "dir")
		return tab, v, &out
	}
	tests := []struct {
		name  string
		do    func(tab *Table)
		check func(v *vars) bool
		out   string // in the output
	}{
		{"defaults", func(*Table) {}, func(v *vars) bool {
			return v.fps == 20 && v.gt == 0 && v.scr && v.name == "Tremor" && v.dir == "." && v.apply == nil
		}, ""},
		{"console line", func(tab *Table) { tab.Append("sv_fps 30"); tab.Execute() },
			func(v *vars) bool { return v.fps == 30 && len(v.apply) == 1 && v.apply[0] == "sv_fps=30" }, ""},
		{"clamped", func(tab *Table) { _ = tab.Set("sv_fps", "1000") },
			func(v *vars) bool { return v.fps == 250 }, "above the maximum 250"},
		{"bool", func(tab *Table) { tab.ExecuteString("set sv_scramble 0") },
			func(v *vars) bool { return !v.scr }, ""},
		{"string refuses a semicolon", func(tab *Table) { tab.ExecuteString(`sv_hostname "a;b"`) },
			func(v *vars) bool { return v.name == "Tremor" && v.apply == nil }, "cannot carry"},
		{"string", func(tab *Table) { tab.ExecuteString(`sv_hostname "Night Arena"`) },
			func(v *vars) bool { return v.name == "Night Arena" }, ""},
		{"latched waits for ApplyLatched", func(tab *Table) { tab.ExecuteString("g_gametype 3") },
			func(v *vars) bool { return v.gt == 0 && v.apply == nil }, "g_gametype will be changed to \"3\" at the next map"},
		{"latched applied", func(tab *Table) { tab.ExecuteString("g_gametype 3"); tab.ApplyLatched() },
			func(v *vars) bool { return v.gt == 3 && len(v.apply) == 1 }, ""},
		{"remote", func(tab *Table) { tab.ExecuteRemote("sv_fps 40; echo hi", io.Discard) },
			func(v *vars) bool { return v.fps == 40 }, ""},
		{"remote refused", func(tab *Table) {
			var w strings.Builder
			tab.ExecuteRemote("sv_configdir /; reset sv_fps", &w)
			tab.Printf("%s", w.String())
		}, func(v *vars) bool { return v.dir == "." }, "sv_configdir cannot be set through rcon"},
		{"command line", func(tab *Table) { tab.ExecuteCommandLine([]string{"set g_gametype 3"}) },
			func(v *vars) bool { return v.gt == 3 }, ""},
		{"ForceSet", func(tab *Table) { _ = tab.ForceSet("sv_configdir", "/srv") },
			func(v *vars) bool { return v.dir == "/srv" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, v, out := setup(t)
			tt.do(tab)
			if !tt.check(v) {
				t.Errorf("variables %+v", *v)
			}
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("output %q lacks %q", out.String(), tt.out)
			}
		})
	}
}

// Unbind releases the cvars; binding them again adopts their values.
// BindFields takes the variables' values, clamped.
func TestRebindAndBindFields(t *testing.T) {
	tab := NewTable()
	tab.SetOutput(io.Discard)
	var a, b int
	va := tab.Bind(nil)
	va.IntVar(&a, "fraglimit", 20, 0, 100, 0, "frags")
	tab.ExecuteString("fraglimit 7")
	va.Unbind()
	tab.ExecuteString("fraglimit 9")
	if a != 7 {
		t.Fatalf("unbound variable changed to %d", a)
	}
	tab.Bind(nil).IntVar(&b, "fraglimit", 20, 0, 100, 0, "frags")
	if b != 9 {
		t.Fatalf("rebound variable %d, want 9", b)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("binding a bound cvar did not panic")
			}
		}()
		tab.Bind(nil).IntVar(&a, "fraglimit", 20, 0, 100, 0, "frags")
	}()

	f := NewTable()
	f.SetOutput(io.Discard)
	n, s := 500, "x;y"
	fv := f.BindFields(nil)
	fv.IntVar(&n, "sv_fps", 20, 1, 250, 0, "")
	fv.StringVar(&s, "sv_hostname", "Tremor", 0, "")
	if n != 250 || f.Get("sv_fps").Int() != 250 || s != "Tremor" {
		t.Fatalf("BindFields: %d %q", n, s)
	}
}

// ExecuteRemote runs its text to the end in a buffer of its own,
// printing to its writer, and refuses local-only commands and the
// fallback; the main buffer is untouched.
func TestExecuteRemote(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		not        []string
	}{
		{"echo and vstr run inside", `set s "echo one; echo two"; vstr s; wait; echo three`, []string{"one", "two", "three"}, nil},
		{"local command refused", "local; echo after", []string{"local cannot be run through rcon", "after"}, []string{"ran local"}},
		{"remote command", "remote", []string{"ran remote"}, nil},
		{"no fallback", "nosuch", []string{`unknown command "nosuch"`}, []string{"fallback"}},
		{"user cvar", "set mine 5; mine", []string{`mine is "5"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewTable()
			var main strings.Builder
			tab.SetOutput(&main)
			tab.AddCommand("local", "", func(*cmdargs.Args) { tab.Printf("ran local\n") })
			tab.AddRemoteCommand("remote", "", func(*cmdargs.Args) { tab.Printf("ran remote\n") })
			tab.SetFallback(func(*cmdargs.Args) bool { tab.Printf("fallback\n"); return true })
			tab.Append("echo queued")
			var w strings.Builder
			tab.ExecuteRemote(tt.text, &w)
			for _, s := range tt.want {
				if !strings.Contains(w.String(), s) {
					t.Errorf("reply %q lacks %q", w.String(), s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(w.String()+main.String(), s) {
					t.Errorf("output has %q", s)
				}
			}
			if main.String() != "" {
				t.Errorf("main output %q", main.String())
			}
			tab.Execute()
			if main.String() != "queued\n" {
				t.Errorf("main buffer ran %q", main.String())
			}
			tab.ExecuteString("local")
			if !strings.Contains(main.String(), "ran local") {
				t.Error("local command refused after the remote text")
			}
		})
	}
}

// OnChange's functions run, after the group's apply function, for every
// change of a cvar bound through the derived group, by any path, and for
// no other; the derived groups share one set of cvars.
func TestVarsOnChange(t *testing.T) {
	type rig struct {
		tab          *Table
		v            *Vars
		rate         int
		loss, volume float64
		calls        []string
	}
	setup := func() *rig {
		r := &rig{tab: NewTable()}
		r.tab.SetOutput(io.Discard)
		r.v = r.tab.Bind(func(c *Cvar) { r.calls = append(r.calls, "apply "+c.Name()) })
		eng := r.v.OnChange(func() { r.calls = append(r.calls, "engine "+strconv.Itoa(r.rate)) })
		eng.IntVar(&r.rate, "rate", 25000, 1000, 90000, Latch, "")
		eng.OnChange(func() { r.calls = append(r.calls, "link") }).Float64Var(&r.loss, "cl_packetloss", 0, 0, 100, 0, "")
		r.v.OnChange(nil).Float64Var(&r.volume, "s_volume", 0.7, 0, 1, 0, "")
		return r
	}
	tests := []struct {
		name string
		do   func(r *rig)
		want string
	}{
		{"console line", func(r *rig) { r.tab.ExecuteString("cl_packetloss 5") }, "apply cl_packetloss,engine 25000,link"},
		{"unchanged value", func(r *rig) { r.tab.ExecuteString("cl_packetloss 0") }, ""},
		{"latched waits", func(r *rig) { r.tab.ExecuteString("rate 5000") }, ""},
		{"latched applied", func(r *rig) { r.tab.ExecuteString("rate 5000"); r.tab.ApplyLatched() }, "apply rate,engine 5000"},
		{"ForceSet", func(r *rig) { _ = r.tab.ForceSet("rate", "8000") }, "apply rate,engine 8000"},
		{"reset", func(r *rig) {
			_ = r.tab.ForceSet("cl_packetloss", "9")
			r.calls = nil
			r.tab.ExecuteString("reset cl_packetloss")
		},
			"apply cl_packetloss,engine 25000,link"},
		{"nil function", func(r *rig) { r.tab.ExecuteString("s_volume 0.5") }, "apply s_volume"},
		{"unbound by the derived group's root", func(r *rig) { r.v.Unbind(); r.tab.ExecuteString("cl_packetloss 5") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := setup()
			tt.do(r)
			if got := strings.Join(r.calls, ","); got != tt.want {
				t.Errorf("calls %q, want %q", got, tt.want)
			}
		})
	}
	r := setup()
	if n := len(r.v.Cvars()); n != 3 {
		t.Errorf("the root group lists %d cvars, want 3", n)
	}
	if r.loss != 0 || r.volume != 0.7 || r.rate != 25000 {
		t.Errorf("defaults %v %v %v", r.loss, r.volume, r.rate)
	}
}

// Float64Var takes fractions and clamps into its range; Aliases names
// one cvar twice; Bound tells bound cvars from the others.
func TestFloat64VarAliasesBound(t *testing.T) {
	tab := NewTable()
	var out strings.Builder
	tab.SetOutput(&out)
	var scale float64
	var np bool
	v := tab.Bind(nil)
	v.Float64Var(&scale, "r_scale", 1, 0, 1, Archive, "")
	v.Aliases("cg_nopredict").BoolVar(&np, "cl_nopredict", false, 0, "")
	tab.Register(Decl{Name: "declared"})
	tests := []struct {
		line  string
		check func() bool
	}{
		{"r_scale 0.5", func() bool { return scale == 0.5 }},
		{"r_scale 3", func() bool { return scale == 1 && strings.Contains(out.String(), "above the maximum 1") }},
		{"r_scale x", func() bool { return scale == 1 }},
		{"cg_nopredict 1", func() bool { return np && tab.Get("cl_nopredict").Bool() }},
		{"cl_nopredict 0", func() bool { return !np && !tab.Get("cg_nopredict").Bool() }},
	}
	for _, tt := range tests {
		tab.ExecuteString(tt.line)
		if !tt.check() {
			t.Errorf("after %q: r_scale %v, cl_nopredict %v", tt.line, scale, np)
		}
	}
	for name, want := range map[string]bool{"r_scale": true, "cg_nopredict": true, "declared": false} {
		if got := tab.Get(name).Bound(); got != want {
			t.Errorf("%s bound %v, want %v", name, got, want)
		}
	}
	v.Unbind()
	if tab.Get("r_scale").Bound() {
		t.Error("r_scale bound after Unbind")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second cvar through one Aliases group did not panic")
			}
		}()
		a := tab.Bind(nil).Aliases("other")
		var x, y bool
		a.BoolVar(&x, "one", false, 0, "")
		a.BoolVar(&y, "two", false, 0, "")
	}()
}

// Declarations declares what the bind function binds; binding the
// declared cvars later adopts them with their values and their checks.
func TestDeclarations(t *testing.T) {
	type vars struct {
		n    int
		f    float64
		s    string
		b    bool
		runs int
	}
	bind := func(v *Vars, x *vars) {
		v = v.OnChange(func() { x.runs++ })
		v.IntVar(&x.n, "snaps", 20, 1, 125, Archive, "snapshots")
		v.Float64Var(&x.f, "s_volume", 0.7, 0, 1, Archive, "volume")
		v.StringVar(&x.s, "journal_file", "", Init, "file")
		v.Aliases("cg_nopredict").BoolVar(&x.b, "cl_nopredict", false, 0, "no prediction")
	}
	ds := Declarations(func(v *Vars) { bind(v, &vars{}) })
	if len(ds) != 4 || ds[0].Name != "snaps" || ds[0].Flags != Archive|Integral || ds[1].Default != "0.7" || ds[3].Aliases[0] != "cg_nopredict" {
		t.Fatalf("declarations %+v", ds)
	}
	tab := NewTable()
	var out strings.Builder
	tab.SetOutput(&out)
	tab.Register(ds...)
	tab.ExecuteCommandLine([]string{"set snaps 500", `set journal_file "a;b"`, "set cg_nopredict 1"})
	var x vars
	bind(tab.Bind(nil), &x)
	if x.n != 125 || x.s != "" || !x.b || x.f != 0.7 || x.runs != 0 {
		t.Errorf("adopted %+v; output %q", x, out.String())
	}
	tab.ExecuteString("s_volume 0.5")
	if x.f != 0.5 || x.runs != 1 {
		t.Errorf("after s_volume 0.5: %+v", x)
	}
}
