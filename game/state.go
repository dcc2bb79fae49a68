package game

import (
	"math/rand/v2"

	"tremor/bg"
)

// Saved states (frame sync's rollback, issue 27; docs/game.md §12). A
// State is a copy of everything the simulation's next frame depends on,
// so that a game can be put back where it was and run again: what
// StateHash hashes, and what it leaves out but the simulation reads.
//
// In a State:
//   - the settings (Config) and the game type latched at Init;
//   - the random generator (the PCG's value, not the *rand.Rand that
//     draws from it);
//   - the level: its times, intermission, team scores, the scores last
//     written, the next bot_minplayers check, the item entity list;
//   - numEntities, and every entity slot below it: the game's entity,
//     the shared part the engine reads (in use or free: a free slot
//     keeps the time it was freed, which decides when it is reused);
//   - every client slot: its record (connection state, bot flag and
//     skill, name, userinfo, team and the team asked for at connect,
//     ping, timers) and its PlayerState.
//
// Not in a State:
//   - the bots' brains (*bot.Bot). They live on the server only (frame
//     sync sends the bots' commands as inputs: Config.ExternalBotInput),
//     and a brain is not copied cheaply. LoadState keeps, for a slot
//     that is a bot in the loaded state, the brain the game has in that
//     slot now (none if it has none), so a brain follows its slot; a
//     rolled-back game with brains thinking inside RunFrame would not
//     repeat itself, which is why frame sync thinks them outside.
//   - the lag-compensation history (unlag.go): 128 frames of 64 players,
//     too much to copy every frame, and read only to rewind a human's
//     hitscan shot stamped before the level time. LoadState empties it,
//     as Init does. A loaded game therefore continues exactly as the
//     saved one did when Config.Unlagged is off or when every command
//     is stamped no earlier than the level time it runs at; frame sync
//     stamps every command with its frame's time and runs it before
//     that frame's RunFrame, so no shot is ever rewound there.
//   - what lives as long as the map (the map, the engine, the bots'
//     navigation graph, the log function) and scratch space.
//
// Slots at or above numEntities are not copied: the game never touches
// them after Init, so they hold the zero entity; LoadState clears those
// a later frame had used.
type State struct {
	valid       bool
	mapChecksum uint32

	cfg         Config
	gametype    int32
	pcg         rand.PCG
	lv          level // lv.itemEnts is the State's own copy
	numEntities int

	// ents and shared hold the slots below numEntities; they grow to
	// the largest numEntities saved and are reused.
	ents    []entity
	shared  []SharedEntity
	ps      [bg.MaxClients]bg.PlayerState
	clients [bg.MaxClients]client // bot is always nil
}

// stateEntities is how many entity slots NewState makes room for: more
// than a match on the shipped maps uses. A State grows past it when it
// must, once.
const stateEntities = 512

// NewState returns an empty State, with room for a match's entities.
// Save a game into it before loading it.
func NewState() *State {
	return &State{
		ents:   make([]entity, 0, stateEntities),
		shared: make([]SharedEntity, 0, stateEntities),
	}
}

// LevelTime returns the level time of the game the state was saved from
// (the time of its last RunFrame), 0 for an empty State.
func (s *State) LevelTime() int32 { return s.lv.time }

// MapChecksum returns the checksum of the map of the game the state was
// saved from (tilemap.Map.Checksum).
func (s *State) MapChecksum() uint32 { return s.mapChecksum }

// SaveState copies the game's state into s (see State). It allocates
// nothing once s has held a state of as many entities.
func (g *Arena) SaveState(s *State) {
	s.valid = true
	s.mapChecksum = g.m.Checksum
	s.cfg = g.cfg
	s.gametype = g.gametype
	s.pcg = g.pcg
	items := append(s.lv.itemEnts[:0], g.lv.itemEnts...)
	s.lv = g.lv
	s.lv.itemEnts = items
	n := g.numEntities
	s.numEntities = n
	s.ents = append(s.ents[:0], g.ents[:n]...)
	s.shared = append(s.shared[:0], g.shared[:n]...)
	s.ps = g.ps
	s.clients = g.clients
	for i := range s.clients {
		s.clients[i].bot = nil
	}
}

// LoadState puts the game back in the state s holds, saved by SaveState
// (or read by State.Read), and tells the engine where the entities are
// again (Engine.LocateGameData: numEntities may have changed). Bots'
// brains and the lag-compensation history are not in a State: see there.
// The game may have been started (Init) or not. It panics on a State
// that holds nothing. It allocates nothing once the game has held as
// many items.
func (g *Arena) LoadState(s *State) {
	if !s.valid {
		panic("game: LoadState of a State that was never saved or failed to read")
	}
	g.cfg = s.cfg
	g.gametype = s.gametype
	g.pcg = s.pcg
	items := append(g.lv.itemEnts[:0], s.lv.itemEnts...)
	g.lv = s.lv
	g.lv.itemEnts = items
	n := s.numEntities
	copy(g.ents[:n], s.ents)
	copy(g.shared[:n], s.shared)
	for i := n; i < g.numEntities; i++ {
		g.ents[i] = entity{}
		g.shared[i] = SharedEntity{}
	}
	g.numEntities = n
	g.ps = s.ps
	for i := range g.clients {
		brain := g.clients[i].bot
		g.clients[i] = s.clients[i]
		if g.clients[i].isBot {
			g.clients[i].bot = brain
		}
	}
	g.unlag.n, g.unlag.next = 0, 0
	g.rw.on = false
	g.engine.LocateGameData(g.shared[:], g.numEntities, g.ps[:])
}
