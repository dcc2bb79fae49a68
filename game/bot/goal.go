package bot

import "tremor/bg"

// Perception and goals (Quake III's ai_dmq3.c: BotFindEnemy, the item
// weights of the fuzzy logic files, much simplified).

// Sight limits.
const (
	maxSight     = 40 * bg.TileUnits // enemies further away are ignored
	forgetEnemy  = 6000              // ms an unseen enemy is remembered
	replanMin    = 400               // ms between goal reviews, at least
	replanJitter = 400
	goalTimeout  = 2500 // ms at the goal node before giving an item up
	itemBanTime  = 15000
)

// eye is where a player sees and shoots from.
func eye(o bg.Vec) bg.Vec { return bg.Vec{X: o.X, Y: o.Y - bg.Px(8)} }

// perceive picks the enemy to fight: the nearest visible one, the current
// one favoured.
func (b *Bot) perceive(v *View) {
	ps := v.Self
	best, bestD := -1, int64(0)
	from := eye(ps.Origin)
	for i := range v.Players {
		p := &v.Players[i]
		if p.Dead || p.ClientNum == int(ps.ClientNum) || (v.Team != 0 && p.Team == v.Team) {
			continue
		}
		d := dist2(ps.Origin, p.Origin)
		if d > int64(maxSight)*int64(maxSight) {
			continue
		}
		if !b.nav.LineOfSight(from, eye(p.Origin)) {
			continue
		}
		if p.ClientNum == b.enemy {
			d = d * 4 / 9 // hold on to the current enemy
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	if best >= 0 {
		p := &v.Players[best]
		if p.ClientNum != b.enemy || !b.enemyVisible && b.now-b.enemySeen > 1000 {
			b.reactAt = b.now + b.reaction()
		}
		b.enemy = p.ClientNum
		b.enemyVisible = true
		b.enemySeen = b.now
		b.enemyPos = p.Origin
		b.enemyVel = p.Velocity
		return
	}
	b.enemyVisible = false
	if b.enemy >= 0 {
		alive := false
		for i := range v.Players {
			if v.Players[i].ClientNum == b.enemy && !v.Players[i].Dead {
				alive = true
			}
		}
		if !alive || b.now-b.enemySeen > forgetEnemy {
			b.enemy = -1
		}
	}
}

// reaction is the delay between seeing a new enemy and firing at it.
func (b *Bot) reaction() int32 {
	return skills[b.Skill].reaction + b.rng.Int32N(reactionJitter)
}

// plan reviews the goal when it is time to, or when the path has run out
// or been left, and searches the path to it.
func (b *Bot) plan(v *View) {
	ps := v.Self
	n := b.nav
	if !grounded(ps) || b.fl.edge >= 0 {
		return // decide on the ground
	}
	cur := n.Locate(ps.Origin)
	if cur < 0 {
		cur = b.lastNode
	}
	if cur < 0 {
		return
	}
	b.lastNode = cur
	b.advance(cur)
	if b.goalKind == goalItem && !b.itemStillThere(v) {
		b.planAt = b.now
	}
	if b.goalKind == goalWander && b.pathPos >= len(b.path) {
		b.planAt = b.now
	}
	if (b.now < b.planAt || b.runup != runNone) && b.onPath(cur) {
		return // on the way; a run-up is not interrupted by a review
	}
	b.planAt = b.now + replanMin + b.rng.Int32N(replanJitter)
	b.srch.run(cur, b.now, b.banned)
	dist := b.srch.dist

	kind, node, ent, pos := goalNone, int32(-1), -1, bg.Vec{}
	var best int64
	for i := range v.Items {
		it := &v.Items[i]
		if !it.Available || !bg.CanItemBeGrabbed(it.Item, ps) || b.itemBanned(it.Entity) {
			continue
		}
		in := b.itemNode(it.Pos)
		if in < 0 || dist[in] == unreached {
			continue
		}
		val := itemValue(it.Item, ps)
		if val <= 0 {
			continue
		}
		u := int64(val) * 100000 / (1000 + int64(dist[in]))
		if b.goalKind == goalItem && b.goalEnt == it.Entity {
			u = u * 13 / 10
		}
		if u > best {
			kind, node, ent, pos, best = goalItem, in, it.Entity, it.Pos, u
		}
	}
	if b.enemy >= 0 {
		if en := n.LocateBelow(b.enemyPos, 12); en >= 0 && dist[en] != unreached {
			u := int64(b.aggression(ps)) * 100000 / (1000 + int64(dist[en]))
			switch {
			case b.now < b.noStrafeUntil:
				u /= 4 // cornered: get some room first
			case b.goalKind == goalEnemy:
				u = u * 13 / 10
			}
			if u > best {
				kind, node, ent, pos, best = goalEnemy, en, b.enemy, b.enemyPos, u
			}
		}
	}
	if kind == goalNone || best < 50 {
		if b.goalKind == goalWander && b.goalNode != cur && dist[b.goalNode] != unreached {
			kind, node = goalWander, b.goalNode
		} else {
			kind, node = goalWander, b.wanderNode(cur)
		}
		ent, pos = -1, n.Center(node)
	}
	if kind != b.goalKind || node != b.goalNode || ent != b.goalEnt {
		b.goalAt = 0
	}
	b.goalKind, b.goalNode, b.goalEnt, b.goalPos = kind, node, ent, pos
	b.path = b.srch.path(node, b.path)
	b.pathPos = 0
	b.progressAt = b.now
}

// onPath reports whether the bot, standing in node cur, is where its path
// expects it: at the start of the current edge or at the goal.
func (b *Bot) onPath(cur int32) bool {
	if b.goalKind == goalNone {
		return false
	}
	if b.pathPos >= len(b.path) {
		return cur == b.goalNode
	}
	return b.nav.edges[b.path[b.pathPos]].From == cur || b.runningUp(cur)
}

// wanderNode picks a reachable node some way off to roam to.
func (b *Bot) wanderNode(cur int32) int32 {
	n := b.nav
	best, bestD := cur, int32(-1)
	for try := 0; try < 8; try++ {
		c := int32(b.rng.IntN(len(n.nodes)))
		d := b.srch.dist[c]
		if d != unreached && d > bestD {
			best, bestD = c, d
			if d > 2000 {
				break
			}
		}
	}
	return best
}

// itemNode is the node from which a player picks up an item at pos: the
// tile of the item or the first node below it.
func (b *Bot) itemNode(pos bg.Vec) int32 {
	n := b.nav
	x, y := bg.TileOf(pos.X), bg.TileOf(pos.Y)
	for d := 0; d <= 3; d++ {
		if id := n.NodeAt(x, y+d); id >= 0 {
			return id
		}
	}
	return -1
}

// itemStillThere reports whether the goal item is still to be taken.
func (b *Bot) itemStillThere(v *View) bool {
	for i := range v.Items {
		if it := &v.Items[i]; it.Entity == b.goalEnt {
			return it.Available && bg.CanItemBeGrabbed(it.Item, v.Self)
		}
	}
	return false
}

func (b *Bot) banItem(ent int) {
	slot := 0
	for i := range b.itemBan {
		if b.itemBan[i].until < b.itemBan[slot].until {
			slot = i
		}
	}
	b.itemBan[slot] = itemBan{ent: ent, until: b.now + itemBanTime}
}

func (b *Bot) itemBanned(ent int) bool {
	for i := range b.itemBan {
		if b.itemBan[i].ent == ent && b.itemBan[i].until > b.now {
			return true
		}
	}
	return false
}

// weaponValue is how much a bot wants a weapon it lacks.
var weaponValue = [bg.NumWeapons]int32{
	bg.WPMachinegun:      35,
	bg.WPGrenadeLauncher: 45,
	bg.WPRocketLauncher:  80,
	bg.WPRailgun:         70,
}

func hasWeapon(ps *bg.PlayerState, w int32) bool {
	return w > bg.WPNone && w < bg.NumWeapons && ps.Stats[bg.StatWeapons]&(1<<w) != 0
}

// itemValue is how much a player in state ps wants an item, about 0..120.
func itemValue(item int32, ps *bg.PlayerState) int32 {
	if item <= 0 || int(item) >= len(bg.Items) {
		return 0
	}
	it := &bg.Items[item]
	maxHealth := ps.Stats[bg.StatMaxHealth]
	if maxHealth <= 0 {
		maxHealth = 100
	}
	health, armor := ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor]
	switch it.Type {
	case bg.ITWeapon:
		if it.Tag <= bg.WPNone || it.Tag >= bg.NumWeapons {
			return 0
		}
		if !hasWeapon(ps, it.Tag) {
			return weaponValue[it.Tag]
		}
		if m := bg.Weapons[it.Tag].MaxAmmo; m > 0 && ps.Ammo[it.Tag] < m/2 {
			return 20
		}
		return 3
	case bg.ITAmmo:
		if it.Tag <= bg.WPNone || it.Tag >= bg.NumWeapons {
			return 0
		}
		m := bg.Weapons[it.Tag].MaxAmmo
		if !hasWeapon(ps, it.Tag) || m <= 0 {
			return 4
		}
		return 4 + 30*(m-min(ps.Ammo[it.Tag], m))/m
	case bg.ITHealth:
		limit := maxHealth
		if it.Quantity >= 100 {
			limit = 2 * maxHealth
		}
		if health >= limit {
			return 0
		}
		v := (limit - health) * 2 / 3
		if health < maxHealth/2 {
			v *= 2
		}
		return min(v, 120)
	case bg.ITArmor:
		if it.Quantity < 25 {
			return 10
		}
		return min(max(2*maxHealth-armor, 0)/2, 90)
	case bg.ITPowerup:
		return 120
	}
	return 0
}

// aggression is how much a bot in state ps wants to chase its enemy.
func (b *Bot) aggression(ps *bg.PlayerState) int32 {
	a := int32(35 + 5*b.Skill)
	strength := ps.Stats[bg.StatHealth] + ps.Stats[bg.StatArmor]
	a = a * min(max(strength, 40), 200) / 120
	if !hasWeapon(ps, bg.WPRocketLauncher) && !hasWeapon(ps, bg.WPRailgun) && !hasWeapon(ps, bg.WPGrenadeLauncher) {
		a = a * 2 / 3
	}
	if b.enemyVisible {
		a = a * 3 / 2
	}
	return a
}

func dist2(a, b bg.Vec) int64 {
	dx, dy := int64(a.X)-int64(b.X), int64(a.Y)-int64(b.Y)
	return dx*dx + dy*dy
}
