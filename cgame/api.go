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

// RollbackSource is what an engine that runs the game itself (frame
// sync, SetFrameSync) tells cgame beside its snapshots; its Client may
// implement it. SnapshotRollback reports whether the engine's simulation
// ran frames again (a rollback, or a whole state loaded) after it made
// the snapshot before num and before it made num, and from the level
// time of the first of them: the events of those frames that cgame
// already played from the snapshots before may come again, in other
// entities or changed in their details, and are not played twice.
type RollbackSource interface {
	SnapshotRollback(num int32) (from int32, ok bool)
}
