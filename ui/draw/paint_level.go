package draw

import (
	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/cgame/fx"
	"tremor/ui/draw/view"
)

// level is what the game's Renderer keeps for one map and the cgame
// that plays on it: the world painter with the map's pre-rendered tiles,
// the camera, the item spots, the effects and particles the events
// started, and what was observed of the cgame. Its lifetime is the
// map's: Renderer.SetMap replaces it whole (a new cgame always comes
// with a SetMap), so nothing in it is reset by hand. Not safe for
// concurrent use.
type level struct {
	world *worldPainter // nil without a map
	cam   view.Camera
	spots fx.ItemSpots
	fx    effects
	seen  observed
	// lastRT is the cgame real time of the previous frame drawn: the
	// particles' step.
	lastRT int32
}

// observed is what a level took in of one cgame: the frame observed
// last, so that a frame drawn twice does not play its events twice, and
// its local player's feedback (hits, damage, pickups). Observing another
// cgame starts a new one.
type observed struct {
	cg       *cgame.CGame
	frames   int
	feedback fx.Feedback
}

// newLevel returns the painters of map m (nil: no map, nothing drawn);
// rnd gives the effects their random numbers.
func newLevel(m *tilemap.Map, rnd *fx.Rand) *level {
	l := &level{fx: effects{rnd: rnd, m: m}}
	l.spots.Reset(m)
	if m != nil {
		l.world = newWorldPainter(m, &l.fx.particles, rnd)
	}
	return l
}

// dispose frees the level's images; it is not drawn again.
func (l *level) dispose() {
	if l.world != nil {
		l.world.dispose()
	}
}

// observe takes in cgame frame g, once however often it is called: its
// feedback, its item spots and the effects of its events; the sounds of
// its events are appended to cues (up to MaxCues), which it returns.
func (l *level) observe(g *cgame.CGame, cues []fx.Cue) []fx.Cue {
	if g == l.seen.cg && g.Stats.Frames == l.seen.frames {
		return cues
	}
	if g != l.seen.cg {
		l.seen = observed{cg: g}
	}
	l.seen.frames = g.Stats.Frames
	fb := &l.seen.feedback
	fb.Update(g)
	for _, c := range fb.Cues {
		if len(cues) < MaxCues {
			cues = append(cues, c)
		}
	}
	l.spots.Update(g)
	l.fx.addEvents(g)
	return cues
}

// step advances the particles to cgame frame g and returns the time
// step, in seconds: g's real time since the last frame drawn, or
// frameDt, the window's, when that is unknown.
func (l *level) step(g *cgame.CGame, frameDt float64) float32 {
	dt := float32(frameDt)
	if l.lastRT != 0 && g.RealTime > l.lastRT {
		dt = float32(g.RealTime-l.lastRT) / 1000
	}
	l.lastRT = g.RealTime
	l.fx.particles.Step(dt)
	return dt
}

// drawWorld paints cgame frame g's world on dst with view v: the
// background and tiles, the item spots, the entities, the local player
// at (lx, ly) in dst's pixels, the particles and the effects.
func (l *level) drawWorld(dst *ebiten.Image, v view.View, g *cgame.CGame, lx, ly float64, dt float32) {
	wp := l.world
	t := float64(g.RealTime) / 1000
	wp.begin(dst, v, t)
	l.drawItemSpots(dst, g)
	for _, ce := range g.Entities {
		wp.entity(dst, &ce.Current, ce.Lerp, t, dt)
	}
	wp.playerState(dst, &g.Predicted, float32(lx), float32(ly), g.DrawnOrigin.X, t)
	l.fx.drawParticles(dst, wp)
	l.fx.drawEffects(dst, wp, g.RealTime)
	wp.end(dst)
}
