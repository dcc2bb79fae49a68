package protospec

import (
	"testing"

	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/netchan"
	"tremor/net/reliable"
)

// TestAcksAsSpecified reads every message of the acks vectors by
// protocol.md 6.7's layout alone (readAcksOps, readSpecBlock) and checks
// it against the inspector's decoding, and each packet acks' value
// against the connection: a server's SvcAck acknowledges exactly the
// client messages it read whole on the carrier (those with the
// gamestate's server id), a client's ClcAck exactly the server messages
// it read whole since the gamestate's message that started the carrier;
// ack is the newest of them, bit n set when ack-n is one. The vectors
// must hold every operation of the carrier, and a block of two messages.
func TestAcksAsSpecified(t *testing.T) {
	s, err := acksSession()
	if err != nil {
		t.Fatal(err)
	}
	var clientRead, serverRead []uint32 // what each end read whole on the carrier, so far
	seen := map[string]int{}
	started := false
	for i, r := range s.records {
		if r.body == nil { // connectionless, or a fragment completing nothing
			continue
		}
		client := r.dir == inspect.ClientToServer
		side := netchan.ClientSide
		if client {
			side = netchan.ServerSide
		}
		h, err := netchan.PeekHeader(r.data, side)
		if err != nil {
			t.Fatalf("packet %d: %v", i+1, err)
		}
		o, err := readAcksOps(r.plain, client)
		if err != nil {
			t.Errorf("packet %d: by the document's layout: %v", i+1, err)
			continue
		}
		var ops []inspect.Op
		for _, m := range r.msgs {
			if m.Kind == inspect.KindMessage {
				ops = m.Ops
			}
		}
		var acks *inspect.PacketAcks
		var base *uint16
		var msgs []inspect.Op
		current := false
		for _, op := range ops {
			switch op.Name {
			case inspect.OpPacketAcks:
				acks = op.PacketAcks
			case inspect.OpMessageBase:
				base = op.MessageID
			case inspect.OpMessages:
				msgs = op.Sub
			case inspect.OpClientHeader:
				current = op.Header.ServerID == s.serverID
			}
		}
		// The layout's reading against the inspector's.
		if o.hasAck != (acks != nil) || acks != nil && (o.ack != acks.Ack || o.ackBits != acks.Bits) {
			t.Errorf("packet %d: packet acks %v %d %#x by the layout, %+v decoded", i+1, o.hasAck, o.ack, o.ackBits, acks)
		}
		if o.hasBase != (base != nil) || base != nil && o.base != *base {
			t.Errorf("packet %d: message base %v %d by the layout, %v decoded", i+1, o.hasBase, o.base, base)
		}
		if o.block != nil {
			spec, err := readSpecBlock(o.block)
			if err != nil || len(spec) != len(msgs) {
				t.Errorf("packet %d: block by the document's text: %v, %d messages; %d decoded", i+1, err, len(spec), len(msgs))
				continue
			}
			for j, m := range spec {
				if *msgs[j].MessageID != m.id || msgs[j].Fields[1].Value != m.text {
					t.Errorf("packet %d: message %d is id %d %q by the document, id %d %q decoded", i+1, j, m.id, m.text, *msgs[j].MessageID, msgs[j].Fields[1].Value)
				}
			}
			if _, err := reliable.ParseBlock(o.block, proto.MessagesPerPacket, proto.MaxMessageBytes, func(uint16, []byte) {}); err != nil {
				t.Errorf("packet %d: reliable.ParseBlock refuses the block: %v", i+1, err)
			}
			if client {
				seen["ClcMessages"]++
			} else {
				seen["SvcMessages"]++
			}
			if len(spec) >= 2 {
				seen["two messages"]++
			}
		}
		// The packet acks against what the other end read.
		if acks != nil {
			read := clientRead
			name := "SvcAck"
			if client {
				read, name = serverRead, "ClcAck"
			}
			seen[name]++
			var ack uint16
			var bits uint32
			if n := len(read); n > 0 {
				ack = uint16(read[n-1])
				for _, q := range read {
					if d := uint16(ack - uint16(q)); d < reliable.AckBits {
						bits |= 1 << d
					}
				}
			}
			if acks.Ack != ack || acks.Bits != bits {
				t.Errorf("packet %d: %s ack %d bits %#x; the other end read %v: want ack %d bits %#x", i+1, name, acks.Ack, acks.Bits, read, ack, bits)
			}
		}
		if base != nil {
			seen["SvcMessageBase"]++
			started = true
		}
		switch {
		case client && current:
			clientRead = append(clientRead, h.Sequence)
		case !client && started:
			serverRead = append(serverRead, h.Sequence)
		}
	}
	for _, want := range []string{"SvcAck", "ClcAck", "SvcMessages", "ClcMessages", "SvcMessageBase", "two messages"} {
		if seen[want] == 0 {
			t.Errorf("the acks vectors hold no %s", want)
		}
	}
	t.Logf("acks vectors: %v", seen)
}
