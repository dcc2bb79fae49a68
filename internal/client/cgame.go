package client

import (
	"tremor/bg"
	"tremor/cgame"
	"tremor/internal/proto"
)

var _ cgame.Client = (*Client)(nil)

// CurrentSnapshotNumber returns the message number and server time of
// the newest snapshot cgame may show (trap_GetCurrentSnapshotNumber);
// 0, 0 before the first.
func (c *Client) CurrentSnapshotNumber() (num, serverTime int32) {
	if !c.snap.valid {
		return 0, 0
	}
	return c.snap.messageNum, c.snap.serverTime
}

// GetSnapshot copies snapshot num into s if it is still in the ring and
// may be shown (trap_GetSnapshot). s.Entities aliases the client's parse
// entity ring: it stays valid until the snapshot leaves the ring (about
// proto.PacketBackup messages later) and must not be modified.
func (c *Client) GetSnapshot(num int32, s *cgame.Snapshot) bool {
	if !c.snap.valid || num > c.snap.messageNum || c.snap.messageNum-num >= proto.PacketBackup || num <= 0 {
		return false
	}
	cs := &c.snapshots[num&proto.PacketMask]
	if !cs.valid || !cs.usable || cs.messageNum != num {
		return false
	}
	if c.parseEntNum-cs.firstEntity > MaxParseEntities {
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
func (c *Client) CurrentCmdNumber() int32 { return c.cmdNumber }

// GetUserCmd copies usercmd num into cmd if it is still in the ring
// (trap_GetUserCmd).
func (c *Client) GetUserCmd(num int32, cmd *bg.UserCmd) bool {
	if num > c.cmdNumber || num <= c.cmdNumber-CmdBackup || num <= 0 {
		return false
	}
	*cmd = c.cmds[num&CmdMask]
	return true
}

// Configstring returns configstring index of the current gamestate, ""
// out of range.
func (c *Client) Configstring(index int) string {
	if index < 0 || index >= bg.MaxConfigstrings {
		return ""
	}
	return c.gs.Configstrings[index]
}

// GetServerCommand returns server command seq if it is still in the ring
// (trap_GetServerCommand). The engine has already executed its part of
// it (configstrings, disconnect, map_restart).
func (c *Client) GetServerCommand(seq int32) (string, bool) {
	if seq > c.serverCommandSequence || seq <= c.serverCommandSequence-proto.MaxReliableCommands || seq <= 0 {
		return "", false
	}
	return c.serverCommands[seq&(proto.MaxReliableCommands-1)], true
}

// ServerCommandSequence returns the sequence of the newest server
// command received.
func (c *Client) ServerCommandSequence() int32 { return c.serverCommandSequence }

// GamestateCommandSequence returns the server command sequence the
// current gamestate was sent at: commands after it belong to the level
// (cgame starts executing there).
func (c *Client) GamestateCommandSequence() int32 { return c.gs.CommandSequence }
