package server

import (
	"errors"

	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks carrier (seed 001, docs/protocol.md 6.7): a client that asks
// for it in its userinfo (proto.ReliableKey) and that sv_reliable lets
// have it gets its server commands as reliable.Messages by id over
// acknowledged packets instead of the server command ring, and sends its
// client commands the same way. The server decides at the client's first
// gamestate and keeps the choice for the connection.

// The values of sv_reliable.
const (
	// ReliableClient gives every client the carrier it asks for.
	ReliableClient = "client"
	// ReliableQ3 keeps every client on Quake III's rings.
	ReliableQ3 = proto.ReliableQ3
	// ReliableAcks puts every client of this server on the acks carrier,
	// whatever it asks for (a client too old for it fails to read the
	// messages).
	ReliableAcks = proto.ReliableAcks
)

// ackState is a client's acks carrier: its packet acks (Endpoint) and
// its reliable commands both ways (Messages). nil while the client uses
// the rings.
type ackState struct {
	ep   *reliable.Endpoint
	msgs *reliable.Messages
	// gamestate: the message being built carries a gamestate, so the
	// messages it supersedes are forgotten and its SvcMessageBase says
	// where the ids go on from (base).
	gamestate bool
	base      uint16
	clock     reliable.Clock // the server's real time, never wrapping

	block []byte                       // Fill's scratch
	read  [proto.MaxMessagesBlock]byte // a received block
}

// newAckState returns a client's acks carrier with resendMsec as its
// resend interval (net_resendMsec).
func newAckState(resendMsec int) *ackState {
	return &ackState{
		ep:    reliable.NewEndpoint(reliable.EndpointConfig{}),
		msgs:  reliable.NewMessages(proto.MessagesConfig(resendMsec)),
		block: make([]byte, 0, proto.MaxMessagesBlock),
	}
}

// wantsAcks reports whether c gets the acks carrier: what sv_reliable
// says, or with "client" what c's userinfo asks for.
func (s *Server) wantsAcks(c *client) bool {
	switch s.cfg.Reliable {
	case ReliableAcks:
		return true
	case ReliableQ3:
		return false
	}
	return infostr.ValueForKey(c.userinfo, proto.ReliableKey) == proto.ReliableAcks
}

// decideCarrier gives c the acks carrier at its first gamestate if it
// gets one (wantsAcks); later gamestates keep the choice.
func (s *Server) decideCarrier(c *client) {
	if c.carrierDecided {
		return
	}
	c.carrierDecided = true
	if s.wantsAcks(c) {
		c.acks = newAckState(s.cfg.ResendMsec)
		s.logf("client %d %s: reliable commands by id over packet acks (%s)", c.num, c.name, proto.ReliableAcks)
	}
}

// writeAckHeader writes the first operations of a message of c's acks
// carrier: the packet acks, and in a gamestate's message the id the
// server's messages go on from.
func (s *Server) writeAckHeader(c *client, w *msg.Writer) {
	a := c.acks
	ack, bits := a.ep.AckFields()
	start := w.BitLen()
	proto.WriteAck(w, proto.SvcAck, ack, bits)
	if a.gamestate {
		proto.WriteMessageBase(w, a.base)
	}
	c.stats.ackBits += int64(w.BitLen() - start)
}

// writeMessagesBlock writes, in the message of c's acks carrier being
// built as netchan message seq, the block of the server commands due,
// within limit bytes of message (an estimate with the longest Huffman
// code), and counts the message sent.
func (s *Server) writeMessagesBlock(c *client, w *msg.Writer, seq int32, limit int) {
	a := c.acks
	now := a.clock.Tick(s.svs.now)
	budget := min((limit-w.Len()-4)*8/msg.MaxCodeLen, proto.MaxMessagesBlock)
	block, n := a.msgs.Fill(a.block[:0], uint16(seq), now, a.ep.RTT(), budget)
	if n > 0 {
		start := w.BitLen()
		proto.WriteMessages(w, proto.SvcMessages, block)
		c.stats.reliableBits += int64(w.BitLen() - start)
	}
	a.ep.Sent(uint16(seq), now, w.Len())
}

// supersede readies c's acks carrier for a gamestate: the commands
// queued before it are forgotten, and the gamestate's message says the
// id the next one gets.
func (c *client) supersede() {
	if a := c.acks; a != nil {
		a.base = a.msgs.Supersede()
		a.gamestate = true
	}
}

// commandsWaiting returns how many server commands wait for c's
// acknowledgement: in its ring, or as messages.
func (c *client) commandsWaiting() int32 {
	if a := c.acks; a != nil {
		return int32(a.msgs.Pending())
	}
	return c.reliableSequence - c.reliableAcknowledge
}

// errNoAcks ends a client message that uses the acks carrier's
// operations on a connection without it.
var errNoAcks = errors.New("server: acks carrier operation from a client without it")

// Ack takes the packet acks of a client message (proto.AckHandler): the
// server messages they ack retire the commands they carried.
func (m *clientMessage) Ack(ack uint16, ackBits uint32) error {
	a := m.c.acks
	if a == nil {
		return errNoAcks
	}
	a.ep.Acks(ack, ackBits, a.clock.Tick(m.s.svs.now), a.msgs.Acked)
	return nil
}

// MessagesBuffer returns where a client's message block is read.
func (m *clientMessage) MessagesBuffer() *[proto.MaxMessagesBlock]byte {
	if a := m.c.acks; a != nil {
		return &a.read
	}
	return &m.s.ackScratch
}

// Messages takes a client message's block of client commands and runs,
// in id order, every command it makes deliverable (execClientCommand).
func (m *clientMessage) Messages(block []byte, err error) error {
	a := m.c.acks
	if err != nil {
		return err
	}
	if a == nil {
		return errNoAcks
	}
	if _, err := a.msgs.Receive(block); err != nil {
		return err
	}
	for {
		_, data, ok := a.msgs.Next()
		if !ok {
			return nil
		}
		if !m.s.execClientCommand(m.c, string(data)) {
			return errStop
		}
	}
}

// MessageBase is refused: only server messages carry one.
func (m *clientMessage) MessageBase(uint16) error {
	return errNoAcks
}

// receivedAcks marks client message seq received in c's packet acks,
// after it was read whole: a message cut short is not acked, so what it
// carried comes again.
func (s *Server) receivedAcks(c *client, seq uint32) {
	if a := c.acks; a != nil {
		a.ep.Received(uint16(seq), a.clock.Tick(s.svs.now))
	}
}
