package reliable

import (
	"testing"
	"time"
)

// BenchmarkPacketExchange is one packet each way between two endpoints,
// every fourth lost: Sent, Received, AckFields and Acks on both ends.
func BenchmarkPacketExchange(b *testing.B) {
	x, y := NewEndpoint(EndpointConfig{}), NewEndpoint(EndpointConfig{})
	var seq uint16
	var now time.Duration
	n := 0
	fn := func(uint16) { n++ }
	b.ReportAllocs()
	for b.Loop() {
		now += ms
		x.Sent(seq, now, 100)
		y.Sent(seq, now, 100)
		if seq%4 != 0 {
			y.Received(seq, now)
			x.Received(seq, now)
		}
		ack, bits := y.AckFields()
		x.Acks(ack, bits, now, fn)
		ack, bits = x.AckFields()
		y.Acks(ack, bits, now, fn)
		seq++
	}
}

func BenchmarkAckFields(b *testing.B) {
	e := NewEndpoint(EndpointConfig{})
	for s := range uint16(100) {
		e.Received(s, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.AckFields()
	}
}

// BenchmarkLoss is one reading of both loss estimates (256 packets each).
func BenchmarkLoss(b *testing.B) {
	e := NewEndpoint(EndpointConfig{})
	for s := range uint16(2000) {
		e.Sent(s, 0, 1)
		e.Received(s, 0)
		e.Acks(s, 0x7FFFFFFF, 0, nil)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = e.UpstreamLoss() + e.DownstreamLoss()
	}
}

func BenchmarkParseHeader(b *testing.B) {
	h := AppendHeader(nil, 1234, 0xF0F0F0F0)
	b.ReportAllocs()
	for b.Loop() {
		ParseHeader(h)
	}
}

// BenchmarkMessages is a message stream one way, one message of 40 bytes
// queued per packet, every fourth packet lost: Send, Fill, Receive, Next
// and Acked.
func BenchmarkMessages(b *testing.B) {
	x, y := NewMessages(MessagesConfig{}), NewMessages(MessagesConfig{})
	msg := make([]byte, 40)
	buf := make([]byte, 0, 1400)
	var seq uint16
	var now time.Duration
	b.ReportAllocs()
	for b.Loop() {
		now += 16 * ms
		x.Send(msg)
		blk, _ := x.Fill(buf[:0], seq, now, 50*ms, 1200)
		if seq%4 != 0 {
			y.Receive(blk)
			x.Acked(seq)
		}
		for {
			if _, _, ok := y.Next(); !ok {
				break
			}
		}
		seq++
	}
}

// BenchmarkFill builds a packet from a send window of 256 waiting
// messages of 40 bytes, all due.
func BenchmarkFill(b *testing.B) {
	m := NewMessages(MessagesConfig{})
	for range 256 {
		m.Send(make([]byte, 40))
	}
	buf := make([]byte, 0, 1400)
	var seq uint16
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += time.Second
		m.Fill(buf[:0], seq, now, 0, 1200)
		seq++
	}
}

// BenchmarkReceive decodes a block of 8 messages of 40 bytes whose ids
// are all delivered already (the cost of a resent block).
func BenchmarkReceive(b *testing.B) {
	ids := []uint16{0, 1, 2, 3, 4, 5, 6, 7}
	datas := make([][]byte, len(ids))
	for i := range datas {
		datas[i] = make([]byte, 40)
	}
	blk := AppendBlock(nil, ids, datas)
	m := NewMessages(MessagesConfig{})
	m.Receive(blk)
	for {
		if _, _, ok := m.Next(); !ok {
			break
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(blk)))
	for b.Loop() {
		m.Receive(blk)
	}
}

// TestBlockCost pins the block's size for typical loads and compares it
// with plain 16-bit ids: the delta coding saves n-1 bytes for n
// consecutive ids.
func TestBlockCost(t *testing.T) {
	tests := []struct {
		name      string
		ids       []uint16
		size      int
		want, raw int
	}{
		{"one chat line of 40 bytes", []uint16{7}, 40, 44, 44},
		{"8 commands of 20 bytes", []uint16{1, 2, 3, 4, 5, 6, 7, 8}, 20, 1 + 2 + 7 + 8*21, 1 + 8*23},
		{"resends with gaps", []uint16{10, 12, 20, 150}, 20, 1 + 2 + 1 + 1 + 2 + 4*21, 1 + 4*23}, // gap 129 takes 2 bytes
		{"4 messages of 200 bytes", []uint16{1, 2, 3, 4}, 200, 1 + 2 + 3 + 4*202, 1 + 4*204},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			datas := make([][]byte, len(tt.ids))
			for i := range datas {
				datas[i] = make([]byte, tt.size)
			}
			got := len(AppendBlock(nil, tt.ids, datas))
			if got != tt.want {
				t.Fatalf("block of %d bytes, want %d", got, tt.want)
			}
			t.Logf("%d bytes (%d with plain 16-bit ids)", got, tt.raw)
		})
	}
}
