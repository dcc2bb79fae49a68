package session

import (
	"io"

	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
)

// Cvars are the window client's cvars: the client engine's and
// prediction's (client.Cvars, shared with the headless clients), the
// demos' and the journal's, the local server's LAN port (those three not
// in the browser build: fileCvars, lanCvars), the display's and the
// sound's. All take effect at once. The embedded server's (fraglimit,
// g_gametype, sv_fps...) are declared by server.DeclareCvars and bound to
// the server while it runs.
var Cvars = append(append(append(client.Cvars("Player"), fileCvars...), lanCvars...),
	console.Decl{Name: "r_vsync", Default: "1", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
		Help: "wait for the display's vertical sync"},
	console.Decl{Name: "r_scale", Default: "1", Flags: console.Archive, Min: 0, Max: 1,
		Help: "share of the screen's width and height the world is drawn at (0.5: a quarter of the pixels; text stays sharp); 0 chooses it from the frame time"},
	console.Decl{Name: "ui_scale", Default: "0", Flags: console.Archive, Min: 0, Max: 4,
		Help: "size of the classroom view's text and switches and of the names and labels over the game (1: as at 1280x720, 1.5 half as big again); 0 picks it from the window: 1 at 1280x720, 1.5 at 1920x1080, 2 at 2560x1440"},
	console.Decl{Name: "r_fullscreen", Default: "0", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
		Help: "fill the screen instead of a window (F11 toggles it)"},
	console.Decl{Name: "s_volume", Default: "0.7", Flags: console.Archive, Min: 0, Max: 1,
		Help: "sound volume, 0 (silent) to 1"},
	console.Decl{Name: "s_initsound", Default: "1", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
		Help: "open the sound device at start (0: never, for machines whose audio hangs or fails)"},
	console.Decl{Name: "cg_lagometer", Default: "1", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
		Help: "draw the lagometer: frames (blue interpolated, yellow extrapolated) over snapshots (green ping, yellow rate-delayed, red lost)"},
	console.Decl{Name: "cg_netgraph", Default: "0", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
		Help: "draw the net graph: bytes and packets per second each way, ping, jitter, loss, snapshot rate, full snapshots, reliable commands pending"},
	console.Decl{Name: "cg_showSnapBox", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "teaching overlay: the local player's box in the newest snapshot (cyan) beside the predicted one (yellow), the prediction's lead and the decaying error (red)"},
	console.Decl{Name: "cg_showGhosts", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "teaching overlay: other players' snapshot positions as outlined ghosts, with the interpolation line they are drawn along"},
	console.Decl{Name: "cg_showInterp", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "teaching overlay: the interpolation strip: snapshots received on a server-time line, the pair interpolated between, the render time, the time nudge and the extrapolation region"},
	console.Decl{Name: "cg_showFieldBits", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "teaching overlay: bits per second of the costliest delta fields (player states and entities received, usercmds sent) over the last second"},
	console.Decl{Name: "cg_showUnlagged", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "teaching overlay: for a moment after each of your hits decided with lag compensation (g_unlagged), the box the server rewound the target to (yellow) beside where it really was (cyan)"},
	console.Decl{Name: "cl_lastServer", Default: "", Flags: console.Archive,
		Help: "the address last joined from the menu (its Join page starts with it)"},
	console.Decl{Name: "con_notifytime", Default: "3", Flags: console.Archive, Min: 0, Max: 60,
		Help: "seconds the newest console lines stay on screen with the console closed (0: none)"},
	console.Decl{Name: "fs_homepath", Default: "", Flags: console.Init,
		Help: "directory of the saved settings, binds and demos (empty: ~/.local/share/tremor); set on the command line"},
)

// clientConfig reads the engine's settings from the cvars.
func clientConfig(t *console.Table, seed uint64) client.Config {
	c := client.ConfigFromCvars(t)
	c.Seed = seed
	// showpackets and cl_shownet print to the console.
	c.Logf = func(format string, args ...any) { t.Printf(format+"\n", args...) }
	return c
}

// cgameCvars are the cvars updateCGameConfig reads.
var cgameCvars = [...]string{"cl_nopredict", "cg_errorDecay", "cg_showmiss"}

// updateCGameConfig copies prediction's cvars (cgameCvars) into c; cgame
// reads c at every frame.
func updateCGameConfig(c *cgame.Config, t *console.Table, stderr io.Writer) {
	client.CGameConfigFromCvars(c, t, func(format string, args ...any) { fmtLine(stderr, format, args...) })
}
