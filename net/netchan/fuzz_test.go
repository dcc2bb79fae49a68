package netchan

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Fuzz input for FuzzProcess is a list of records, each one packet:
//
//	n < 128: a raw packet of the next n bytes
//	n >= 128: a made-up packet from the next 9 bytes: sequence (uint16),
//	   flags (1 fragment, 2 qport, 4 wrong qport, 8 body length given),
//	   fragment start and length (uint16 each), body length (uint16, used
//	   with flag 8, else the fragment length); the body is a pattern.
//
// Made-up records let a few bytes describe a valid run of 1300-byte
// fragments, so the fuzzer (and its minimiser) works on small inputs.
const synthRecordLen = 9

// maxFuzzInput is how much of its input FuzzProcess reads.
const maxFuzzInput = 256

func rawRecord(p []byte) []byte { return append([]byte{byte(len(p))}, p...) }

func synthRecord(seq uint16, flags byte, start, length, bodyLen uint16) []byte {
	b := []byte{0x80}
	b = binary.LittleEndian.AppendUint16(b, seq)
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint16(b, start)
	b = binary.LittleEndian.AppendUint16(b, length)
	return binary.LittleEndian.AppendUint16(b, bodyLen)
}

// nextRecord splits the first packet off data, building it in buf.
func nextRecord(data, buf []byte) (packet, rest []byte) {
	op := data[0]
	data = data[1:]
	if op < 0x80 {
		n := min(int(op), len(data))
		return data[:n], data[n:]
	}
	var r [synthRecordLen]byte
	n := copy(r[:], data)
	data = data[n:]
	flags := r[2]
	h := Header{
		Sequence:       uint32(binary.LittleEndian.Uint16(r[0:])),
		Fragment:       flags&1 != 0,
		HasQport:       flags&2 != 0,
		Qport:          testQport,
		FragmentStart:  binary.LittleEndian.Uint16(r[3:]),
		FragmentLength: binary.LittleEndian.Uint16(r[5:]),
	}
	if flags&4 != 0 {
		h.Qport ^= 1
	}
	bodyLen := int(h.FragmentLength)
	if flags&8 != 0 || !h.Fragment {
		bodyLen = int(binary.LittleEndian.Uint16(r[7:]))
	}
	b := h.Append(buf[:0])
	return append(b, fuzzBody[:min(bodyLen, len(fuzzBody))]...), data
}

var fuzzBody = makeMsg(MaxMsgLen+1, 0)

func FuzzProcess(f *testing.F) {
	// A fragmented message, a duplicate, then a small one, both ways.
	var c2s, s2c []byte
	for i := range 3 {
		c2s = append(c2s, synthRecord(1, 1|2, uint16(i*FragmentSize), FragmentSize, 0)...)
		s2c = append(s2c, synthRecord(1, 1, uint16(i*FragmentSize), FragmentSize, 0)...)
	}
	c2s = append(c2s, synthRecord(1, 1|2, 3*FragmentSize, 7, 0)...)
	s2c = append(s2c, synthRecord(1, 1, 3*FragmentSize, 0, 0)...)
	c2s = append(c2s, synthRecord(1, 1|2, 3*FragmentSize, 7, 0)...)
	c2s = append(c2s, synthRecord(2, 2, 0, 0, 40)...)
	s2c = append(s2c, synthRecord(3, 0, 0, 0, 1299)...)
	f.Add(c2s)
	f.Add(s2c)
	f.Add(append(bytes.Clone(c2s), s2c...))
	// Out of order, a gap, a wrong qport, lying lengths.
	f.Add(bytes.Join([][]byte{
		synthRecord(5, 1|2, FragmentSize, FragmentSize, 0),
		synthRecord(5, 1|2, 0, FragmentSize, 0),
		synthRecord(4, 1|2, 0, 3, 0),
		synthRecord(9, 2|4, 0, 0, 10),
		synthRecord(9, 1|8, 0, 100, 99),
		synthRecord(9, 1, 0, FragmentSize+1, 0),
	}, nil))
	// Sequences past MaxSequenceJump: whole, and a fragment in the middle
	// of a reassembly.
	f.Add(bytes.Join([][]byte{
		synthRecord(3, 2, 0, 0, 5),
		synthRecord(MaxSequenceJump+4, 2, 0, 0, 5),
		synthRecord(4, 1|2, 0, FragmentSize, 0),
		synthRecord(MaxSequenceJump+4, 1|2, FragmentSize, 9, 0),
		synthRecord(4, 1|2, FragmentSize, 9, 0),
		synthRecord(MaxSequenceJump+4, 2, 0, 0, 5),
	}, nil))
	// Raw bytes: connectionless, truncated headers, a fragment header.
	f.Add(rawRecord([]byte{0xff, 0xff, 0xff, 0xff, 'g', 'e', 't'}))
	f.Add(bytes.Join([][]byte{rawRecord(nil), rawRecord([]byte{1, 0, 0}), rawRecord([]byte{1, 0, 0, 0x80, 0x34, 0x12, 0, 0, 2, 0, 'h', 'i'})}, nil))
	// Real packets from a Chan.
	e := newEndpoints()
	e.client.Transmit(makeMsg(30, 1))
	e.server.Transmit(makeMsg(20, 2))
	f.Add(append(rawRecord(e.clientConn.take()[0]), rawRecord(e.serverConn.take()[0])...))

	conn := &ringConn{}
	server := New(conn, clientAddr, ServerSide, testQport)
	client := New(conn, serverAddr, ClientSide, testQport)
	chans := []*Chan{server, client}
	buf := make([]byte, 0, MaxHeaderLen+MaxMsgLen+1)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Reuse the channels (their buffers are large) and bound the input:
		// the minimiser's work grows with the square of its length.
		*server = Chan{conn: conn, remote: clientAddr, side: ServerSide, qport: testQport, outgoingSequence: 1}
		*client = Chan{conn: conn, remote: serverAddr, side: ClientSide, qport: testQport, outgoingSequence: 1}
		data = data[:min(len(data), maxFuzzInput)]
		for len(data) > 0 {
			var p []byte
			p, data = nextRecord(data, buf)
			for _, c := range chans {
				prev := c.IncomingSequence()
				jumps, fragSeq, fragLen := c.stats.SequenceJumps, c.fragSequence, c.fragLen
				h, herr := PeekHeader(p, c.Side())
				if herr == nil && !bytes.Equal(h.Append(nil), p[:h.Len()]) {
					t.Fatalf("header %+v does not re-serialise to % x", h, p[:h.Len()])
				}
				msg, ok, err := c.Process(p)
				jumped := c.stats.SequenceJumps != jumps
				switch {
				case c.IncomingSequence()-prev > MaxSequenceJump:
					t.Fatalf("incoming sequence jumped from %d to %d", prev, c.IncomingSequence())
				case jumped && (ok || err != nil || c.IncomingSequence() != prev || c.fragSequence != fragSeq || c.fragLen != fragLen):
					t.Fatalf("sequence %d dropped as a jump from %d, yet ok %v err %v, incoming %d, reassembly %d/%d -> %d/%d",
						h.Sequence, prev, ok, err, c.IncomingSequence(), fragSeq, fragLen, c.fragSequence, c.fragLen)
				case jumped != (herr == nil && (c.side == ClientSide || h.Qport == c.qport) && farBehind(h.Sequence, prev)):
					t.Fatalf("sequence %d after %d: counted as a jump %v", h.Sequence, prev, jumped)
				case herr != nil && err == nil:
					t.Fatalf("PeekHeader error %v but Process accepted the packet", herr)
				case ok && err != nil:
					t.Fatalf("ok with error %v", err)
				case ok && len(msg) > MaxMsgLen:
					t.Fatalf("message of %d bytes", len(msg))
				case c.IncomingSequence() < prev:
					t.Fatalf("incoming sequence went back from %d to %d", prev, c.IncomingSequence())
				case ok && c.IncomingSequence() == prev:
					t.Fatalf("message delivered without a new sequence")
				}
			}
		}
	})
}

// farBehind reports whether the 15-bit wire sequence, placed against
// the last delivered sequence incoming, is outside the window ahead and
// more than MaxReorder behind: a packet Process counts as a jump.
func farBehind(wire, incoming uint32) bool {
	behind, ahead := ResolveSequence(wire, incoming)
	return !ahead && behind > MaxReorder
}

func FuzzFragmentRoundTrip(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{3, 0x14, 0x05, 0x28, 0x0a, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 0x14, 0x05, 2, 0, 0})                            // 1300 bytes, first fragment lost
	f.Add([]byte{2, 0x00, 0x40, 0x10, 0x00, 3, 3, 3, 3, 3, 3, 3, 3}) // MaxMsgLen, all duplicated
	f.Add([]byte{2, 0x29, 0x0a, 0x05, 0x00, 4, 0, 4, 1})             // 2601 bytes, reordered
	f.Add([]byte{3, 0xff, 0xff, 0x00, 0x00, 0x3c, 0x0f, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3})

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		const challenge, text = 0x1234567, "fuzz%\x80"
		// 1 count byte, 4 lengths, a fate for each of at most 4*13 packets.
		data = data[:min(len(data), 1+4*2+4*13)]
		nmsg := 1 + int(data[0]%4)
		data = data[1:]
		conn := &captureConn{}
		sender := New(conn, serverAddr, ClientSide, testQport)
		receiver := New(&ringConn{}, clientAddr, ServerSide, testQport)
		sender.Encode = func(seq uint32, msg []byte) { Scramble(msg, ServerKey(challenge, seq), text) }

		sent := map[uint32][]byte{}
		for i := range nmsg {
			n := 0
			if len(data) >= 2 {
				n = int(binary.LittleEndian.Uint16(data)) % (MaxMsgLen + 1)
				data = data[2:]
			}
			m := makeMsg(n, byte(i))
			sent[sender.OutgoingSequence()] = bytes.Clone(m)
			if err := sender.Transmit(m); err != nil {
				t.Fatal(err)
			}
			if err := sender.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		packets := conn.take()

		// Each packet's fate comes from the rest of the input: 0, 1 deliver,
		// 2 lose, 3 duplicate, 4 swap with the next packet.
		var arrivals [][]byte
		lossy := false
		for i := 0; i < len(packets); i++ {
			action := byte(0)
			if i < len(data) {
				action = data[i] % 5
			}
			switch action {
			case 2:
				lossy = true
			case 3:
				arrivals = append(arrivals, packets[i], packets[i])
			case 4:
				if i+1 < len(packets) {
					arrivals = append(arrivals, packets[i+1], packets[i])
					i++
					lossy = true
					break
				}
				arrivals = append(arrivals, packets[i])
			default:
				arrivals = append(arrivals, packets[i])
			}
		}

		delivered := 0
		var last uint32
		for _, p := range arrivals {
			msg, ok, err := receiver.Process(p)
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			if !ok {
				continue
			}
			seq := receiver.IncomingSequence()
			if seq <= last {
				t.Fatalf("sequence %d delivered after %d", seq, last)
			}
			last = seq
			Scramble(msg, ServerKey(challenge, seq), text)
			if want, found := sent[seq]; !found || !bytes.Equal(msg, want) {
				t.Fatalf("sequence %d: delivered %d bytes that differ from what was sent", seq, len(msg))
			}
			delivered++
		}
		if !lossy && delivered != nmsg {
			t.Fatalf("no loss, but %d of %d messages delivered", delivered, nmsg)
		}
	})
}
