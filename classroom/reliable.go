package classroom

import (
	"strconv"
	"time"

	"tremor/internal/inspect"
)

// Reliable commands in the lanes. A connection carries its reliable
// commands (client commands up, server commands down) either on Quake
// III's rings (cl_reliable q3): every unacknowledged command in every
// message, numbered by the ring's sequence and acknowledged by the
// other side's reliableAcknowledge; or on the acks carrier (cl_reliable
// acks, docs/protocol.md 6.7): messages by id, sent again only after the
// resend interval, acknowledged through the packet acks (ack and 32 ack
// bits) of the other side's messages. The model follows each command
// from the packets' decoded text (internal/inspect), the same on both
// carriers: the packet that sends it first, the packets that send it
// again, and the first packet that acknowledges it and arrives.

// relPathMax bounds the commands a direction follows at once; older ones
// are forgotten (a connection that never acknowledges).
const relPathMax = 256

// relUnit is one reliable command of one direction, sent and not yet
// acknowledged.
type relUnit struct {
	byID    bool   // a message id of the acks carrier; else a ring sequence
	key     uint32 // its ring sequence or message id
	first   time.Duration
	deliver time.Duration // the first arrival of a packet carrying it; -1: none yet
}

// relRef is a command a packet carried or acknowledged, for Describe.
type relRef struct {
	byID bool
	key  uint32
	new  bool // carried for the first time
}

// relPath follows one direction's reliable commands.
type relPath struct {
	pending         []relUnit
	maxSeq          int32  // the newest ring sequence sent
	maxID           uint16 // the newest message id sent
	haveSeq, haveID bool
	// bySeq holds the events that carried messages by id, by their
	// netchan sequence mod its size, for the packet acks to find.
	bySeq [1024]uint64
}

// reset forgets everything: a new connection.
func (r *relPath) reset() {
	r.pending = r.pending[:0]
	r.haveSeq, r.haveID = false, false
	clear(r.bySeq[:])
}

// find returns the pending command, if it is one.
func (r *relPath) find(byID bool, key uint32) *relUnit {
	for i := range r.pending {
		if u := &r.pending[i]; u.byID == byID && u.key == key {
			return u
		}
	}
	return nil
}

// sent records a command carried by e, sent on path c: first, or again.
func (r *relPath) sent(c *Counts, e *Event, byID bool, key uint32) {
	first := false
	if byID {
		id := uint16(key)
		first = !r.haveID || int16(id-r.maxID) > 0
		if first {
			r.maxID, r.haveID = id, true
		}
	} else {
		seq := int32(key)
		first = !r.haveSeq || seq > r.maxSeq
		if first {
			r.maxSeq, r.haveSeq = seq, true
		}
	}
	e.units = append(e.units, relRef{byID: byID, key: key, new: first})
	if first {
		c.RelSent++
		e.RelNew++
		if len(r.pending) >= relPathMax {
			r.pending = append(r.pending[:0], r.pending[1:]...)
		}
		r.pending = append(r.pending, relUnit{byID: byID, key: key, first: e.Sent, deliver: -1})
	} else {
		c.RelResent++
		e.RelAgain++
	}
	if e.Copies > 0 {
		if u := r.find(byID, key); u != nil && (u.deliver < 0 || e.Arrive[0] < u.deliver) {
			u.deliver = e.Arrive[0]
		}
	}
}

// ack retires pending command i, acknowledged by e (which arrives at the
// sender of the command at e.Arrive[0]); c is the command's path's
// counts.
func (r *relPath) ack(c *Counts, i int, e *Event) {
	u := r.pending[i]
	c.RelAcked++
	if u.deliver >= 0 {
		d := u.deliver - u.first
		c.RelTimed++
		c.DelaySum += d
		c.DelayMax = max(c.DelayMax, d)
	}
	c.AckSum += e.Arrive[0] - u.first
	e.Acks++
	e.acked = append(e.acked, relRef{byID: u.byID, key: u.key})
	r.pending = append(r.pending[:i], r.pending[i+1:]...)
}

// ackRing retires the ring commands up to seq.
func (r *relPath) ackRing(c *Counts, seq int32, e *Event) {
	for i := 0; i < len(r.pending); {
		if u := &r.pending[i]; !u.byID && int32(u.key) <= seq {
			r.ack(c, i, e)
			continue
		}
		i++
	}
}

// ackID retires message id, if it is pending.
func (r *relPath) ackID(c *Counts, id uint16, e *Event) {
	for i := range r.pending {
		if u := &r.pending[i]; u.byID && uint16(u.key) == id {
			r.ack(c, i, e)
			return
		}
	}
}

// supersede forgets the messages before id: a gamestate replaced them
// (SvcMessageBase), so they are never acknowledged.
func (r *relPath) supersede(id uint16) {
	for i := 0; i < len(r.pending); {
		if u := &r.pending[i]; u.byID && int16(uint16(u.key)-id) < 0 {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			continue
		}
		i++
	}
}

// trackReliable records what packet e of player p carried of the
// reliable commands, on either carrier, and which of the other
// direction's commands it is the first to acknowledge.
func (m *Model) trackReliable(p *Player, e *Event) {
	pa, other := &p.up, &p.down
	if e.Dir == Down {
		pa, other = &p.down, &p.up
	}
	c := &pa.counts
	var packetAcks bool
	var ack uint16
	var ackBits uint32
	ringAck, haveRingAck := int32(0), false
	for i := range e.Msg.Ops {
		op := &e.Msg.Ops[i]
		switch op.Name {
		case inspect.OpServerCommand, inspect.OpClientCommand:
			c.RelBytes += uint64(op.Bits+7) / 8
			if op.Command != nil {
				pa.rel.sent(c, e, false, uint32(op.Command.Sequence))
			}
		case inspect.OpMessages:
			c.RelBytes += uint64(op.Bits+7) / 8
			for j := range op.Sub {
				if id := op.Sub[j].MessageID; id != nil {
					pa.rel.sent(c, e, true, uint32(*id))
				}
			}
			if e.Netchan && len(op.Sub) > 0 {
				pa.rel.bySeq[e.Sequence%uint32(len(pa.rel.bySeq))] = e.ID
			}
		case inspect.OpMessageBase:
			if id := op.MessageID; id != nil {
				pa.rel.supersede(*id)
			}
		case inspect.OpPacketAcks:
			c.AckBytes += uint64(op.Bits+7) / 8
			if pk := op.PacketAcks; pk != nil {
				packetAcks, ack, ackBits = true, pk.Ack, pk.Bits
			}
		case inspect.OpReliableAck: // the server's: the last client command it received
			if a := op.ReliableAck; a != nil {
				ringAck, haveRingAck = *a, true
			}
		case inspect.OpClientHeader: // the client's: the last server command it received
			if op.Header != nil {
				ringAck, haveRingAck = op.Header.ReliableAcknowledge, true
			}
		}
	}
	if e.Copies == 0 {
		return // an acknowledgement that never arrives acknowledges nothing
	}
	oc := &other.counts
	if haveRingAck {
		other.rel.ackRing(oc, ringAck, e)
	}
	if packetAcks {
		for n := range 32 {
			if ackBits&(1<<n) == 0 {
				continue
			}
			seq := ack - uint16(n)
			o, ok := m.Event(other.rel.bySeq[uint32(seq)%uint32(len(other.rel.bySeq))])
			if !ok || !o.Netchan || uint16(o.Sequence) != seq || o.Player != e.Player || o.Dir == e.Dir {
				continue
			}
			for _, u := range o.units {
				if u.byID {
					other.rel.ackID(oc, uint16(u.key), e)
				}
			}
		}
	}
}

// appendRelRefs appends refs as "#5 #6" (ring sequences) or "id 5, 6".
func appendRelRefs(b []byte, refs []relRef, onlyNew, onlyOld bool) []byte {
	n := 0
	for _, r := range refs {
		if (onlyNew && !r.new) || (onlyOld && r.new) {
			continue
		}
		if n > 0 {
			b = append(b, ' ')
		}
		if r.byID {
			b = append(b, "id "...)
		} else {
			b = append(b, '#')
		}
		b = strconv.AppendUint(b, uint64(r.key), 10)
		n++
	}
	return b
}

// ReliableLine returns what e did with reliable commands, for the
// decoded packet's second line: the commands it sent first and again
// (ring sequences #N, message ids "id N") and those of the other way it
// was the first to acknowledge; "" if none.
func ReliableLine(e *Event) string {
	if len(e.units) == 0 && len(e.acked) == 0 {
		return ""
	}
	var b []byte
	b = append(b, "reliable:"...)
	if e.RelNew > 0 {
		b = append(b, " first send of "...)
		b = appendRelRefs(b, e.units, true, false)
		b = append(b, ';')
	}
	if e.RelAgain > 0 {
		b = append(b, " sent again: "...)
		b = appendRelRefs(b, e.units, false, true)
		b = append(b, ';')
	}
	if e.Acks > 0 {
		b = append(b, " first to acknowledge the other way's "...)
		b = appendRelRefs(b, e.acked, false, false)
		b = append(b, ';')
	}
	return string(b[:len(b)-1])
}
