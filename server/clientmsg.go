package server

import (
	"errors"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
)

// MaxCommandAhead is how far, in milliseconds, a usercmd's server time may
// run ahead of the server's clock. A later time is pulled back to it, so
// a client cannot gain movement time: the total time its commands move
// it never exceeds the server's clock plus this margin. (The game also
// clamps to its level time + 200 ms, Quake III's rule.)
const MaxCommandAhead = 200

// executeClientMessage handles one message from c (SV_ExecuteClientMessage):
// the header's acknowledgements always; the reliable commands and
// usercmds only when the message carries the current server id. A
// message for an old server id from a client that is not active, and that
// acknowledges a message past the last gamestate, means the gamestate was
// lost: it is sent again. The reading is proto.ParseClientMessage's, the
// one client-message reader, with the server as its proto.ClientHandler
// (clientMessage); a message it cannot read is used up to the fault.
func (s *Server) executeClientMessage(c *client, body []byte) {
	m := &s.cm
	*m = clientMessage{s: s, c: c}
	s.r.SetFieldStats(&c.fields)
	// A fault ends the message, nothing more; only a message read whole
	// is acked on the acks carrier.
	if err := proto.ParseClientMessage(&s.r, body, m, nil); err == nil {
		s.receivedAcks(c, c.chan_.IncomingSequence())
	}
	s.r.SetFieldStats(nil)
	if m.current {
		s.applyUserinfoChange(c)
	}
	*m = clientMessage{}
}

// errStop ends the parse of a client message without a fault: the rest
// of it is ignored (its acknowledgements are out of range, it carries an
// old server id, or its client was dropped).
var errStop = errors.New("server: stop reading the client message")

// clientMessage is the server as the proto.ClientHandler of one client
// message: what SV_ExecuteClientMessage kept on its stack. It lives in
// the Server (s.cm), so that reading a message allocates nothing.
type clientMessage struct {
	s *Server
	c *client
	h proto.ClientHeader
	// lastServerCommand is the server command the header acknowledges,
	// a key of the scrambling and of the usercmds.
	lastServerCommand string
	// current is set once the header carries the current server id: the
	// commands and usercmds run, and a waiting userinfo change may apply
	// after them.
	current bool
}

// goOn is nil while the client is connected, else errStop: nothing more
// of a dropped client's message runs.
func (m *clientMessage) goOn() error {
	if m.c.state < StateConnected {
		return errStop
	}
	return nil
}

// ClientHeader takes the acknowledgements, resends a lost gamestate,
// unscrambles the message and enters a primed client into the world
// (the header part of SV_ExecuteClientMessage).
func (m *clientMessage) ClientHeader(h proto.ClientHeader, body []byte) (bool, error) {
	s, c := m.s, m.c
	var current int32
	if s.sv != nil {
		current = s.sv.serverID
	}
	h = h.Resolve(current, int32(c.chan_.OutgoingSequence())-1, c.reliableSequence)
	// Acknowledgements outside what the server could have sent are
	// hostile or stale: ignore the whole message.
	if h.ReliableAcknowledge > c.reliableSequence ||
		h.ReliableAcknowledge < c.reliableSequence-proto.MaxReliableCommands {
		return false, errStop
	}
	if h.MessageAcknowledge < 0 || h.MessageAcknowledge >= int32(c.chan_.OutgoingSequence()) {
		return false, errStop
	}
	if h.MessageAcknowledge > c.messageAcknowledge || c.lastAckTime-s.svs.now > 0 {
		c.lastAckTime = s.svs.now
	}
	c.messageAcknowledge = h.MessageAcknowledge
	if f := &c.frames[h.MessageAcknowledge&proto.PacketMask]; f.messageNum == h.MessageAcknowledge && f.acked < 0 {
		f.acked = s.svs.now
	}
	c.framesAcked(h.MessageAcknowledge)
	c.reliableAcknowledge = max(c.reliableAcknowledge, h.ReliableAcknowledge)

	// A primed client that lacks the map says so with the downloading
	// id: its commands run (download, nextdl, donedl), but it stays out
	// of the game. If the gamestate sent after its download was lost, it
	// goes again.
	c.dlHeader = s.sv != nil && c.state == StatePrimed && h.ServerID < 0 &&
		proto.DownloadServerID(h.ServerID) == s.sv.serverID
	if c.dlHeader {
		if c.dlDone == s.sv.serverID && c.messageAcknowledge > c.gamestateMessageNum {
			s.sendGamestate(c)
			return false, errStop
		}
		h.ServerID = s.sv.serverID
	}
	if s.sv == nil || h.ServerID != s.sv.serverID {
		if c.state != StateActive && c.state >= StateConnected && s.sv != nil &&
			c.messageAcknowledge > c.gamestateMessageNum {
			s.sendGamestate(c)
		}
		return false, errStop
	}
	c.confirmGamestate()
	m.h = h
	m.lastServerCommand = c.reliableCommands[h.ReliableAcknowledge&(proto.MaxReliableCommands-1)]
	if s.sv.scramble {
		proto.ScrambleClientMessage(body, uint32(c.challenge), m.lastServerCommand)
	}
	// A primed client that speaks with the current server id has the
	// gamestate: it enters the game before its commands run, so that a
	// chat line sent across a map change reaches the game instead of
	// being dropped as coming from a client not yet in it.
	if c.state == StatePrimed && !c.dlHeader {
		s.enterWorld(c)
	}
	m.current = true
	return s.sv.scramble, m.goOn()
}

// ClientCommand executes a reliable client command (clientCommand).
func (m *clientMessage) ClientCommand(seq int32, text string) error {
	if !m.s.clientCommand(m.c, seq, text) {
		return errStop
	}
	return nil
}

// MoveKey returns the usercmd key of the message (keyed by the checksum
// feed, the message acknowledge and the acknowledged server command),
// the usercmd base of the acknowledged message if the packet is based on
// it, and the server's usercmd scratch. A base the server no longer
// keeps ends the message: its usercmds cannot be read.
func (m *clientMessage) MoveKey(based bool) (uint32, *bg.UserCmd, *[proto.MaxPacketUsercmds]bg.UserCmd, error) {
	key := proto.UsercmdKey(uint32(m.s.sv.checksumFeed), uint32(m.h.MessageAcknowledge), m.lastServerCommand)
	if !based {
		return key, nil, &m.s.cmds, nil
	}
	c := m.c
	b := &c.cmdBases[m.h.MessageAcknowledge&(proto.UsercmdBaseBackup-1)]
	if b.messageNum != m.h.MessageAcknowledge {
		c.stats.usercmdBasesMissing++
		return 0, nil, nil, proto.ErrNoUsercmdBase
	}
	return key, &b.cmd, &m.s.cmds, nil
}

// Move takes a usercmd packet (SV_UserMove): the snapshot base it asks
// for (none after clc_moveNoDelta), then its commands (userMove).
func (m *clientMessage) Move(cmds []bg.UserCmd, noDelta bool, err error) error {
	c := m.c
	c.deltaMessage = -1
	if !noDelta {
		c.deltaMessage = m.h.MessageAcknowledge
	}
	if err != nil {
		return err
	}
	m.s.userMove(c, cmds)
	return m.goOn()
}

// Flood control of reliable client commands, for every client state.
const (
	// MaxFloodedCommands ignored within FloodWindow milliseconds drop
	// the client that sent them: it persists.
	MaxFloodedCommands = 100
	FloodWindow        = 10_000
	// UserinfoInterval is the least time, in milliseconds, between two
	// userinfo changes of a client that take effect; a change sent
	// sooner waits, and a newer one replaces it.
	UserinfoInterval = 1000
)

// clientCommand handles reliable client command seq (SV_ClientCommand):
// each sequence is executed once, in order; a gap means the client lost
// commands and it is dropped. Commands beyond sv_floodProtect a second
// are acknowledged but ignored, whatever state the client is in, and a
// client that keeps flooding is dropped; a userinfo change is never
// executed at once but kept, newest first, for applyUserinfoChange. It
// reports whether the message can go on.
func (s *Server) clientCommand(c *client, seq int32, text string) bool {
	if seq <= c.lastClientCommand {
		return true // already executed: a resend
	}
	if seq > c.lastClientCommand+1 {
		s.dropClient(c, "lost reliable commands")
		return false
	}
	c.lastClientCommand = seq
	c.clientCommands[seq&(proto.MaxReliableCommands-1)] = text
	return s.execClientCommand(c, text)
}

// execClientCommand runs client command text from c, delivered once and
// in order by the ring (clientCommand) or the acks carrier: flood
// control, userinfo changes, downloads, the game. It reports whether
// the message can go on.
func (s *Server) execClientCommand(c *client, text string) bool {
	s.args.Tokenize(text)
	name := strings.ToLower(s.args.Argv(0))
	if name == "disconnect" {
		s.dropClient(c, "disconnected")
		return false
	}
	if name == "userinfo" {
		// Throttled, newest wins: however many arrive, at most one
		// change a UserinfoInterval reaches the game and the others.
		c.pendingUserinfo, c.userinfoPending = s.args.Argv(1), true
	}
	// A download's acknowledgements come as fast as its blocks; they
	// are bounded by the blocks sent (download.go), not flood control.
	dlAck := name == "nextdl" && c.dl != nil
	if fp := s.cfg.FloodProtect; fp > 0 && !dlAck && !c.cmdBucket.Allow(s.svs.now, int32(fp), max(1000/int32(fp), 1)) {
		return s.flooded(c)
	}
	c.stats.commandsExecuted++
	switch name {
	case "userinfo", "":
	case "download", "nextdl", "donedl", "stopdl":
		s.downloadCommand(c, name)
	default:
		if c.state == StateActive {
			s.sv.game.ClientCommand(c.num, &s.args)
		}
	}
	return c.state >= StateConnected
}

// flooded counts a command of c ignored by flood control, warns c at most
// once a second, and drops c when it persists (MaxFloodedCommands within
// FloodWindow). It reports whether the message can go on.
func (s *Server) flooded(c *client) bool {
	c.stats.commandsFlooded++
	s.svs.stats.CommandsFlooded++
	if d := s.svs.now - c.floodSince; d > FloodWindow || d < 0 {
		c.floodSince, c.floodCount = s.svs.now, 0
	}
	c.floodCount++
	if c.floodCount > MaxFloodedCommands {
		s.svs.stats.FloodDrops++
		s.dropClient(c, "flooding the server with commands")
		return false
	}
	if d := s.svs.now - c.floodWarned; !c.floodWarnedSet || d >= 1000 || d < 0 {
		c.floodWarned, c.floodWarnedSet = s.svs.now, true
		s.addServerCommand(c, `print "Flood protection: command ignored.\n"`)
	}
	return c.state >= StateConnected
}

// applyUserinfoChange applies c's waiting userinfo change if
// UserinfoInterval has passed since the last one.
func (s *Server) applyUserinfoChange(c *client) {
	if !c.userinfoPending || c.state < StateConnected || s.svs.now-c.nextUserinfoTime < 0 {
		return
	}
	ui := c.pendingUserinfo
	c.pendingUserinfo, c.userinfoPending = "", false
	c.nextUserinfoTime = s.svs.now + UserinfoInterval
	s.userinfoChanged(c, ui)
}

// userinfoChanged applies a new userinfo from the client: the engine's
// keys, then the game's. An invalid userinfo is ignored, and so is one
// with no room for the ip key, which only the server sets.
func (s *Server) userinfoChanged(c *client, userinfo string) {
	if infostr.Validate(userinfo) != nil || c.chan_ == nil {
		return
	}
	userinfo, err := infostr.SetValueForKey(infostr.RemoveKey(userinfo, "ip"), "ip", c.chan_.Remote().String())
	if err != nil {
		return
	}
	c.stats.userinfoChanges++
	c.applyUserinfo(userinfo)
	if s.sv != nil {
		s.sv.game.ClientUserinfoChanged(c.num, userinfo)
	}
}

// userMove executes, in order, the commands of a usercmd packet newer
// than the last one executed (SV_UserMove's SV_ClientThink loop);
// duplicates sent again for loss (cl_packetdup) are skipped, and a
// command from too far in the future is pulled back to the server's
// clock + MaxCommandAhead. A client not yet active executes none, and
// gets no delta snapshot.
func (s *Server) userMove(c *client, cmds []bg.UserCmd) {
	n := len(cmds)
	if n == 0 {
		return
	}
	if c.state != StateActive {
		c.deltaMessage = -1
		return
	}
	last := cmds[n-1].ServerTime
	limit := s.svs.time + MaxCommandAhead
	for i := range cmds {
		// In place: cmds is the server's scratch, and a pointer to a
		// local would escape through the game.Game interface.
		cmd := &cmds[i]
		if cmd.ServerTime > last { // not in order: ignore
			continue
		}
		if cmd.ServerTime > limit && s.sv.fs == nil { // in frame sync the Recorder places (or drops) it
			cmd.ServerTime = limit
			c.stats.usercmdsClamped++
		}
		if cmd.ServerTime <= c.lastUsercmd.ServerTime {
			continue // already executed
		}
		c.lastUsercmd = *cmd
		c.stats.usercmds++
		s.sv.game.ClientThink(c.num, cmd)
		if c.state != StateActive {
			return
		}
	}
}

// enterWorld puts a primed client in the game (SV_ClientEnterWorld).
func (s *Server) enterWorld(c *client) {
	c.state = StateActive
	c.dl, c.dlDone = nil, 0
	c.deltaMessage = -1
	c.lastUsercmd = bg.UserCmd{}
	c.nextSnapshotTime = s.svs.time // a snapshot at the next frame
	c.lastAckTime = s.svs.now
	s.sv.game.ClientBegin(c.num)
	s.logf("client %d %s entered the game", c.num, c.name)
}
