// Package game is Tremor's server game (Quake III's g_*.c): entities,
// players, weapons, damage, items, rules, chat and bots, behind the
// narrow engine/game boundary of api.go.
//
// The server engine owns the network and the clock. It holds the game as
// a Game and calls it only through that interface — Init, RunFrame,
// ClientConnect, ClientBegin, ClientUserinfoChanged, ClientThink,
// ClientCommand, ClientDisconnect, Shutdown, and SetConfig, SetPing,
// AddBot, Connected, ClientName, GameType for its cvars, pings, console
// and status answers — and the game reaches back only through the Engine
// interface: LocateGameData to show where its entities and player states
// live, configstrings, reliable server commands, DropClient, console
// commands (map_restart) and the log. New returns an *Arena, the game on
// one map, which implements Game and adds what tests and tools call
// directly: SetLog and read-only accessors.
//
// Everything is deterministic integer arithmetic: positions in 1/16
// pixel, velocities in units per second, times in milliseconds, angles
// in 1/65536 turn with a generated sine table, and one seeded random
// generator for the whole game. The same seed and the same commands give
// the same world. Package gametest drives the game headless for tests;
// docs/game.md describes the rules and the numbers.
package game
