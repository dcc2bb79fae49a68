package main

import (
	"path/filepath"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cgame/overlay"
	"tremor/client"
	"tremor/cmd/client/internal/frametime"
	lagdraw "tremor/lagometer/draw"
	"tremor/net/msg"
	"tremor/ui/draw"
	"tremor/ui/draw/view"
)

// playScene is the game scene: a match on the client's own server or
// another's, a demo or a journal replay played back, or the bare
// background behind the main menu when there is none. It keeps what
// only the game draws: the Renderer (the world and the HUD), the frame
// handed to it, the teaching overlays, the net graph, the render
// scaler, and the gamepad's aim.
type playScene struct {
	r      *draw.Renderer
	frame  draw.Frame
	ovl    *draw.Overlays
	ng     draw.NetGraph
	stall  view.StallMarker // frame sync's STALL marker
	unlag  draw.Unlagged    // cg_showUnlagged's labels
	scaler *frametime.Scaler
	// padAim: the gamepad aimed last, with the cursor at padCursor.
	padAim    bool
	padCursor [2]int
}

// newPlayScene returns the game scene with no map yet.
func newPlayScene() *playScene {
	return &playScene{r: draw.New(nil), ovl: draw.NewOverlays(), scaler: frametime.NewScaler()}
}

// notify: the notify lines, the chat field and the crosshair are the
// game's.
func (p *playScene) notify() bool { return true }

// update samples the keys and the mouse into a usercmd and runs the
// session's frame with it (runSession), then takes the frame's events
// in for drawing.
func (p *playScene) update(g *game, began time.Time) {
	var ps *bg.PlayerState
	if cg := g.sess.Active(); cg != nil {
		ps = &cg.Predicted
	}
	var aimX, aimY float64
	if !g.menu.IsOpen() && !g.con.Active() {
		mx, my := ebiten.CursorPosition()
		lx, ly := p.r.LocalScreen()
		aimX, aimY = float64(mx)-lx, float64(my)-ly
		if x, y, ok := g.km.padAim(); ok {
			// The right stick aims; the aim stays where it left it
			// until the stick or the mouse moves again.
			aimX, aimY = 100*x, 100*y
			p.padAim, p.padCursor = true, [2]int{mx, my}
		} else if p.padAim && p.padCursor == [2]int{mx, my} {
			aimX, aimY = 0, 0 // keep the last aim
		} else {
			p.padAim = false
		}
	}
	g.runSession(time.Since(g.start), g.in.CreateCmd(g.now, aimX, aimY, ps))
	p.observe(g)
}

// observe takes this frame's events of the cgame in for drawing now, so
// that none is lost when a draw is skipped.
func (p *playScene) observe(g *game) {
	if cg := g.sess.Active(); cg != nil {
		p.r.Observe(cg)
	}
}

// draw draws the game's frame (drawWith, with no demo).
func (p *playScene) draw(g *game, screen *ebiten.Image, began time.Time, dt float64) {
	p.drawWith(g, screen, began, dt, nil)
}

// drawWith draws the frame of a match, or of the demo d plays (nil: a
// match): the world and the HUD (draw.Renderer) from the camera the
// demo chose, the demo bar, the replay banner, the net graph, the
// lagometer and the teaching overlays, and plays the frame's sounds.
// The render scale follows the frame time first.
func (p *playScene) drawWith(g *game, screen *ebiten.Image, began time.Time, dt float64, d *demoScene) {
	if !g.last.IsZero() {
		if s := g.cv.RScale; s > 0 {
			p.r.SetRenderScale(s)
		} else {
			p.scaler.Frame(began.Sub(g.last), time.Second/time.Duration(max(1, g.maxFPS)))
			p.r.SetRenderScale(p.scaler.Scale())
		}
	}
	f := &p.frame
	f.Dt = dt
	cg := g.sess.Active()
	if cg != nil && f.CG != cg {
		p.r.SetMap(g.sess.Map())
	}
	f.CG = cg
	f.Names = g.sess.Names()
	f.LevelStartTime, f.TimeLimit = g.sess.Clock()
	f.Status = g.sess.Status()
	f.Download, f.Downloading = client.DownloadStatus{}, false
	if c := g.sess.Client(); c != nil && cg == nil {
		f.Download, f.Downloading = c.Download()
	}
	if g.menu.IsOpen() && cg == nil {
		f.Status = "" // the menu says what to do
	}
	f.ShowScores = g.in.ShowScores()
	f.Intermission = g.sess.Intermission()
	f.CursorX, f.CursorY = ebiten.CursorPosition()
	f.Follow = false
	f.UIScale = g.cv.UIScale
	f.LocalServer = g.sess.Server() != nil
	f.NetGraph = g.cv.NetGraph && g.sess.Client() != nil
	f.Playback, f.FollowClient = d != nil, followRecorder
	f.Stall = ""
	if c := g.sess.Client(); c != nil && d == nil && cg != nil && c.FrameSync() {
		st, _ := c.FrameSyncStats()
		p.stall.Update(g.now, st.Stalled, st.Ahead)
		f.Stall = p.stall.Text(g.now)
	} else {
		p.stall.Reset()
	}
	if d != nil {
		f.FollowClient = d.follow
		if cg != nil {
			f.Follow, f.FollowX, f.FollowY = d.camera(cg)
		}
	}
	p.r.Draw(screen, f)
	if pb := g.sess.Playback(); d != nil && pb != nil {
		p.r.DrawDemoBar(screen, pb, d.td != nil)
	}
	if st, ok := g.sess.Replay(); ok {
		p.r.DrawReplayBanner(screen, filepath.Base(st.Path), st.Frames, st.Done, st.Err)
	}
	if c := g.sess.Client(); c != nil && g.cv.NetGraph && !f.Intermission {
		p.ng.Sample(c.NetGraph(), g.now)
		p.r.DrawNetGraph(screen, &p.ng)
	}
	if cg != nil && g.cv.Lagometer && !f.Intermission {
		r := p.r.LagometerRect(screen)
		lagdraw.Draw(screen, &cg.Lagometer, float32(r.Min.X), float32(r.Min.Y), float32(r.Dy()))
	}
	p.drawTeaching(g, screen, cg, f.Intermission)
	if cg != nil && !f.Intermission && g.cv.ShowUnlagged {
		p.r.DrawUnlagged(screen, cg, p.ovl, &p.unlag)
	}
	g.snd.PlayCues(p.r.TakeCues())
}

// drawTeaching draws the teaching overlays that are switched on
// (cg_showSnapBox, cg_showGhosts, cg_showInterp, cg_showFieldBits).
func (p *playScene) drawTeaching(g *game, screen *ebiten.Image, cg *cgame.CGame, intermission bool) {
	snap, ghosts, interp, fields := g.cv.ShowSnapBox, g.cv.ShowGhosts, g.cv.ShowInterp, g.cv.ShowFieldBits
	if !snap && !ghosts && !interp && !fields {
		return
	}
	c := g.sess.Engine() // the demo's during playback: the overlays replay too
	var src overlay.SnapshotSource
	var counted *msg.FieldStats // this engine's only, not the embedded server's
	if c != nil {
		src = c // never a nil *client.Client inside the interface
		counted = c.FieldStats()
	}
	p.ovl.Fields.SetStats(counted)
	p.ovl.Update(src, cg, g.now)
	if cg == nil || intermission {
		return
	}
	if ghosts {
		p.r.DrawGhosts(screen, cg, p.ovl)
	}
	if snap {
		p.r.DrawSnapBox(screen, cg, p.ovl)
	}
	if interp && c != nil {
		p.r.DrawInterpStrip(screen, cg, p.ovl, c.TimeNudge(), c.AutoNudge().On)
	}
	if fields {
		p.r.DrawFieldBits(screen, p.ovl)
	}
}
