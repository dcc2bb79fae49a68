// Command client is the Tremor game client: an Ebitengine window that
// joins a server, or starts one in-process with bots, samples the keyboard
// and mouse into usercmds, predicts the local player, interpolates
// everyone else and draws the arena (package ui/draw), with Quake
// III's drop-down console, key bindings and menus.
//
// Usage:
//
//	client [+set CVAR VALUE]... [+map NAME] [+connect HOST[:PORT]] [+addbot N]
//	       [+wait N] [+screenshot FILE.png] [+framestats] [+quit]
//
// The command line is Quake III's: every argument starting with '+'
// begins a console command. set lines run before the window opens; the
// others run in order from the first frame, wait N pausing them N frames.
// Without arguments, or with only settings such as +set name Ann, the
// client starts a local match against three bots on arena1 and shows the
// main menu over it, the player a spectator until the menu closes
// (session.Newcomer); +map, +connect, +demo, +timedemo, +classroom or
// +playjournal replace that match. +map starts the server
// engine in-process on the loopback netchan, the same protocol path as
// UDP, and opens net_port for players on the LAN.
//
// Archived cvars (seta), key bindings and the console history are saved
// in the data directory (fs_homepath, default $XDG_DATA_HOME/tremor or
// ~/.local/share/tremor).
// Default keys: A/D or the arrows move, W, Up or Space jumps, S or Down
// drops through platforms, the mouse aims, the left button fires, 1–5 and
// the wheel choose a weapon, Tab shows the scores, T chats, ` opens the
// console, Escape the menu, F11 toggles full screen, F12 saves a
// screenshot. See docs/client-window.md.
package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/client/browser"
	"tremor/cmd/client/internal/frametime"
	"tremor/cmd/client/internal/input"
	"tremor/cmd/client/internal/route"
	"tremor/cmd/client/internal/session"
	"tremor/cmd/client/internal/settings"
	"tremor/common/console"
	"tremor/maps/arenas"
	"tremor/net/cmdargs"
	"tremor/ui/draw"
	"tremor/ui/keys"
	"tremor/ui/menu"
	"tremor/ui/sound"
)

// version is shown in the console's corner.
const version = "tremor 0.3"

func main() {
	os.Exit(run(commandLine(), os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(args []string, stderr io.Writer) int {
	// No arguments, or only settings: the default match, with the main
	// menu over it (session.WithDefaultMatch).
	args, showMenu := session.WithDefaultMatch(args, execFS())
	t := console.NewTable()
	sb := console.NewScrollback(console.DefaultScrollback)
	// Every print reaches standard error and the console's scrollback,
	// and with it the notify lines: the table's, the session's
	// (cg_showmiss, journal, demo) and the embedded server's log.
	out := io.MultiWriter(stderr, sb)
	t.SetOutput(out)
	t.SetFS(execFS())
	g := &game{t: t, stderr: stderr, start: time.Now(), play: newPlayScene(), ui: draw.NewUI(), sb: sb}
	g.demo = newDemoScene(g.play)
	g.declareCvars() // the window's table (cvars.go)
	early, rest := console.SplitCommandLine(args)
	// fs_homepath is an Init cvar: only the command line sets it, and it
	// says where the saved settings are, so it goes first.
	for _, l := range early {
		if a := cmdargs.Tokenize(l); a.Argc() == 3 && strings.EqualFold(a.Argv(1), "fs_homepath") {
			t.ExecuteCommandLine([]string{l})
		}
	}
	cfg := openConfig(t, g.cv.HomePath, stderr)
	t.ExecuteCommandLine(early)
	warnNoGLXInfo(t.Printf)

	var b [8]byte
	_, _ = rand.Read(b[:])
	g.cfg = cfg
	g.sess = session.New(t, out, binary.LittleEndian.Uint64(b[:])|1)
	sc := g.sess.Config()
	g.sess.OnMaxFPS(func() { g.setMaxFPS(sc.Client.MaxFPS) })
	if cfg != nil {
		g.sess.SetDataDir(cfg.m.Dir())
	}
	g.useLocalMapDir()
	g.in.AddCommands(t)
	g.binds = keys.NewBinds(t)
	g.binds.SetDefaults()
	g.km = newKeymap()
	mcfg := menu.Config{Maps: arenas.Names(), KeysFor: g.binds.KeysFor, LastServer: &g.cv.LastServer}
	var invite, inviteFor string
	mcfg.Invite = func() string { // the embedded server's page, for browsers on the LAN
		if u := g.sess.WebURL(); u != inviteFor {
			inviteFor, invite = u, ""
			if u != "" {
				invite = "students open " + u
			}
		}
		return invite
	}
	g.openNetwork(&mcfg)
	g.menu = menu.New(t, mcfg)
	g.con = route.NewConsole(t, sb)
	g.chat = route.NewChat(t)
	g.router = g.newRouter()
	g.stats.CPUTime = frametime.ProcessCPU
	g.addCommands()
	g.addProfileCommand()
	g.addClassroomCommands()
	g.addCompleters()
	g.loadSaved()
	if g.cv.InitSound {
		g.snd = sound.New(sound.Options{Volume: g.cv.Volume})
	}
	if sc.Journal == 2 {
		// A journal replays instead of the command line's game
		// (docs/journal.md).
		rest, showMenu = nil, false
		if err := g.sess.PlayJournal(sc.JournalFile); err != nil {
			fmt.Fprintf(stderr, "client: %v\n", err)
		}
	}
	for _, l := range rest {
		t.Append(l)
	}
	if showMenu {
		g.menu.OpenMain()
		g.newcomer.Arm()
	}

	ebiten.SetWindowTitle("Tremor")
	ebiten.SetWindowSize(1280, 720)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	g.setMaxFPS(sc.Client.MaxFPS)
	ebiten.SetVsyncEnabled(g.cv.VSync)
	ebiten.SetFullscreen(g.cv.Fullscreen)
	ebiten.SetCursorShape(ebiten.CursorShapeCrosshair)
	// Every frame paints the whole screen (the sky or a fill first), so
	// Ebitengine's own clear would be a full-screen pass for nothing: a
	// software renderer spends a tenth of its frame on it.
	ebiten.SetScreenClearedEveryFrame(false)
	err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: false})
	g.profileStop()
	g.sess.Close()
	if g.br != nil {
		g.br.Close()
	}
	g.save()
	if err != nil && !errors.Is(err, ebiten.Termination) {
		fmt.Fprintf(stderr, "client: %v\n", err)
		return 1
	}
	return g.status
}

// game is the ebiten.Game, the window: console, session, input, the
// scenes and the UI drawn over them. Update and Draw run what every
// frame does and hand the rest to the scene that runs (scene.go).
type game struct {
	t      *console.Table
	stderr io.Writer
	sess   *session.Session
	play   *playScene // the game scene (play.go)
	demo   *demoScene // the demo scene (demo.go), drawing through play
	idle   menuScene  // the main menu's backdrop (scene.go)
	ui     *draw.UI   // the console, chat field and menus over every scene
	cfg    *config

	in    input.State
	binds *keys.Binds
	km    *keymap
	menu  *menu.Model
	br    *browser.Browser // the server browser; nil if it has no socket
	snd   *sound.Player    // nil: silent

	cv settings.Window // the window's cvars (cvars.go)

	// The drop-down console and the chat field (messagemode), and who
	// has the keyboard (keyboard.go).
	sb      *console.Scrollback
	con     *route.Console
	conFrac float64
	chat    *route.Chat
	router  *route.Router
	events  []route.Event // this frame's

	start    time.Time
	now      int32     // real time of this Update, ms since start
	last     time.Time // time of the last Draw
	focused  bool
	lastSave int32

	final       finalScreen
	profileStop func() // stops a cpuprofile being written

	stats      frametime.Recorder
	updateTook time.Duration

	maxFPS int // com_maxfps
	pacing     // holds frames to maxFPS (pacing.go)

	wasIdle  bool             // the session was idle at the last frame (menuWhenIdle)
	newcomer session.Newcomer // the default match's hold on the player (holdNewcomer)

	cls *classroomScene // the classroom scene, while it runs (classroom.go)

	shot   string // screenshot to save at the next Draw
	quit   bool
	status int // exit status
}

// addCommands adds the client's console commands.
func (g *game) addCommands() {
	t := g.t
	t.AddCommand("map", "start a local server on a map and join it: map NAME", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: map NAME\n")
			return
		}
		if err := g.sess.StartMap(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
			g.status = 1
		}
	})
	t.AddCommand("disconnect", "leave the match (and stop the local server)", func(*cmdargs.Args) {
		g.sess.Disconnect()
		g.stopClassroom()
		g.menu.OpenMain()
	})
	t.AddCommand("reconnect", "join the last server again: a new connection, whose gamestate applies a cl_reliable change (after disconnect, the last server connect joined)", func(*cmdargs.Args) {
		if err := g.sess.Reconnect(); err != nil {
			t.Printf("%v\n", err)
		}
	})
	t.AddCommand("killserver", "stop the local server and leave its match (the menu's Play starts a new one after it)", func(*cmdargs.Args) {
		g.sess.Disconnect()
		g.stopClassroom()
	})
	t.AddCommand("say", "chat to everyone: say TEXT", func(a *cmdargs.Args) {
		if c := g.sess.Client(); c != nil {
			if err := c.AddReliableCommand("say " + cmdargs.QuoteText(a.ArgsFrom(1))); err != nil {
				t.Printf("%v\n", err)
			}
		}
	})
	t.AddCommand("messagemode", "type a chat line (Enter sends it, Escape drops it)", func(*cmdargs.Args) {
		if g.sess.Client() != nil {
			g.chat.Open()
		}
	})
	t.AddCommand("toggleconsole", "open or close the console", func(*cmdargs.Args) { g.toggleConsole() })
	t.AddCommand("togglemenu", "open or close the menu", func(*cmdargs.Args) {
		if g.menu.IsOpen() {
			g.menu.Close()
		} else {
			g.menu.Open()
		}
	})
	t.AddCommand("menu", "open a menu page: menu [main|ingame|play|join|settings|keys|servers [lan|internet|favorites]]", func(a *cmdargs.Args) {
		page := a.Argv(1)
		if page == "" {
			g.menu.Open()
			return
		}
		if err := g.menu.OpenPage(page, a.Argv(2)); err != nil {
			t.Printf("%v\n", err)
		}
	})
	t.AddCommand("clear", "clear the console's text", func(*cmdargs.Args) { g.sb.Clear() })
	t.AddCommand("framestats", "print frame times over the last 1024 frames: framestats [reset]", func(a *cmdargs.Args) {
		if a.Argv(1) == "reset" {
			g.stats.Reset()
			return
		}
		s := g.stats.Summarize(time.Second / 60)
		t.Printf("framestats: %v\n  render scale %.3g (r_scale %g)\n", s, g.play.r.RenderScale(), g.cv.RScale)
	})
	t.AddCommand("writeconfig", "save the archived cvars and the binds now", func(*cmdargs.Args) { g.save() })
	t.AddCommand("quit", "leave the game", func(*cmdargs.Args) { g.quit = true })
	g.addNetCommands()
	g.addFileCommands()
	g.addTeamCommand()
}

// addCompleters lets Tab complete the arguments of map and bind.
func (g *game) addCompleters() {
	byPrefix := func(names []string) func(string) []string {
		return func(prefix string) []string {
			var out []string
			for _, n := range names {
				if len(n) >= len(prefix) && strings.EqualFold(n[:len(prefix)], prefix) {
					out = append(out, n)
				}
			}
			return out
		}
	}
	p := &g.con.Prompt
	p.SetArgCompleter("map", byPrefix(arenas.Names()))
	p.SetArgCompleter("bind", byPrefix(keys.Names()))
	p.SetArgCompleter("unbind", byPrefix(keys.Names()))
}

// Update runs one client frame: keys, console, engine, cgame (Com_Frame).
func (g *game) Update() error {
	g.pace()
	began := time.Now()
	g.now = int32(time.Since(g.start).Milliseconds())
	g.sb.SetTime(int64(g.now))
	if focused := ebiten.IsFocused(); focused != g.focused {
		if !focused {
			// Keys released while another window has the keyboard
			// would stay down.
			g.km.releaseAll()
			g.router.ReleaseAll(g.now)
		}
		g.focused = focused
	}
	g.keyboard()
	g.t.Execute()
	if g.quit && g.shot == "" {
		return ebiten.Termination
	}
	g.scene().update(g, began)
	if g.now-g.lastSave >= 1000 {
		g.lastSave = g.now
		if g.t.TakeModifiedFlags(console.Archive) != 0 {
			g.save()
		}
	}
	g.updateTook = time.Since(began)
	return nil
}

// drawFrame draws the frame on screen (the offscreen or the window's
// framebuffer: see finalScreen): the scene, then the console and the
// menus over it; it saves a screenshot that is due and counts the frame.
func (g *game) drawFrame(screen *ebiten.Image) {
	began := time.Now()
	dt := 0.0
	if !g.last.IsZero() {
		dt = began.Sub(g.last).Seconds()
	}
	s := g.scene()
	s.draw(g, screen, began, dt)
	g.drawOverlays(screen, dt, s.notify())
	g.saveDueShot(screen)
	frameDrawn(g)
	if !g.last.IsZero() {
		g.stats.Add(began.Sub(g.last), g.updateTook, time.Since(began))
	}
	g.last = began
}

// menuWhenIdle shows the main menu whenever the player is in no game —
// at start with a command line that neither starts nor joins one, after a
// disconnect, a failed connect, a kick or the end of a demo — with the
// reason the last connection ended, and closes it when a game begins
// (Quake III's UI did the same with its connection states).
func (g *game) menuWhenIdle() {
	idle, reason := g.sess.Idle()
	switch {
	case idle && !g.wasIdle:
		switch {
		case reason != "":
			g.t.Printf("%s\n", reason)
			g.menu.OpenMainWithMessage(reason)
		case !g.menu.IsOpen():
			g.menu.OpenMain() // a page a script opened stays
		}
	case idle && !g.menu.IsOpen():
		g.menu.OpenMain() // nothing to go back to
	case !idle && g.wasIdle:
		g.menu.Close()
	}
	g.wasIdle = idle
}

// Layout uses the window's size: one screen pixel per window pixel.
func (g *game) Layout(w, h int) (int, int) {
	g.sb.SetWidth((w - 16) / 7)
	return w, h
}
