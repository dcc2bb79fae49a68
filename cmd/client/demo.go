package main

import (
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame"
	"tremor/client"
	"tremor/ui/keys"
)

// The demo camera (demo_follow).
const (
	followRecorder int32 = -1 // the player who recorded the demo
	followFree     int32 = -2 // moved with WASD
)

// freeCamSpeed is how fast the free camera moves, world pixels a second.
const freeCamSpeed = 900

// demoScene is a demo played back (demo, timedemo): the game scene's
// world and HUD fed by client.Playback instead of a server, with what
// only playback has: the camera that follows the recording player,
// another one or moves free (demo_follow), the demo bar, the playback
// keys (demoLayer) and a timedemo's clock and frame times. It runs from
// the demo's start until a timedemo has printed its result.
type demoScene struct {
	play    *playScene // draws the world and the HUD
	td      *timedemo  // a drawn timedemo running
	follow  int32      // followRecorder, followFree or a client number
	freeCam [2]float64
}

// newDemoScene returns the demo scene, drawing with play's renderer.
func newDemoScene(play *playScene) *demoScene {
	return &demoScene{play: play, follow: followRecorder}
}

// notify: the notify lines and the chat field are the game's.
func (d *demoScene) notify() bool { return true }

// update runs the session's frame at the demo's clock (a timedemo's own,
// 50 ms a frame), moves the free camera by the keys held while the demo
// has the keyboard, and ends a timedemo whose demo ended. A usercmd is
// still sampled, so the buttons' frame timing stays current, but the
// playback has no use for it.
func (d *demoScene) update(g *game, began time.Time) {
	now := time.Since(g.start)
	if d.td != nil {
		now = d.td.next()
	}
	if _, ok := g.router.Top().(demoLayer); ok {
		d.moveFreeCam(g)
	}
	g.runSession(now, g.in.CreateCmd(g.now, 0, 0, nil))
	if d.td != nil && g.sess.Playback() == nil {
		d.endTimedemo(g)
	}
	d.play.observe(g)
}

// draw draws the demo's frame through the game scene, from the demo's
// camera, with the demo bar; a timedemo counts the frame.
func (d *demoScene) draw(g *game, screen *ebiten.Image, began time.Time, dt float64) {
	d.play.drawWith(g, screen, began, dt, d)
	if d.td != nil {
		d.td.frame(began)
	}
}

// camera returns where the camera looks: the recording player (false:
// the renderer's own choice), another player by client number, or the
// free camera.
func (d *demoScene) camera(cg *cgame.CGame) (follow bool, x, y float64) {
	switch d.follow {
	case followRecorder:
		px, py := cg.DrawnOrigin.Px()
		d.freeCam = [2]float64{px, py}
		return false, 0, 0
	case followFree:
		return true, d.freeCam[0], d.freeCam[1]
	}
	if e := cg.Entity(d.follow); e != nil && e.Valid {
		x, y = e.Lerp.Px()
		d.freeCam = [2]float64{x, y}
		return true, x, y
	}
	return true, d.freeCam[0], d.freeCam[1]
}

// demoKey runs the playback control of key k while a demo plays and
// has the keyboard (demoLayer): Space pauses, ←/→ step one snapshot, [
// and ] halve and double the speed, PgUp/PgDn jump to the previous/next
// frag, 0–9 seek to a tenth of the demo, F follows the next player. They
// run the console commands, so they can be bound elsewhere too.
func (g *game) demoKey(pb *client.Playback, k keys.KeyNum) {
	t := g.t
	switch k {
	case keys.KeySpace:
		t.Append("demo_pause\n")
	case keys.KeyRightArrow:
		t.Append("demo_step\n")
	case keys.KeyLeftArrow:
		t.Append("demo_stepback\n")
	case '[':
		pb.SetTimescale(pb.Timescale() / 2)
	case ']':
		pb.SetTimescale(pb.Timescale() * 2)
	case keys.KeyPgUp:
		t.Append("demo_prevfrag\n")
	case keys.KeyPgDn:
		t.Append("demo_nextfrag\n")
	case 'f':
		g.demo.followNext(g)
	}
	if k >= '0' && k <= '9' {
		pb.SeekPercent(float64(k-'0') * 10)
	}
}

// moveFreeCam moves the free camera (demo_follow -1) by the WASD keys
// held.
func (d *demoScene) moveFreeCam(g *game) {
	if d.follow != followFree {
		return
	}
	step := freeCamSpeed / float64(max(1, g.maxFPS))
	r := g.router
	if r.Held('a') {
		d.freeCam[0] -= step
	}
	if r.Held('d') {
		d.freeCam[0] += step
	}
	if r.Held('w') {
		d.freeCam[1] -= step
	}
	if r.Held('s') {
		d.freeCam[1] += step
	}
}

// followNext points the camera at the next player in the snapshot,
// after the recording player and before the free camera.
func (d *demoScene) followNext(g *game) {
	cg := g.sess.Active()
	if cg == nil {
		return
	}
	start := d.follow + 1
	if d.follow < 0 {
		start = 0
	}
	for n := start; n < int32(len(g.sess.Names())); n++ {
		if e := cg.Entity(n); e != nil && e.Valid && n != cg.ClientNum() {
			d.follow = n
			return
		}
	}
	if d.follow == followFree {
		d.follow = followRecorder
	} else {
		d.follow = followFree
	}
}

// timedemo is a timedemo drawn in the window: every frame advances the
// demo by timedemoStep whatever the real time, frames are drawn as fast
// as they can be (no vsync, no frame cap), and the real time each took
// is measured, drawing included: a rendering benchmark.
type timedemo struct {
	virtual    time.Duration
	last       time.Time
	res        client.TimeDemoResult
	sum, sumSq float64 // of frame times, ms
	tps        int
	vsync      bool
}

// timedemoStep is the demo time per frame, as Quake III's timedemo.
const timedemoStep = 50 * time.Millisecond

// next returns the demo's clock for the next frame.
func (td *timedemo) next() time.Duration {
	td.virtual += timedemoStep
	return td.virtual
}

// frame records the real time since the previous frame.
func (td *timedemo) frame(now time.Time) {
	if !td.last.IsZero() {
		d := now.Sub(td.last)
		r := &td.res
		r.Frames++
		r.Total += d
		r.Min, r.Max = min(r.Min, d), max(r.Max, d)
		ms := float64(d) / float64(time.Millisecond)
		td.sum += ms
		td.sumSq += ms * ms
	}
	td.last = now
}

// endTimedemo prints the result, as Quake III did, and restores the
// frame pacing.
func (d *demoScene) endTimedemo(g *game) {
	td := d.td
	d.td = nil
	r := &td.res
	if r.Frames > 0 {
		mean := td.sum / float64(r.Frames)
		r.StdDev = time.Duration(math.Sqrt(max(0, td.sumSq/float64(r.Frames)-mean*mean)) * float64(time.Millisecond))
	} else {
		r.Min = 0
	}
	g.t.Printf("timedemo: %s\n", r.String())
	ebiten.SetTPS(td.tps)
	ebiten.SetVsyncEnabled(td.vsync)
}
