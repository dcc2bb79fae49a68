package settings

import (
	"io"
	"slices"
	"testing"

	"tremor/cmd/client/internal/session"
	"tremor/common/console"
	"tremor/common/journal/journaltest"
	"tremor/server"
)

// rig is the table cmd/client's run makes, with its session: every cvar
// the window client declares, and the hooks that ran.
type rig struct {
	t     *console.Table
	w     Window
	sess  *session.Session
	hooks []string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: console.NewTable()}
	r.t.SetOutput(io.Discard)
	note := func(s string) func() { return func() { r.hooks = append(r.hooks, s) } }
	Declare(r.t, &r.w, Hooks{VSync: note("vsync"), Fullscreen: note("fullscreen"), Volume: note("volume"), NotifyTime: note("notify")})
	r.sess = session.New(r.t, io.Discard, 1)
	t.Cleanup(r.sess.Close)
	return r
}

// TestEveryCvarBound: every cvar of the window client's table is bound
// to a field (Window, the session's Config, the browser's Cvars) or is
// the embedded server's, which the server binds while it runs. A cvar
// declared without a binding, which code would have to read by name,
// fails here.
func TestEveryCvarBound(t *testing.T) {
	r := newRig(t)
	serverOwn := server.CvarNames()
	for _, name := range serverOwn {
		if c := r.t.Get(name); c == nil || c.Bound() {
			t.Errorf("server cvar %s: declared %v, bound before the server runs", name, c != nil)
		}
	}
	bound := 0
	for _, name := range r.t.CvarNames() {
		c := r.t.Get(name)
		switch {
		case c.Bound():
			bound++
		case !slices.Contains(serverOwn, c.Name()):
			t.Errorf("%s is declared but bound to no field", name)
		}
	}
	if bound < 40 {
		t.Errorf("only %d cvars bound", bound)
	}
	r.sess.Close()
	if c := r.t.Get("cl_nopredict"); c.Bound() {
		t.Error("the session's cvars stay bound after Close")
	}
}

// TestWindowCvars: the window's cvars reach the fields drawing reads,
// and each runs the hook declared with it and no other.
func TestWindowCvars(t *testing.T) {
	tests := []struct {
		line string
		hook string
		ok   func(r *rig) bool
	}{
		{"ui_scale 1.5", "", func(r *rig) bool { return r.w.UIScale == 1.5 }},
		{"r_scale 0.5", "", func(r *rig) bool { return r.w.RScale == 0.5 }},
		{"cg_lagometer 0", "", func(r *rig) bool { return !r.w.Lagometer }},
		{"cg_showUnlagged 1", "", func(r *rig) bool { return r.w.ShowUnlagged }},
		{"cl_lastServer 10.0.0.7", "", func(r *rig) bool { return r.w.LastServer == "10.0.0.7" }},
		{"r_vsync 0", "vsync", func(r *rig) bool { return !r.w.VSync }},
		{"r_fullscreen 1", "fullscreen", func(r *rig) bool { return r.w.Fullscreen }},
		{"s_volume 0.25", "volume", func(r *rig) bool { return r.w.Volume == 0.25 }},
		{"con_notifytime 5", "notify", func(r *rig) bool { return r.w.NotifyTime == 5 }},
		{"cl_nopredict 1", "", func(r *rig) bool { return r.sess.Config().Client.CGame.NoPredict }},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			r := newRig(t)
			r.t.ExecuteString(tt.line)
			if !tt.ok(r) {
				t.Errorf("after %q: window %+v", tt.line, r.w)
			}
			if want := []string{tt.hook}; (tt.hook == "" && r.hooks != nil) || (tt.hook != "" && !slices.Equal(r.hooks, want)) {
				t.Errorf("hooks %q, want %q", r.hooks, tt.hook)
			}
		})
	}
}

// TestJournalNoReplay: every cvar of the window client that belongs to
// the machine it runs on (its folders, its ports, the masters, the
// journal's own) is one a replay leaves alone, by the one list both
// programs that replay use. The table is the one cmd/client's run
// declares: the window's cvars, the session's, the browser's and the
// embedded server's.
func TestJournalNoReplay(t *testing.T) {
	r := newRig(t)
	if err := journaltest.CheckNoReplay(r.t.CvarNames()); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"fs_homepath", "net_port", "sv_mapdir", "sv_master1", "cl_master1", "journal_file"} {
		if r.t.Get(name) == nil {
			t.Errorf("the window client declares no %s: the check above saw no such cvar", name)
		}
	}
}
