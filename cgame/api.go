package cgame

import "tremor/bg"

// This file is the client engine/cgame boundary (Quake III's cg_public.h:
// the trap_Get* calls cgame makes into the client engine). The client
// engine (client) implements Client; cgame reads snapshots and
// usercmds only through it.

// Snapshot is one snapshot as the client engine parsed it (snapshot_t).
type Snapshot struct {
	MessageNum int32 // netchan sequence it arrived in
	ServerTime int32
	Flags      int32 // proto.Snap* flags
	Ping       int32 // ms, from the acknowledgement of the usercmd packet it answers
	PS         bg.PlayerState
	Entities   []bg.EntityState // sorted by Number; valid until the snapshot leaves the ring
	// ServerCommandSequence is the newest server command received with
	// or before this snapshot: cgame executes commands up to it.
	ServerCommandSequence int32
}

// Client is what cgame asks of the client engine.
type Client interface {
	// CurrentSnapshotNumber returns the message number and server time of
	// the newest valid snapshot (trap_GetCurrentSnapshotNumber).
	CurrentSnapshotNumber() (num, serverTime int32)
	// GetSnapshot copies snapshot num into s, if it is still in the ring
	// and was valid (trap_GetSnapshot).
	GetSnapshot(num int32, s *Snapshot) bool
	// CurrentCmdNumber returns the number of the newest usercmd
	// (trap_GetCurrentCmdNumber).
	CurrentCmdNumber() int32
	// GetUserCmd returns usercmd num if it is still in the command ring
	// (trap_GetUserCmd).
	GetUserCmd(num int32, cmd *bg.UserCmd) bool
	// ServerTime is the client's estimate of the server time to render at
	// this frame (cl.serverTime: the time-sync estimate shifted back by
	// cl_timeNudge).
	ServerTime() int32
	// Configstring returns a configstring of the current gamestate.
	Configstring(index int) string
	// GetServerCommand returns server command seq once it is in the ring
	// (trap_GetServerCommand); false if it was overwritten.
	GetServerCommand(seq int32) (string, bool)
}

// FrameEventSource is what an engine that runs the game itself (frame
// sync, SetFrameSync) gives cgame beside its snapshots; its Client may
// implement it. The engine finds the events of every frame its game
// runs — those it gives cgame as snapshots, and those a rollback runs
// again, which it does not — and numbers them in order from 1, as the
// server numbers its commands. cgame then plays, as each snapshot becomes
// current, the frame events up to the one the engine had found when it
// made that snapshot, instead of reading events from the snapshots
// (frameevent.go).
type FrameEventSource interface {
	// SnapshotEventSequence returns the number of the newest frame
	// event the engine had found when it made snapshot num (0: none
	// yet); false if it no longer knows.
	SnapshotEventSequence(num int32) (seq int32, ok bool)
	// GetFrameEvent copies frame event seq into e if the engine still
	// holds it.
	GetFrameEvent(seq int32, e *FrameEvent) bool
}

// FrameEvent is one event an engine that runs the game itself found in a
// frame it ran (FrameEventSource): what cgame would have found in a
// snapshot of that frame and of the frame before it.
type FrameEvent struct {
	// Frame is the level time of the frame the event happened in.
	Frame int32
	// Pass numbers the engine's runs of its game from a state: a new
	// pass begins each time it puts the game back in a saved state (a
	// rollback, a whole state), from the frame at level time After.
	// The frames after After that had run before run again in the pass,
	// so an event played from an earlier run of one of them may be this
	// one.
	Pass, After int32
	// Predicted: the frame ran predicted, not confirmed; the event may
	// be one the server's game never makes.
	Predicted bool
	// Source is SourceTemp (a temporary event entity), SourceEntity
	// (another entity's Event), or for the local player's own events
	// SourcePlayerState (its predictable events) and SourceExternal.
	Source EventSource
	Event  int32 // bg.Ev*, the counter bits removed
	Parm   int32
	Entity int32 // entity number; the local client's number for its own events
	// Origin is where it happened: the entity's position, or the
	// player's origin, at Frame.
	Origin bg.Vec
	// State is the entity's state in that frame for SourceTemp and
	// SourceEntity; zero otherwise.
	State bg.EntityState
}
