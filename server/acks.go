package server

import (
	"errors"
	"time"

	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks carrier (seed 001, docs/protocol.md 6.7): a client that asks
// for it in its userinfo (proto.ReliableKey) and that sv_reliable lets
// have it gets its server commands as reliable.Messages by id over
// acknowledged packets instead of the server command ring, and sends its
// client commands the same way. The server decides at every gamestate it
// sends the client, and both ends change carriers exactly there:
//
//   - q3 to acks: a fresh carrier (ids from 0 both ways, a fresh
//     Endpoint) starts with the gamestate's message, which says so with
//     SvcMessageBase. Server commands still in the ring go on there;
//     new ones wait until the ring's are acknowledged.
//   - acks to acks: the carrier goes on; the gamestate's message carries
//     every command still waiting for its ack, ahead of the gamestate.
//   - acks to q3: the gamestate's message carries every command still
//     waiting, with packet acks but no SvcMessageBase. When the client
//     shows it has the gamestate (a message with its server id) they
//     are all delivered and forgotten; new commands wait in the outbox
//     until then, and go in the ring. The packet acks go on while the
//     client still sends its own commands by id, and end with the first
//     of its messages that has none. If the waiting commands do not all
//     fit ahead of the gamestate, the client stays on the acks carrier
//     until the next gamestate; a client asking for acks again while
//     the packet acks of its last switch to q3 still go on stays on the
//     rings until the next one.

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
// the rings and nothing of the carrier is left to acknowledge.
type ackState struct {
	ep   *reliable.Endpoint
	msgs *reliable.Messages
	// off is the acks sequence of a packet minus its netchan sequence
	// (SetAckSequenceOffset when the state was made).
	off uint16
	// retiring: the client's last gamestate put it back on the rings;
	// the packet acks go on until nothing sent by id is left.
	retiring bool
	// confirm: a gamestate went since the client last showed, with the
	// current server id, that it has one.
	confirm bool
	// gamestate: the message being built carries a gamestate; block[:n]
	// is then its block, already filled with every command waiting,
	// and base the id SvcMessageBase gives (written unless retiring).
	gamestate bool
	base      uint16
	gsCount   int
	// lastClcAck is the netchan sequence of the last client message that
	// carried packet acks.
	lastClcAck uint32
	// superseded counts the commands forgotten unacknowledged
	// (Supersede), for waiting.
	superseded uint64
	clock      reliable.Clock // the server's real time, never wrapping
	resend     time.Duration  // sv_resendMsec

	// For ObserveAcks: the client's slot and qport, the newest netchan
	// sequence sent, and onAcked, made once (no allocation a message).
	num      int
	qport    uint16
	lastSent uint32
	onAcked  func(seq uint16)

	block []byte                       // Fill's scratch
	read  [proto.MaxMessagesBlock]byte // a received block
}

// newAckState returns c's fresh acks carrier with resendMsec as its
// resend interval (sv_resendMsec).
func newAckState(c *client, resendMsec int) *ackState {
	a := &ackState{
		ep:     reliable.NewEndpoint(reliable.EndpointConfig{}),
		msgs:   reliable.NewMessages(proto.MessagesConfig(resendMsec)),
		off:    ackHooks.SequenceOffset(),
		resend: time.Duration(resendMsec) * time.Millisecond,
		num:    c.num,
		qport:  c.chan_.Qport(),
		block:  make([]byte, 0, proto.MaxMessagesBlock),
	}
	a.onAcked = a.acked
	return a
}

// seq16 is the acks carrier's sequence of netchan message seq.
func (a *ackState) seq16(seq uint32) uint16 { return uint16(seq) + a.off }

// waiting returns how many commands by id wait for their ack: fewer than
// Messages.Pending, which counts the ids between the oldest waiting and
// the next, some of them acknowledged already.
func (a *ackState) waiting() int {
	st := a.msgs.Stats()
	return int(st.Queued - st.Acked - a.superseded)
}

// byID reports whether c's new server commands go by id: it is on the
// acks carrier and not winding it down.
func (c *client) byID() bool { return c.acks != nil && !c.acks.retiring }

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

// gamestateCarrier decides c's carrier for the gamestate about to be
// sent, and on the acks carrier fills the block the gamestate's message
// carries ahead of the gamestate: every command still waiting for its
// ack, whatever its resend time. It runs before the outbox is flushed,
// so the block holds only commands sent before the gamestate.
func (s *Server) gamestateCarrier(c *client) {
	want := s.wantsAcks(c)
	a := c.acks
	if a == nil {
		if !want {
			return
		}
		a = newAckState(c, s.cfg.ResendMsec)
		c.acks = a
		s.logf("client %d %s: reliable commands by id over packet acks (%s) from this gamestate", c.num, c.name, proto.ReliableAcks)
	}
	a.gamestate, a.confirm = true, true
	a.gsCount = s.fillWaiting(c)
	switch {
	case a.retiring && want:
		s.logf("client %d %s: stays on the rings for this gamestate: its last switch to them is still acknowledging", c.num, c.name)
	case !a.retiring && !want && a.gsCount < a.waiting():
		s.logf("client %d %s: stays on %s for this gamestate: %d commands wait, %d fit ahead of it", c.num, c.name,
			proto.ReliableAcks, a.waiting(), a.gsCount)
	case !a.retiring && !want:
		a.retiring = true
		s.logf("client %d %s: reliable commands back on the rings (%s) from this gamestate", c.num, c.name, proto.ReliableQ3)
	}
	a.base = a.msgs.OldestUnacked()
}

// fillWaiting fills a's block with every command waiting for its ack,
// as many as fit in the gamestate's share of a message, for the message
// about to be built, and returns how many.
func (s *Server) fillWaiting(c *client) int {
	a := c.acks
	if a.msgs.Pending() == 0 {
		a.block = a.block[:0]
		return 0
	}
	budget := min((len(s.msgBuf)/2-64)*8/msg.MaxCodeLen, proto.MaxMessagesBlock)
	// A resend interval of 1 ns and a clock 1 ns on: everything is due.
	a.msgs.SetResend(time.Nanosecond)
	now := a.clock.Tick(s.svs.now) + time.Nanosecond
	block, n := a.msgs.Fill(a.block[:0], a.seq16(c.chan_.OutgoingSequence()), now, 0, budget)
	a.msgs.SetResend(a.resend)
	a.block = block
	return n
}

// writeAckHeader writes the first operations of a message of c's acks
// carrier: the packet acks, and in a gamestate's message on the carrier
// the id the server's messages go on from.
func (s *Server) writeAckHeader(c *client, w *msg.Writer) {
	a := c.acks
	ack, bits := a.ep.AckFields()
	start := w.BitLen()
	proto.WriteAck(w, proto.SvcAck, ack, bits)
	if a.gamestate && !a.retiring {
		proto.WriteMessageBase(w, a.base)
	}
	c.stats.ackBits += int64(w.BitLen() - start)
}

// writeMessagesBlock writes, in the message of c's acks carrier being
// built as netchan message seq, the block of the server commands due
// (in a gamestate's message, the one gamestateCarrier filled), within
// limit bytes of message (an estimate with the longest Huffman code),
// and counts the message sent.
func (s *Server) writeMessagesBlock(c *client, w *msg.Writer, seq int32, limit int) {
	a := c.acks
	now := a.clock.Tick(s.svs.now)
	block, n := a.block, a.gsCount
	if !a.gamestate {
		budget := min((limit-w.Len()-4)*8/msg.MaxCodeLen, proto.MaxMessagesBlock)
		block, n = a.msgs.Fill(a.block[:0], a.seq16(uint32(seq)), now, a.ep.RTT(), budget)
	}
	if n > 0 {
		start := w.BitLen()
		proto.WriteMessages(w, proto.SvcMessages, block)
		c.stats.reliableBits += int64(w.BitLen() - start)
	}
	a.ep.Sent(a.seq16(uint32(seq)), now, w.Len())
	a.lastSent = uint32(seq)
	ackHooks.Tell(proto.AckEvent{Client: c.num, Qport: a.qport, Sequence: uint32(seq), AckSequence: a.seq16(uint32(seq)), Kind: proto.AckSent})
}

// commandsWaiting returns how many server commands wait for c's
// acknowledgement: in its ring, or as messages. While the carrier it
// switched from still has commands waiting, it returns a full ring: the
// new commands wait in the outbox, so that they never overtake the old.
func (c *client) commandsWaiting() int32 {
	ring := c.reliableSequence - c.reliableAcknowledge
	a := c.acks
	if a == nil {
		return ring
	}
	byID := int32(a.msgs.Pending())
	if a.retiring {
		if byID > 0 {
			return proto.MaxReliableCommands
		}
		return ring
	}
	if ring > 0 {
		return proto.MaxReliableCommands
	}
	return byID
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
	a.lastClcAck = m.c.chan_.IncomingSequence()
	a.ep.Acks(ack, ackBits, a.clock.Tick(m.s.svs.now), a.onAcked)
	return nil
}

// acked retires the commands of server message seq (an acks sequence),
// whose ack just arrived, and tells ObserveAcks.
func (a *ackState) acked(seq uint16) {
	a.msgs.Acked(seq)
	ackHooks.Tell(proto.AckEvent{Client: a.num, Qport: a.qport, Kind: proto.AckAcked, AckSequence: seq,
		Sequence: a.lastSent - uint32(a.seq16(a.lastSent)-seq)})
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
// carried comes again. Such a message carries the current server id: a
// gamestate the client was sent is confirmed by the first without the
// download mark, which, when the client went back to the rings, delivered
// every command it carried (all were waiting); and a client back on
// the rings whose message carries no packet acks has nothing left by id
// either way: its carrier is dropped.
func (s *Server) receivedAcks(c *client, seq uint32) {
	a := c.acks
	if a == nil {
		return
	}
	if a.ep.Received(a.seq16(seq), a.clock.Tick(s.svs.now)) {
		ackHooks.Tell(proto.AckEvent{Client: c.num, Qport: a.qport, Sequence: seq, AckSequence: a.seq16(seq), Kind: proto.AckReceived})
	}
	if a.confirm && !c.dlHeader {
		a.confirm = false
		if a.retiring {
			a.superseded += uint64(a.waiting())
			a.msgs.Supersede()
		}
	}
	if a.retiring && !a.confirm && a.msgs.Pending() == 0 && a.lastClcAck != seq {
		c.acks = nil
	}
}

// ackHooks are the tests' hooks into this end's acks carriers.
var ackHooks proto.AckHooks

// ObserveAcks has fn told, on the server's goroutine, of every packet any
// server's acks carrier sends, marks received, or has acknowledged for the
// first time; nil stops it (proto.AckHooks).
func ObserveAcks(fn func(proto.AckEvent)) { ackHooks.Observe(fn) }

// SetAckSequenceOffset makes the acks carriers made from now on number
// their packets from the netchan sequence plus off (0 by default, as
// protocol.md 6.7 says), so that a test crosses a wrap of the 16-bit
// sequence without sending 65536 packets. Both ends must use the same
// offset: client.SetAckSequenceOffset.
func SetAckSequenceOffset(off uint16) { ackHooks.SetSequenceOffset(off) }
