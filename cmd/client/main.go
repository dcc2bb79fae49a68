// Command client is the Tremor game client: an Ebitengine window that
// joins a server, or starts one in-process with bots, samples the keyboard
// and mouse into usercmds, predicts the local player, interpolates
// everyone else and draws the arena (package cgame/draw).
//
// Usage:
//
//	client [+set CVAR VALUE]... [+map NAME] [+connect HOST[:PORT]] [+addbot N]
//	       [+wait N] [+screenshot FILE.png] [+quit]
//
// The command line is Quake III's: every argument starting with '+'
// begins a console command. set lines run before the window opens; the
// others run in order from the first frame, wait N pausing them N frames.
// Without arguments the client runs "+map arena1 +addbot 3": a local
// match against three bots. +map starts the server engine in-process on
// the loopback netchan, the same protocol path as UDP.
//
// Controls: A/D or the arrows move, W, Up or Space jumps, S or Down drops
// through platforms, the mouse aims, the left button fires, 1–5 and the
// wheel choose a weapon, Tab shows the scores, F11 toggles full screen,
// Escape quits. See docs/client-window.md.
package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"tremor/bg"
	"tremor/cgame/draw"
	"tremor/cmd/client/internal/input"
	"tremor/cmd/client/internal/session"
	"tremor/internal/console"
	"tremor/net/oob"
)

// defaultArgs is the command line when none is given: a local match.
var defaultArgs = []string{"+map", "arena1", "+addbot", "3"}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		args = defaultArgs
	}
	t := console.NewTable()
	t.SetOutput(stderr)
	t.SetFS(os.DirFS("."))
	t.Register(session.Cvars...)
	early, rest := console.SplitCommandLine(args)
	t.ExecuteCommandLine(early)

	var b [8]byte
	_, _ = rand.Read(b[:])
	g := &game{t: t, stderr: stderr, start: time.Now(), r: draw.New(nil), status: 0}
	g.sess = session.New(t, stderr, binary.LittleEndian.Uint64(b[:])|1)
	g.addCommands()
	for _, d := range session.Cvars {
		switch d.Name {
		case "com_maxfps":
			t.Get(d.Name).OnChange(func(c *console.Cvar) { ebiten.SetTPS(c.Int()) })
		case "r_vsync":
			t.Get(d.Name).OnChange(func(c *console.Cvar) { ebiten.SetVsyncEnabled(c.Bool()) })
		case "cl_nopredict", "cg_errorDecay", "cg_showmiss":
		default:
			t.Get(d.Name).OnChange(func(*console.Cvar) { g.sess.ApplyConfig() })
		}
	}
	for _, l := range rest {
		t.Append(l)
	}

	ebiten.SetWindowTitle("Tremor")
	ebiten.SetWindowSize(1280, 720)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(t.Get("com_maxfps").Int())
	ebiten.SetVsyncEnabled(t.Get("r_vsync").Bool())
	ebiten.SetCursorShape(ebiten.CursorShapeCrosshair)
	err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: false})
	g.sess.Close()
	if err != nil && !errors.Is(err, ebiten.Termination) {
		fmt.Fprintf(stderr, "client: %v\n", err)
		return 1
	}
	return g.status
}

// game is the ebiten.Game: console, session, input and renderer.
type game struct {
	t      *console.Table
	stderr io.Writer
	sess   *session.Session
	r      *draw.Renderer
	in     input.State
	frame  draw.Frame
	start  time.Time
	last   time.Time // time of the last Draw
	shot   string    // screenshot to save at the next Draw
	quit   bool
	status int // exit status
}

// addCommands adds the client's console commands.
func (g *game) addCommands() {
	t := g.t
	t.AddCommand("map", "start a local server on a map and join it: map NAME", func(a *oob.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: map NAME\n")
			return
		}
		if err := g.sess.StartMap(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
			g.status = 1
		}
	})
	t.AddCommand("connect", "join a server: connect HOST[:PORT]", func(a *oob.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: connect HOST[:PORT]\n")
			return
		}
		if err := g.sess.Connect(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
		}
	})
	t.AddCommand("addbot", "add bots to the local server: addbot [COUNT | NAME [SKILL]]", func(a *oob.Args) {
		if err := g.sess.AddBots(a.ArgsFrom(1)); err != nil {
			t.Printf("%v\n", err)
		}
	})
	t.AddCommand("say", "chat to everyone: say TEXT", func(a *oob.Args) {
		if c := g.sess.Client(); c != nil {
			if err := c.AddReliableCommand("say " + quote(a.ArgsFrom(1))); err != nil {
				t.Printf("%v\n", err)
			}
		}
	})
	t.AddCommand("screenshot", "save the next frame: screenshot FILE.png", func(a *oob.Args) {
		name := "screenshot.png"
		if a.Argc() > 1 {
			name = a.Argv(1)
		}
		g.shot = name
	})
	t.AddCommand("quit", "leave the game", func(*oob.Args) { g.quit = true })
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
}

// Update runs one client frame: console, input, engine, cgame.
func (g *game) Update() error {
	g.t.Execute()
	if g.quit && g.shot == "" {
		return ebiten.Termination
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyEscape) {
		g.quit = true
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF11) {
		ebiten.SetFullscreen(!ebiten.IsFullscreen())
	}
	var ps *bg.PlayerState
	if cg := g.sess.Active(); cg != nil {
		ps = &cg.Predicted
	}
	cmd := g.in.Command(g.sample(), ps)
	g.sess.Frame(time.Since(g.start), cmd, ebiten.IsKeyPressed(ebiten.KeyTab))
	return nil
}

// sample reads the keyboard and mouse.
func (g *game) sample() input.Input {
	key := ebiten.IsKeyPressed
	in := input.Input{
		Left:  key(ebiten.KeyA) || key(ebiten.KeyArrowLeft),
		Right: key(ebiten.KeyD) || key(ebiten.KeyArrowRight),
		Jump:  key(ebiten.KeyW) || key(ebiten.KeyArrowUp) || key(ebiten.KeySpace),
		Drop:  key(ebiten.KeyS) || key(ebiten.KeyArrowDown),
		Fire:  ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
	}
	mx, my := ebiten.CursorPosition()
	lx, ly := g.r.LocalScreen()
	in.AimX, in.AimY = float64(mx)-lx, float64(my)-ly
	for k := ebiten.Key1; k <= ebiten.Key5; k++ {
		if inpututil.IsKeyJustPressed(k) {
			in.Weapon = int32(k-ebiten.Key1) + 1
		}
	}
	switch _, wy := ebiten.Wheel(); {
	case wy > 0:
		in.Wheel = -1
	case wy < 0:
		in.Wheel = 1
	}
	return in
}

// Draw draws the frame and saves a screenshot that is due.
func (g *game) Draw(screen *ebiten.Image) {
	now := time.Now()
	f := &g.frame
	f.Dt = 0
	if !g.last.IsZero() {
		f.Dt = now.Sub(g.last).Seconds()
	}
	g.last = now
	cg := g.sess.Active()
	if cg != nil && f.CG != cg {
		g.r.SetMap(g.sess.Client().Map())
	}
	f.CG = cg
	f.Names = g.sess.Names()
	f.LevelStartTime, f.TimeLimit = g.sess.Clock()
	f.Status = g.sess.Status()
	f.ShowScores = ebiten.IsKeyPressed(ebiten.KeyTab)
	f.CursorX, f.CursorY = ebiten.CursorPosition()
	g.r.Draw(screen, f)
	if g.shot != "" {
		if err := g.save(screen, g.shot); err != nil {
			fmt.Fprintf(g.stderr, "client: screenshot: %v\n", err)
			g.status = 1
		} else {
			fmt.Fprintf(g.stderr, "client: wrote %s\n", g.shot)
		}
		g.shot = ""
	}
}

// save writes screen's pixels to a PNG file.
func (g *game) save(screen *ebiten.Image, name string) error {
	b := screen.Bounds()
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	screen.ReadPixels(img.Pix)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff // the screen is opaque
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Layout uses the window's size: one screen pixel per window pixel.
func (g *game) Layout(w, h int) (int, int) { return w, h }
