package game

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game/bot"
	"tremor/net/infostr"
)

// Client states.
const (
	clientFree      = iota
	clientConnected // ClientConnect done, waiting for ClientBegin
	clientInGame
)

// client is the game's record of one client slot (Quake III's
// gclient_t without its playerState_t, which lives in Game.ps so that the
// engine can read it).
type client struct {
	state    int
	isBot    bool
	bot      *bot.Bot
	skill    int
	name     string
	team     int32
	userinfo string
	wantTeam string // the userinfo team at connect, applied by ClientBegin
	ping     int

	lastEvent      int32 // EventSequence last copied to the entity
	enterTime      int32
	respawnTime    int32 // earliest respawn; forced ForceRespawn s later
	deathTime      int32
	protectUntil   int32
	nextHealthTick int32
	lavaTime       int32
	painTime       int32
}

// ClientConnect admits client with userinfo (ClientConnect). It refuses
// a slot out of range or an invalid userinfo. A bot gets its brain here,
// from the userinfo's name and skill.
func (g *Arena) ClientConnect(n int, userinfo string, isBot bool) string {
	if uint(n) >= bg.MaxClients {
		return "invalid client number"
	}
	if err := infostr.Validate(userinfo); err != nil {
		return "invalid userinfo"
	}
	if g.clients[n].state != clientFree {
		g.ClientDisconnect(n)
	}
	cl := &g.clients[n]
	ping := cl.ping
	*cl = client{state: clientConnected, isBot: isBot, ping: ping, team: bg.TeamSpectator}
	cl.wantTeam = infostr.ValueForKey(userinfo, "team")
	g.ps[n] = bg.PlayerState{ClientNum: int32(n)}
	g.ps[n].Persistant[bg.PersKiller] = -1
	g.forgetUnlag(n)
	e := &g.ents[n]
	*e = entity{inUse: true, kind: kindPlayer, classname: "player", owner: bg.EntityNumNone}
	g.shared[n] = SharedEntity{}
	g.shared[n].S.Number = int32(n)
	if isBot {
		cl.skill = 3
		if s, err := strconv.Atoi(infostr.ValueForKey(userinfo, "skill")); err == nil {
			cl.skill = max(1, min(s, 5))
		}
	}
	g.ClientUserinfoChanged(n, userinfo)
	if isBot {
		cl.bot = bot.New(cl.name, cl.skill, g.rng.Uint64(), g.nav)
	}
	g.log(LogEntry{Kind: LogConnect, Client: n, Target: -1, Text: cl.name})
	return ""
}

// ClientBegin puts a connected client into the game (ClientBegin): on a
// team, spawned, announced.
func (g *Arena) ClientBegin(n int) {
	if uint(n) >= bg.MaxClients || g.clients[n].state == clientFree {
		return
	}
	cl := &g.clients[n]
	cl.state = clientInGame
	cl.enterTime = g.lv.time
	cl.team = g.pickTeam(n, cl.wantTeam)
	g.updatePlayerInfo(n)
	g.spawnClient(n)
	g.engine.SendServerCommand(-1, `print "`+cl.name+" entered the game\n\"")
	g.log(LogEntry{Kind: LogBegin, Client: n, Target: -1, Text: cl.name})
}

// ClientUserinfoChanged applies a new userinfo (ClientUserinfoChanged):
// the name, sanitised and made unique, goes into the player's
// configstring. A team key counts only at connect; later team changes go
// through the team command.
func (g *Arena) ClientUserinfoChanged(n int, userinfo string) {
	if uint(n) >= bg.MaxClients || g.clients[n].state == clientFree {
		return
	}
	if infostr.Validate(userinfo) != nil {
		return
	}
	cl := &g.clients[n]
	cl.userinfo = userinfo
	name := sanitizeName(infostr.ValueForKey(userinfo, "name"))
	if impersonates(name) {
		// Refused: the player keeps its name, or gets a neutral one.
		name = cl.name
		if name == "" {
			name = "UnnamedPlayer"
		}
		g.engine.SendServerCommand(n, `print "That name is reserved.\n"`)
	}
	name = g.uniqueName(n, name)
	if cl.name != "" && name != cl.name && cl.state == clientInGame {
		g.engine.SendServerCommand(-1, `print "`+cl.name+" renamed to "+name+"\n\"")
	}
	cl.name = name
	g.updatePlayerInfo(n)
}

// ClientDisconnect removes client (ClientDisconnect). Calling it for a
// slot that is not connected does nothing.
func (g *Arena) ClientDisconnect(n int) {
	if uint(n) >= bg.MaxClients || g.clients[n].state == clientFree {
		return
	}
	g.log(LogEntry{Kind: LogDisconnect, Client: n, Target: -1, Text: g.clients[n].name})
	ping := g.clients[n].ping
	g.clients[n] = client{ping: ping}
	g.ps[n] = bg.PlayerState{}
	g.shared[n] = SharedEntity{}
	g.ents[n] = entity{freeTime: g.lv.time}
	g.forgetUnlag(n)
	g.engine.SetConfigstring(bg.CSPlayers+n, "")
}

// updatePlayerInfo writes client's configstring: \n\NAME\t\TEAM, and
// \skill\S for a bot.
func (g *Arena) updatePlayerInfo(n int) {
	cl := &g.clients[n]
	s := `\n\` + cl.name + `\t\` + itoa(int(cl.team))
	if cl.isBot {
		s += `\skill\` + itoa(cl.skill)
	}
	g.engine.SetConfigstring(bg.CSPlayers+n, s)
}

// sanitizeName keeps of a name the characters nameRune allows (so no
// control byte, escape sequence, quote, ';', '\\' or ':'), trims
// spaces, caps it at MaxNameLen bytes on a character boundary, and
// names the nameless "UnnamedPlayer".
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !nameRune(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxNameLen {
			break
		}
		b.WriteRune(r)
	}
	name := strings.TrimSpace(b.String())
	if name == "" {
		return "UnnamedPlayer"
	}
	return name
}

// uniqueName returns name, or name with "(2)", "(3)"... appended, so that
// no other connected client has it (compared ignoring case).
func (g *Arena) uniqueName(self int, name string) string {
	taken := func(s string) bool {
		for i := range g.clients {
			if i != self && g.clients[i].state != clientFree && strings.EqualFold(g.clients[i].name, s) {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	for k := 2; ; k++ {
		suffix := "(" + itoa(k) + ")"
		base := name
		for len(base)+len(suffix) > MaxNameLen {
			_, size := utf8.DecodeLastRuneInString(base)
			base = base[:len(base)-size]
		}
		if s := base + suffix; !taken(s) {
			return s
		}
	}
}

// ClientThink executes one usercmd of client n (ClientThink_real): the
// time is clamped to the level's, the command runs through bg.Pmove one
// movement step at a time — exactly the steps Pmove.Run would take, so a
// client predicting the whole command computes the same state — and
// after each step the game acts on it: shots for EvFireWeapon,
// telefrags at a teleporter's destination, item pickups, lava. A dead
// player respawns when allowed.
func (g *Arena) ClientThink(n int, cmd *bg.UserCmd) {
	if uint(n) >= bg.MaxClients || g.clients[n].state != clientInGame || cmd == nil {
		return
	}
	cl, ps := &g.clients[n], &g.ps[n]
	c := *cmd
	if c.ServerTime > g.lv.time+200 {
		c.ServerTime = g.lv.time + 200
	}
	if c.ServerTime < g.lv.time-1000 {
		c.ServerTime = g.lv.time - 1000
	}
	if g.lv.intermission || c.ServerTime < ps.CommandTime {
		return
	}
	if c.Buttons&bg.ButtonTalk != 0 {
		ps.EFlags |= bg.EFTalk
	} else {
		ps.EFlags &^= bg.EFTalk
	}

	g.cmdTime = c.ServerTime // the time of the shooter's view (unlag.go)
	pm := &g.pm
	*pm = bg.Pmove{PS: ps, Cmd: c, World: g.m}
	for {
		oldSeq, oldOrigin := ps.EventSequence, ps.Origin
		msec := pm.Step()
		if msec == 0 {
			break
		}
		if ps.PmType == bg.PMSpectator {
			continue
		}
		g.clientEvents(n, oldSeq, oldOrigin, ps.CommandTime-msec)
		if ps.PmType == bg.PMNormal {
			g.touchItems(n)
			g.worldEffects(n)
		}
	}
	g.syncPlayerEntity(n)

	if ps.PmType == bg.PMDead && g.lv.time > cl.respawnTime {
		forced := g.cfg.ForceRespawn > 0 && g.lv.time-cl.deathTime >= int32(g.cfg.ForceRespawn)*1000
		if forced || c.Buttons&bg.ButtonAttack != 0 {
			g.spawnClient(n)
		}
	}
}

// clientEvents acts on the events one Pmove step added (ClientEvents).
// The step began at time oldTime with the player at oldOrigin: shots
// leave from there, the moment the trigger was pulled, and teleports
// leave an EvTeleportOut there.
func (g *Arena) clientEvents(n int, oldSeq int32, oldOrigin bg.Vec, oldTime int32) {
	ps := &g.ps[n]
	count := (ps.EventSequence - oldSeq) & bg.EventSequenceMask
	if count > bg.MaxPSEvents {
		count = bg.MaxPSEvents
	}
	for k := count; k > 0; k-- {
		seq := (ps.EventSequence - k) & (bg.MaxPSEvents - 1)
		switch ps.Events[seq] {
		case bg.EvFireWeapon:
			g.fireWeapon(n, ps.EventParms[seq], oldOrigin, oldTime)
		case bg.EvTeleportIn:
			if t := g.tempEntity(oldOrigin, bg.EvTeleportOut); t >= 0 {
				g.shared[t].S.Origin2 = ps.Origin
				g.shared[t].S.ClientNum = int32(n)
			}
			g.killBox(n)
		}
	}
}

// worldEffects hurts a player touching lava (P_WorldEffects).
func (g *Arena) worldEffects(n int) {
	cl := &g.clients[n]
	if g.lv.time < cl.lavaTime {
		return
	}
	mins, maxs := g.playerBox(n, 0)
	for y := bg.TileOf(mins.Y); y <= bg.TileOf(maxs.Y-1); y++ {
		for x := bg.TileOf(mins.X); x <= bg.TileOf(maxs.X-1); x++ {
			if g.m.At(x, y) == tilemap.Lava {
				cl.lavaTime = g.lv.time + LavaInterval
				g.damage(n, bg.EntityNumWorld, bg.EntityNumWorld, bg.Vec{}, g.ps[n].Origin, LavaDamage, damageNoKnockback, bg.MODLava)
				if g.ps[n].PmType == bg.PMNormal {
					g.addEvent(n, bg.EvLavaBurn, 0) // in place of the pain event
				}
				return
			}
		}
	}
}

// syncPlayerEntity copies client n's state to its entity
// (BG_PlayerStateToEntityState) and keeps the event timer in step.
func (g *Arena) syncPlayerEntity(n int) {
	ps, sh, cl := &g.ps[n], &g.shared[n], &g.clients[n]
	ev := sh.S.Event
	bg.PlayerStateToEntityState(ps, &sh.S, &cl.lastEvent)
	if sh.S.Event != ev {
		g.ents[n].eventTime = g.lv.time
	}
	sh.Linked = ps.PmType != bg.PMSpectator
	sh.Mins, sh.Maxs = bg.DefaultParams.Mins, bg.DefaultParams.Maxs
	sh.SvFlags = 0
	if cl.isBot {
		sh.SvFlags = SvfBot
	}
}

// clientEndFrame runs once a frame for every client in the game
// (ClientEndFrame and ClientTimerActions): powerups and spawn protection
// expire, health and armor above the maximum count down by one a second,
// and the entity gets the frame's final state.
func (g *Arena) clientEndFrame(n int) {
	ps, cl := &g.ps[n], &g.clients[n]
	if ps.Powerups[bg.PWQuad] != 0 && g.lv.time >= ps.Powerups[bg.PWQuad] {
		ps.Powerups[bg.PWQuad] = 0
	}
	if ps.EFlags&bg.EFSpawnProtect != 0 && g.lv.time >= cl.protectUntil {
		ps.EFlags &^= bg.EFSpawnProtect
	}
	if !g.lv.intermission && g.lv.time >= cl.nextHealthTick {
		cl.nextHealthTick = g.lv.time + 1000
		if ps.PmType == bg.PMNormal {
			if ps.Stats[bg.StatHealth] > ps.Stats[bg.StatMaxHealth] {
				ps.Stats[bg.StatHealth]--
			}
			if ps.Stats[bg.StatArmor] > ps.Stats[bg.StatMaxHealth] {
				ps.Stats[bg.StatArmor]--
			}
		}
	}
	g.syncPlayerEntity(n)
}

// spawnClient puts client n into the world on a fresh life (ClientSpawn),
// or as a spectator. Persistant values and the event sequence survive;
// everything else starts over.
func (g *Arena) spawnClient(n int) {
	ps, cl := &g.ps[n], &g.clients[n]
	saved := *ps
	*ps = bg.PlayerState{
		ClientNum:     int32(n),
		Persistant:    saved.Persistant,
		EventSequence: saved.EventSequence,
		Events:        saved.Events,
		EventParms:    saved.EventParms,
		CommandTime:   g.lv.time,
		GroundEntity:  bg.EntityNumNone,
		// Toggled so that clients do not interpolate from the old body.
		EFlags: (saved.EFlags & bg.EFTeleportBit) ^ bg.EFTeleportBit,
	}
	ps.Persistant[bg.PersSpawnCount]++
	cl.respawnTime = 0
	if cl.team == bg.TeamSpectator {
		ps.PmType = bg.PMSpectator
		if len(g.m.Spawns) > 0 {
			sp := g.m.Spawns[0]
			ps.Origin = bg.TileFeet(sp.X, sp.Y, nil)
		}
		g.syncPlayerEntity(n)
		return
	}
	origin, occupied := g.selectSpawn(n)
	ps.Origin = origin
	ps.PmType = bg.PMNormal
	ps.PmFlags = bg.PMFRespawned
	ps.Stats[bg.StatHealth] = StartHealth
	ps.Stats[bg.StatMaxHealth] = MaxHealth
	ps.Stats[bg.StatWeapons] = 1<<bg.WPGauntlet | 1<<bg.WPMachinegun
	ps.Ammo[bg.WPGauntlet] = -1
	ps.Ammo[bg.WPMachinegun] = StartBullets
	ps.Weapon = bg.WPMachinegun
	ps.WeaponState = bg.WeaponReady
	if g.cfg.SpawnProtect > 0 {
		ps.EFlags |= bg.EFSpawnProtect
		cl.protectUntil = g.lv.time + g.cfg.SpawnProtect
	}
	cl.nextHealthTick = g.lv.time + 1000
	cl.lavaTime = 0
	if t := g.tempEntity(origin, bg.EvTeleportIn); t >= 0 {
		g.shared[t].S.ClientNum = int32(n)
	}
	if occupied {
		g.killBox(n)
	}
	g.syncPlayerEntity(n)
}

// spawnCandidate is a spawn point being ranked.
type spawnCandidate struct {
	origin bg.Vec
	dist   int64 // squared distance to the nearest other live player
}

// selectSpawn picks where client n spawns (SelectRandomFurthestSpawnPoint):
// at random among the half of the free spawn points furthest from the
// other live players. A point is free when no live player's box overlaps
// the box there; when none is, it returns the furthest point and reports
// that it is occupied, and the spawn telefrags.
func (g *Arena) selectSpawn(n int) (bg.Vec, bool) {
	spawns := g.m.Spawns
	if len(spawns) == 0 {
		return bg.Vec{}, false
	}
	free := g.spawnDist[:0]
	var far spawnCandidate
	far.dist = -1
	for _, sp := range spawns {
		o := bg.TileFeet(sp.X, sp.Y, nil)
		c := spawnCandidate{origin: o, dist: 1 << 62}
		blocked := false
		for k := range g.clients {
			if k == n || !g.solidPlayer(k) {
				continue
			}
			d := g.ps[k].Origin.Sub(o)
			c.dist = min(c.dist, int64(d.X)*int64(d.X)+int64(d.Y)*int64(d.Y))
			if abs32(d.X) < bg.DefaultParams.Maxs.X-bg.DefaultParams.Mins.X &&
				abs32(d.Y) < bg.DefaultParams.Maxs.Y-bg.DefaultParams.Mins.Y {
				blocked = true
			}
		}
		if c.dist > far.dist {
			far = c
		}
		if blocked {
			continue
		}
		// Insert keeping free sorted by distance, furthest first.
		j := len(free)
		free = append(free, c)
		for j > 0 && free[j-1].dist < c.dist {
			free[j] = free[j-1]
			j--
		}
		free[j] = c
	}
	g.spawnDist = free
	if len(free) == 0 {
		return far.origin, true
	}
	return free[g.rng.IntN((len(free)+1)/2)].origin, false
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}
