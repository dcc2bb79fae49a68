package draw

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/cgame/fx"
)

// This file turns events into effects (rail trails, explosion flashes,
// rings) and particles (sparks, embers, smoke, blood, debris), and draws
// both.

// MaxEffects is how many rail trails, explosions and sparks are shown at
// once; a new one replaces the oldest.
const MaxEffects = 64

type effectKind uint8

const (
	effectNone effectKind = iota
	effectRail
	effectExplosion
	effectSpark
	effectBlood
	effectPickup
	effectRing // a coloured ring that widens: teleports, respawns
)

// effect is one short-lived picture started by an event.
type effect struct {
	kind   effectKind
	start  int32 // cgame real time, ms
	x, y   float64
	x2, y2 float64 // rail end
	life   int32   // ms
	col    color.RGBA
}

// effects are the effects and particles the events of the cgame on one
// map started: part of its level, so a new map starts with none.
type effects struct {
	ring      [MaxEffects]effect
	next      int
	particles fx.Particles
	rnd       *fx.Rand     // the window's
	m         *tilemap.Map // the ground particles rest on
}

// addEvents starts the effects of this frame's events.
func (r *effects) addEvents(g *cgame.CGame) {
	now := g.RealTime
	for i := range g.Events {
		e := &g.Events[i]
		x, y := e.Origin.Px()
		switch e.Event {
		case bg.EvRailTrail:
			bx, by := cgame.PointOf(e.State.Pos.Base).Px()
			ex, ey := cgame.PointOf(e.State.Origin2).Px()
			r.add(effect{kind: effectRail, start: now, x: bx, y: by, x2: ex, y2: ey, life: 900})
			r.railParticles(bx, by, ex, ey)
		case bg.EvExplosion, bg.EvMissileHit, bg.EvMissileMiss:
			r.add(effect{kind: effectExplosion, start: now, x: x, y: y, life: 500})
			r.explosion(float32(x), float32(y))
		case bg.EvBulletHitWall:
			r.add(effect{kind: effectSpark, start: now, x: x, y: y, life: 90})
			r.burst(float32(x), float32(y), 5, fx.ParticleSpark, 80, 260, 0.12, 0.3, 2, 600)
			r.burst(float32(x), float32(y), 1, fx.ParticleSmoke, 5, 25, 0.3, 0.5, 3, -30)
		case bg.EvBulletHitFlesh, bg.EvGauntletHit:
			r.burst(float32(x), float32(y), 6, fx.ParticleBlood, 40, 180, 0.3, 0.6, 2, 900)
		case bg.EvDeath:
			r.burst(float32(x), float32(y), 16, fx.ParticleBlood, 60, 320, 0.5, 1.0, 3, 900)
			r.burst(float32(x), float32(y), 6, fx.ParticleDebris, 80, 260, 0.6, 1.1, 2, 900)
		case bg.EvItemPickup:
			r.add(effect{kind: effectPickup, start: now, x: x, y: y, life: 350})
		case bg.EvItemRespawn:
			r.add(effect{kind: effectRing, start: now, x: x, y: y, life: 500, col: colHealth})
			r.burst(float32(x), float32(y), 8, fx.ParticleFlash, 20, 90, 0.3, 0.5, 2, -60)
		case bg.EvTeleportIn, bg.EvTeleportOut:
			r.add(effect{kind: effectRing, start: now, x: x, y: y, life: 450, col: colTeleporter})
			r.burst(float32(x), float32(y), 12, fx.ParticleRail, 30, 160, 0.3, 0.6, 2, -80)
		case bg.EvJumpPad:
			r.burst(float32(x), float32(y)+20, 6, fx.ParticleSmoke, 20, 80, 0.3, 0.5, 3, -40)
		case bg.EvGrenadeBounce:
			r.burst(float32(x), float32(y), 2, fx.ParticleSpark, 40, 120, 0.1, 0.2, 1, 400)
		case bg.EvLavaBurn:
			r.burst(float32(x), float32(y)+20, 4, fx.ParticleEmber, 30, 120, 0.3, 0.6, 2, -200)
		}
	}
}

func (r *effects) add(e effect) {
	r.ring[r.next] = e
	r.next = (r.next + 1) % MaxEffects
}

// burst adds n particles of kind at (x, y), flying in every direction
// at a speed in [v0, v1) px/s for a life in [l0, l1) s.
func (r *effects) burst(x, y float32, n int, kind fx.ParticleKind, v0, v1, l0, l1, size, gravity float32) {
	for i := 0; i < n; i++ {
		s, c := math.Sincos(float64(r.rnd.Float() * 2 * math.Pi))
		v := r.rnd.Range(v0, v1)
		p := fx.Particle{X: x, Y: y, VX: float32(c) * v, VY: float32(s) * v, Size: size * r.rnd.Range(0.7, 1.3),
			Gravity: gravity, Drag: 1, Life: r.rnd.Range(l0, l1), Kind: kind}
		if kind == fx.ParticleSmoke {
			p.Grow = 12
			p.Drag = 2
		}
		r.particles.Add(p)
	}
}

// explosion adds the particles of a rocket or grenade going off.
func (r *effects) explosion(x, y float32) {
	r.burst(x, y, 18, fx.ParticleSpark, 150, 520, 0.2, 0.5, 2, 500)
	r.burst(x, y, 12, fx.ParticleEmber, 60, 260, 0.4, 0.9, 3, 250)
	r.burst(x, y, 10, fx.ParticleSmoke, 20, 110, 0.7, 1.3, 7, -40)
	r.burst(x, y, 6, fx.ParticleDebris, 120, 380, 0.6, 1.1, 2, 900)
}

// railParticles adds the glow that lingers along a rail trail.
func (r *effects) railParticles(x0, y0, x1, y1 float64) {
	l := math.Hypot(x1-x0, y1-y0)
	n := min(60, int(l/24))
	for i := 0; i < n; i++ {
		f := r.rnd.Float()
		r.particles.Add(fx.Particle{
			X: float32(x0 + (x1-x0)*float64(f)), Y: float32(y0 + (y1-y0)*float64(f)),
			VX: r.rnd.Range(-12, 12), VY: r.rnd.Range(-25, 5), Size: r.rnd.Range(1.5, 3),
			Drag: 0.8, Life: r.rnd.Range(0.5, 1.0), Kind: fx.ParticleRail,
		})
	}
}

// drawEffects adds the live effects at real time now to wp's batches.
func (r *effects) drawEffects(screen *ebiten.Image, wp *worldPainter, now int32) {
	v := wp.view
	sc := float32(v.Scale)
	b, gl := &wp.world, &wp.glow
	for i := range r.ring {
		e := &r.ring[i]
		if e.kind == effectNone {
			continue
		}
		age := now - e.start
		if age < 0 || age >= e.life {
			e.kind = effectNone
			continue
		}
		b.room(screen, 400)
		gl.room(screen, 400)
		k := float32(age) / float32(e.life) // 0 → 1
		sx, sy := v.ToScreen(e.x, e.y)
		x, y := float32(sx), float32(sy)
		switch e.kind {
		case effectRail:
			ex, ey := v.ToScreen(e.x2, e.y2)
			x1, y1 := float32(ex), float32(ey)
			a := 1 - k
			gl.line(x, y, x1, y1, (10-6*k)*sc, rgbaOf(colRail, 0.35*a))
			b.line(x, y, x1, y1, 2*sc, rgbaOf(colWhite, a*a))
			// The spiral seen from the side: a sine around the core.
			dx, dy := x1-x, y1-y
			l := float32(math.Hypot(float64(dx), float64(dy)))
			if l > 1 {
				ux, uy := dx/l, dy/l
				step := 7 * sc
				amp := (4 + 6*k) * sc
				n := min(int(l/step), 600)
				for j := 0; j < n; j++ {
					d := float32(j) * step
					off := amp * float32(math.Sin(float64(d/(14*sc))+float64(k)*6))
					px, py := x+ux*d-uy*off, y+uy*d+ux*off
					b.rect(px-1*sc, py-1*sc, 2*sc, 2*sc, rgbaOf(colRail, a*0.9))
					if j%64 == 63 {
						b.room(screen, 300)
					}
				}
			}
		case effectExplosion:
			gl.radial(x, y, (20+60*k)*sc, rgbaOf(colSpark, 1-k), rgbaOf(colExplosion, 0))
			gl.radial(x, y, (10+30*k)*sc, rgbaOf(colWhite, (1-k)*(1-k)), rgbaOf(colSpark, 0))
			b.ring(x, y, (14+80*k)*sc, (6-5*k)*sc, rgbaOf(colSpark, 0.6*(1-k)))
		case effectSpark:
			gl.radial(x, y, 8*sc, rgbaOf(colSpark, 1-k), rgbaOf(colSpark, 0))
		case effectBlood:
			b.circle(x, y, (4+10*k)*sc, rgbaOf(colBlood, 1-k))
		case effectPickup:
			b.ring(x, y, (10+24*k)*sc, 2*sc, rgbaOf(colWhite, 1-k))
			gl.radial(x, y, 24*sc, rgbaOf(colWhite, 0.4*(1-k)), rgbaOf(colWhite, 0))
		case effectRing:
			b.ring(x, y, (8+40*k)*sc, (5-4*k)*sc, rgbaOf(e.col, 1-k))
			gl.radial(x, y, 40*sc, rgbaOf(e.col, 0.5*(1-k)), rgbaOf(e.col, 0))
		}
	}
}

var (
	colSmoke  = color.RGBA{0x8a, 0x8c, 0x94, 0xff}
	colEmberC = color.RGBA{0xd0, 0x30, 0x10, 0xff}
	colDebris = color.RGBA{0x50, 0x58, 0x68, 0xff}
)

// drawParticles adds the live particles to wp's batches.
func (r *effects) drawParticles(screen *ebiten.Image, wp *worldPainter) {
	v := wp.view
	sc := float32(v.Scale)
	b, gl := &wp.world, &wp.glow
	w, h := float32(v.W), float32(v.H)
	live := r.particles.Live()
	for i := range live {
		p := &live[i]
		if p.Kind == fx.ParticleBlood || p.Kind == fx.ParticleDebris || p.Kind == fx.ParticleSpark {
			r.collide(p)
		}
		if i%128 == 0 {
			b.room(screen, 128*40)
			gl.room(screen, 128*40)
		}
		sx, sy := v.ToScreen(float64(p.X), float64(p.Y))
		x, y := float32(sx), float32(sy)
		if x < -50 || y < -50 || x > w+50 || y > h+50 {
			continue
		}
		k := p.Age / p.Life
		s := p.Size * sc
		switch p.Kind {
		case fx.ParticleSmoke:
			a := 0.4 * (1 - k)
			b.radial(x, y, s, rgbaOf(colSmoke, a), rgbaOf(colSmoke, a*0.3))
		case fx.ParticleSpark:
			gl.line2(x, y, x-p.VX*0.03*sc, y-p.VY*0.03*sc, max(1, s*0.8), rgbaOf(colSpark, 1-k), rgbaOf(colExplosion, 0))
		case fx.ParticleEmber:
			c := mix(colSpark, colEmberC, k)
			gl.radial(x, y, s*2, rgbaOf(c, 1-k), rgbaOf(c, 0))
		case fx.ParticleBlood:
			b.rect(x-s/2, y-s/2, s, s, rgbaOf(colBlood, 1-k*k))
		case fx.ParticleDebris:
			b.rect(x-s/2, y-s/2, s+1, s, rgbaOf(colDebris, 1-k*k))
		case fx.ParticleRail:
			gl.radial(x, y, s*2, rgbaOf(colRail, 0.8*(1-k)), rgbaOf(colRail, 0))
		case fx.ParticleFlash:
			gl.radial(x, y, s*3, rgbaOf(colWhite, 0.7*(1-k)), rgbaOf(colWhite, 0))
		}
	}
}

// collide stops a falling particle that entered solid ground: blood and
// debris rest on the surface, sparks die.
func (r *effects) collide(p *fx.Particle) {
	tx, ty := int(math.Floor(float64(p.X)/tilemap.TileSize)), int(math.Floor(float64(p.Y)/tilemap.TileSize))
	if t := r.m.At(tx, ty); t != tilemap.Solid && (t != tilemap.Platform || p.VY <= 0 || int(p.Y)%tilemap.TileSize > 8) {
		return
	}
	if p.Kind == fx.ParticleSpark {
		p.Age = p.Life
		return
	}
	p.Y -= p.VY / 60
	p.VX, p.VY, p.Gravity = 0, 0, 0
}
