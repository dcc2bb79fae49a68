package server

import (
	"tremor/bg"
	"tremor/game"
	"tremor/net/cmdargs"
)

// engine is the server's side of the engine/game boundary: the calls the
// game makes back into the engine (Quake III's trap_* syscalls,
// SV_GameSystemCalls). It is a separate type so that these calls are not
// part of Server's own API.
type engine struct{ s *Server }

var _ game.Engine = engine{}

// LocateGameData records where the game keeps its entities and player
// states; snapshots are built from them.
func (e engine) LocateGameData(ents []game.SharedEntity, numEntities int, clients []bg.PlayerState) {
	if lv := e.s.sv; lv != nil {
		lv.ents, lv.numEntities, lv.ps = ents, min(numEntities, len(ents)), clients
	}
}

// SetConfigstring changes a configstring and sends it to every client.
func (e engine) SetConfigstring(index int, value string) { e.s.setConfigstring(index, value) }

// Configstring returns a configstring.
func (e engine) Configstring(index int) string {
	if e.s.sv == nil || uint(index) >= bg.MaxConfigstrings {
		return ""
	}
	return e.s.sv.gamestate.Configstrings[index]
}

// SendServerCommand queues a reliable command for client, or for every
// client with a gamestate when client is -1. Broadcast prints are also
// logged.
func (e engine) SendServerCommand(client int, text string) {
	s := e.s
	if client == -1 {
		if len(text) > 6 && text[:6] == "print " {
			args := cmdargs.Tokenize(text)
			s.logf("broadcast: %s", args.Argv(1))
		}
		s.broadcastCommand(text)
		return
	}
	if uint(client) < bg.MaxClients {
		s.addServerCommand(&s.svs.clients[client], text)
	}
}

// DropClient drops a client; the game's ClientDisconnect runs at once.
func (e engine) DropClient(client int, reason string) {
	if uint(client) < bg.MaxClients {
		e.s.dropClient(&e.s.svs.clients[client], reason)
	}
}

// Command queues console text to run after the current frame.
func (e engine) Command(text string) { e.s.Exec(text) }

// Print writes a line to the server log.
func (e engine) Print(text string) { e.s.logf("%s", text) }

// BotAllocateClient gives a bot the lowest free slot below sv_maxclients.
func (e engine) BotAllocateClient(userinfo string) int {
	s := e.s
	if s.sv == nil {
		return -1
	}
	for i := 0; i < s.sv.maxClients; i++ {
		c := &s.svs.clients[i]
		if c.state != StateFree {
			continue
		}
		c.resetConnection()
		c.bot = true
		c.state = StateActive
		c.applyUserinfo(userinfo)
		return i
	}
	return -1
}
