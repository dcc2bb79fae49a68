// Package settings is the window client's table of cvars: its own
// (display, sound, overlays, data directory, the menu's last server, the
// server browser's), each bound to a field of Window with what its
// change does declared beside it, as server/config.go binds the
// server's; Declare also declares the session's (session.Cvars, which
// session.New binds to session.Config) and the embedded server's (bound
// to server.Config while it runs). Drawing and the frame loop read the
// fields, never a cvar by name. It holds no Ebitengine: the window
// passes what a change does as Hooks.
package settings

import (
	"tremor/cmd/client/internal/session"
	"tremor/common/console"
	"tremor/server"
)

// Window is the window's own settings: each field is a cvar, named in
// its comment, bound to it by Declare.
type Window struct {
	VSync      bool    // r_vsync
	Fullscreen bool    // r_fullscreen (F11 toggles it)
	RScale     float64 // r_scale: the world's share of the screen's size; 0 chooses it from the frame time
	UIScale    float64 // ui_scale: the size of text and labels; 0 picks it from the window
	Volume     float64 // s_volume, 0 to 1
	InitSound  bool    // s_initsound: open the sound device at start
	NotifyTime float64 // con_notifytime: seconds the newest console lines stay up
	HomePath   string  // fs_homepath: the data directory; empty: the platform's
	LastServer string  // cl_lastServer: the address last joined from the menu

	Lagometer     bool // cg_lagometer
	NetGraph      bool // cg_netgraph
	ShowSnapBox   bool // cg_showSnapBox
	ShowGhosts    bool // cg_showGhosts
	ShowInterp    bool // cg_showInterp
	ShowFieldBits bool // cg_showFieldBits
	ShowUnlagged  bool // cg_showUnlagged

	// Net holds the server browser's cvars (browser.BindCvars); none in
	// the browser build, which has no server browser (net_js.go).
	Net Net
}

// Hooks are what the window does when a cvar changes, declared with its
// binding. Each runs on the goroutine that made the change, after the
// field changed; nil does nothing.
type Hooks struct {
	VSync      func() // r_vsync
	Fullscreen func() // r_fullscreen
	Volume     func() // s_volume
	NotifyTime func() // con_notifytime
}

// Declare makes the window client's table in t: it declares the
// session's cvars and the embedded server's, and binds the window's own
// to the fields of w, each with its default, range, flags, help and
// hook. It runs before the command line and the saved settings, which
// set them.
func Declare(t *console.Table, w *Window, on Hooks) {
	t.Register(session.Cvars...)
	server.DeclareCvars(t)
	const a = console.Archive
	v := t.Bind(nil)
	v.OnChange(on.VSync).BoolVar(&w.VSync, "r_vsync", true, a,
		"wait for the display's vertical sync")
	v.Float64Var(&w.RScale, "r_scale", 1, 0, 1, a,
		"share of the screen's width and height the world is drawn at (0.5: a quarter of the pixels; text stays sharp); 0 chooses it from the frame time")
	v.Float64Var(&w.UIScale, "ui_scale", 0, 0, 4, a,
		"size of the console, chat field, menus, classroom view and the names and labels over the game, not the HUD (1: as at 1280x720, 1.5 half as big again); 0 picks it from the window: 1 at 1280x720, 1.5 at 1920x1080, 2 at 2560x1440")
	v.OnChange(on.Fullscreen).BoolVar(&w.Fullscreen, "r_fullscreen", false, a,
		"fill the screen instead of a window (F11 toggles it)")
	v.OnChange(on.Volume).Float64Var(&w.Volume, "s_volume", 0.7, 0, 1, a,
		"sound volume, 0 (silent) to 1")
	v.BoolVar(&w.InitSound, "s_initsound", true, a,
		"open the sound device at start (0: never, for machines whose audio hangs or fails)")
	v.BoolVar(&w.Lagometer, "cg_lagometer", true, a,
		"draw the lagometer: frames (blue interpolated, yellow extrapolated) over snapshots (green ping, yellow rate-delayed, red lost)")
	v.BoolVar(&w.NetGraph, "cg_netgraph", false, a,
		"draw the net graph: bytes and packets per second each way, ping, jitter, loss, snapshot rate, full snapshots, reliable commands pending")
	v.BoolVar(&w.ShowSnapBox, "cg_showSnapBox", false, 0,
		"teaching overlay: the local player's box in the newest snapshot (cyan) beside the predicted one (yellow), the prediction's lead and the decaying error (red)")
	v.BoolVar(&w.ShowGhosts, "cg_showGhosts", false, 0,
		"teaching overlay: other players' snapshot positions as outlined ghosts, with the interpolation line they are drawn along")
	v.BoolVar(&w.ShowInterp, "cg_showInterp", false, 0,
		"teaching overlay: the interpolation strip: snapshots received on a server-time line, the pair interpolated between, the render time, the time nudge and the extrapolation region")
	v.BoolVar(&w.ShowFieldBits, "cg_showFieldBits", false, 0,
		"teaching overlay: bits per second of the costliest delta fields (player states and entities received, usercmds sent) over the last second")
	v.BoolVar(&w.ShowUnlagged, "cg_showUnlagged", false, 0,
		"teaching overlay: for a moment after each of your hits decided with lag compensation (g_unlagged), the box the server rewound the target to (yellow) beside where it really was (cyan)")
	v.StringVar(&w.LastServer, "cl_lastServer", "", a,
		"the address last joined from the menu (its Join page starts with it)")
	v.OnChange(on.NotifyTime).Float64Var(&w.NotifyTime, "con_notifytime", 3, 0, 60, a,
		"seconds the newest console lines stay on screen with the console closed (0: none)")
	v.StringVar(&w.HomePath, "fs_homepath", "", console.Init,
		"directory of the saved settings, binds and demos (empty: $XDG_DATA_HOME/tremor or ~/.local/share/tremor); set on the command line")
	bindNet(v, &w.Net)
}
