package proto

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks carrier: seed 001's packet acks and reliable messages by id
// (package reliable) beside Quake III's command rings. A connection uses
// it when the client asks for it in its userinfo (ReliableKey) and the
// server agrees (sv_reliable); the server decides at every gamestate it
// sends the client, and both ends switch at the gamestate's message
// (docs/protocol.md 6.7). Its messages then carry more operations,
// numbered after SvcStateHash and ClcEOF so that no older code moves:
//
//   - SvcAck / ClcAck, first in every message while the connection has
//     the carrier: ack, the low 16 bits of the newest netchan sequence
//     received from the other side, and ackBits, bit n set when the
//     message ack-n arrived (reliable.AckBits of them).
//   - SvcMessages / ClcMessages: a reliable.Messages block of reliable
//     commands, each with its 16-bit message id. Server commands go there
//     instead of the server command ring, client commands instead of the
//     client command ring; a command goes out again only when its packet
//     was not acked and it was not sent for the resend interval
//     (net_resendMsec), and the receiver delivers them in id order,
//     exactly once.
//   - SvcMessageBase, after the SvcAck of a gamestate's message on the
//     carrier: the oldest id the server still waits on, which the client
//     skips to (SkipTo); a gamestate's message without it puts the
//     connection back on the rings. The gamestate's message carries
//     every server command still waiting, ahead of the gamestate, so
//     that the commands from before a map change run before it.
//
// The rings' acknowledges (the server's reliableAcknowledge, the
// client's) stay in the headers; commands left on the carrier a
// gamestate switched from go on there until acknowledged, and each end
// holds its new commands back until then, so that they keep their order
// across the switch.
const (
	// SvcAck is a server message's packet acks.
	SvcAck = SvcStateHash + 1
	// SvcMessages is a server message's block of reliable commands.
	SvcMessages = SvcAck + 1
	// SvcMessageBase is the id the server's messages go on from after a
	// gamestate.
	SvcMessageBase = SvcMessages + 1
	// ClcAck is a client message's packet acks.
	ClcAck = ClcEOF + 1
	// ClcMessages is a client message's block of reliable commands.
	ClcMessages = ClcAck + 1
)

// ReliableKey is the userinfo key in which a client asks for a carrier:
// ReliableQ3 (or none) or ReliableAcks.
const ReliableKey = "reliable"

// The carriers, as ReliableKey and sv_reliable name them.
const (
	ReliableQ3   = "q3"
	ReliableAcks = "acks"
)

// MaxMessagesBlock is the longest message block a message carries, in
// bytes: the block's length is a short.
const MaxMessagesBlock = 8192 + 6*16

// The parameters of the message blocks both ends must share
// (reliable.MessagesConfig): a command is a message; a server command
// batch holds at most 8191 bytes (a big string), a client command 1023.
const (
	// MessagesWindow is the send and receive window, in messages: the
	// rings' 64.
	MessagesWindow = MaxReliableCommands
	// MessagesPerPacket is the most commands in one block.
	MessagesPerPacket = 32
	// MaxMessageBytes is the longest command a block carries.
	MaxMessageBytes = 8191
)

// MessagesConfig returns the reliable.MessagesConfig of the acks carrier
// with resend as its resend interval (net_resendMsec).
func MessagesConfig(resendMsec int) reliable.MessagesConfig {
	return reliable.MessagesConfig{
		SendWindow:     MessagesWindow,
		ReceiveWindow:  MessagesWindow,
		MaxMessageSize: MaxMessageBytes,
		MaxPerPacket:   MessagesPerPacket,
		Resend:         time.Duration(resendMsec) * time.Millisecond,
	}
}

// ErrMessagesBlock is wrapped by a message block ReadMessages refuses.
var ErrMessagesBlock = errors.New("proto: bad message block")

// WriteAck writes an SvcAck or ClcAck operation (op) with its fields.
func WriteAck(w *msg.Writer, op uint8, ack uint16, ackBits uint32) {
	w.WriteUint8(op)
	w.WriteBits(uint32(ack), 16)
	w.WriteBits(ackBits, 32)
}

// ReadAck reads the fields of an SvcAck or ClcAck operation.
func ReadAck(r *msg.Reader) (ack uint16, ackBits uint32) {
	ack = uint16(r.ReadBits(16))
	ackBits = r.ReadBits(32)
	return ack, ackBits
}

// WriteMessages writes an SvcMessages or ClcMessages operation (op)
// carrying block, a reliable.Messages block: its length as a short, then
// its bytes.
func WriteMessages(w *msg.Writer, op uint8, block []byte) {
	w.WriteUint8(op)
	w.WriteShort(int16(len(block)))
	w.WriteData(block)
}

// WriteMessageBase writes an SvcMessageBase operation with id.
func WriteMessageBase(w *msg.Writer, id uint16) {
	w.WriteUint8(SvcMessageBase)
	w.WriteShort(int16(id))
}

// ReadMessages reads the block of an SvcMessages or ClcMessages
// operation into buf and returns it. A length outside 1..MaxMessagesBlock
// or past the message's end fails the reader with an error wrapping
// ErrMessagesBlock.
func ReadMessages(r *msg.Reader, buf *[MaxMessagesBlock]byte) []byte {
	n := int(uint16(r.ReadShort()))
	if r.Err() != nil {
		return nil
	}
	// Huffman-coded, a byte takes at least one bit (not eight: a
	// block of frequent bytes codes shorter than its length).
	if n < 1 || n > MaxMessagesBlock || n > r.RemainingBits() {
		r.Fail(fmt.Errorf("%w: length %d", ErrMessagesBlock, n))
		return nil
	}
	b := buf[:n]
	r.ReadData(b)
	if r.Err() != nil {
		return nil
	}
	return b
}

// AckHandler is what a ServerHandler or ClientHandler implements to take
// the acks carrier's operations. A parse meets SvcAck, SvcMessages,
// ClcAck or ClcMessages with a handler without it as an unknown
// operation (ErrBadOp).
type AckHandler interface {
	// Ack receives the packet acks of an SvcAck or ClcAck.
	Ack(ack uint16, ackBits uint32) error
	// MessagesBuffer returns where a block is read.
	MessagesBuffer() *[MaxMessagesBlock]byte
	// Messages receives the block of an SvcMessages or ClcMessages (in
	// MessagesBuffer), or the error that stopped the reading.
	Messages(block []byte, err error) error
	// MessageBase receives an SvcMessageBase's id (server messages only).
	MessageBase(id uint16) error
}

// readAckOp reads the acks carrier's operation op for h, which must be
// an AckHandler.
func readAckOp(r *msg.Reader, h any, op uint8, obs Observer, side string) error {
	ah, ok := h.(AckHandler)
	if !ok {
		return fmt.Errorf("%w %d in a %s message", ErrBadOp, op, side)
	}
	start := r.BitPos()
	if op == SvcMessageBase {
		id := uint16(r.ReadShort())
		if r.Err() != nil {
			return r.Err()
		}
		if obs != nil {
			obs.Observe(Event{Part: PartMessageBase, Start: start, End: r.BitPos(), Seq: int32(id)})
		}
		return ah.MessageBase(id)
	}
	if op == SvcAck || op == ClcAck {
		a, bits := ReadAck(r)
		if r.Err() != nil {
			return r.Err()
		}
		if obs != nil {
			obs.Observe(Event{Part: PartAck, Start: start, End: r.BitPos(), Seq: int32(a), Key: bits})
		}
		return ah.Ack(a, bits)
	}
	b := ReadMessages(r, ah.MessagesBuffer())
	if obs != nil && r.Err() == nil {
		obs.Observe(Event{Part: PartMessages, Start: start, End: r.BitPos(), Index: int32(len(b)), Block: b})
	}
	return ah.Messages(b, r.Err())
}

// AckEvent is what an AckHooks observer is told of a packet of the acks
// carrier.
type AckEvent struct {
	// Client is the client's slot on the server's side, -1 on the
	// client's; Qport is the client's qport.
	Client int
	Qport  uint16
	// Sequence is the packet's netchan sequence, AckSequence the
	// carrier's (its low 16 bits plus the hooks' sequence offset).
	Sequence    uint32
	AckSequence uint16
	// Kind says what happened to the packet.
	Kind AckEventKind
}

// AckEventKind is what an AckEvent tells of a packet.
type AckEventKind uint8

// The kinds of AckEvent.
const (
	// AckSent: a message of this end went, counted by the carrier.
	AckSent AckEventKind = iota
	// AckReceived: a message of the other end was read whole and marked
	// received: this end acknowledges it from then on.
	AckReceived
	// AckAcked: a message of this end was acknowledged for the first
	// time.
	AckAcked
)

// AckHooks are one end's test hooks into its acks carriers (the server
// and the client each keep one): an observer told of every packet a
// carrier sends, marks received, or has acknowledged for the first time,
// so that a test checks no packet is acknowledged that the other end did
// not receive; and an offset added to the carrier's 16-bit sequence, so
// that a test crosses a wrap without sending 65536 packets. The zero
// AckHooks observes nothing and adds 0 (protocol.md 6.7). Safe for
// concurrent use; Tell costs one atomic load without an observer.
type AckHooks struct {
	observer atomic.Pointer[func(AckEvent)]
	offset   atomic.Uint32
}

// Observe has fn told of every event from now on; nil stops it.
func (h *AckHooks) Observe(fn func(AckEvent)) {
	if fn == nil {
		h.observer.Store(nil)
		return
	}
	h.observer.Store(&fn)
}

// Tell tells the observer of e, if there is one.
func (h *AckHooks) Tell(e AckEvent) {
	if fn := h.observer.Load(); fn != nil {
		(*fn)(e)
	}
}

// SetSequenceOffset makes the carriers made from now on number their
// packets from the netchan sequence plus off. Both ends must use the
// same offset.
func (h *AckHooks) SetSequenceOffset(off uint16) { h.offset.Store(uint32(off)) }

// SequenceOffset returns the offset SetSequenceOffset set.
func (h *AckHooks) SequenceOffset() uint16 { return uint16(h.offset.Load()) }
