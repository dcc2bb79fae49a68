package reliable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// FuzzParseHeader: any 6 bytes are a header that serialises back to
// themselves; fewer are an error.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 1, 0, 0})
	f.Add(AppendHeader(nil, 0x1234, 0xFFFFFFFF))
	f.Add(AppendHeader([]byte{}, 65535, 1<<31|1))
	f.Fuzz(func(t *testing.T, b []byte) {
		ack, bits, n, err := ParseHeader(b)
		if len(b) < HeaderLen {
			if !errors.Is(err, ErrShortHeader) || n != 0 {
				t.Fatalf("%d bytes: n %d err %v", len(b), n, err)
			}
			return
		}
		if err != nil || n != HeaderLen {
			t.Fatalf("n %d err %v", n, err)
		}
		if got := AppendHeader(nil, ack, bits); !bytes.Equal(got, b[:HeaderLen]) {
			t.Fatalf("round trip % x -> % x", b[:HeaderLen], got)
		}
	})
}

// FuzzParseBlock reads hostile blocks: no panic; a block accepted
// re-encodes to the same bytes (so the format has one encoding), and
// Messages.Receive with the same limits agrees with ParseBlock.
func FuzzParseBlock(f *testing.F) {
	f.Add([]byte{0}, uint8(32), uint16(1024))
	f.Add(AppendBlock(nil, []uint16{65534, 65535, 2}, [][]byte{[]byte("hi"), {}, bytes.Repeat([]byte{'x'}, 130)}), uint8(32), uint16(1024))
	f.Add([]byte{2, 5, 0, 0, 0xff, 0xff, 0x01, 0}, uint8(8), uint16(16))
	f.Add([]byte{1, 5, 0, 0x81, 0x00, 'a'}, uint8(1), uint16(1))
	f.Add([]byte{3, 5, 0, 0, 0xff, 0x7f, 0, 0xff, 0x7f, 0}, uint8(255), uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, maxPer uint8, maxSize uint16) {
		per, size := max(int(maxPer), 1), min(max(int(maxSize), 1), MaxMessageLimit)
		var ids []uint16
		var datas [][]byte
		n, err := ParseBlock(b, per, size, func(id uint16, data []byte) {
			ids = append(ids, id)
			datas = append(datas, data)
		})
		if err != nil {
			if n != 0 || len(ids) != 0 {
				t.Fatalf("error %v with n %d and %d messages", err, n, len(ids))
			}
		} else {
			if n < 1 || n > len(b) || len(ids) > per {
				t.Fatalf("n %d of %d bytes, %d messages", n, len(b), len(ids))
			}
			if got := AppendBlock(nil, ids, datas); !bytes.Equal(got, b[:n]) {
				t.Fatalf("round trip\n% x\n% x", b[:n], got)
			}
		}
		m := NewMessages(MessagesConfig{MaxPerPacket: per, MaxMessageSize: size, PacketWindow: 128})
		m2, err2 := m.Receive(b)
		if m2 != n || (err == nil) != (err2 == nil) {
			t.Fatalf("Receive %d %v, ParseBlock %d %v", m2, err2, n, err)
		}
		checkDelivery(t, m, 0)
	})
}

// checkDelivery drains m and checks that ids come out consecutively from
// want.
func checkDelivery(t *testing.T, m *Messages, want uint16) uint16 {
	t.Helper()
	for {
		id, _, ok := m.Next()
		if !ok {
			return want
		}
		if id != want {
			t.Fatalf("delivered id %d, want %d", id, want)
		}
		want++
	}
}

// FuzzReceive feeds a receiver a series of hostile blocks: ids come out
// in order, each once, whatever arrives.
func FuzzReceive(f *testing.F) {
	f.Add(uint16(0), AppendBlock(nil, []uint16{1, 2, 300, 0}[:2], [][]byte{{1}, {2}}))
	f.Add(uint16(65530), AppendBlock(AppendBlock(nil, []uint16{65531, 3}, [][]byte{{}, {}}), []uint16{65530}, [][]byte{{9}}))
	f.Fuzz(func(t *testing.T, start uint16, stream []byte) {
		m := NewMessages(MessagesConfig{ReceiveWindow: 16, SendWindow: 16, PacketWindow: 64})
		m.recvNext = start
		want := start
		for len(stream) > 0 {
			n, err := m.Receive(stream)
			if err != nil {
				n = 1 // skip a byte and try again
			}
			stream = stream[n:]
			want = checkDelivery(t, m, want)
		}
		if st := m.Stats(); st.Delivered != uint64(want-start) {
			t.Fatalf("stats %+v, delivered up to %d from %d", st, want, start)
		}
	})
}

// FuzzEndpoint drives an Endpoint with arbitrary sends, receives, ack
// headers and clock steps, keeping a model of what it sent: fn is called
// only for a packet sent among the last SentPackets and never acked
// before, and the Endpoint's states agree with the model.
func FuzzEndpoint(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 2, 0, 0, 0xff, 0xff, 0xff, 0xff, 3, 200})
	f.Add([]byte{0, 0, 0, 0, 1, 5, 0, 1, 6, 0, 2, 1, 1, 1, 0, 0, 0, 0, 2, 40, 0, 0xff, 0, 0, 0x80})
	f.Add(bytes.Repeat([]byte{0, 3, 9, 2, 0, 0, 0x0f, 0, 0, 0}, 50))
	f.Fuzz(func(t *testing.T, ops []byte) {
		const size = 64
		e := NewEndpoint(EndpointConfig{SentPackets: size, ReceivedPackets: size, LossTimeout: 200 * ms, LossWindow: 32})
		full := uint64(70000) // the model's next full sequence
		sent := map[uint64]bool{}
		acked := map[uint64]bool{}
		var now time.Duration
		byteAt := func(i int) byte {
			if i < len(ops) {
				return ops[i]
			}
			return 0
		}
		for i := 0; i < len(ops); {
			op := ops[i] % 4
			a, b := byteAt(i+1), byteAt(i+2)
			switch op {
			case 0: // send, sometimes skipping sequences
				if a%8 == 7 {
					full += uint64(b)
				}
				if !e.Sent(uint16(full), now, int(b)) {
					t.Fatalf("Sent(%d) refused", uint16(full))
				}
				sent[full] = true
				full++
				i += 3
			case 1: // receive
				e.Received(binary.LittleEndian.Uint16([]byte{a, b}), now)
				i += 3
			case 2: // an ack header near the newest sent, or anywhere
				ack := uint16(full-1) - uint16(a)
				if b&1 != 0 {
					ack = uint16(a)<<8 | uint16(b)
				}
				var bits uint32
				for j := range 4 {
					bits |= uint32(byteAt(i+3+j)) << (8 * j)
				}
				e.Acks(ack, bits, now, func(seq uint16) {
					f := full - uint64(uint16(uint16(full)-seq))
					if uint16(full)-seq == 0 || full-f > size || !sent[f] || acked[f] {
						t.Fatalf("acked %d (full %d): sent %v, acked before %v, %d behind", seq, f, sent[f], acked[f], full-f)
					}
					if seq-ack > 31 && ack-seq > 31 {
						t.Fatalf("acked %d from a header with ack %d", seq, ack)
					}
					acked[f] = true
				})
				i += 7
			case 3:
				now += time.Duration(a) * ms
				i += 2
			}
			if l := e.UpstreamLoss(); l < 0 || l > 1 {
				t.Fatalf("upstream loss %v", l)
			}
			if l := e.DownstreamLoss(); l < 0 || l > 1 {
				t.Fatalf("downstream loss %v", l)
			}
		}
		st := e.Stats()
		if st.Acked+st.Lost > st.Sent || st.Acked != uint64(len(acked)) {
			t.Fatalf("stats %+v, model acked %d", st, len(acked))
		}
		for f := full - min(full-70000, size); f < full; f++ {
			got := e.State(uint16(f))
			switch {
			case !sent[f] && got != PacketUnknown:
				t.Fatalf("never sent %d: %v", f, got)
			case acked[f] && got != PacketAcked, sent[f] && !acked[f] && got == PacketAcked:
				t.Fatalf("sent %d acked %v: state %v", f, acked[f], got)
			}
		}
	})
}

// FuzzMessages runs a sender and a receiver under a schedule the fuzzer
// picks: which packets are built, lost, duplicated or delivered late,
// which received packets are acked and when, and how time passes. The
// receiver must deliver the sender's messages in order, each once and
// intact; the sender must never send an id at or past its oldest unacked
// id plus the receive window; no message may be past the receiver's
// window.
func FuzzMessages(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 3, 0, 4, 100, 1, 2, 0})
	f.Add(bytes.Repeat([]byte{0, 0, 1, 1, 4, 30, 2, 1, 3, 0, 2, 0}, 30))
	f.Add(bytes.Repeat([]byte{0, 1, 4, 120, 2, 3, 3, 2}, 40))
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := MessagesConfig{SendWindow: 32, ReceiveWindow: 8, PacketWindow: 16, MaxPerPacket: 6, MaxMessageSize: 40}
		a, b := NewMessages(cfg), NewMessages(cfg)
		a.nextID, a.oldest, b.recvNext = 65530, 65530, 65530
		var (
			now       time.Duration
			seq       uint16
			queued    int
			delivered int
			inflight  [][]byte
			inSeq     []uint16
			received  []uint16 // packets b took, for honest acks
		)
		msg := func(k int) []byte { return bytes.Repeat([]byte{byte(k)}, k%41) }
		for i := 0; i+1 < len(ops); i += 2 {
			arg := int(ops[i+1])
			switch ops[i] % 5 {
			case 0:
				if _, err := a.Send(msg(queued)); err == nil {
					queued++
				}
			case 1:
				blk, n := a.Fill(nil, seq, now, time.Duration(arg)*ms, 20+arg*4)
				ids := a.PacketMessages(seq)
				if len(ids) != n {
					t.Fatalf("Fill %d, recorded %v", n, ids)
				}
				for _, id := range ids {
					if int(id-a.OldestUnacked()) >= cfg.ReceiveWindow {
						t.Fatalf("sent id %d with oldest unacked %d", id, a.OldestUnacked())
					}
				}
				if n > 0 {
					inflight = append(inflight, blk)
					inSeq = append(inSeq, seq)
				}
				seq++
			case 2:
				if len(inflight) == 0 {
					continue
				}
				j := arg % len(inflight)
				if _, err := b.Receive(inflight[j]); err != nil {
					t.Fatal(err)
				}
				received = append(received, inSeq[j])
				for {
					id, data, ok := b.Next()
					if !ok {
						break
					}
					if id != 65530+uint16(delivered) || !bytes.Equal(data, msg(delivered)) {
						t.Fatalf("delivered id %d (%d bytes), want message %d", id, len(data), delivered)
					}
					delivered++
				}
				if arg&0x80 == 0 { // else keep it in flight: a duplicate later
					inflight = append(inflight[:j], inflight[j+1:]...)
					inSeq = append(inSeq[:j], inSeq[j+1:]...)
				}
			case 3:
				if len(received) > 0 {
					a.Acked(received[arg%len(received)])
				}
			case 4:
				now += time.Duration(arg) * ms
			}
		}
		if st := b.Stats(); st.BeyondWindow != 0 || delivered > queued {
			t.Fatalf("receiver %+v, %d delivered of %d", st, delivered, queued)
		}
	})
}
