package client

import (
	"fmt"

	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks carrier (seed 001, docs/protocol.md 6.7): with cl_reliable
// acks the userinfo asks the server for it (proto.ReliableKey), and the
// server decides at every gamestate it sends. A gamestate's message on
// the carrier says the id the server's commands go on from
// (SvcMessageBase); one without it puts the connection on Quake III's
// rings from that gamestate. On the carrier every message both ways
// carries packet acks, server commands arrive as reliable.Messages
// blocks, delivered in id order, and client commands go the same way
// once the commands already in the ring are acknowledged, so that they
// keep their order. Back on the rings, commands go in the ring but wait
// there until every command sent by id is acknowledged; the packet acks
// stop with the first message that has nothing by id left.

// clientAcks is the connection's acks carrier, nil on the rings once
// nothing of it is left to acknowledge.
type clientAcks struct {
	ep   *reliable.Endpoint
	msgs *reliable.Messages
	// off is the acks sequence of a packet minus its netchan sequence
	// (SetAckSequenceOffset when the carrier was made).
	off uint16
	// retiring: the last gamestate put the connection back on the
	// rings; the carrier goes on until nothing sent by id waits.
	retiring bool
	// base: the message being read carried SvcMessageBase, which makes
	// its gamestate one on the carrier.
	base bool
	// For ObserveAcks: the qport, the newest netchan sequence sent, and
	// onAcked, made once (no allocation a message).
	qport    uint16
	lastSent uint32
	onAcked  func(seq uint16)

	block []byte                       // Fill's scratch
	read  [proto.MaxMessagesBlock]byte // a received block
}

// newClientAcks returns a fresh acks carrier with resendMsec as its
// resend interval.
func newClientAcks(resendMsec int, qport uint16) *clientAcks {
	a := &clientAcks{
		ep:    reliable.NewEndpoint(reliable.EndpointConfig{}),
		msgs:  reliable.NewMessages(proto.MessagesConfig(resendMsec)),
		off:   ackHooks.SequenceOffset(),
		qport: qport,
		block: make([]byte, 0, proto.MaxMessagesBlock),
	}
	a.onAcked = a.acked
	return a
}

// seq16 is the acks carrier's sequence of netchan message seq.
func (a *clientAcks) seq16(seq uint32) uint16 { return uint16(seq) + a.off }

// AckStats is what a connection on the acks carrier measures of itself
// (Client.Acks): the seed's figures Quake III's client cannot see.
type AckStats struct {
	// On: the connection uses the acks carrier.
	On bool
	// RTT is the smoothed round trip of the packet acks.
	RTT float64 // ms
	// UpstreamLoss is the share of this client's packets the server
	// did not receive, as their acks tell; DownstreamLoss the share of
	// the server's messages that did not arrive.
	UpstreamLoss, DownstreamLoss float64
	// Packets and messages counted by the carrier.
	Endpoint reliable.EndpointStats
	Messages reliable.MessageStats
}

// Acks returns the acks carrier's figures; On is false on the rings
// (and the figures zero once the carrier is wound down).
func (c *Client) Acks() AckStats {
	a := c.conn.acks
	if a == nil {
		return AckStats{}
	}
	return AckStats{
		On:             !a.retiring,
		RTT:            float64(a.ep.RTT()) / 1e6,
		UpstreamLoss:   a.ep.UpstreamLoss(),
		DownstreamLoss: a.ep.DownstreamLoss(),
		Endpoint:       a.ep.Stats(),
		Messages:       a.msgs.Stats(),
	}
}

// Ack takes a server message's packet acks (proto.AckHandler). Without
// a carrier (the server is winding down one this client has ended, or
// starts one with a gamestate this client has not read yet) they are
// ignored; a demo's are.
func (h *serverHandler) Ack(ack uint16, ackBits uint32) error {
	c := (*Client)(h)
	if a := c.conn.acks; a != nil && !c.playback {
		a.ep.Acks(ack, ackBits, c.lastNow, a.onAcked)
	}
	return h.goOn()
}

// acked retires the commands of client message seq (an acks sequence),
// whose ack just arrived, and tells ObserveAcks.
func (a *clientAcks) acked(seq uint16) {
	a.msgs.Acked(seq)
	ackHooks.Tell(proto.AckEvent{Client: -1, Qport: a.qport, Kind: proto.AckAcked, AckSequence: seq,
		Sequence: a.lastSent - uint32(a.seq16(a.lastSent)-seq)})
}

// MessagesBuffer returns where a message block is read.
func (h *serverHandler) MessagesBuffer() *[proto.MaxMessagesBlock]byte {
	if a := h.conn.acks; a != nil {
		return &a.read
	}
	return &h.ackScratch
}

// Messages takes a block of server commands and runs, in id order,
// those it makes deliverable. Without a carrier the block is ignored:
// the server sends one then only with commands this client already ran
// (it is winding down a carrier this client ended) or with commands of
// a carrier whose gamestate this client has not read, which come again.
func (h *serverHandler) Messages(block []byte, err error) error {
	c := (*Client)(h)
	if err != nil {
		return err
	}
	a := c.conn.acks
	if a == nil {
		return h.goOn()
	}
	if _, err := a.msgs.Receive(block); err != nil {
		return fmt.Errorf("client: server command block: %w", err)
	}
	return c.deliverMessages()
}

// MessageBase takes the id the server's commands go on from, in a
// gamestate's message on the acks carrier: a connection without the
// carrier, or winding it down, starts a fresh one.
func (h *serverHandler) MessageBase(id uint16) error {
	c := (*Client)(h)
	a := c.conn.acks
	if a == nil || a.retiring {
		a = newClientAcks(c.cfg.ResendMsec, c.qport)
		c.conn.acks = a
	}
	a.base = true
	a.msgs.SkipTo(id)
	return c.deliverMessages()
}

// gamestateCarrier puts the connection on the carrier of the gamestate
// just read (ok) or that could not be read: the acks carrier if its
// message carried SvcMessageBase, else the rings.
func (c *Client) gamestateCarrier(ok bool) {
	a := c.conn.acks
	if a == nil {
		return
	}
	if ok {
		a.retiring = !a.base
	}
	a.base = false
}

// deliverMessages runs the server commands the acks carrier can deliver.
func (c *Client) deliverMessages() error {
	a := c.conn.acks
	for {
		id, data, ok := a.msgs.Next()
		if !ok {
			return (*serverHandler)(c).goOn()
		}
		c.runServerCommands(int32(id), string(data))
		if c.state < Connected {
			return errStop
		}
	}
}

// receivedAcks marks server message seq received in the packet acks,
// after it was read whole: one cut short is not acked, so what it
// carried comes again.
func (c *Client) receivedAcks(seq uint32) {
	a := c.conn.acks
	if a == nil || c.playback {
		return
	}
	if a.ep.Received(a.seq16(seq), c.lastNow) {
		ackHooks.Tell(proto.AckEvent{Client: -1, Qport: a.qport, Sequence: seq, AckSequence: a.seq16(seq), Kind: proto.AckReceived})
	}
}

// writeAcks writes, in the client message being built as netchan
// message seq, the packet acks and the block of the client commands due:
// on the carrier once the ring's commands are all acknowledged; back on
// the rings always, the ring's waiting behind them (ringHeld). Back on
// the rings with nothing by id left waiting, it ends the carrier
// instead: the message carries no packet acks, which tells the server.
func (c *Client) writeAcks(w *msg.Writer, seq uint32) {
	a := c.conn.acks
	if a.retiring && a.msgs.Pending() == 0 {
		c.conn.acks = nil
		return
	}
	ack, bits := a.ep.AckFields()
	start := w.BitLen()
	proto.WriteAck(w, proto.ClcAck, ack, bits)
	c.stats.AckBitsUp += uint64(w.BitLen() - start)
	if a.retiring || c.conn.reliableAcknowledge == c.conn.reliableSequence {
		budget := min((len(c.wbuf)-w.Len()-64)*8/msg.MaxCodeLen, proto.MaxMessagesBlock)
		if block, n := a.msgs.Fill(a.block[:0], a.seq16(seq), c.lastNow, a.ep.RTT(), budget); n > 0 {
			start = w.BitLen()
			proto.WriteMessages(w, proto.ClcMessages, block)
			c.stats.ReliableBitsUp += uint64(w.BitLen() - start)
		}
	}
	a.ep.Sent(a.seq16(seq), c.lastNow, w.Len())
	a.lastSent = seq
	ackHooks.Tell(proto.AckEvent{Client: -1, Qport: a.qport, Sequence: seq, AckSequence: a.seq16(seq), Kind: proto.AckSent})
}

// sendsByID reports whether a new client command goes as a message of
// the acks carrier: it does from the gamestate that puts the connection
// on the carrier, but goes out only once the ring holds nothing
// unacknowledged (writeAcks), so that it never overtakes a command sent
// before the switch.
func (c *Client) sendsByID() bool {
	a := c.conn.acks
	return a != nil && !a.retiring
}

// ringHeld reports whether the ring's commands wait: back on the rings,
// until every command sent by id before the switch is acknowledged. A
// disconnect is never held: the connection ends, whatever still waits.
func (c *Client) ringHeld() bool {
	a := c.conn.acks
	return a != nil && a.retiring && a.msgs.Pending() > 0 &&
		c.conn.reliableCommands[c.conn.reliableSequence&(proto.MaxReliableCommands-1)] != "disconnect"
}

// writeKeyFrameCarrier writes, in a demo key frame's gamestate message,
// the SvcMessageBase a gamestate on the acks carrier carries, with the
// id this client delivers next: playing the demo from the key frame
// then delivers the server commands that follow it.
func (c *Client) writeKeyFrameCarrier(w *msg.Writer) {
	if a := c.conn.acks; a != nil && !a.retiring {
		proto.WriteMessageBase(w, a.msgs.NextReceiveID())
	}
}

// ackHooks are the tests' hooks into this end's acks carriers.
var ackHooks proto.AckHooks

// ObserveAcks has fn told, on each client's goroutine, of every packet any
// client's acks carrier sends, marks received, or has acknowledged for the
// first time; nil stops it (proto.AckHooks).
func ObserveAcks(fn func(proto.AckEvent)) { ackHooks.Observe(fn) }

// SetAckSequenceOffset makes the acks carriers made from now on number
// their packets from the netchan sequence plus off (0 by default, as
// protocol.md 6.7 says), so that a test crosses a wrap of the 16-bit
// sequence without sending 65536 packets. Both ends must use the same
// offset: server.SetAckSequenceOffset.
func SetAckSequenceOffset(off uint16) { ackHooks.SetSequenceOffset(off) }
