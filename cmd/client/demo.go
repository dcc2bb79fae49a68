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

// demoCamera returns where the camera looks during a demo: the
// recording player (false: the renderer's own choice), another player
// by client number, or the free camera.
func (g *game) demoCamera(cg *cgame.CGame) (follow bool, x, y float64) {
	switch g.follow {
	case followRecorder:
		px, py := cg.DrawnOrigin.Px()
		g.freeCam = [2]float64{px, py}
		return false, 0, 0
	case followFree:
		return true, g.freeCam[0], g.freeCam[1]
	}
	if e := cg.Entity(g.follow); e != nil && e.Valid {
		x, y = e.Lerp.Px()
		g.freeCam = [2]float64{x, y}
		return true, x, y
	}
	return true, g.freeCam[0], g.freeCam[1]
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
		g.followNext()
	}
	if k >= '0' && k <= '9' {
		pb.SeekPercent(float64(k-'0') * 10)
	}
}

// moveFreeCam moves the free camera (demo_follow -1) by the WASD keys
// held, while a demo has the keyboard.
func (g *game) moveFreeCam() {
	if g.follow != followFree {
		return
	}
	d := freeCamSpeed / float64(max(1, g.maxFPS))
	r := g.router
	if r.Held('a') {
		g.freeCam[0] -= d
	}
	if r.Held('d') {
		g.freeCam[0] += d
	}
	if r.Held('w') {
		g.freeCam[1] -= d
	}
	if r.Held('s') {
		g.freeCam[1] += d
	}
}

// followNext points the demo camera at the next player in the
// snapshot, after the recording player and before the free camera.
func (g *game) followNext() {
	cg := g.sess.Active()
	if cg == nil {
		return
	}
	start := g.follow + 1
	if g.follow < 0 {
		start = 0
	}
	for n := start; n < int32(len(g.sess.Names())); n++ {
		if e := cg.Entity(n); e != nil && e.Valid && n != cg.ClientNum() {
			g.follow = n
			return
		}
	}
	if g.follow == followFree {
		g.follow = followRecorder
	} else {
		g.follow = followFree
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
func (g *game) endTimedemo() {
	td := g.td
	g.td = nil
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
