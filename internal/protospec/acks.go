package protospec

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// The acks session: the vector connection once more, its client asking
// for the acks carrier (protocol.md 6.7) in its userinfo. Its client
// keeps, as a client of that carrier must: the server messages it read
// whole since the gamestate that started the carrier (for its ClcAck),
// the id of the next server command it delivers, and its own commands
// by id with the packets that carried them (retired by the server's
// SvcAck).

// VectorAcksCommands are the two client commands the acks session's
// client makes at once: one ClcMessages block carries both, ids 0 and
// 1, the second coded after a gap.
var VectorAcksCommands = [...]string{VectorCommand, VectorKeyCommand}

// vectorResend is the acks session client's resend interval, in ms
// (net_resendMsec's default).
const vectorResend = 100

// acksClient is the acks session client's carrier.
type acksClient struct {
	on       bool     // the server's gamestate started the carrier
	received []uint32 // server messages read whole on it
	recvNext uint16   // id of the next server command to deliver
	nextID   uint16   // id of the next client command
	pending  []pendingCommand
	// sentIn lists, by the carrier's sequence of each client message,
	// the ids it carried.
	sentIn map[uint16][]uint16
}

// pendingCommand is a client command by id waiting for its packet's ack.
type pendingCommand struct {
	id       uint16
	text     string
	lastSent int32 // real time, 0 if never sent
}

// queue makes text the client's next command by id.
func (a *acksClient) queue(text string) {
	a.pending = append(a.pending, pendingCommand{id: a.nextID, text: text})
	a.nextID++
}

// serverOps takes what the client keeps from the acks carrier's
// operations of server message seq, as the inspector decoded it.
func (a *acksClient) serverOps(m *inspect.Message, seq uint32) {
	for _, op := range m.Ops {
		switch op.Name {
		case inspect.OpMessageBase:
			a.on = true
			if reliable.SequenceGreater(*op.MessageID, a.recvNext) {
				a.recvNext = *op.MessageID
			}
		case inspect.OpPacketAcks:
			if !a.on {
				continue
			}
			for i := range reliable.AckBits {
				if op.PacketAcks.Bits&(1<<i) == 0 {
					continue
				}
				for _, id := range a.sentIn[op.PacketAcks.Ack-uint16(i)] {
					a.pending = slices.DeleteFunc(a.pending, func(p pendingCommand) bool { return p.id == id })
				}
			}
		case inspect.OpMessages:
			for _, sub := range op.Sub {
				if sub.MessageID != nil && *sub.MessageID == a.recvNext {
					a.recvNext++ // lossless: every command comes in order
				}
			}
		}
	}
	if a.on && m.Err == "" {
		a.received = append(a.received, seq)
	}
}

// write writes the client's ClcAck and, if any command is due (never
// sent, or sent vectorResend ms ago or more), its ClcMessages block, in
// the message about to go as netchan message seq at real time now.
func (a *acksClient) write(w *msg.Writer, seq uint32, now int32) {
	var ack uint16
	var bits uint32
	if n := len(a.received); n > 0 {
		newest := a.received[n-1]
		ack = uint16(newest)
		for _, r := range a.received {
			if d := newest - r; d < reliable.AckBits {
				bits |= 1 << d
			}
		}
	}
	proto.WriteAck(w, proto.ClcAck, ack, bits)
	var ids []uint16
	var datas [][]byte
	for i := range a.pending {
		p := &a.pending[i]
		if p.lastSent != 0 && now-p.lastSent < vectorResend {
			continue
		}
		p.lastSent = now
		ids = append(ids, p.id)
		datas = append(datas, []byte(p.text))
	}
	if len(ids) > 0 {
		proto.WriteMessages(w, proto.ClcMessages, reliable.AppendBlock(nil, ids, datas))
		a.sentIn[uint16(seq)] = ids
	}
}

// acksOps are the acks carrier's operations of a message, read from its
// plain body by protocol.md 6.7's layout alone.
type acksOps struct {
	hasAck  bool
	ack     uint16
	ackBits uint32
	hasBase bool
	base    uint16
	block   []byte // the SvcMessages or ClcMessages block, nil if none
}

// readAcksOps reads the acks carrier's operations at the start of a
// plain message body, by the layouts of protocol.md 6.1, 6.6 and 6.7
// and nothing but msg.Reader's primitives: for a server message the
// reliable acknowledge, for a client message the header and its client
// commands, then SvcAck/ClcAck, SvcMessageBase, server commands and the
// block, up to the first other operation.
func readAcksOps(body []byte, client bool) (acksOps, error) {
	r := msg.NewReader(body, msg.Huffman)
	var o acksOps
	if client {
		r.ReadRawBits(1 + proto.ServerIDBits + proto.MessageAckBits + proto.ReliableAckBits)
	} else {
		r.ReadRawBits(proto.ReliableAckBits)
	}
	ackOp, blockOp := uint8(proto.SvcAck), uint8(proto.SvcMessages)
	if client {
		ackOp, blockOp = proto.ClcAck, proto.ClcMessages
	}
	for r.Err() == nil {
		switch op := r.ReadUint8(); {
		case op == ackOp:
			o.hasAck = true
			o.ack = uint16(r.ReadBits(16))
			o.ackBits = r.ReadBits(32)
		case op == blockOp:
			n := int(uint16(r.ReadShort()))
			o.block = make([]byte, n)
			r.ReadData(o.block)
		case !client && op == proto.SvcMessageBase:
			o.hasBase = true
			o.base = uint16(r.ReadShort())
		case !client && op == proto.SvcServerCommand:
			r.ReadLong()
			r.ReadBigString()
		case client && op == proto.ClcClientCommand:
			r.ReadLong()
			r.ReadString()
		default:
			return o, r.Err()
		}
	}
	return o, r.Err()
}

// specMessage is one message of a block read by protocol.md 6.7's text.
type specMessage struct {
	id        uint16
	gap, size uint64 // as coded (gap 0 for the first)
	text      string
}

// readSpecBlock reads a message block by protocol.md 6.7's text alone:
// a count byte, the first id as 2 bytes little-endian, then for each
// message a uvarint gap (not for the first), a uvarint size and size
// bytes of text.
func readSpecBlock(b []byte) ([]specMessage, error) {
	if len(b) < 3 {
		return nil, fmt.Errorf("block of %d bytes", len(b))
	}
	count := int(b[0])
	id := binary.LittleEndian.Uint16(b[1:3])
	off := 3
	var out []specMessage
	for i := range count {
		var m specMessage
		if i > 0 {
			gap, n := binary.Uvarint(b[off:])
			if n <= 0 {
				return nil, fmt.Errorf("message %d: bad gap", i)
			}
			off += n
			id += uint16(gap) + 1
			m.gap = gap
		}
		size, n := binary.Uvarint(b[off:])
		if n <= 0 || off+n+int(size) > len(b) {
			return nil, fmt.Errorf("message %d: bad size", i)
		}
		off += n
		m.id, m.size, m.text = id, size, string(b[off:off+int(size)])
		off += int(size)
		out = append(out, m)
	}
	if off != len(b) {
		return nil, fmt.Errorf("block of %d bytes ends at %d", len(b), off)
	}
	return out, nil
}

// formatAcksOps writes, for a message of the acks session, its acks
// carrier's operations as read by the document's layout: the fields,
// and the block's bytes and messages.
func formatAcksOps(b *strings.Builder, r *record) {
	if r.plain == nil {
		return
	}
	o, err := readAcksOps(r.plain, r.dir == inspect.ClientToServer)
	if err != nil || !o.hasAck && !o.hasBase && o.block == nil {
		return
	}
	b.WriteString("\nacks carrier (protocol.md 6.7), read by its layout:\n")
	if o.hasAck {
		fmt.Fprintf(b, "  packet acks: ack %d (0x%04x), ackBits 0x%08x\n", o.ack, o.ack, o.ackBits)
	}
	if o.hasBase {
		fmt.Fprintf(b, "  message base: id %d\n", o.base)
	}
	if o.block != nil {
		fmt.Fprintf(b, "  block (%d bytes):\n", len(o.block))
		var h strings.Builder
		hexdump(&h, o.block)
		b.WriteString(indent(indent(h.String())))
		msgs, err := readSpecBlock(o.block)
		if err != nil {
			fmt.Fprintf(b, "  unreadable: %v\n", err)
			return
		}
		fmt.Fprintf(b, "    count %d, first id %d\n", len(msgs), msgs[0].id)
		for i, m := range msgs {
			gap := "-"
			if i > 0 {
				gap = fmt.Sprint(m.gap)
			}
			fmt.Fprintf(b, "    id %d: gap %s, size %d, text %s\n", m.id, gap, m.size, quoteBytes(m.text))
		}
	}
}
