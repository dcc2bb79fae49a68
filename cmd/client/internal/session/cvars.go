package session

import (
	"path/filepath"

	"tremor/client"
	"tremor/common/console"
	"tremor/server"
)

// Config holds the session's settings. Each field is a cvar, named in
// its comment, bound to it by bindCvars: the one list of the session's
// cvars. All take effect at once: a change runs what the list declares
// beside it. The embedded server's cvars (fraglimit, g_gametype,
// sv_fps...) are server.Config's, bound to the server while it runs; the
// window's own (display, sound, overlays) are cmd/client's.
type Config struct {
	// Client holds the client engine's and prediction's cvars
	// (client.BindCvars, shared with the headless clients). Its CGame is
	// the cgame configuration every engine of the session runs: a change
	// of cl_nopredict, cg_errorDecay or cg_showmiss reaches the running
	// cgame at once.
	Client client.Cvars

	// Files (not in the browser build, which has none: files_js.go).
	AutoRecordDemo bool   // cl_autoRecordDemo: record a demo of every level
	Journal        int    // journal: 1 records, 2 replays JournalFile (docs/journal.md)
	JournalFile    string // journal_file

	// The local server's LAN port (not in the browser build: lan_js.go).
	NetIP   string // net_ip: the address it listens on; empty: every address
	NetPort int    // net_port: 0 any free port, -1 none
}

// Cvars declares the session's cvars, unbound, from bindCvars: a program
// registers them before its command line and saved settings run, and New
// binds them, adopting their values, as server.DeclareCvars does for the
// embedded server's.
var Cvars = console.Declarations(func(v *console.Vars) { bindCvars(v, &Config{}, &Session{}) })

// bindCvars binds the session's cvars to the fields of c, each with what
// its change does to s: the engine's reach the client engine
// (ApplyConfig), prediction's are read by the cgame in place,
// cl_autoRecordDemo reaches the engine, com_maxfps runs the window's
// hook (OnMaxFPS); journal, journal_file, net_ip and net_port are read
// when a game starts.
func bindCvars(v *console.Vars, c *Config, s *Session) {
	client.BindCvars(v, &c.Client, "Player", client.CvarHooks{
		Engine: func() { s.ApplyConfig() },
		MaxFPS: func() {
			if s.onMaxFPS != nil {
				s.onMaxFPS()
			}
		},
	})
	bindFileCvars(v, c, s)
	bindLANCvars(v, c)
}

// declareServerCvars declares the embedded server's cvars in t unless
// they are.
func declareServerCvars(t *console.Table) {
	if t.Get("sv_hostname") == nil {
		server.DeclareCvars(t)
	}
}

// Config returns the session's settings, which its cvars hold. They
// belong to the goroutine that calls Frame and executes the table.
func (s *Session) Config() *Config { return &s.cfg }

// OnMaxFPS makes fn run whenever com_maxfps changes (the window's frame
// pacing; the value is in Config().Client.MaxFPS).
func (s *Session) OnMaxFPS(fn func()) { s.onMaxFPS = fn }

// clientConfig returns the engine's settings: the cvars', the cgame the
// engine runs, and the player's map folder.
func (s *Session) clientConfig() client.Config {
	c := s.cfg.Client.Config()
	c.Seed = s.seed
	// showpackets and cl_shownet print to the console.
	c.Logf = func(format string, args ...any) { s.t.Printf(format+"\n", args...) }
	c.CGame = &s.cfg.Client.CGame
	if s.dataDir != "" {
		c.MapDir = filepath.Join(s.dataDir, "maps") // the player's maps; downloads in its downloads folder (docs/download.md)
	}
	return c
}
