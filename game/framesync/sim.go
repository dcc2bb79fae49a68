package framesync

import (
	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
)

// Sim is a client's copy of the game: the same game.Arena the server
// runs, on the same map, driven by frames through Apply, behind an engine
// that keeps nothing. Its engine ignores configstrings, server commands,
// console commands and prints (the server's engine sends the real ones);
// DropClient calls the game's ClientDisconnect at once, as the server's
// engine does; BotAllocateClient answers with the BotSlots of the frame
// being applied, in order, and -1 past them (a predicted frame has none).
type Sim struct {
	g   *game.Arena
	eng simEngine
}

// NewSim makes the game for map m with cfg (Config.ExternalBotInput set
// whatever cfg says) and starts it (Init at time 0, seed 0), so that it
// has what lives as long as the map; a whole state or an EventInit
// replaces that match.
func NewSim(m *tilemap.Map, cfg game.Config) *Sim {
	s := &Sim{}
	cfg.ExternalBotInput = true
	s.g = game.New(&s.eng, m, cfg)
	s.eng.g = s.g
	s.g.Init(0, 0, false)
	return s
}

// Game returns the game, for reading (the cgame draws from it). Changing
// it directly breaks the Sync's saved states.
func (s *Sim) Game() *game.Arena { return s.g }

// Apply runs frame f (Apply), answering the game's BotAllocateClient with
// f.BotSlots.
func (s *Sim) Apply(f *Frame) {
	s.eng.slots, s.eng.next = f.BotSlots, 0
	Apply(s.g, f)
	s.eng.slots = nil
}

// Save copies the game's state into st.
func (s *Sim) Save(st *game.State) { s.g.SaveState(st) }

// Load puts the game back in the state st holds.
func (s *Sim) Load(st *game.State) { s.g.LoadState(st) }

// Hash returns the game's state hash.
func (s *Sim) Hash() uint64 { return s.g.StateHash() }

// simEngine is the Sim's game.Engine.
type simEngine struct {
	g     *game.Arena
	slots []int32 // BotAllocateClient's answers of the frame being applied
	next  int
}

// LocateGameData does nothing: the client reads the game through Sim.Game.
func (e *simEngine) LocateGameData([]game.SharedEntity, int, []bg.PlayerState) {}

// SetConfigstring does nothing: the server's engine sends the real ones.
func (e *simEngine) SetConfigstring(int, string) {}

// Configstring returns "": the game does not read configstrings back.
func (e *simEngine) Configstring(int) string { return "" }

// SendServerCommand does nothing: the server's engine sends the real ones.
func (e *simEngine) SendServerCommand(int, string) {}

// Command does nothing: the server runs the game's console commands
// (map_restart comes back as an EventInit).
func (e *simEngine) Command(string) {}

// Print does nothing.
func (e *simEngine) Print(string) {}

// DropClient removes the client from the game at once.
func (e *simEngine) DropClient(client int, _ string) { e.g.ClientDisconnect(client) }

// BotAllocateClient returns the server's next answer of the frame being
// applied, or -1.
func (e *simEngine) BotAllocateClient(string) int {
	if e.next >= len(e.slots) {
		return -1
	}
	n := e.slots[e.next]
	e.next++
	return int(n)
}
