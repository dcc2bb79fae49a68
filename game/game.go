package game

import (
	"math/rand/v2"
	"strconv"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game/bot"
	"tremor/net/msg"
)

// MaxEntities is the number of entity slots (Quake III's MAX_GENTITIES);
// entities 0..bg.MaxClients-1 are the players, EntityNumWorld and
// EntityNumNone are reserved, so at most MaxNormalEntities are in use.
const (
	MaxEntities       = msg.MaxEntities
	MaxNormalEntities = bg.EntityNumWorld
)

// Arena is Tremor's server game on one map (Quake III's game module): it
// implements the Game interface for the engine and adds what the
// engine's console and tests call directly (AddBot, SetPing, SetConfig,
// SetLog, and read-only accessors).
//
// The state is split by lifetime as Quake III split it: the fields of
// Arena last as long as the map is loaded; level holds what Init clears
// at every start or restart of a match.
type Arena struct {
	engine Engine
	m      *tilemap.Map
	cfg    Config
	nav    *bot.Nav
	logFn  func(LogEntry)

	pcg rand.PCG
	rng *rand.Rand

	lv          level
	gametype    int32 // g_gametype latched at Init
	numEntities int
	ents        [MaxEntities]entity
	shared      [MaxEntities]SharedEntity
	ps          [bg.MaxClients]bg.PlayerState
	clients     [bg.MaxClients]client

	// Scratch space reused every frame so that frames allocate nothing.
	pm        bg.Pmove
	view      bot.View
	botItems  []bot.ItemInfo
	spawnDist []spawnCandidate
	railHits  [bg.MaxClients]boxHit

	// Lag compensation (unlag.go): the players' recent positions, and
	// the boxes of the shot being traced.
	unlag   unlagHistory
	rw      rewind
	cmdTime int32 // ServerTime of the usercmd ClientThink runs

	// scratch is the State AppendState and ReadState go through,
	// allocated at their first use.
	scratch *State
	// inject is InjectNonDeterminism's trap (nondeterminism.go).
	inject struct {
		armed bool
		at    int32
	}
}

// level is the state of one match, cleared by Init (Quake III's
// level_locals_t).
type level struct {
	time, prevTime, startTime int32

	intermission     bool
	intermissionTime int32
	exitSent         bool

	teamScores [bg.TeamSpectator + 1]int

	// Last values written to the score configstrings.
	scores      [2]int
	scoresValid [2]bool
	scoresSet   bool

	nextBotCheck int32
	itemEnts     []int // entity numbers of the map's items
}

var _ Game = (*Arena)(nil)

// New returns the game for map m, talking to engine. It does nothing
// until the engine calls Init.
func New(engine Engine, m *tilemap.Map, cfg Config) *Arena {
	g := &Arena{engine: engine, m: m, cfg: cfg}
	g.rng = rand.New(&g.pcg)
	g.view.Players = make([]bot.PlayerInfo, 0, bg.MaxClients)
	g.spawnDist = make([]spawnCandidate, 0, len(m.Spawns))
	return g
}

// SetConfig applies new settings at once (g_gametype waits for the next
// Init).
func (g *Arena) SetConfig(cfg Config) { g.cfg = cfg }

// Config returns the current settings.
func (g *Arena) Config() Config { return g.cfg }

// SetLog installs fn to receive a LogEntry for every connection, frag,
// pickup, shot, hit, chat line and match end (Quake III's games.log).
// fn runs synchronously inside the game's calls; nil turns logging off.
func (g *Arena) SetLog(fn func(LogEntry)) { g.logFn = fn }

// SetPing records a client's ping in milliseconds, as the engine
// measures it, for the scoreboard.
func (g *Arena) SetPing(client, ms int) {
	if uint(client) < bg.MaxClients {
		g.clients[client].ping = ms
	}
}

// Init starts a match at levelTime (G_InitGame). seed seeds the game's
// only random generator. On restart (map_restart) every client is
// forgotten: the engine calls ClientConnect and ClientBegin again for
// each client still connected, bots included.
func (g *Arena) Init(levelTime int32, seed uint64, restart bool) {
	g.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	g.gametype = g.cfg.GameType
	if g.gametype != bg.GTTeam {
		g.gametype = bg.GTFFA
	}
	for i := range g.ents {
		g.ents[i] = entity{}
		g.shared[i] = SharedEntity{}
	}
	for i := range g.clients {
		g.clients[i] = client{}
		g.ps[i] = bg.PlayerState{}
	}
	items := g.lv.itemEnts[:0]
	g.lv = level{time: levelTime, prevTime: levelTime, startTime: levelTime, itemEnts: items}
	g.numEntities = bg.MaxClients
	g.unlag.n, g.unlag.next = 0, 0
	if g.nav == nil {
		g.nav = bot.NewNav(g.m, nil)
	}
	g.spawnItems()
	g.engine.LocateGameData(g.shared[:], g.numEntities, g.ps[:])

	g.engine.SetConfigstring(bg.CSMapChecksum, strconv.FormatUint(uint64(g.m.Checksum), 10))
	g.engine.SetConfigstring(bg.CSLevelStartTime, itoa(int(levelTime)))
	g.engine.SetConfigstring(bg.CSIntermission, "")
	g.engine.SetConfigstring(bg.CSScores1, "")
	g.engine.SetConfigstring(bg.CSScores2, "")
	for i := 0; i < bg.MaxClients; i++ {
		g.engine.SetConfigstring(bg.CSPlayers+i, "")
	}
	if restart {
		g.engine.Print("game: map_restart")
	}
	g.log(LogEntry{Kind: LogInit, Client: -1, Target: -1})
}

// Shutdown ends the match (G_ShutdownGame). The game may be started
// again with Init.
func (g *Arena) Shutdown() {
	g.log(LogEntry{Kind: LogShutdown, Client: -1, Target: -1})
}

// RunFrame advances the world to levelTime (G_RunFrame): bots think and
// move (unless Config.ExternalBotInput: then their commands came through
// ClientThink before it), missiles fly, items respawn, events expire,
// then the rules look at the scores and the clock.
func (g *Arena) RunFrame(levelTime int32) {
	g.lv.prevTime = g.lv.time
	g.lv.time = levelTime

	if !g.cfg.ExternalBotInput {
		g.botFrame()
	}

	for i := 0; i < g.numEntities; i++ {
		e := &g.ents[i]
		if !e.inUse {
			continue
		}
		sh := &g.shared[i]
		if g.lv.time-e.eventTime > EventValidMsec {
			if sh.S.Event != 0 {
				sh.S.Event = 0
				if i < bg.MaxClients {
					g.ps[i].ExternalEvent = 0
				}
			}
			if e.freeAfterEvent {
				g.free(i)
				continue
			}
		}
		if e.freeAfterEvent {
			continue // temporary entities do not think
		}
		if e.kind == kindMissile {
			g.runMissile(i)
		}
		if e.inUse && e.nextThink > 0 && e.nextThink <= g.lv.time {
			e.nextThink = 0
			g.think(i)
		}
	}

	for i := range g.clients {
		if g.clients[i].state == clientInGame {
			g.clientEndFrame(i)
		}
	}
	g.recordFrame()
	g.checkBotMinPlayers()
	g.updateScores()
	g.checkExitRules()
	if g.inject.armed && g.lv.time >= g.inject.at {
		g.injectNow()
	}
}

// think runs an entity's timed action.
func (g *Arena) think(i int) {
	switch g.ents[i].think {
	case thinkItemRespawn:
		g.respawnItem(i)
	case thinkExplode:
		g.explodeMissile(i)
	}
}

// Map returns the map the game runs on.
func (g *Arena) Map() *tilemap.Map { return g.m }

// LevelTime returns the time of the last RunFrame.
func (g *Arena) LevelTime() int32 { return g.lv.time }

// StartTime returns the time the match started (CSLevelStartTime).
func (g *Arena) StartTime() int32 { return g.lv.startTime }

// Intermission reports whether the match has ended and the scoreboard
// shows.
func (g *Arena) Intermission() bool { return g.lv.intermission }

// NumEntities returns one more than the highest entity number in use.
func (g *Arena) NumEntities() int { return g.numEntities }

// Entity returns the shared part of entity n, or nil if n is out of
// range. The caller must not change it.
func (g *Arena) Entity(n int) *SharedEntity {
	if uint(n) >= MaxEntities {
		return nil
	}
	return &g.shared[n]
}

// EntityInUse reports whether entity slot n holds an entity.
func (g *Arena) EntityInUse(n int) bool {
	return uint(n) < MaxEntities && g.ents[n].inUse
}

// PlayerState returns client's player state, or nil if client is out of
// range. Tests may change it between frames (to place players); the
// engine only reads it.
func (g *Arena) PlayerState(client int) *bg.PlayerState {
	if uint(client) >= bg.MaxClients {
		return nil
	}
	return &g.ps[client]
}

// InGame reports whether client has begun playing (or spectating).
func (g *Arena) InGame(client int) bool {
	return uint(client) < bg.MaxClients && g.clients[client].state == clientInGame
}

// Connected reports whether client is connected, in the game or not.
func (g *Arena) Connected(client int) bool {
	return uint(client) < bg.MaxClients && g.clients[client].state != clientFree
}

// IsBot reports whether client is a bot.
func (g *Arena) IsBot(client int) bool {
	return uint(client) < bg.MaxClients && g.clients[client].isBot
}

// ClientName returns client's name as shown to others.
func (g *Arena) ClientName(client int) string {
	if uint(client) >= bg.MaxClients {
		return ""
	}
	return g.clients[client].name
}

// ClientTeam returns client's team (bg.TeamFree in free for all).
func (g *Arena) ClientTeam(client int) int32 {
	if uint(client) >= bg.MaxClients {
		return bg.TeamSpectator
	}
	return g.clients[client].team
}

// TeamScore returns a team's score in team deathmatch.
func (g *Arena) TeamScore(team int32) int {
	if team < 0 || int(team) >= len(g.lv.teamScores) {
		return 0
	}
	return g.lv.teamScores[team]
}

// GameType returns the game type of the running match.
func (g *Arena) GameType() int32 { return g.gametype }

func (g *Arena) log(e LogEntry) {
	if g.logFn != nil {
		e.Time = g.lv.time
		g.logFn(e)
	}
}
