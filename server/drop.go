package server

import (
	"strings"

	"tremor/common/proto"
	"tremor/net/cmdargs"
)

// timeoutFrames is how many frames in a row a client must be past
// sv_timeout before it is dropped, so that one long stall of the server
// itself (a debugger) does not drop everyone.
const timeoutFrames = 5

// dropClient disconnects c with reason (SV_DropClient): the game forgets
// it, the others are told, and a connected client is sent a last message
// whose reliable commands end with `disconnect "reason"`. Its slot turns
// zombie for sv_zombietime seconds; a bot's slot is free at once.
func (s *Server) dropClient(c *client, reason string) {
	if !c.connected() {
		return
	}
	name := c.name
	if s.sv != nil && s.sv.game.Connected(c.num) {
		name = s.sv.game.ClientName(c.num)
	}
	wasBot := c.bot
	c.state = StateZombie // first, so that nothing below reenters
	if s.sv != nil {
		s.sv.game.ClientDisconnect(c.num)
	}
	if reason != "" {
		s.broadcastCommand("print " + cmdargs.QuoteText(name+" "+dropPhrase(reason)+`\n`))
	}
	if wasBot {
		c.resetConnection()
		c.state = StateFree
	} else {
		// What was still waiting is of no use to a client that leaves;
		// flushCommands kept a ring slot free for this.
		c.outbox = c.outbox[:0]
		c.clearConfigstrings()
		c.pushCommand("disconnect " + cmdargs.QuoteText(reason))
		c.lastPacketTime = s.svs.now
		c.lastZombieReply = s.svs.now
		s.sendFinalMessage(c)
	}
	s.logf("client %d %s dropped: %s", c.num, name, reason)
	if s.OnDrop != nil {
		s.OnDrop(c.num, reason)
	}
}

// dropPhrase turns a reason into what follows a name in the broadcast.
func dropPhrase(reason string) string {
	switch reason {
	case "disconnected", "timed out", "was kicked":
		return reason
	}
	return "was dropped: " + reason
}

// sendFinalMessage sends a dropped client its unacknowledged reliable
// commands, the last of which is its disconnect.
func (s *Server) sendFinalMessage(c *client) {
	if c.chan_ == nil {
		return
	}
	_ = c.chan_.Flush()
	w := s.messageTo(c)
	proto.WriteReliableAck(w, c.lastClientCommand)
	s.writeServerCommands(c, w, len(s.msgBuf)-16)
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		return
	}
	seq := c.chan_.OutgoingSequence()
	c.frames[seq&proto.PacketMask].messageNum = -1
	c.scramble = c.scrambleNext()
	if c.chan_.Transmit(w.Bytes()) == nil {
		_ = c.chan_.Flush()
	}
}

// checkTimeouts drops clients silent for sv_timeout seconds and frees
// zombie slots after sv_zombietime (SV_CheckTimeouts).
func (s *Server) checkTimeouts() {
	now := s.svs.now
	dropPoint := now - int32(s.cfg.Timeout)*1000
	zombiePoint := now - int32(s.cfg.ZombieTime)*1000
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateFree || c.bot {
			continue
		}
		if c.lastPacketTime-now > 0 {
			c.lastPacketTime = now
		}
		if c.state == StateZombie {
			if c.lastPacketTime-zombiePoint < 0 {
				c.resetConnection()
			}
			continue
		}
		if c.lastPacketTime-dropPoint < 0 {
			c.timeoutCount++
			if c.timeoutCount > timeoutFrames {
				s.dropClient(c, "timed out")
			}
			continue
		}
		c.timeoutCount = 0
		// A client that keeps sending but acknowledges nothing the server
		// sends would otherwise be kept, and sent full snapshots, forever.
		if c.state == StateActive && c.lastAckTime-dropPoint < 0 {
			s.dropClient(c, "stopped acknowledging the server's messages")
		}
	}
}

// clientByArg finds a client by number or name (ignoring case) for kick.
func (s *Server) clientByArg(arg string) *client {
	if n, ok := atoiStrict(arg); ok {
		if n >= 0 && n < len(s.svs.clients) && s.svs.clients[n].connected() {
			return &s.svs.clients[n]
		}
		return nil
	}
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if !c.connected() {
			continue
		}
		if strings.EqualFold(c.name, arg) || (s.sv != nil && strings.EqualFold(s.sv.game.ClientName(i), arg)) {
			return c
		}
	}
	return nil
}

func atoiStrict(s string) (int, bool) {
	if s == "" || len(s) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
