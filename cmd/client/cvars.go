package main

import (
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cmd/client/internal/settings"
)

// declareCvars makes the window's table in g.t (settings.Declare): the
// window's cvars bound to g.cv, with what their changes do to the window.
func (g *game) declareCvars() {
	c := &g.cv
	settings.Declare(g.t, c, settings.Hooks{
		VSync:      func() { ebiten.SetVsyncEnabled(c.VSync) },
		Fullscreen: func() { ebiten.SetFullscreen(c.Fullscreen) },
		Volume:     func() { g.snd.SetVolume(c.Volume) },
		NotifyTime: g.applyNotifyTime,
	})
	g.applyNotifyTime()
}

// applyNotifyTime gives the console's notify lines con_notifytime.
func (g *game) applyNotifyTime() { g.sb.SetNotifyTime(int64(g.cv.NotifyTime * 1000)) }

// useLocalMapDir makes the embedded server look for the player's own
// maps in the client's map folder, unless the command line set
// sv_mapdir (a server cvar, which the server binds while it runs).
// Downloads are kept apart in its downloads folder, which the server
// never reads: a server's map never replaces a built-in or the player's
// own.
func (g *game) useLocalMapDir() {
	v := g.t.Get("sv_mapdir")
	if v == nil || v.Value() != v.Default() {
		return
	}
	if dir, ok := localMapDir(g.cfg); ok {
		if err := g.t.Set(v.Name(), dir); err != nil {
			fmt.Fprintf(g.stderr, "client: %v\n", err)
		}
	}
}
