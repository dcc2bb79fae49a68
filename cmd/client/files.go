//go:build !js

package main

import (
	"image"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/client"
	"tremor/lessons"
	"tremor/net/cmdargs"
)

// What the client reads and writes as files, which the browser build
// leaves out (files_js.go, docs/web.md): scripts in the working
// directory, screenshots, demos (record, play, timedemo) and the event
// journal. Its settings are not among them: package userdata keeps them
// in files here and in the browser's local storage there.

// execFS is where exec finds scripts: the working directory, then the
// built-in lessons.
func execFS() fs.FS { return lessons.Over(os.DirFS(".")) }

// localMapDir returns where the local server looks for maps first (the
// player's own maps, in the data directory's maps folder; the client
// keeps its downloads in that folder's downloads folder, which the server
// never reads), and false when there is no data directory.
func localMapDir(cfg *config) (string, bool) {
	if cfg == nil || cfg.m.Dir() == "" {
		return "", false
	}
	return filepath.Join(cfg.m.Dir(), "maps"), true
}

// addFileCommands adds screenshot, condump, the demo commands and the
// journal's.
func (g *game) addFileCommands() {
	t := g.t
	client.AddRecordCommands(t, g.sess.DataDir(), g.sess.Client)
	client.AddPlaybackCommands(t, g.sess.Playback)
	g.sess.AddJournalCommands(t)
	g.sess.AddCondump(t, g.sb)
	t.AddCommand("screenshot", "save the next frame: screenshot [FILE.png]", func(a *cmdargs.Args) {
		name := "screenshot.png"
		if a.Argc() > 1 {
			name = a.Argv(1)
		}
		g.shot = name
	})
	t.AddCommand("demo", "play a demo: demo NAME (in the data directory's demos folder) or demo PATH", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: demo NAME\n")
			return
		}
		if err := g.sess.PlayDemo(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
			return
		}
		g.menu.Close()
		g.demo.start()
	})
	t.AddCommand("timedemo", "play a demo as fast as frames can be drawn, 50 ms of demo a frame, and print the frame times: timedemo NAME", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: timedemo NAME\n")
			return
		}
		if err := g.sess.PlayDemo(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
			return
		}
		g.menu.Close()
		g.demo.start()
		g.demo.startTimedemo()
	})
	t.AddCommand("timescale", "demo speed, 0.1 to 4 (demo_timescale)", func(a *cmdargs.Args) {
		t.ExecuteString("demo_timescale " + a.ArgsFrom(1))
	})
	t.AddCommand("demo_follow", "demo camera: demo_follow [N] follows client N, no N the recording player, -1 a free camera (WASD)", func(a *cmdargs.Args) {
		switch n, err := strconv.Atoi(a.Argv(1)); {
		case a.Argc() < 2:
			g.demo.follow = followRecorder
		case err != nil || n < -1 || n >= bg.MaxClients:
			t.Printf("usage: demo_follow [N | -1]\n")
		case n == -1:
			g.demo.follow = followFree
		default:
			g.demo.follow = int32(n)
		}
	})
}

// saveDueShot saves the screenshot the screenshot command asked for, if
// any.
func (g *game) saveDueShot(screen *ebiten.Image) {
	if g.shot != "" {
		if err := g.saveShot(screen, g.shot); err != nil {
			g.t.Printf("client: screenshot: %v\n", err)
			g.status = 1
		} else {
			g.t.Printf("client: wrote %s\n", g.shot)
		}
		g.shot = ""
	}
}

// saveShot writes screen's pixels to a PNG file.
func (g *game) saveShot(screen *ebiten.Image, name string) error {
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

// start readies the scene for a demo that began playing: the camera on
// its recorder, the demo bar at its start.
func (d *demoScene) start() {
	d.follow = followRecorder
	d.play.r.ResetDemoBar()
}

// startTimedemo makes the demo that just began playing a timedemo.
func (d *demoScene) startTimedemo() {
	d.td = &timedemo{tps: ebiten.TPS(), vsync: ebiten.IsVsyncEnabled()}
	d.td.res.Step = timedemoStep
	d.td.res.Min = time.Duration(math.MaxInt64)
	ebiten.SetVsyncEnabled(false)
	ebiten.SetTPS(ebiten.SyncWithFPS)
}
