package game

import "tremor/bg"

// Damage flags (Quake III's DAMAGE_*).
const (
	damageRadius       = 1 << iota // splash damage
	damageNoArmor                  // armor does not absorb it
	damageNoKnockback              // it does not push
	damageNoProtection             // it kills through spawn protection (telefrag)
)

// SplashUpBias is added upwards to the direction of splash knockback
// (Quake III added 24 units of height), so that an explosion beside a
// player lifts as well as pushes, and rocket jumps work off walls.
const SplashUpBias = 24 * bg.UnitsPerPixel

// TelefragDamage is more health than anyone has.
const TelefragDamage = 100000

// validClient reports whether n is a client in the game (an attacker
// that can be credited).
func (g *Arena) validClient(n int) bool {
	return uint(n) < bg.MaxClients && g.clients[n].state == clientInGame
}

// damage hurts client targ (G_Damage). inflictor is the entity that
// hurt (a missile, or the attacker itself), attacker who gets the
// credit (a client, or bg.EntityNumWorld); dir is the direction of the
// push (any length; zero for none), point where it hit.
//
// In order: knockback changes the velocity by dir scaled to
// min(dmg, MaxKnockback)·g_knockback/KnockbackMass px/s and sets
// PMFTimeKnockback for 2 ms per point (50 to 200 ms), even when the hit
// does no damage; teammates (without g_friendlyFire) and spawn-protected
// players then take nothing; damage to oneself is halved (after the
// knockback: rocket jumps keep their full push); armor absorbs 2/3,
// rounded up, as far as it lasts; the rest comes off health. Every hit
// that pushes or hurts bumps the victim's DamageEvent, so that a client
// can tell a server-made change of its movement from a misprediction.
func (g *Arena) damage(targ, inflictor, attacker int, dir, point bg.Vec, dmg int32, flags int, mod int32) {
	if !g.validClient(targ) || g.lv.intermission {
		return
	}
	ps := &g.ps[targ]
	if ps.PmType != bg.PMNormal || dmg <= 0 {
		return
	}
	knock := min(dmg, MaxKnockback)
	pushed := false
	if flags&damageNoKnockback == 0 && (dir.X != 0 || dir.Y != 0) {
		k := int64(knock) * int64(g.cfg.Knockback) * bg.UnitsPerPixel / KnockbackMass
		kx, ky := scaleTo(int64(dir.X), int64(dir.Y), k)
		mv := bg.DefaultParams.MaxVelocity
		ps.Velocity.X = min(max(ps.Velocity.X+kx, -mv), mv)
		ps.Velocity.Y = min(max(ps.Velocity.Y+ky, -mv), mv)
		if ps.PmTime == 0 && k > 0 {
			ps.PmTime = min(max(knock*2, 50), 200)
			ps.PmFlags |= bg.PMFTimeKnockback
		}
		ps.GroundEntity = bg.EntityNumNone
		pushed = k > 0
	}
	attackerIsClient := g.validClient(attacker)
	if attackerIsClient && attacker != targ && g.gametype == bg.GTTeam && !g.cfg.FriendlyFire &&
		g.clients[attacker].team == g.clients[targ].team {
		if pushed {
			markHit(ps, 0, dir)
		}
		return
	}
	if ps.EFlags&bg.EFSpawnProtect != 0 && flags&damageNoProtection == 0 {
		if pushed {
			markHit(ps, 0, dir)
		}
		return
	}
	if targ == attacker {
		dmg = max(dmg/2, 1)
	}
	var save int32
	if flags&damageNoArmor == 0 {
		save = min((dmg*2+2)/3, ps.Stats[bg.StatArmor])
		ps.Stats[bg.StatArmor] -= save
	}
	take := dmg - save

	if attackerIsClient && attacker != targ {
		hits := &g.ps[attacker].Persistant[bg.PersHits]
		*hits = (*hits + 1) & 0x7fff
	}
	markHit(ps, take+save, dir)
	g.log(LogEntry{Kind: LogHit, Client: logClient(attacker), Target: targ, MOD: mod, Amount: take})

	ps.Stats[bg.StatHealth] = max(ps.Stats[bg.StatHealth]-take, -999)
	if ps.Stats[bg.StatHealth] <= 0 {
		g.die(targ, inflictor, attacker, mod)
		return
	}
	if cl := &g.clients[targ]; g.lv.time >= cl.painTime {
		cl.painTime = g.lv.time + PainDebounce
		g.addEvent(targ, bg.EvPain, ps.Stats[bg.StatHealth])
	}
}

// radiusDamage hurts every live player within radius of point that the
// explosion of inflictor can see (G_RadiusDamage), except ignore (the player a
// missile hit directly). Damage falls off linearly from splash at the
// player's box to nothing at radius, measured from point to the nearest
// point of the box; the push goes from point to the box's centre, biased
// upwards by SplashUpBias.
func (g *Arena) radiusDamage(point bg.Vec, inflictor, attacker int, splash, radius int32, ignore int, mod int32) {
	if splash <= 0 || radius <= 0 {
		return
	}
	for c := 0; c < bg.MaxClients; c++ {
		if c == ignore || !g.solidPlayer(c) {
			continue
		}
		mins, maxs := g.playerBox(c, 0)
		nearest := bg.Vec{X: min(max(point.X, mins.X), maxs.X), Y: min(max(point.Y, mins.Y), maxs.Y)}
		d := nearest.Sub(point)
		dist := isqrt(int64(d.X)*int64(d.X) + int64(d.Y)*int64(d.Y))
		if dist >= int64(radius) {
			continue
		}
		pts := int32(int64(splash) * (int64(radius) - dist) / int64(radius))
		if pts <= 0 || !g.canDamage(point, c) {
			continue
		}
		o := g.ps[c].Origin
		dir := bg.Vec{X: o.X - point.X, Y: o.Y - point.Y - SplashUpBias}
		g.damage(c, inflictor, attacker, dir, point, pts, damageRadius, mod)
	}
}

// canDamage reports whether an explosion at point reaches client c: a
// tile trace reaches the box's centre or one of its corners (CanDamage).
func (g *Arena) canDamage(point bg.Vec, c int) bool {
	o := g.ps[c].Origin
	if !traceTiles(g.m, point, o).hit {
		return true
	}
	mins, maxs := g.playerBox(c, -1)
	for _, p := range [4]bg.Vec{mins, maxs, {X: mins.X, Y: maxs.Y}, {X: maxs.X, Y: mins.Y}} {
		if !traceTiles(g.m, point, p).hit {
			return true
		}
	}
	return false
}

// die kills client targ (player_die): it scores the frag, sends the
// obituary and the death event, and starts the respawn timers.
func (g *Arena) die(targ, inflictor, attacker int, mod int32) {
	ps, cl := &g.ps[targ], &g.clients[targ]
	if ps.PmType != bg.PMNormal {
		return
	}
	ps.PmType = bg.PMDead
	ps.Powerups = [bg.NumPowerups]int32{}
	ps.EFlags &^= bg.EFFiring | bg.EFSpawnProtect
	cl.deathTime = g.lv.time
	cl.respawnTime = g.lv.time + RespawnDelay

	killer := int32(-1)
	if g.validClient(attacker) {
		killer = int32(attacker)
	}
	ps.Persistant[bg.PersKiller] = killer
	ps.Persistant[bg.PersDeaths]++

	if t := g.tempEntity(ps.Origin, bg.EvObituary); t >= 0 {
		s := &g.shared[t]
		s.S.EventParm = mod
		s.S.ClientNum = int32(targ)
		s.S.OtherEntity = bg.EntityNumWorld
		if killer >= 0 {
			s.S.OtherEntity = killer
		}
		s.SvFlags |= SvfBroadcast
	}

	switch {
	case killer < 0 || int(killer) == targ:
		g.addScore(targ, -1)
	case g.gametype == bg.GTTeam && g.clients[killer].team == cl.team:
		g.addScore(int(killer), -1)
	default:
		g.addScore(int(killer), 1)
	}
	g.addEvent(targ, bg.EvDeath, mod)
	g.log(LogEntry{Kind: LogKill, Client: int(killer), Target: targ, MOD: mod})
}

// addScore changes a player's frags, and their team's score in team
// deathmatch (AddScore).
func (g *Arena) addScore(n int, delta int32) {
	if g.lv.intermission {
		return
	}
	g.ps[n].Persistant[bg.PersScore] += delta
	if g.gametype == bg.GTTeam {
		if t := g.clients[n].team; t == bg.TeamRed || t == bg.TeamBlue {
			g.lv.teamScores[t] += int(delta)
		}
	}
}

// killBox telefrags every other live player whose box overlaps client
// n's (G_KillBox): at a spawn point every spawn was occupied, or at a
// teleporter's destination.
func (g *Arena) killBox(n int) {
	o := g.ps[n].Origin
	w := bg.DefaultParams.Maxs.X - bg.DefaultParams.Mins.X
	h := bg.DefaultParams.Maxs.Y - bg.DefaultParams.Mins.Y
	for c := 0; c < bg.MaxClients; c++ {
		if c == n || !g.solidPlayer(c) {
			continue
		}
		d := g.ps[c].Origin.Sub(o)
		if abs32(d.X) < w && abs32(d.Y) < h {
			g.damage(c, n, n, bg.Vec{}, o, TelefragDamage,
				damageNoArmor|damageNoKnockback|damageNoProtection, bg.MODTelefrag)
		}
	}
}

// logClient maps an attacker to a LogEntry client: -1 for the world.
func logClient(n int) int {
	if uint(n) >= bg.MaxClients {
		return -1
	}
	return n
}

// markHit records a hit taken in the player state: DamageEvent counts
// it, DamageCount says how much it took (0 for a push that did no
// damage) and DamageDir where it came from.
func markHit(ps *bg.PlayerState, amount int32, dir bg.Vec) {
	ps.DamageEvent = (ps.DamageEvent + 1) & 0xff
	ps.DamageCount = min(amount, 255)
	if dir.X != 0 || dir.Y != 0 {
		ps.DamageDir = Angle(-int64(dir.X), -int64(dir.Y))
	} else {
		ps.DamageDir = 16384 // from below: lava, the world
	}
}
