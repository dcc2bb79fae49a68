package bot

import (
	"math"

	"tremor/bg"
)

// Combat (Quake III's BotAimAtEnemy, BotCheckAttack, BotChooseWeapon,
// BotAttackMove, much simplified). Skill shortens the reaction time,
// shrinks the aim error, lengthens the bursts of fire, speeds up turning
// and leads projectiles better.

// skillLevel is what one skill level changes in a fight: Quake III's bot
// characteristics (reaction time, aim accuracy, fire throttle) as plain
// numbers. docs/bots.md tabulates them.
type skillLevel struct {
	// reaction is the least delay, in ms, between seeing a new enemy
	// and the first shot; up to reactionJitter ms are added.
	reaction int32
	// aimErr is the standard deviation of the aim error, in 1/65536
	// turn, drawn anew every 0.35–0.8 s.
	aimErr int32
	// burst and rest throttle the trigger: in a fight the bot fires for
	// burst ms, then holds its fire for rest ms. rest 0 fires at will.
	burst, rest int32
}

// reactionJitter is the most random delay added to a reaction.
const reactionJitter = 100

// skills holds the levels 1 (easy) to 5 (hard); index 0 is unused. Skill
// 1 is meant for a first match and for lessons: it reacts in over a
// second, sprays (an aim error of 22°) and rests three times as long as
// it fires, so an idle target lasts several times longer than against
// skill 5 (TestSkillTimeToKill).
var skills = [6]skillLevel{
	1: {reaction: 1200, aimErr: 22 * degree, burst: 400, rest: 1200},
	2: {reaction: 750, aimErr: 12 * degree, burst: 700, rest: 600},
	3: {reaction: 450, aimErr: 7 * degree, burst: 1000, rest: 400},
	4: {reaction: 250, aimErr: 4 * degree, burst: 1500, rest: 250},
	5: {reaction: 100, aimErr: 2 * degree},
}

// Angles are in 1/65536 turns (bg.UserCmd.Aim).
const (
	turn      = 65536
	halfTurn  = turn / 2
	degree    = turn / 360
	radToTurn = turn / (2 * math.Pi)
)

// angleOf returns the aim angle of direction (dx, dy), screen y down.
func angleOf(dx, dy float64) int32 {
	return int32(math.Round(math.Atan2(dy, dx)*radToTurn)) & (turn - 1)
}

// angleDiff returns a-b in (-halfTurn, halfTurn].
func angleDiff(a, b int32) int32 {
	d := (a - b) & (turn - 1)
	if d > halfTurn {
		d -= turn
	}
	return d
}

// turnToward turns angle a towards b by at most step.
func turnToward(a, b, step int32) int32 {
	d := angleDiff(b, a)
	d = max(-step, min(d, step))
	return (a + d) & (turn - 1)
}

// weaponScore rates weapon w at distance d (units) from the target.
func weaponScore(w int32, d int32) int32 {
	t := d / bg.TileUnits
	switch w {
	case bg.WPGauntlet:
		if d < bg.Weapons[bg.WPGauntlet].Range+bg.Px(24) {
			return 100
		}
		return 1
	case bg.WPMachinegun:
		if t > 25 {
			return 30
		}
		return 45
	case bg.WPGrenadeLauncher:
		// A grenade's arc reaches v²/g, about 8 tiles.
		switch {
		case t < 3:
			return 5
		case t <= 7:
			return 55
		}
		return 10
	case bg.WPRocketLauncher:
		switch {
		case t < 3:
			return 10
		case t <= 14:
			return 80
		}
		return 35
	case bg.WPRailgun:
		switch {
		case t >= 10:
			return 90
		case t >= 3:
			return 65
		}
		return 40
	}
	return 0
}

// preferredRange is the distance, in tiles, a bot likes to fight at with w.
func preferredRange(w int32) int32 {
	switch w {
	case bg.WPGauntlet:
		return 0
	case bg.WPRailgun:
		return 14
	case bg.WPRocketLauncher:
		return 8
	case bg.WPGrenadeLauncher:
		return 5
	}
	return 6
}

// pickWeapon chooses the weapon for a fight at distance d: the best
// scoring one it holds with ammo, changed at most once a second unless the
// current one is empty.
func (b *Bot) pickWeapon(ps *bg.PlayerState, d int32) int32 {
	cur := b.weapon
	if !hasWeapon(ps, cur) || ps.Ammo[cur] == 0 {
		cur = ps.Weapon
		b.weaponAt = 0
	}
	if b.now < b.weaponAt && hasWeapon(ps, cur) && ps.Ammo[cur] != 0 {
		return cur
	}
	best, bestS := cur, int32(-1)
	for w := int32(bg.WPGauntlet); w < bg.NumWeapons; w++ {
		if !hasWeapon(ps, w) || ps.Ammo[w] == 0 {
			continue
		}
		s := weaponScore(w, d)
		if w == cur {
			s += 5
		}
		if s > bestS {
			best, bestS = w, s
		}
	}
	if best != b.weapon {
		b.weaponAt = b.now + 1000
	}
	b.weapon = best
	return best
}

// Strafing limits: a bot that has strafed within a tile this long stops
// strafing for strafePause and follows its path instead.
const (
	strafeConfined = 1500
	strafePause    = 2000
)

// combatMove dodges while fighting a visible enemy the bot is hunting:
// strafing from side to side along its floor, jumping now and then,
// closing in or backing off to its weapon's range. It reports whether it
// set the movement.
func (b *Bot) combatMove(ps *bg.PlayerState, cur int32, cmd *bg.UserCmd) bool {
	if !b.enemyVisible || b.goalKind == goalItem || cur < 0 || b.now < b.noStrafeUntil {
		return false
	}
	if b.now-b.anchorAt > strafeConfined {
		// Strafing in too small a place: go somewhere else for a while.
		b.noStrafeUntil = b.now + strafePause
		b.planAt = b.now
		return false
	}
	d := int32(math.Sqrt(float64(dist2(ps.Origin, b.enemyPos))))
	want := int32(0) // only the gauntlet: close in
	for w := int32(bg.WPMachinegun); w < bg.NumWeapons; w++ {
		if hasWeapon(ps, w) && ps.Ammo[w] != 0 {
			want = max(want, preferredRange(w)*bg.TileUnits)
		}
	}
	if d > want+4*bg.TileUnits {
		return false // close in along the path
	}
	if b.now >= b.strafeAt {
		b.strafe = 1
		if b.rng.IntN(2) == 0 {
			b.strafe = -1
		}
		b.strafeAt = b.now + 300 + b.rng.Int32N(600)
	}
	dir := b.strafe
	if d < want-2*bg.TileUnits && b.rng.IntN(4) != 0 {
		dir = -sign(b.enemyPos.X - ps.Origin.X) // back off
	}
	if dir == 0 {
		dir = 1
	}
	if !b.canStep(ps, dir) {
		dir = -dir
		b.strafe = dir
		if !b.canStep(ps, dir) {
			return false
		}
	}
	cmd.RightMove = dir * 127
	if b.prevUp <= 0 && b.rng.IntN(100) < 1+b.Skill {
		cmd.UpMove = 127
	}
	b.progressAt = b.now
	return true
}

// canStep reports whether there is floor to walk onto in direction dir,
// and no jump pad or teleporter.
func (b *Bot) canStep(ps *bg.PlayerState, dir int32) bool {
	n := b.nav
	x := bg.TileOf(ps.Origin.X + dir*(n.Params.Maxs.X+bg.Px(12)))
	y := bg.TileOf(ps.Origin.Y + n.Params.Maxs.Y - 1)
	return (n.NodeAt(x, y) >= 0 || n.NodeAt(x, y-1) >= 0) && !n.triggerAt(x, y) && !n.triggerAt(x, y-1)
}

// fight chooses the weapon, aims and fires.
func (b *Bot) fight(v *View, cmd *bg.UserCmd) {
	ps := v.Self
	skill := int32(b.Skill)
	maxTurn := (3000 + 1500*skill) * b.msec / FrameMsec
	if !b.enemyVisible {
		cmd.Weapon = b.pickWeapon(ps, 8*bg.TileUnits)
		want := b.aim
		switch {
		case b.enemy >= 0:
			want = angleOf(float64(b.enemyPos.X-ps.Origin.X), float64(b.enemyPos.Y-ps.Origin.Y))
		case cmd.RightMove > 0:
			want = 0
		case cmd.RightMove < 0:
			want = halfTurn
		}
		b.aim = turnToward(b.aim, want, maxTurn/2)
		cmd.Aim = b.aim
		return
	}
	d := int32(math.Sqrt(float64(dist2(ps.Origin, b.enemyPos))))
	w := b.pickWeapon(ps, d)
	cmd.Weapon = w
	lv := &skills[b.Skill]
	if b.now >= b.aimErrAt {
		b.aimErr = int32(math.Round(b.rng.NormFloat64() * float64(lv.aimErr)))
		b.aimErrAt = b.now + 350 + b.rng.Int32N(450)
	}
	desired := (b.aimAngle(ps, w, d) + b.aimErr) & (turn - 1)
	b.aim = turnToward(b.aim, desired, maxTurn)
	cmd.Aim = b.aim
	if b.now < b.reactAt || ps.Weapon != w || b.resting(lv) {
		return
	}
	tol := int32(math.Atan2(float64(bg.Px(18)), float64(max(d, 1))) * radToTurn)
	tol = max(tol, 3*degree/2)
	switch w {
	case bg.WPGauntlet:
		if d > bg.Weapons[w].Range+bg.Px(24) {
			return
		}
		tol = 45 * degree
	case bg.WPMachinegun:
		tol = tol * 3 / 2
	}
	if skill <= 2 {
		tol = tol * 3 / 2
	}
	if abs32(angleDiff(b.aim, desired)) <= tol {
		cmd.Buttons |= bg.ButtonAttack
	}
}

// resting reports whether the trigger rests now: after a burst of
// lv.burst ms of fighting the bot holds its fire for lv.rest ms, then
// begins the next burst.
func (b *Bot) resting(lv *skillLevel) bool {
	if lv.rest <= 0 {
		return false
	}
	if b.now >= b.burstEnd+lv.rest {
		b.burstEnd = b.now + lv.burst
	}
	return b.now >= b.burstEnd
}

// aimAngle returns the angle to fire w at the enemy, d away: at it for
// hitscan weapons, ahead of it for rockets (at its feet when it stands),
// on a ballistic arc for grenades.
func (b *Bot) aimAngle(ps *bg.PlayerState, w int32, d int32) int32 {
	tx, ty := float64(b.enemyPos.X), float64(b.enemyPos.Y)
	vx, vy := float64(b.enemyVel.X), float64(b.enemyVel.Y)
	lead := 0.3 + 0.14*float64(b.Skill) // 1.0 at skill 5
	var t float64
	if speed := bg.Weapons[w].Speed; speed > 0 {
		t = float64(d) / float64(speed)
	} else {
		t = float64(FrameMsec) / 1000 // a frame's latency for hitscan
	}
	tx += vx * t * lead
	ty += vy * t * lead
	if w == bg.WPRocketLauncher && b.enemyVel.Y == 0 && b.enemyPos.Y >= ps.Origin.Y-bg.TileUnits {
		ty += float64(b.nav.Params.Maxs.Y) * 3 / 4 // splash at the feet
	}
	dx, dy := tx-float64(ps.Origin.X), ty-float64(ps.Origin.Y)
	if w == bg.WPGrenadeLauncher {
		if a, ok := ballistic(dx, dy, float64(bg.Weapons[w].Speed), float64(bg.Gravity)); ok {
			return a
		}
		return angleOf(math.Copysign(1, dx), -1) // 45° up towards it
	}
	return angleOf(dx, dy)
}

// ballistic returns the aim angle of the low arc that carries a projectile
// launched at speed v under gravity g (screen y down) by (dx, dy).
func ballistic(dx, dy, v, g float64) (int32, bool) {
	x, h := math.Abs(dx), -dy
	if x < 1 {
		return angleOf(0, dy), true
	}
	v2 := v * v
	disc := v2*v2 - g*(float64(g*x*x)+float64(2*h*v2))
	if disc < 0 {
		return 0, false
	}
	theta := math.Atan(float64(v2-math.Sqrt(disc)) / float64(g*x))
	return angleOf(math.Copysign(math.Cos(theta), dx), -math.Sin(theta)), true
}
