package game

import "tremor/bg"

// Weapon behaviour that the table in bg does not hold.
const (
	// MachinegunSpread is the largest angle, in aim units (1/65536
	// turn), a bullet strays from the aim either way: about 1.4°, drawn
	// from the game's generator.
	MachinegunSpread = 256
	// GauntletReach pads the boxes the gauntlet's short ray meets, so
	// that melee forgives a little.
	GauntletReach = 8 * bg.UnitsPerPixel
	// RocketLife is how long a rocket flies before it explodes by itself.
	RocketLife = 15000
	// GrenadeFuse is how long a grenade lives before it explodes.
	GrenadeFuse = 2500
	// GrenadeStopSpeed: a grenade bouncing off a floor slower than this
	// (units/s) comes to rest.
	GrenadeStopSpeed = 40 * bg.UnitsPerPixel
)

// fireWeapon makes client n's shot with weapon (FireWeapon), fired at
// time t from muzzle (the player's origin when its movement step began)
// along its aim. Quad damage triples it; a shot ends spawn protection.
func (g *Arena) fireWeapon(n int, weapon int32, muzzle bg.Vec, t int32) {
	ps := &g.ps[n]
	ps.EFlags &^= bg.EFSpawnProtect
	if weapon <= bg.WPNone || weapon >= bg.NumWeapons {
		return
	}
	factor := int32(1)
	if ps.Powerups[bg.PWQuad] != 0 {
		factor = QuadFactor
	}
	g.log(LogEntry{Kind: LogShot, Client: n, Target: -1, Weapon: weapon})
	w := &bg.Weapons[weapon]
	aim := ps.Aim
	if w.Range > 0 { // a hitscan: traced against what the shooter saw
		g.startRewind(n, g.cmdTime)
		defer g.endRewind()
	}
	switch weapon {
	case bg.WPGauntlet:
		g.fireGauntlet(n, muzzle, aim, w.Damage*factor)
	case bg.WPMachinegun:
		spread := int32(g.rng.IntN(2*MachinegunSpread+1)) - MachinegunSpread
		g.fireBullet(n, muzzle, aim+spread, w.Damage*factor)
	case bg.WPRailgun:
		g.fireRail(n, muzzle, aim, w.Damage*factor)
	case bg.WPRocketLauncher:
		g.fireMissile(n, weapon, muzzle, aim, factor, t)
	case bg.WPGrenadeLauncher:
		g.fireMissile(n, weapon, muzzle, aim, factor, t)
	}
}

// fireGauntlet hits the nearest player whose box, padded by
// GauntletReach, the weapon's short ray meets before a wall.
func (g *Arena) fireGauntlet(n int, muzzle bg.Vec, aim, dmg int32) {
	dx, dy := Dir(aim, bg.Weapons[bg.WPGauntlet].Range)
	tr := g.trace(muzzle, muzzle.Add(bg.Vec{X: dx, Y: dy}), n, GauntletReach)
	if !g.validClient(tr.ent) {
		return
	}
	g.noteRewoundHit(n, tr.ent)
	if t := g.tempEntity(tr.end, bg.EvGauntletHit); t >= 0 {
		g.shared[t].S.OtherEntity = int32(n)
		g.shared[t].S.EventParm = int32(tr.ent)
	}
	g.damage(tr.ent, n, n, bg.Vec{X: dx, Y: dy}, tr.end, dmg, 0, bg.MODGauntlet)
}

// fireBullet is one machinegun bullet: a hitscan to the weapon's range.
// It leaves a temporary entity where it struck, EvBulletHitFlesh (parm:
// the player hit) or EvBulletHitWall (Aim: the wall's normal), with the
// shooter in OtherEntity. The muzzle is not sent: no client draws from
// it, and where a tracer is wanted the shooter's entity gives its start
// (as Quake III's cgame did); its two coordinates were 38 of a bullet
// event's 120 bits.
func (g *Arena) fireBullet(n int, muzzle bg.Vec, aim, dmg int32) {
	dx, dy := Dir(aim, bg.Weapons[bg.WPMachinegun].Range)
	tr := g.trace(muzzle, muzzle.Add(bg.Vec{X: dx, Y: dy}), n, 0)
	if !tr.hit {
		return
	}
	if g.validClient(tr.ent) {
		g.noteRewoundHit(n, tr.ent)
		if t := g.tempEntity(tr.end, bg.EvBulletHitFlesh); t >= 0 {
			s := &g.shared[t].S
			s.EventParm = int32(tr.ent)
			s.OtherEntity = int32(n)
		}
		g.damage(tr.ent, n, n, bg.Vec{X: dx, Y: dy}, tr.end, dmg, 0, bg.MODMachinegun)
		return
	}
	if t := g.tempEntity(tr.end, bg.EvBulletHitWall); t >= 0 {
		s := &g.shared[t].S
		s.Aim = bg.EntityAim(Angle(int64(tr.normal.X), int64(tr.normal.Y)))
		s.OtherEntity = int32(n)
	}
}

// fireRail is a railgun slug: a hitscan that passes through every player
// in its way to the first wall (or its range), hurting each. The trail
// is a broadcast temporary entity from the muzzle (Pos.Base) to where the
// slug stopped (Origin2).
func (g *Arena) fireRail(n int, muzzle bg.Vec, aim, dmg int32) {
	dx, dy := Dir(aim, bg.Weapons[bg.WPRailgun].Range)
	tr, hits := g.traceThrough(muzzle, muzzle.Add(bg.Vec{X: dx, Y: dy}), n, g.railHits[:0])
	if t := g.tempEntity(muzzle, bg.EvRailTrail); t >= 0 {
		sh := &g.shared[t]
		sh.S.Origin2 = tr.end
		sh.S.OtherEntity = int32(n)
		sh.S.ClientNum = int32(n)
		sh.SvFlags |= SvfBroadcast
	}
	d := bg.Vec{X: dx, Y: dy}
	for _, h := range hits {
		g.noteRewoundHit(n, h.client)
		p := bg.Vec{X: muzzle.X + int32(int64(dx)*h.frac/FracOne), Y: muzzle.Y + int32(int64(dy)*h.frac/FracOne)}
		g.damage(h.client, n, n, d, p, dmg, 0, bg.MODRailgun)
	}
}

// fireMissile launches a rocket (TrLinear) or a grenade (TrGravity,
// EFBounceHalf) from the muzzle at the weapon's speed, its trajectory
// starting at time t (no later than the level time: a human's command
// may run ahead of it).
func (g *Arena) fireMissile(n int, weapon int32, muzzle bg.Vec, aim, factor, t int32) {
	i := g.spawn()
	if i < 0 {
		return
	}
	w := &bg.Weapons[weapon]
	e, sh := &g.ents[i], &g.shared[i]
	e.kind = kindMissile
	e.owner = n
	e.damage = w.Damage * factor
	e.splash = w.Splash * factor
	e.radius = w.Radius
	e.origin = muzzle
	vx, vy := Dir(aim, w.Speed)
	t = min(t, g.lv.time)
	sh.S.EType = bg.ETMissile
	sh.S.Weapon = weapon
	sh.S.OtherEntity = int32(n)
	sh.S.Aim = bg.EntityAim(aim)
	sh.S.Pos = bg.Trajectory{Type: bg.TrLinear, Time: t, Base: muzzle, Delta: bg.Vec{X: vx, Y: vy}}
	sh.Linked = true
	if weapon == bg.WPGrenadeLauncher {
		e.classname = "grenade"
		e.mod, e.splashMod = bg.MODGrenade, bg.MODGrenadeSplash
		e.think, e.nextThink = thinkExplode, g.lv.time+GrenadeFuse
		sh.S.Pos.Type = bg.TrGravity
		sh.S.EFlags |= bg.EFBounceHalf
	} else {
		e.classname = "rocket"
		e.mod, e.splashMod = bg.MODRocket, bg.MODRocketSplash
		e.think, e.nextThink = thinkExplode, g.lv.time+RocketLife
	}
}
