package inspect

import (
	"encoding/binary"
	"io"
	"testing"
)

// encodePackets lays packets out as the fuzz input: per packet a
// direction byte, a 16-bit little-endian length and the bytes.
func encodePackets(pkts []packet) []byte {
	var b []byte
	for _, p := range pkts {
		b = append(b, byte(p.dir))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(p.data)))
		b = append(b, p.data...)
	}
	return b
}

// decodePackets is the inverse of encodePackets; a short tail ends it.
func decodePackets(b []byte) []packet {
	var pkts []packet
	for len(b) >= 3 {
		d := Dir(b[0] & 1)
		n := int(binary.LittleEndian.Uint16(b[1:]))
		b = b[3:]
		n = min(n, len(b))
		pkts = append(pkts, packet{d, b[:n]})
		b = b[n:]
	}
	return pkts
}

// FuzzFeed feeds arbitrary packets to an Inspector, either fresh or
// after the handshake and gamestate of a synthetic session (so that
// mutations reach scrambled snapshots and usercmds). It must never
// panic, and what it reports must be consistent: the bits of a decoded
// message fit in the message, a cleanly decoded message's ops account
// for all of them, and the result renders as text.
func FuzzFeed(f *testing.F) {
	s := newSession(false)
	// Small seeds: the fuzzer minimizes every input that finds new
	// coverage in O(n²) runs, and with the whole session (424 bytes)
	// it spent most of a 10 s run minimizing instead of fuzzing. The
	// handshake and the gamestate reach a fresh inspector through the
	// connect and connectResponse seed and the primed ones.
	f.Add(false, encodePackets(s.pkts[2:4]))
	f.Add(true, encodePackets(s.pkts[5:]))
	for i := range s.pkts {
		f.Add(true, encodePackets(s.pkts[i:i+1]))
		p := s.pkts[i]
		if len(p.data) > 8 {
			cut := packet{p.dir, p.data[:len(p.data)/2]}
			f.Add(true, encodePackets([]packet{cut}))
		}
	}
	// State hashes after the gamestate (the same handshake as s).
	f.Add(true, encodePackets(stateHashSession()[5:]))
	// Frame sync's frames, whole state and requests (the same handshake).
	fs, _ := frameSyncSession(f)
	for _, p := range fs[5:] {
		f.Add(true, encodePackets([]packet{p}))
	}
	prime := s.pkts[:5]
	f.Fuzz(func(t *testing.T, primed bool, data []byte) {
		in := New()
		if primed {
			feed(in, prime)
		}
		for _, m := range feed(in, decodePackets(data)) {
			if m.Kind == KindMessage {
				if m.Bits > 8*m.MessageLen {
					t.Fatalf("%d bits decoded from %d bytes", m.Bits, m.MessageLen)
				}
				if m.Err == "" {
					sum := 0
					for _, o := range m.Ops {
						sum += o.Bits
					}
					if sum != m.Bits {
						t.Fatalf("ops take %d bits, message %d", sum, m.Bits)
					}
				}
			}
			if err := m.WriteText(io.Discard, true); err != nil {
				t.Fatal(err)
			}
		}
	})
}
