// Package client is Tremor's client engine, the counterpart of Quake III's
// cl_*.c: the connection to a server, the usercmds sent up, the snapshots
// and reliable commands received, and the clock that keeps the client's
// idea of server time close to the server's. cgame (prediction and
// interpolation) reads everything it needs through the cgame.Client
// interface, which *Client implements.
//
// # Connection
//
// A Client goes through Quake III's states:
//
//	Disconnected  nothing to do
//	Connecting    "getchallenge <clientChallenge> <padding>" sent every
//	              ResendInterval (3 s) until a challengeResponse that
//	              echoes the client challenge; give up after
//	              ConnectTries packets
//	Challenging   "connect" with the userinfo (name, rate, snaps,
//	              protocol, qport, challenge) resent the same way until
//	              a connectResponse with that challenge; back to
//	              Connecting with a fresh client challenge after
//	              ConnectsPerChallenge connects, or at once when the
//	              server prints that the challenge is bad; give up after
//	              ConnectTries challenges
//	Connected     the netchan is up; a packet a second carries the
//	              acknowledgements until the gamestate arrives
//	Primed        gamestate parsed, map loaded and its checksum checked;
//	              usercmds flow, waiting for the first snapshot that is
//	              not flagged proto.SnapNotActive
//	Active        in the game
//
// Only the server's address is listened to, and only answers to the
// client's own requests count: the client challenge, random for every
// challenge asked, must come back in challengeResponse, and the
// challenge in connectResponse; other answers are counted in
// Stats.HandshakeRefused. The getchallenge padding (oob.FormatGetChallenge)
// makes the request as long as the reply, so a server can answer
// without amplifying a forged request.
//
// A server silent for Config.Timeout in any connected state drops the
// client ("server connection timed out"); a reliable "disconnect" from
// the server ends the connection as told; Disconnect and Reconnect are
// the user's commands.
//
// # Frame
//
// The owner calls Frame once per client frame with the time and the
// player's input. Frame reads the packets that arrived (a goroutine reads
// the socket into a fixed ring of buffers), checks timeouts, stores the
// input as a usercmd stamped with the estimated server time, sends a
// usercmd packet when cl_maxpackets allows (carrying every command since
// the packet cl_packetdup+1 packets back and every unacknowledged reliable
// command), resends the handshake, and runs the time synchronisation
// (CL_SetCGameTime): the server-time estimate is reset when it is more
// than 500 ms off the newest snapshot, moved half way when more than
// 100 ms off, and otherwise drifted 1 ms later or 2 ms earlier depending
// on whether the frames since the previous snapshot had to extrapolate.
// Unlike Quake III, the render time does not run backwards for a
// correction: when the estimate jumps back, it runs at half speed until
// the estimate catches up. Only after a stall, when the estimate jumps
// back by more than JumpBackTime (1 s), does it follow at once, as Quake
// III always did: catching up at half speed would leave the usercmds in
// the future, and prediction without its commands, for twice the stall.
//
// # Client game
//
// With Config.CGame set, the engine owns the client game, as Quake III's
// engine owned the cgame VM: it makes a cgame.CGame for each gamestate
// (CL_InitCGame), frames it at the end of every Frame once Active
// (CG_DRAW_ACTIVE_FRAME), and drops it with the gamestate, on a
// disconnect, and in a demo on every jump in time (CL_ShutdownCGame).
// The front ends — the window session, the headless players, Playback —
// only read it (CGame). cgame reaches the engine only through the
// cgame.Client interface.
//
// # Lifetimes
//
// The engine's state has Quake III's three lifetimes: the Client's own
// fields last the whole run (clientStatic_t cls), the connection struct
// one connection (clientConnection_t clc, replaced by Connect), and the
// active struct one gamestate (clientActive_t cl, replaced by a
// gamestate, a disconnect or a new connection: CL_ClearState). A reset
// replaces the struct, so a field added to one is reset with it.
//
// # Parsing
//
// A server message is its reliable acknowledge and operations: server
// commands (kept in a ring of proto.MaxReliableCommands and executed in
// sequence order, exactly once; a jump in the sequence is counted as a
// gap), the gamestate, and snapshots. A snapshot is delta-decoded from the
// one its header names if that one is still in the ring of
// proto.PacketBackup snapshots and its entities are still in the parse
// entity ring; otherwise it is read to the end and thrown away, and the
// next usercmd packet asks for a full snapshot (clc_moveNoDelta). Steady
// state parsing does not allocate.
//
// Messages are unscrambled, and sent scrambled, when the server's
// systeminfo says sv_scramble 1.
//
// # Diagnostics
//
// Quake III's showpackets and cl_shownet (Config.ShowPackets,
// Config.ShowNet) print every packet and every server message, down to
// the fields each snapshot changed, through Config.Logf; off, they cost
// nothing. NetGraph returns a net graph's figures over the last second:
// bytes and packets each way, loss, ping, snapshot jitter, snapshot rate,
// full snapshots and the reliable commands waiting.
package client
