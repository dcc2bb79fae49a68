// Package server is Tremor's server engine, the counterpart of Quake III's
// sv_*.c: client slots and the connectionless handshake, the gamestate,
// reliable commands both ways, usercmds, per-client delta snapshots under
// a rate, and the console commands of a dedicated server. It hosts a game
// through the game.Game interface only (Quake III's vmMain entry points)
// and implements the game's Engine interface (engine.go, Quake III's
// trap_* calls): the boundary Quake III drew with its game VM.
//
// # Ownership and time
//
// One goroutine owns a Server: Run reads packets, hands each to Packet,
// and calls Frame; tests, and the window client for its embedded server,
// drive Packet and Frame by hand with their own clock. Exec and Do queue
// work for that goroutine from any other. The server's cvars and commands
// live in a console table (its own, or the program's: WithConsole,
// WithHostConsole), executed by the owning goroutine only; the cvars are
// bound to the fields of Config, so a change through any path (console,
// +set, rcon) is in the field at once. Time
// is a parameter: real milliseconds given to Packet and Frame, from which
// Frame runs server frames of 1000/sv_fps ms on its own frame clock (the
// server time snapshots carry, Quake III's svs.time), catching up at most
// MaxFrameCatchUp ms at once.
//
// State kept for the whole run (static: clients, the challenge key, rate
// limiters, the frame clock) is separate from the state of the map being
// played (level: the game, configstrings, baselines, server id, checksum
// feed, the snapshot entity ring), as Quake III separated svs and sv.
//
// # Connecting
//
//	client                                   server
//	getchallenge CC PADDING         ->       HMAC of the sender's address, port and 30 s epoch
//	                                <-       challengeResponse N CC 3   (never longer than the request)
//	connect "\name\..\protocol\3\qport\Q\challenge\N\rate\..\snaps\.."
//	                                <-       connectResponse N    (or print "Server is full." ...)
//	netchan packets (any serverId)  ->       the first one gets the gamestate: state primed
//	usercmd with the gamestate's serverId -> ClientBegin: state active
//
// Challenges are stateless (limit.go): there is no table for a flood to
// fill. A connect from the exact address and port of an existing slot
// reuses it; the same connect seen again before the client has used its
// connection is answered again, and one seen within ReconnectLimit of the
// last is ignored (a late duplicate). Packets must come from the exact
// address and port of a connection.
//
// The gamestate is sent again when a client that is not active
// acknowledges a message past it while still sending another server id
// (Quake III's gamestateMessageNum rule). Primed clients get a snapshot
// flagged proto.SnapNotActive once a second, so that rule fires within a
// second of a lost gamestate. The gamestate's CommandSequence is the last
// reliable command written ahead of it in the same message.
//
// # Messages
//
// Server to client: the last client command received (long), the
// unacknowledged reliable commands (proto.WriteServerCommand), then a
// gamestate or a snapshot, sv_padPackets nops, proto.SvcEOF. Client to
// server: proto.ClientHeader, client commands, a move, proto.ClcEOF; the
// commands and the move are read only when the header carries the current
// server id.
//
// Scrambling (sv_scramble, latched per map) is announced in the
// systeminfo configstring as \sv_scramble\1. Both sides apply it once the
// client has that gamestate: the client scrambles every message carrying
// the gamestate's server id (proto.ScrambleClientMessage, keyed by the
// challenge, the header and the server command it acknowledges), and
// unscrambles every message after the gamestate message
// (proto.ScrambleServerMessage, keyed by the challenge, the message's
// sequence and the client command the message acknowledges). A gamestate
// message itself is scrambled as the client's previous gamestate said
// (not at all for the first), so a client reads it with the setting it
// already has. A client without a gamestate must ignore messages it
// cannot read: they are the snapshots that follow a gamestate it lost.
//
// # Snapshots
//
// After every frame, each primed or active client whose time has come gets
// a snapshot: its player state and the entities whose bounds overlap a
// ViewWidth × ViewHeight pixel rectangle around it (plus
// game.SvfBroadcast ones, never its own). The next one may go
// max(1000/min(snaps, sv_fps), (bytes+HeaderRateBytes)*1000/rate) ms
// later; when the rate set the delay, or fragments were still going out,
// the next snapshot carries proto.SnapRateDelayed. A snapshot is
// delta-coded from the one in the client's last acknowledged message
// when that message is less than PacketBackup-3 messages old, carried a
// snapshot sent after the client's gamestate, and its entities are still
// in the entity ring; otherwise (and after clc_moveNoDelta) it is full.
// No snapshot is sent twice, and none starts while a fragmented message
// is going out; fragments are paced by the client's rate.
//
// # Limits
//
// Server commands wait in each client's outbox and are packed into as few
// reliable slots as fit when its next message is built (flushCommands);
// configstring changes coalesce. Only a client whose own acknowledgements
// stall until MaxOutboxBytes wait is dropped for overflow. A client
// command sequence that skips one drops the client. In every state,
// client commands beyond sv_floodProtect a second are acknowledged but not
// executed, and a client that persists (MaxFloodedCommands in FloodWindow)
// is dropped; userinfo changes apply at most once per UserinfoInterval,
// newest first. A usercmd's time is pulled back to the frame clock +
// MaxCommandAhead. Connectionless limits are per source (IPv4 address or
// IPv6 /64, see srclimit.Source): queries (QueryBurst, except from the
// masters of sv_master1-5; and in a flood, from all
// sources, answers of no more bytes than the queries brought:
// srclimit.FloodBudget), rcon (RconBurst, and a backoff after RconFreeFailures
// wrong passwords), connect refusals (RefusalBurst); the
// handshake needs none, its answers never being larger than the requests.
// docs/security.md explains the threat model.
//
// docs/server.md describes the server for users and students.
package server
