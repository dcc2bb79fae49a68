package game

import "tremor/bg"

// runMissile moves missile i to the level time (G_RunMissile): it traces
// from where the missile was to where its trajectory now puts it, against
// tiles and every live player but its owner, and acts on what it meets.
func (g *Arena) runMissile(i int) {
	e, sh := &g.ents[i], &g.shared[i]
	if sh.S.Pos.Type == bg.TrStationary {
		// A grenade at rest goes off when a player walks into it.
		for c := 0; c < bg.MaxClients; c++ {
			if c == e.owner || !g.solidPlayer(c) {
				continue
			}
			mins, maxs := g.playerBox(c, 0)
			if _, ok := segmentBox(e.origin, bg.Vec{}, mins, maxs); ok {
				g.missileImpact(i, trace{hit: true, end: e.origin, ent: c}, g.lv.time)
				return
			}
		}
		return
	}
	pos := sh.S.Pos.Evaluate(g.lv.time)
	tr := g.trace(e.origin, pos, e.owner, 0)
	if tr.hit {
		start := max(g.lv.prevTime, sh.S.Pos.Time)
		hitTime := start + int32(int64(g.lv.time-start)*tr.frac/FracOne)
		g.missileImpact(i, tr, hitTime)
		return
	}
	e.origin = pos
}

// missileImpact handles missile i meeting what tr says at hitTime
// (G_MissileImpact): a grenade bounces off tiles; otherwise the missile
// hurts the player it hit directly, explodes with splash, and becomes an
// EvMissileHit (parm: the player) or EvMissileMiss (Aim: the wall's
// normal) event at the point of impact.
func (g *Arena) missileImpact(i int, tr trace, hitTime int32) {
	e, sh := &g.ents[i], &g.shared[i]
	if tr.ent == bg.EntityNumWorld && sh.S.EFlags&bg.EFBounceHalf != 0 && (tr.normal.X != 0 || tr.normal.Y != 0) {
		g.bounceMissile(i, tr, hitTime)
		return
	}
	point := tr.end.Add(tr.normal) // one unit off a wall, so traces from it start outside
	other := bg.EntityNumNone
	if g.validClient(tr.ent) {
		other = tr.ent
		dir := sh.S.Pos.EvaluateDelta(hitTime)
		g.damage(other, i, e.owner, dir, point, e.damage, 0, e.mod)
		g.addEvent(i, bg.EvMissileHit, int32(other))
	} else {
		sh.S.Aim = bg.EntityAim(Angle(int64(tr.normal.X), int64(tr.normal.Y)))
		g.addEvent(i, bg.EvMissileMiss, 0)
	}
	g.becomeExplosion(i, point)
	g.radiusDamage(point, i, e.owner, e.splash, e.radius, other, e.splashMod)
}

// bounceMissile reflects a grenade off the tile face it hit, losing half
// its speed; off a floor, slow enough, it comes to rest.
func (g *Arena) bounceMissile(i int, tr trace, hitTime int32) {
	e, sh := &g.ents[i], &g.shared[i]
	v := sh.S.Pos.EvaluateDelta(hitTime)
	if tr.normal.X != 0 {
		v.X = -v.X
	}
	if tr.normal.Y != 0 {
		v.Y = -v.Y
	}
	v.X /= 2
	v.Y /= 2
	base := tr.end.Add(tr.normal)
	speed := isqrt(int64(v.X)*int64(v.X) + int64(v.Y)*int64(v.Y))
	if tr.normal.Y < 0 && speed < GrenadeStopSpeed {
		sh.S.Pos = bg.Trajectory{Type: bg.TrStationary, Time: hitTime, Base: base}
	} else {
		sh.S.Pos = bg.Trajectory{Type: bg.TrGravity, Time: hitTime, Base: base, Delta: v}
	}
	e.origin = base
	g.addEvent(i, bg.EvGrenadeBounce, 0)
}

// explodeMissile sets off missile i where it is (G_ExplodeMissile): a
// grenade's fuse or a rocket's life ran out. The event is EvExplosion.
func (g *Arena) explodeMissile(i int) {
	e := &g.ents[i]
	if e.kind != kindMissile {
		return
	}
	point := g.shared[i].S.Pos.Evaluate(g.lv.time)
	if traceTiles(g.m, e.origin, point).hit {
		point = e.origin
	}
	g.addEvent(i, bg.EvExplosion, 0)
	g.becomeExplosion(i, point)
	g.radiusDamage(point, i, e.owner, e.splash, e.radius, bg.EntityNumNone, e.splashMod)
}

// becomeExplosion turns missile i into a still event entity at point,
// freed EventValidMsec after its event, as Quake III changed a missile
// into an ET_GENERAL at the point of impact. Weapon stays so that clients
// draw the right explosion.
func (g *Arena) becomeExplosion(i int, point bg.Vec) {
	e, sh := &g.ents[i], &g.shared[i]
	e.kind = kindTemp
	e.freeAfterEvent = true
	e.nextThink = 0
	e.origin = point
	sh.S.EType = bg.ETGeneral
	sh.S.Pos = bg.Trajectory{Type: bg.TrStationary, Time: g.lv.time, Base: point}
}
