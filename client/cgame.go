package client

import (
	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
)

var _ cgame.Client = (*Client)(nil)

// CGame returns the client game of the current gamestate, nil when the
// engine runs none (Config.CGame nil), before it made one, or after the
// gamestate ended. The engine makes one for every gamestate: a new
// gamestate, a disconnect, a demo's jump in time replace it (a
// map_restart does not: cgame's own map_restart command handles it, as
// CG_MapRestart did). A front end draws it and reads its state between
// Frames, and keeps the pointer if it wants the counters of a cgame
// that was replaced.
func (c *Client) CGame() *cgame.CGame { return c.active.cg }

// initCGame makes the client game of the current gamestate (Quake III's
// CL_InitCGame and the CG_INIT call): it executes the server commands
// after seq.
func (c *Client) initCGame(seq int32) {
	cg := cgame.New(c, c.active.world, c.cfg.CGame)
	cg.SetServerCommandSequence(seq)
	cg.SetFrameSync(c.active.fs != nil)
	c.active.cg = cg
}

// shutdownCGame drops the client game (CL_ShutdownCGame); the next frame
// makes another. A new gamestate and a disconnect drop it with the rest
// of the gamestate's state (clearState); a demo's jump in time drops it
// here.
func (c *Client) shutdownCGame() { c.active.cg = nil }

// cgameFrame runs the client game at the end of a live Frame (Quake
// III's CL_Frame → SCR_UpdateScreen → CG_DRAW_ACTIVE_FRAME): it is made
// once the gamestate is loaded (Primed), executing the gamestate's server
// commands, and framed once the client is Active.
func (c *Client) cgameFrame() {
	if c.cfg.CGame == nil || c.state < Primed || c.active.world == nil {
		return
	}
	if c.active.cg == nil {
		c.initCGame(c.conn.gs.CommandSequence)
	}
	if c.state == Active {
		c.active.cg.Frame(c.realtime)
	}
}

// demoCGameFrame runs the client game of a demo playing (Playback.Frame).
// It is made on the first frame the client is Active after the
// gamestate or a jump in time, executing the server commands that come
// after the point reached: those before belong to the demo's past.
func (c *Client) demoCGameFrame() {
	if c.cfg.CGame == nil || c.state != Active || c.active.world == nil {
		return
	}
	if c.active.cg == nil {
		c.initCGame(c.conn.serverCommandSequence)
	}
	c.active.cg.Frame(c.realtime)
}

// CurrentSnapshotNumber returns the message number and server time of
// the newest snapshot cgame may show (trap_GetCurrentSnapshotNumber);
// 0, 0 before the first.
func (c *Client) CurrentSnapshotNumber() (num, serverTime int32) {
	if !c.active.snap.valid {
		return 0, 0
	}
	return c.active.snap.messageNum, c.active.snap.serverTime
}

// GetSnapshot copies snapshot num into s if it is still in the ring and
// may be shown (trap_GetSnapshot). s.Entities aliases the client's parse
// entity ring: it stays valid until the snapshot leaves the ring (about
// proto.PacketBackup messages later) and must not be modified.
func (c *Client) GetSnapshot(num int32, s *cgame.Snapshot) bool {
	if !c.active.snap.valid || num > c.active.snap.messageNum || c.active.snap.messageNum-num >= proto.PacketBackup || num <= 0 {
		return false
	}
	cs := &c.active.snapshots[num&proto.PacketMask]
	if !cs.valid || !cs.usable || cs.messageNum != num {
		return false
	}
	if c.active.parseEntNum-cs.firstEntity > MaxParseEntities {
		return false // its entities were overwritten
	}
	s.MessageNum = cs.messageNum
	s.ServerTime = cs.serverTime
	s.Flags = cs.flags
	s.Ping = cs.ping
	s.PS = cs.ps
	s.Entities = c.entities(cs)
	s.ServerCommandSequence = cs.serverCmd
	return true
}

// CurrentCmdNumber returns the number of the newest usercmd
// (trap_GetCurrentCmdNumber).
func (c *Client) CurrentCmdNumber() int32 { return c.active.cmdNumber }

// GetUserCmd copies usercmd num into cmd if it is still in the ring
// (trap_GetUserCmd).
func (c *Client) GetUserCmd(num int32, cmd *bg.UserCmd) bool {
	if num > c.active.cmdNumber || num <= c.active.cmdNumber-CmdBackup || num <= 0 {
		return false
	}
	*cmd = c.active.cmds[num&CmdMask]
	return true
}

// Configstring returns configstring index of the current gamestate, ""
// out of range.
func (c *Client) Configstring(index int) string {
	if index < 0 || index >= bg.MaxConfigstrings {
		return ""
	}
	return c.conn.gs.Configstrings[index]
}

// GetServerCommand returns server command seq if it is still in the ring
// (trap_GetServerCommand). The engine has already executed its part of
// it (configstrings, disconnect, map_restart).
func (c *Client) GetServerCommand(seq int32) (string, bool) {
	if seq > c.conn.serverCommandSequence || seq <= c.conn.serverCommandSequence-proto.MaxReliableCommands || seq <= 0 {
		return "", false
	}
	return c.conn.serverCommands[seq&(proto.MaxReliableCommands-1)], true
}

// ServerCommandSequence returns the sequence of the newest server
// command received.
func (c *Client) ServerCommandSequence() int32 { return c.conn.serverCommandSequence }

// GamestateCommandSequence returns the server command sequence the
// current gamestate was sent at: commands after it belong to the level
// (cgame starts executing there).
func (c *Client) GamestateCommandSequence() int32 { return c.conn.gs.CommandSequence }
