package game

import (
	"tremor/bg"
	"tremor/game/bot"
)

// spawnItems places an entity for every item spawn of the map whose
// classname is in bg.Items (G_SpawnItem), at the centre of its tile.
func (g *Arena) spawnItems() {
	for _, it := range g.m.Items {
		item := bg.ItemByClass(it.Class)
		if item == 0 {
			g.engine.Print("game: unknown item " + it.Class)
			continue
		}
		i := g.spawn()
		if i < 0 {
			return
		}
		e, sh := &g.ents[i], &g.shared[i]
		e.kind = kindItem
		e.classname = it.Class
		e.item = item
		e.origin = bg.Vec{
			X: int32(it.At.X)*bg.TileUnits + bg.TileUnits/2,
			Y: int32(it.At.Y)*bg.TileUnits + bg.TileUnits/2,
		}
		sh.S.EType = bg.ETItem
		sh.S.ModelIndex = item
		sh.S.Pos = bg.Trajectory{Type: bg.TrStationary, Base: e.origin}
		sh.Mins = bg.Vec{X: -bg.ItemBox, Y: -bg.ItemBox}
		sh.Maxs = bg.Vec{X: bg.ItemBox, Y: bg.ItemBox}
		sh.Linked = true
		g.lv.itemEnts = append(g.lv.itemEnts, i)
	}
	g.botItems = make([]bot.ItemInfo, 0, len(g.lv.itemEnts))
}

// touchItems lets client n pick up every item it touches and may take
// (Touch_Item with BG_PlayerTouchesItem and BG_CanItemBeGrabbed).
func (g *Arena) touchItems(n int) {
	ps := &g.ps[n]
	for _, i := range g.lv.itemEnts {
		sh := &g.shared[i]
		if sh.S.EFlags&bg.EFNoDraw != 0 || !bg.PlayerTouchesItem(ps.Origin, sh.S.Pos.Base, nil) {
			continue
		}
		if bg.CanItemBeGrabbed(g.ents[i].item, ps) {
			g.pickup(n, i)
		}
	}
}

// pickup gives item entity i to client n and hides the item until it
// respawns:
//   - health adds its quantity up to StatMaxHealth (mega health, 100 or
//     more, up to twice that; the excess counts down);
//   - armor adds up to twice StatMaxHealth;
//   - a weapon is given, with its ammo topped up to the item's quantity
//     (one more if already above), at most MaxAmmo;
//   - ammo adds its quantity up to MaxAmmo;
//   - quad damage lasts Quantity seconds more from now (or from when the
//     held one ends).
func (g *Arena) pickup(n, i int) {
	ps, e, sh := &g.ps[n], &g.ents[i], &g.shared[i]
	it := &bg.Items[e.item]
	switch it.Type {
	case bg.ITHealth:
		limit := ps.Stats[bg.StatMaxHealth]
		if it.Quantity >= 100 {
			limit *= 2
		}
		ps.Stats[bg.StatHealth] = min(ps.Stats[bg.StatHealth]+it.Quantity, limit)
	case bg.ITArmor:
		ps.Stats[bg.StatArmor] = min(ps.Stats[bg.StatArmor]+it.Quantity, 2*ps.Stats[bg.StatMaxHealth])
	case bg.ITWeapon:
		ps.Stats[bg.StatWeapons] |= 1 << it.Tag
		add := int32(1)
		if ps.Ammo[it.Tag] < it.Quantity {
			add = it.Quantity - ps.Ammo[it.Tag]
		}
		g.addAmmo(ps, it.Tag, add)
	case bg.ITAmmo:
		g.addAmmo(ps, it.Tag, it.Quantity)
	case bg.ITPowerup:
		if ps.Powerups[it.Tag] < g.lv.time {
			ps.Powerups[it.Tag] = g.lv.time
		}
		ps.Powerups[it.Tag] += it.Quantity * 1000
		if t := g.tempEntity(e.origin, bg.EvPowerupQuad); t >= 0 {
			g.shared[t].SvFlags |= SvfBroadcast
			g.shared[t].S.ClientNum = int32(n)
		}
	}
	g.addEvent(n, bg.EvItemPickup, e.item)
	g.log(LogEntry{Kind: LogItem, Client: n, Target: -1, Item: e.item})

	sh.S.EFlags |= bg.EFNoDraw
	sh.SvFlags |= SvfNoClient
	e.think = thinkItemRespawn
	e.nextThink = g.lv.time + it.Respawn*1000
}

// addAmmo adds ammo for weapon, capped at its MaxAmmo.
func (g *Arena) addAmmo(ps *bg.PlayerState, weapon, n int32) {
	if ps.Ammo[weapon] < 0 {
		return // unlimited
	}
	ps.Ammo[weapon] += n
	if m := bg.Weapons[weapon].MaxAmmo; m >= 0 && ps.Ammo[weapon] > m {
		ps.Ammo[weapon] = m
	}
}

// respawnItem brings item entity i back (RespawnItem) with EvItemRespawn.
func (g *Arena) respawnItem(i int) {
	sh := &g.shared[i]
	sh.S.EFlags &^= bg.EFNoDraw
	sh.SvFlags &^= SvfNoClient
	g.addEvent(i, bg.EvItemRespawn, 0)
}

// ItemAvailable reports whether item entity i is in the world to be
// picked up (not waiting to respawn).
func (g *Arena) ItemAvailable(i int) bool {
	return g.EntityInUse(i) && g.ents[i].kind == kindItem && g.shared[i].S.EFlags&bg.EFNoDraw == 0
}
