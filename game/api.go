package game

import (
	"tremor/bg"
	"tremor/net/cmdargs"
)

// This file is the engine/game boundary, the line Quake III drew with its
// VM (gameExport_t one way, the trap_* syscalls the other). The server
// engine (server) drives a Game; the game reaches back only
// through the Engine interface. Neither side sees the other's internals.

// Engine is everything the game may ask of the server engine (Quake III's
// trap_* calls). The engine implements it; tests use a fake.
type Engine interface {
	// LocateGameData tells the engine where the game keeps its entities
	// and player states (trap_LocateGameData). The engine reads them when
	// it builds snapshots; the game calls again whenever numEntities grows.
	LocateGameData(ents []SharedEntity, numEntities int, clients []bg.PlayerState)
	// SetConfigstring changes a configstring; the engine sends the change
	// to every client reliably.
	SetConfigstring(index int, value string)
	// Configstring returns a configstring's current value.
	Configstring(index int) string
	// SendServerCommand queues a reliable command for one client, or for
	// every client when client is -1 (trap_SendServerCommand).
	SendServerCommand(client int, text string)
	// DropClient disconnects a client with a reason. The engine calls
	// the game's ClientDisconnect for it (at once, as SV_DropClient did),
	// so the game may call DropClient from inside its own calls.
	DropClient(client int, reason string)
	// Command runs a command on the server console, such as
	// "map_restart 0" at the end of an intermission.
	Command(text string)
	// Print writes a line to the server log.
	Print(text string)
	// BotAllocateClient takes a free client slot for a bot with this
	// userinfo and returns its number, or -1 when every slot is taken
	// (trap_BotAllocateClient with trap_SetUserinfo). The engine treats
	// the slot as a connected client without a connection: it keeps the
	// userinfo for map_restart, and DropClient frees it. The game then
	// calls its own ClientConnect and ClientBegin for the slot.
	BotAllocateClient(userinfo string) int
}

// Game is what the server engine calls in the game (Quake III's vmMain
// entry points, gameExport_t), and all the engine knows of it: the
// engine holds a Game, never the type behind it (New's *Arena). All
// times are server times in milliseconds.
type Game interface {
	// Init starts a match on the map; restart is set by map_restart.
	// Init forgets every client: after it the engine calls ClientConnect
	// (isBot for bots) and ClientBegin again for every client still
	// connected, as Quake III's map_restart did.
	Init(levelTime int32, seed uint64, restart bool)
	// Shutdown ends the match.
	Shutdown()
	// RunFrame advances the world to levelTime: missiles, items, timers,
	// rules, and one think of every bot.
	RunFrame(levelTime int32)
	// ClientConnect admits client or returns a reason to deny it.
	ClientConnect(client int, userinfo string, isBot bool) (denied string)
	// ClientBegin puts a connected client into the game (after it has
	// loaded the gamestate).
	ClientBegin(client int)
	// ClientUserinfoChanged applies a new userinfo (name, team...).
	ClientUserinfoChanged(client int, userinfo string)
	// ClientThink executes one usercmd of a client, on arrival, through
	// bg.Pmove.
	ClientThink(client int, cmd *bg.UserCmd)
	// ClientCommand executes a client's reliable command (say, score...).
	ClientCommand(client int, args *cmdargs.Args)
	// ClientDisconnect removes a client.
	ClientDisconnect(client int)

	// SetConfig applies the engine's new settings of the game at once;
	// g_gametype waits for the next Init (Quake III's game read its cvars
	// itself, trap_Cvar_Update in G_UpdateCvars).
	SetConfig(cfg Config)
	// SetPing gives the game a client's ping in milliseconds, as the
	// engine measures it, for the scoreboard (SV_CalcPings writing
	// playerState_t.ping).
	SetPing(client, ms int)
	// AddBot puts a bot named name in the game, its skill clamped to 1
	// to 5, and returns its client number (the addbot console command, which
	// Quake III's engine passed to the game's GAME_CONSOLE_COMMAND,
	// Svcmd_AddBot_f).
	AddBot(name string, skill int) (int, error)
	// Connected reports whether the game holds client, in the game or
	// not (CON_CONNECTING and later of Quake III's gclient_t).
	Connected(client int) bool
	// ClientName returns client's name as the game shows it to others,
	// made unique (the game's netname, which Quake III's engine read
	// from the client's userinfo instead).
	ClientName(client int) string
	// GameType returns the game type of the running match, for the
	// server's info answers (Quake III's SVC_Info read the g_gametype
	// cvar).
	GameType() int32
	// StateHash returns the hash of everything the simulation's next
	// frame depends on (statehash.go, docs/statehash.md): the same
	// inputs give the same hash on every run and every machine. The
	// engine takes it after every RunFrame.
	StateHash() uint64
}

// SharedEntity is the part of a game entity the engine reads (Quake III's
// entityState_t plus entityShared_t).
type SharedEntity struct {
	S       bg.EntityState
	Linked  bool   // in the world: a candidate for snapshots
	SvFlags int32  // SvfNoClient, SvfBroadcast...
	Mins    bg.Vec // bounds relative to S.Pos.Base, for visibility
	Maxs    bg.Vec
}

// SvFlags.
const (
	SvfNoClient  = 1 << iota // never sent to clients
	SvfBroadcast             // sent to every client regardless of distance
	SvfBot                   // a bot's player entity
)
