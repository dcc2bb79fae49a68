package client

import (
	"errors"
	"fmt"

	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks carrier (seed 001, docs/protocol.md 6.7): with cl_reliable
// acks the userinfo asks the server for it (proto.ReliableKey), and the
// server's first message carrying packet acks (SvcAck) switches the
// connection to it. From then on every message both ways carries packet
// acks; server commands arrive as reliable.Messages blocks, delivered in
// id order; and client commands go the same way once the commands
// already in the ring are acknowledged, so that they keep their order.

// clientAcks is the connection's acks carrier, nil on the rings.
type clientAcks struct {
	ep    *reliable.Endpoint
	msgs  *reliable.Messages
	block []byte                       // Fill's scratch
	read  [proto.MaxMessagesBlock]byte // a received block
}

// newClientAcks returns an acks carrier with resendMsec as its resend
// interval.
func newClientAcks(resendMsec int) *clientAcks {
	return &clientAcks{
		ep:    reliable.NewEndpoint(reliable.EndpointConfig{}),
		msgs:  reliable.NewMessages(proto.MessagesConfig(resendMsec)),
		block: make([]byte, 0, proto.MaxMessagesBlock),
	}
}

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

// Acks returns the acks carrier's figures; On is false on the rings.
func (c *Client) Acks() AckStats {
	a := c.conn.acks
	if a == nil {
		return AckStats{}
	}
	return AckStats{
		On:             true,
		RTT:            float64(a.ep.RTT()) / 1e6,
		UpstreamLoss:   a.ep.UpstreamLoss(),
		DownstreamLoss: a.ep.DownstreamLoss(),
		Endpoint:       a.ep.Stats(),
		Messages:       a.msgs.Stats(),
	}
}

// Ack takes a server message's packet acks (proto.AckHandler): the first
// switches the connection to the acks carrier.
func (h *serverHandler) Ack(ack uint16, ackBits uint32) error {
	c := (*Client)(h)
	if c.conn.acks == nil {
		c.conn.acks = newClientAcks(c.cfg.ResendMsec)
	}
	if c.playback {
		return h.goOn()
	}
	a := c.conn.acks
	a.ep.Acks(ack, ackBits, c.lastNow, a.msgs.Acked)
	return h.goOn()
}

// errNoAcks ends a server message whose message block comes before any
// packet acks: the server never switches a connection that way.
var errNoAcks = errors.New("client: message block before the server's packet acks")

// MessagesBuffer returns where a message block is read.
func (h *serverHandler) MessagesBuffer() *[proto.MaxMessagesBlock]byte {
	if a := h.conn.acks; a != nil {
		return &a.read
	}
	return &h.ackScratch
}

// Messages takes a block of server commands and runs, in id order,
// those it makes deliverable.
func (h *serverHandler) Messages(block []byte, err error) error {
	c := (*Client)(h)
	if err != nil {
		return err
	}
	a := c.conn.acks
	if a == nil {
		return errNoAcks
	}
	if _, err := a.msgs.Receive(block); err != nil {
		return fmt.Errorf("client: server command block: %w", err)
	}
	return c.deliverMessages()
}

// MessageBase takes the id the server's commands go on from after the
// gamestate in the same message: those before it are superseded.
func (h *serverHandler) MessageBase(id uint16) error {
	c := (*Client)(h)
	a := c.conn.acks
	if a == nil {
		return errNoAcks
	}
	a.msgs.SkipTo(id)
	return c.deliverMessages()
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
	if a := c.conn.acks; a != nil && !c.playback {
		a.ep.Received(uint16(seq), c.lastNow)
	}
}

// writeAcks writes, in the client message being built as netchan
// message seq, the packet acks and, once the ring's commands are all
// acknowledged, the block of the client commands due.
func (c *Client) writeAcks(w *msg.Writer, seq uint32) {
	a := c.conn.acks
	ack, bits := a.ep.AckFields()
	start := w.BitLen()
	proto.WriteAck(w, proto.ClcAck, ack, bits)
	c.stats.AckBitsUp += uint64(w.BitLen() - start)
	if c.conn.reliableAcknowledge == c.conn.reliableSequence {
		budget := min((len(c.wbuf)-w.Len()-64)*8/msg.MaxCodeLen, proto.MaxMessagesBlock)
		if block, n := a.msgs.Fill(a.block[:0], uint16(seq), c.lastNow, a.ep.RTT(), budget); n > 0 {
			start = w.BitLen()
			proto.WriteMessages(w, proto.ClcMessages, block)
			c.stats.ReliableBitsUp += uint64(w.BitLen() - start)
		}
	}
	a.ep.Sent(uint16(seq), c.lastNow, w.Len())
}

// sendsByID reports whether a new client command goes as a message of
// the acks carrier: the connection uses it and the ring holds nothing
// unacknowledged.
func (c *Client) sendsByID() bool {
	return c.conn.acks != nil && c.conn.reliableAcknowledge == c.conn.reliableSequence
}
