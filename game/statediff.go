package game

import (
	"fmt"

	"tremor/bg"
)

// DiffState names the first difference between two saved states, in the
// order StateHash hashes them, so that when two games' hashes part the
// report points where they first differ: the level time; the number of
// entity slots in use; the random generator; each client slot in use on
// either side, in order (its connection state, team, the timers the
// hash takes, then its PlayerState field by field, as
// bg.DiffPlayerState orders them); each entity slot in use on either
// side, in order (in use or not, its EntityState as bg.DiffEntityState
// orders it, linked, SvFlags, bounds, then the game's own fields the
// hash takes). After everything the hash covers come, in this order,
// what it leaves out: the level's other fields, the latched game type,
// the settings, the clients' other fields (bot, skill, name, userinfo,
// team asked for, ping, enter time), the entities' other fields (the
// explosion's numbers, the classname, free-after-event, the time a free
// slot was freed), and the item list.
//
// what reads like "entity 17 (missile): Pos.Base.X is 1234, other has
// 1240", "client 2: PlayerState Origin.Y is 96, other has 112", "client
// 3: respawnTime is 2000, other has 2050", "random generator: next draw
// 0x…, other 0x…" or "level time is 1000, other has 1050": a's value
// first. differs is false (and what "") when the states are equal. Both
// states must hold a state (saved or read); DiffState does not allocate
// unless they differ.
func DiffState(a, b *State) (what string, differs bool) {
	switch {
	case a.lv.time != b.lv.time:
		return is("level time", int64(a.lv.time), int64(b.lv.time)), true
	case a.numEntities != b.numEntities:
		return is("numEntities", int64(a.numEntities), int64(b.numEntities)), true
	case a.pcg != b.pcg:
		ra, rb := a.pcg, b.pcg // copies: peek without moving
		return fmt.Sprintf("random generator: next draw %#x, other %#x", ra.Uint64(), rb.Uint64()), true
	}
	for i := range a.clients {
		ca, cb := &a.clients[i], &b.clients[i]
		if ca.state == clientFree && cb.state == clientFree {
			continue
		}
		if w, ok := diffClient(ca, cb, &a.ps[i], &b.ps[i]); ok {
			return fmt.Sprintf("client %d: %s", i, w), true
		}
	}
	for i := 0; i < a.numEntities; i++ {
		ea, eb := &a.ents[i], &b.ents[i]
		if !ea.inUse && !eb.inUse {
			continue
		}
		if w, ok := diffEntity(ea, eb, &a.shared[i], &b.shared[i]); ok {
			return entityDiff(i, ea, eb, w), true
		}
	}

	if w, ok := diffLevel(&a.lv, &b.lv); ok {
		return w, true
	}
	if a.gametype != b.gametype {
		return is("game type", int64(a.gametype), int64(b.gametype)), true
	}
	if w, ok := diffConfig(&a.cfg, &b.cfg); ok {
		return "config: " + w, true
	}
	for i := range a.clients {
		if w, ok := diffClientRest(&a.clients[i], &b.clients[i]); ok {
			return fmt.Sprintf("client %d: %s", i, w), true
		}
	}
	for i := 0; i < a.numEntities; i++ {
		ea, eb := &a.ents[i], &b.ents[i]
		if w, ok := diffEntityRest(ea, eb); ok {
			return entityDiff(i, ea, eb, w), true
		}
	}
	if len(a.lv.itemEnts) != len(b.lv.itemEnts) {
		return is("number of items", int64(len(a.lv.itemEnts)), int64(len(b.lv.itemEnts))), true
	}
	for k := range a.lv.itemEnts {
		if a.lv.itemEnts[k] != b.lv.itemEnts[k] {
			return is(fmt.Sprintf("item %d's entity", k), int64(a.lv.itemEnts[k]), int64(b.lv.itemEnts[k])), true
		}
	}
	return "", false
}

// is formats one field's two values.
func is(name string, a, b int64) string {
	return fmt.Sprintf("%s is %d, other has %d", name, a, b)
}

// isBool formats one flag's two values.
func isBool(name string, a, b bool) string {
	return fmt.Sprintf("%s is %v, other has %v", name, a, b)
}

// entityDiff prefixes what with the entity, named by its kind on the
// side where it is in use.
func entityDiff(i int, ea, eb *entity, what string) string {
	k := ea.kind
	if !ea.inUse {
		k = eb.kind
	}
	return fmt.Sprintf("entity %d (%s): %s", i, kindName(k), what)
}

// field32 is one 32-bit field of a comparison.
type field32 struct {
	name string
	a, b int32
}

// firstOf returns the first field of fs whose values differ.
func firstOf(fs []field32) (string, bool) {
	for _, f := range fs {
		if f.a != f.b {
			return is(f.name, int64(f.a), int64(f.b)), true
		}
	}
	return "", false
}

// diffClient compares what StateHash takes of a client slot.
func diffClient(a, b *client, psa, psb *bg.PlayerState) (string, bool) {
	if a.state != b.state {
		return fmt.Sprintf("connection state is %s, other has %s", stateName(a.state), stateName(b.state)), true
	}
	fs := [...]field32{
		{"team", a.team, b.team},
		{"lastEvent", a.lastEvent, b.lastEvent},
		{"respawnTime", a.respawnTime, b.respawnTime},
		{"deathTime", a.deathTime, b.deathTime},
		{"protectUntil", a.protectUntil, b.protectUntil},
		{"nextHealthTick", a.nextHealthTick, b.nextHealthTick},
		{"lavaTime", a.lavaTime, b.lavaTime},
		{"painTime", a.painTime, b.painTime},
	}
	if w, ok := firstOf(fs[:]); ok {
		return w, true
	}
	if f, ok := bg.DiffPlayerState(psa, psb); ok {
		va, _ := bg.PlayerStateField(psa, f)
		vb, _ := bg.PlayerStateField(psb, f)
		return is("PlayerState "+f, int64(va), int64(vb)), true
	}
	return "", false
}

// diffClientRest compares what StateHash leaves out of a client slot.
func diffClientRest(a, b *client) (string, bool) {
	switch {
	case a.isBot != b.isBot:
		return isBool("bot", a.isBot, b.isBot), true
	case a.skill != b.skill:
		return is("skill", int64(a.skill), int64(b.skill)), true
	case a.name != b.name:
		return fmt.Sprintf("name is %q, other has %q", a.name, b.name), true
	case a.userinfo != b.userinfo:
		return fmt.Sprintf("userinfo is %q, other has %q", a.userinfo, b.userinfo), true
	case a.wantTeam != b.wantTeam:
		return fmt.Sprintf("team asked for is %q, other has %q", a.wantTeam, b.wantTeam), true
	case a.ping != b.ping:
		return is("ping", int64(a.ping), int64(b.ping)), true
	case a.enterTime != b.enterTime:
		return is("enterTime", int64(a.enterTime), int64(b.enterTime)), true
	}
	return "", false
}

// diffEntity compares what StateHash takes of an entity slot.
func diffEntity(a, b *entity, sa, sb *SharedEntity) (string, bool) {
	if a.inUse != b.inUse {
		return isBool("in use", a.inUse, b.inUse), true
	}
	if f, ok := bg.DiffEntityState(&sa.S, &sb.S); ok {
		va, _ := bg.EntityStateField(&sa.S, f)
		vb, _ := bg.EntityStateField(&sb.S, f)
		return is(f, int64(va), int64(vb)), true
	}
	if sa.Linked != sb.Linked {
		return isBool("linked", sa.Linked, sb.Linked), true
	}
	fs := [...]field32{
		{"SvFlags", sa.SvFlags, sb.SvFlags},
		{"Mins.X", sa.Mins.X, sb.Mins.X},
		{"Mins.Y", sa.Mins.Y, sb.Mins.Y},
		{"Maxs.X", sa.Maxs.X, sb.Maxs.X},
		{"Maxs.Y", sa.Maxs.Y, sb.Maxs.Y},
		{"kind", int32(a.kind), int32(b.kind)},
		{"think", int32(a.think), int32(b.think)},
		{"nextThink", a.nextThink, b.nextThink},
		{"eventTime", a.eventTime, b.eventTime},
		{"eventCount", a.eventCount, b.eventCount},
		{"owner", int32(a.owner), int32(b.owner)},
		{"item", a.item, b.item},
		{"damage", a.damage, b.damage},
		{"origin.X", a.origin.X, b.origin.X},
		{"origin.Y", a.origin.Y, b.origin.Y},
	}
	return firstOf(fs[:])
}

// diffEntityRest compares what StateHash leaves out of an entity slot.
func diffEntityRest(a, b *entity) (string, bool) {
	if a.classname != b.classname {
		return fmt.Sprintf("classname is %q, other has %q", a.classname, b.classname), true
	}
	if a.freeAfterEvent != b.freeAfterEvent {
		return isBool("freeAfterEvent", a.freeAfterEvent, b.freeAfterEvent), true
	}
	fs := [...]field32{
		{"splash", a.splash, b.splash},
		{"radius", a.radius, b.radius},
		{"mod", a.mod, b.mod},
		{"splashMod", a.splashMod, b.splashMod},
		{"freeTime", a.freeTime, b.freeTime},
	}
	return firstOf(fs[:])
}

// diffLevel compares the level's fields other than its time and item
// list.
func diffLevel(a, b *level) (string, bool) {
	switch {
	case a.prevTime != b.prevTime:
		return is("level prevTime", int64(a.prevTime), int64(b.prevTime)), true
	case a.startTime != b.startTime:
		return is("level startTime", int64(a.startTime), int64(b.startTime)), true
	case a.intermission != b.intermission:
		return isBool("intermission", a.intermission, b.intermission), true
	case a.intermissionTime != b.intermissionTime:
		return is("intermissionTime", int64(a.intermissionTime), int64(b.intermissionTime)), true
	case a.exitSent != b.exitSent:
		return isBool("exitSent", a.exitSent, b.exitSent), true
	}
	for t := range a.teamScores {
		if a.teamScores[t] != b.teamScores[t] {
			return is(TeamName(int32(t))+" team score", int64(a.teamScores[t]), int64(b.teamScores[t])), true
		}
	}
	for k := range a.scores {
		if a.scores[k] != b.scores[k] || a.scoresValid[k] != b.scoresValid[k] {
			return fmt.Sprintf("score configstring %d is %d (set %v), other has %d (set %v)",
				k+1, a.scores[k], a.scoresValid[k], b.scores[k], b.scoresValid[k]), true
		}
	}
	switch {
	case a.scoresSet != b.scoresSet:
		return isBool("scoresSet", a.scoresSet, b.scoresSet), true
	case a.nextBotCheck != b.nextBotCheck:
		return is("nextBotCheck", int64(a.nextBotCheck), int64(b.nextBotCheck)), true
	}
	return "", false
}

// diffConfig names the first setting that differs.
func diffConfig(a, b *Config) (string, bool) {
	fs := [...]field32{
		{"GameType", a.GameType, b.GameType},
		{"FragLimit", int32(a.FragLimit), int32(b.FragLimit)},
		{"TimeLimit", int32(a.TimeLimit), int32(b.TimeLimit)},
		{"Knockback", a.Knockback, b.Knockback},
		{"ForceRespawn", int32(a.ForceRespawn), int32(b.ForceRespawn)},
		{"SpawnProtect", a.SpawnProtect, b.SpawnProtect},
		{"BotMinPlayers", int32(a.BotMinPlayers), int32(b.BotMinPlayers)},
		{"BotSkill", int32(a.BotSkill), int32(b.BotSkill)},
		{"MaxUnlag", a.MaxUnlag, b.MaxUnlag},
	}
	if w, ok := firstOf(fs[:]); ok {
		return w, true
	}
	switch {
	case a.FriendlyFire != b.FriendlyFire:
		return isBool("FriendlyFire", a.FriendlyFire, b.FriendlyFire), true
	case a.Unlagged != b.Unlagged:
		return isBool("Unlagged", a.Unlagged, b.Unlagged), true
	case a.ExternalBotInput != b.ExternalBotInput:
		return isBool("ExternalBotInput", a.ExternalBotInput, b.ExternalBotInput), true
	case *a != *b:
		return "a setting differs", true // a field added to Config and not to this list
	}
	return "", false
}

// stateName names a client connection state.
func stateName(s int) string {
	switch s {
	case clientFree:
		return "free"
	case clientConnected:
		return "connected"
	case clientInGame:
		return "in the game"
	}
	return "state " + itoa(s)
}
