package gametest

import (
	"strings"

	"tremor/bg"
	"tremor/game"
)

// Engine is a fake server engine implementing game.Engine with no
// network: it records what the game asks for (configstrings, reliable
// commands per client, dropped clients, console prints), hands out
// client slots, and carries out the console commands the game issues
// once the frame is over, map_restart included (shutting the game down,
// initialising it again and reconnecting every client, as Quake III's
// SV_MapRestart_f did).
type Engine struct {
	// Game is the game the engine drives.
	Game *game.Arena
	// MaxClients is sv_maxclients: slots 0..MaxClients-1 are used.
	MaxClients int
	// Time is the current server time; Seed the seed of the running
	// match. Restart uses both.
	Time int32
	Seed uint64
	// Restarts counts map_restart commands carried out.
	Restarts int

	configstrings [bg.MaxConfigstrings]string
	commands      [bg.MaxClients][]string
	prints        []string
	drops         []Drop
	executed      []string
	pending       []string
	slots         [bg.MaxClients]slot

	ents        []game.SharedEntity
	numEntities int
}

// slot is one client slot of the fake engine.
type slot struct {
	used     bool
	bot      bool
	userinfo string
}

// Drop records a DropClient call.
type Drop struct {
	Client int
	Reason string
}

var _ game.Engine = (*Engine)(nil)

// NewEngine returns a fake engine with 64 client slots.
func NewEngine() *Engine {
	return &Engine{MaxClients: bg.MaxClients}
}

// LocateGameData records where the game keeps its entities.
func (e *Engine) LocateGameData(ents []game.SharedEntity, numEntities int, _ []bg.PlayerState) {
	e.ents, e.numEntities = ents, numEntities
}

// SetConfigstring records a configstring change.
func (e *Engine) SetConfigstring(index int, value string) {
	if uint(index) >= bg.MaxConfigstrings {
		panic("gametest: configstring index out of range")
	}
	e.configstrings[index] = value
}

// Configstring returns a configstring.
func (e *Engine) Configstring(index int) string {
	if uint(index) >= bg.MaxConfigstrings {
		return ""
	}
	return e.configstrings[index]
}

// SendServerCommand queues text for client, or for every connected
// client when client is -1.
func (e *Engine) SendServerCommand(client int, text string) {
	if client == -1 {
		for i := range e.slots {
			if e.slots[i].used {
				e.commands[i] = append(e.commands[i], text)
			}
		}
		return
	}
	if uint(client) >= bg.MaxClients {
		panic("gametest: server command for an invalid client")
	}
	if e.slots[client].used {
		e.commands[client] = append(e.commands[client], text)
	}
}

// Commands returns the reliable commands sent to client so far.
func (e *Engine) Commands(client int) []string {
	if uint(client) >= bg.MaxClients {
		return nil
	}
	return e.commands[client]
}

// ClearCommands forgets the commands sent to every client.
func (e *Engine) ClearCommands() {
	for i := range e.commands {
		e.commands[i] = e.commands[i][:0]
	}
}

// DropClient records the drop, frees the slot and calls the game's
// ClientDisconnect, as SV_DropClient does.
func (e *Engine) DropClient(client int, reason string) {
	e.drops = append(e.drops, Drop{client, reason})
	if uint(client) >= bg.MaxClients || !e.slots[client].used {
		return
	}
	e.slots[client] = slot{}
	e.commands[client] = nil
	e.Game.ClientDisconnect(client)
}

// Drops returns the DropClient calls so far.
func (e *Engine) Drops() []Drop { return e.drops }

// Command queues a console command; RunCommands carries it out after
// the frame, as the engine's command buffer would.
func (e *Engine) Command(text string) { e.pending = append(e.pending, text) }

// Executed returns the console commands carried out so far.
func (e *Engine) Executed() []string { return e.executed }

// Print records a server log line.
func (e *Engine) Print(text string) { e.prints = append(e.prints, text) }

// Prints returns the server log lines so far.
func (e *Engine) Prints() []string { return e.prints }

// BotAllocateClient takes the lowest free slot for a bot.
func (e *Engine) BotAllocateClient(userinfo string) int {
	n := e.freeSlot()
	if n >= 0 {
		e.slots[n] = slot{used: true, bot: true, userinfo: userinfo}
	}
	return n
}

// Connect connects a human with userinfo in the lowest free slot and
// begins it, as the engine does once the client has the gamestate. It
// returns the client number, or -1 and the game's reason.
func (e *Engine) Connect(userinfo string) (int, string) {
	n := e.freeSlot()
	if n < 0 {
		return -1, "server is full"
	}
	e.slots[n] = slot{used: true, userinfo: userinfo}
	if reason := e.Game.ClientConnect(n, userinfo, false); reason != "" {
		e.slots[n] = slot{}
		return -1, reason
	}
	e.Game.ClientBegin(n)
	return n, ""
}

// SetUserinfo changes a connected client's userinfo and tells the game.
func (e *Engine) SetUserinfo(client int, userinfo string) {
	if uint(client) >= bg.MaxClients || !e.slots[client].used {
		return
	}
	e.slots[client].userinfo = userinfo
	e.Game.ClientUserinfoChanged(client, userinfo)
}

func (e *Engine) freeSlot() int {
	for i := 0; i < e.MaxClients && i < bg.MaxClients; i++ {
		if !e.slots[i].used {
			return i
		}
	}
	return -1
}

// Entities returns the entities the game located, up to its entity
// count.
func (e *Engine) Entities() []game.SharedEntity { return e.ents[:e.numEntities] }

// RunCommands carries out the queued console commands. map_restart
// restarts the match: Shutdown, Init(Time, Seed+Restarts, true), then
// ClientConnect and ClientBegin for every used slot. Other commands are
// only recorded.
func (e *Engine) RunCommands() {
	for len(e.pending) > 0 {
		cmd := e.pending[0]
		e.pending = e.pending[1:]
		e.executed = append(e.executed, cmd)
		if f := strings.Fields(cmd); len(f) > 0 && f[0] == "map_restart" {
			e.Restart()
		}
	}
}

// Restart carries out map_restart.
func (e *Engine) Restart() {
	e.Restarts++
	e.Game.Shutdown()
	e.Game.Init(e.Time, e.Seed+uint64(e.Restarts), true)
	for i := range e.slots {
		s := &e.slots[i]
		if !s.used {
			continue
		}
		if reason := e.Game.ClientConnect(i, s.userinfo, s.bot); reason != "" {
			e.DropClient(i, reason)
			continue
		}
		e.Game.ClientBegin(i)
	}
}
