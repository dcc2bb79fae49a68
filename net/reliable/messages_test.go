package reliable

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBlockGolden(t *testing.T) {
	ids := []uint16{65534, 65535, 2}
	datas := [][]byte{[]byte("hi"), {}, bytes.Repeat([]byte{'x'}, 130)}
	b := AppendBlock(nil, ids, datas)
	want := append([]byte{
		3,          // count
		0xfe, 0xff, // first id 65534
		2, 'h', 'i', // length 2, bytes
		0, 0, // gap 0 (65535), length 0
		2,          // gap 2: 65535+1+2 = 2
		0x82, 0x01, // length 130 as a uvarint
	}, datas[2]...)
	if !bytes.Equal(b, want) {
		t.Fatalf("block\n% x\nwant\n% x", b, want)
	}
	var gotIDs []uint16
	var gotData [][]byte
	n, err := ParseBlock(append(b, 0xAA), 8, 1024, func(id uint16, d []byte) {
		gotIDs = append(gotIDs, id)
		gotData = append(gotData, d)
	})
	if err != nil || n != len(b) || !slices.Equal(gotIDs, ids) || !slices.EqualFunc(gotData, datas, bytes.Equal) {
		t.Fatalf("ParseBlock = %d %v, ids %v", n, err, gotIDs)
	}
	if n, err := ParseBlock([]byte{0}, 8, 1024, nil); n != 1 || err != nil {
		t.Fatalf("empty block: %d %v", n, err)
	}
}

func TestParseBlockErrors(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"no bytes", nil, ErrBlockTruncated},
		{"count over the limit", []byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ErrBlockCount},
		{"no first id", []byte{1, 5}, ErrBlockTruncated},
		{"no length", []byte{1, 5, 0}, ErrBlockTruncated},
		{"length past the end", []byte{1, 5, 0, 3, 'a', 'b'}, ErrBlockTruncated},
		{"length over the limit", []byte{1, 5, 0, 0x81, 0x08}, ErrBlockLength},
		{"non-minimal length", []byte{1, 5, 0, 0x81, 0x00, 'a'}, ErrBlockVarint},
		{"varint overflow", []byte{1, 5, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, ErrBlockVarint},
		{"second message missing", []byte{2, 5, 0, 0}, ErrBlockTruncated},
		{"gap of half the id space", []byte{2, 5, 0, 0, 0xff, 0xff, 0x01, 0}, ErrBlockIDs},
		{"gaps adding up to half", []byte{3, 5, 0, 0, 0xff, 0x7f, 0, 0xff, 0x7f, 0}, ErrBlockIDs},
		{"error in the last message", []byte{2, 5, 0, 1, 'a', 0, 2, 'b'}, ErrBlockTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			n, err := ParseBlock(tt.b, 8, 1024, func(uint16, []byte) { called = true })
			if !errors.Is(err, tt.want) || n != 0 || called {
				t.Fatalf("ParseBlock = %d, %v (fn called %v), want %v", n, err, called, tt.want)
			}
			m := NewMessages(MessagesConfig{MaxPerPacket: 8})
			if _, err := m.Receive(tt.b); !errors.Is(err, tt.want) {
				t.Fatalf("Receive: %v", err)
			}
			if _, _, ok := m.Next(); ok || m.Stats().Received != 0 || m.Stats().BlocksRefused != 1 {
				t.Fatalf("refused block changed the receiver: %+v", m.Stats())
			}
		})
	}
}

func TestMessagesConfig(t *testing.T) {
	c := NewMessages(MessagesConfig{}).Config()
	if c.SendWindow != 256 || c.ReceiveWindow != 256 || c.PacketWindow != 1024 || c.MaxMessageSize != 1024 ||
		c.MaxPerPacket != 32 || c.Resend != 100*ms || c.MinResend != 20*ms {
		t.Fatalf("defaults %+v", c)
	}
	for _, bad := range []MessagesConfig{
		{SendWindow: 100}, {ReceiveWindow: 3}, {PacketWindow: 1 << 16},
		{MaxMessageSize: MaxMessageLimit + 1}, {MaxPerPacket: 256},
		{PacketWindow: 2048, MaxPerPacket: 32}, // ids would come round within a packet's record
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v accepted", bad)
				}
			}()
			NewMessages(bad)
		}()
	}
}

func TestSendErrors(t *testing.T) {
	m := NewMessages(MessagesConfig{SendWindow: 4, MaxMessageSize: 10})
	if _, err := m.Send(make([]byte, 11)); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("11 bytes: %v", err)
	}
	for i := range 4 {
		if id, err := m.Send([]byte{byte(i)}); err != nil || id != uint16(i) {
			t.Fatalf("Send %d: %d %v", i, id, err)
		}
	}
	if _, err := m.Send(nil); !errors.Is(err, ErrSendWindowFull) {
		t.Fatalf("fifth: %v", err)
	}
	if st := m.Stats(); st.Queued != 4 || st.SendsRefused != 2 || m.Pending() != 4 {
		t.Fatalf("stats %+v, pending %d", st, m.Pending())
	}
}

// fillIDs fills packet seq and returns the ids it carried and the block.
func fillIDs(t *testing.T, m *Messages, seq uint16, now, rtt time.Duration, budget int) ([]uint16, []byte) {
	t.Helper()
	b, n := m.Fill(nil, seq, now, rtt, budget)
	ids := slices.Clone(m.PacketMessages(seq))
	if len(ids) != n {
		t.Fatalf("Fill said %d messages, recorded %v", n, ids)
	}
	if n == 0 && len(b) != 0 {
		t.Fatalf("no message but %d bytes", len(b))
	}
	if n > 0 && len(b) > budget {
		t.Fatalf("block of %d bytes over the budget %d", len(b), budget)
	}
	return ids, b
}

func TestFillResend(t *testing.T) {
	tests := []struct {
		name   string
		resend time.Duration
		rtt    time.Duration
		want   time.Duration // the resend interval
	}{
		{"default, no rtt", 0, 0, 100 * ms},
		{"rtt shorter", 0, 60 * ms, 60 * ms},
		{"rtt longer", 0, 300 * ms, 100 * ms},
		{"rtt clamped at the floor", 0, 5 * ms, 20 * ms},
		{"net_resendMsec 250", 250 * ms, 0, 250 * ms},
		{"net_resendMsec 10 wins over the floor", 10 * ms, 50 * ms, 10 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMessages(MessagesConfig{Resend: tt.resend})
			if got := m.ResendInterval(tt.rtt); got != tt.want {
				t.Fatalf("ResendInterval = %v, want %v", got, tt.want)
			}
			m.Send([]byte("a"))
			if ids, _ := fillIDs(t, m, 1, 0, tt.rtt, 100); !slices.Equal(ids, []uint16{0}) {
				t.Fatalf("first fill %v", ids)
			}
			if ids, _ := fillIDs(t, m, 2, tt.want-1, tt.rtt, 100); len(ids) != 0 {
				t.Fatalf("resent after %v: %v", tt.want-1, ids)
			}
			if ids, _ := fillIDs(t, m, 3, tt.want, tt.rtt, 100); !slices.Equal(ids, []uint16{0}) {
				t.Fatalf("not resent after %v: %v", tt.want, ids)
			}
			if st := m.Stats(); st.FirstSends != 1 || st.Resends != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestFillBudget(t *testing.T) {
	m := NewMessages(MessagesConfig{MaxPerPacket: 3})
	m.Send(make([]byte, 50))  // 0
	m.Send(make([]byte, 200)) // 1
	m.Send(make([]byte, 10))  // 2
	m.Send(make([]byte, 10))  // 3
	m.Send(make([]byte, 10))  // 4
	// 1 + (2+1+50) + (1+1+10): 1 does not fit, 2 does; 3 would pass 70.
	ids, b := fillIDs(t, m, 1, 0, 0, 70)
	if !slices.Equal(ids, []uint16{0, 2}) || len(b) != 66 {
		t.Fatalf("ids %v, %d bytes", ids, len(b))
	}
	// MaxPerPacket caps the count.
	ids, _ = fillIDs(t, m, 2, 0, 0, 1000)
	if !slices.Equal(ids, []uint16{1, 3, 4}) {
		t.Fatalf("ids %v", ids)
	}
	if ids, _ := fillIDs(t, m, 3, 0, 0, 3); len(ids) != 0 {
		t.Fatal("a block under 4 bytes")
	}
}

// TestReceiveWindowRule gives the sender more messages than the receiver
// can buffer and checks that it never sends an id at or past the oldest
// unacked one plus ReceiveWindow.
func TestReceiveWindowRule(t *testing.T) {
	a := NewMessages(MessagesConfig{SendWindow: 64, ReceiveWindow: 16, MaxPerPacket: 255, PacketWindow: 64})
	b := NewMessages(MessagesConfig{SendWindow: 64, ReceiveWindow: 16, MaxPerPacket: 255, PacketWindow: 64})
	for i := range 64 {
		a.Send([]byte{byte(i)})
	}
	ids, _ := fillIDs(t, a, 1, 0, 0, 2000)
	if len(ids) != 16 || ids[15] != 15 {
		t.Fatalf("sent %v", ids)
	}
	// Packet 1 is lost; 2 carries nothing new yet (all within the resend
	// interval); after the interval 0..15 again, then the ack of 2 moves
	// the window.
	if ids, _ := fillIDs(t, a, 2, 50*ms, 0, 2000); len(ids) != 0 {
		t.Fatalf("sent %v before the resend interval", ids)
	}
	ids, blk := fillIDs(t, a, 3, 100*ms, 0, 2000)
	if len(ids) != 16 {
		t.Fatalf("resent %v", ids)
	}
	if _, err := b.Receive(blk); err != nil {
		t.Fatal(err)
	}
	for want := uint16(0); want < 16; want++ {
		if id, d, ok := b.Next(); !ok || id != want || d[0] != byte(want) {
			t.Fatalf("Next = %d %v %v, want %d", id, d, ok, want)
		}
	}
	a.Acked(3)
	if a.OldestUnacked() != 16 || a.Pending() != 48 {
		t.Fatalf("oldest %d pending %d", a.OldestUnacked(), a.Pending())
	}
	ids, _ = fillIDs(t, a, 4, 100*ms, 0, 2000)
	if len(ids) != 16 || ids[0] != 16 || ids[15] != 31 {
		t.Fatalf("after the ack sent %v", ids)
	}
}

func TestReceiveOrder(t *testing.T) {
	m := NewMessages(MessagesConfig{ReceiveWindow: 8})
	block := func(ids ...uint16) []byte {
		datas := make([][]byte, len(ids))
		for i, id := range ids {
			datas[i] = []byte(fmt.Sprint(id))
		}
		return AppendBlock(nil, ids, datas)
	}
	deliver := func() (got []string) {
		for {
			id, d, ok := m.Next()
			if !ok {
				return got
			}
			if string(d) != fmt.Sprint(id) {
				t.Fatalf("message %d is %q", id, d)
			}
			got = append(got, string(d))
		}
	}
	steps := []struct {
		ids  []uint16
		want string
	}{
		{[]uint16{1, 2}, ""},      // 0 missing: buffered
		{[]uint16{2, 8, 9}, ""},   // 2 again; 8 past the window 0..7; 9 too
		{[]uint16{0, 1}, "0 1 2"}, // 1 again
		{[]uint16{0}, ""},         // already delivered
		{[]uint16{3, 4, 5, 6, 7}, "3 4 5 6 7"},
		{[]uint16{9, 10}, ""}, // the window moved: now in it
		{[]uint16{8}, "8 9 10"},
	}
	for i, s := range steps {
		if _, err := m.Receive(block(s.ids...)); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := strings.Join(deliver(), " "); got != s.want {
			t.Fatalf("step %d delivered %q, want %q", i, got, s.want)
		}
	}
	st := m.Stats()
	if st.Received != 11 || st.Delivered != 11 || st.Duplicates != 2 || st.Old != 1 || st.BeyondWindow != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestReceiveAcrossIDWrap(t *testing.T) {
	a, b := NewMessages(MessagesConfig{}), NewMessages(MessagesConfig{})
	a.nextID, a.oldest, b.recvNext = 65530, 65530, 65530
	for i := range 12 {
		a.Send([]byte{byte(i)})
	}
	blk, n := a.Fill(nil, 1, 0, 0, 1000)
	if n != 12 || len(blk) != 1+2+11+12*2 {
		t.Fatalf("%d messages in %d bytes", n, len(blk))
	}
	b.Receive(blk)
	for i := range 12 {
		id, d, ok := b.Next()
		if !ok || id != 65530+uint16(i) || d[0] != byte(i) {
			t.Fatalf("Next = %d %v %v", id, d, ok)
		}
	}
	a.Acked(1)
	if a.Pending() != 0 || a.OldestUnacked() != 6 {
		t.Fatalf("pending %d oldest %d", a.Pending(), a.OldestUnacked())
	}
}

func TestAckedOncePerMessage(t *testing.T) {
	m := NewMessages(MessagesConfig{})
	m.Send([]byte("a"))
	m.Send([]byte("b"))
	fillIDs(t, m, 1, 0, 0, 100)
	fillIDs(t, m, 2, 200*ms, 0, 100) // both resent
	m.Acked(2)
	m.Acked(1) // the same messages: nothing more
	m.Acked(2)
	m.Acked(99) // never filled
	if st := m.Stats(); st.Acked != 2 || m.Pending() != 0 || m.OldestUnacked() != 2 {
		t.Fatalf("stats %+v pending %d", st, m.Pending())
	}
	if ids, _ := fillIDs(t, m, 3, time.Second, 0, 100); len(ids) != 0 {
		t.Fatalf("acked messages sent again: %v", ids)
	}
}

func TestMessagesNoAllocs(t *testing.T) {
	a, b := NewMessages(MessagesConfig{}), NewMessages(MessagesConfig{})
	msg := []byte("say hello there")
	buf := make([]byte, 0, 1400)
	var seq uint16
	var now time.Duration
	step := func() {
		now += 16 * ms
		a.Send(msg)
		blk, _ := a.Fill(buf[:0], seq, now, 50*ms, 1200)
		if seq%4 != 0 {
			b.Receive(blk)
			a.Acked(seq)
		}
		for {
			if _, _, ok := b.Next(); !ok {
				break
			}
		}
		seq++
	}
	for range 2000 { // grow every slot's buffer
		step()
	}
	if allocs := testing.AllocsPerRun(2000, step); allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
}

func TestSupersedeAndSkipTo(t *testing.T) {
	cfg := MessagesConfig{SendWindow: 16, ReceiveWindow: 16, PacketWindow: 64, MaxPerPacket: 8}
	snd, rcv := NewMessages(cfg), NewMessages(cfg)
	for i := range 3 {
		if _, err := snd.Send([]byte{byte('a' + i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Packet 1 carries a, b, c; only the block with c arrives (a and b
	// were in a lost packet and are still buffered as missing).
	block, n := snd.Fill(nil, 1, 0, 0, 1000)
	if n != 3 {
		t.Fatalf("Fill put %d messages in the packet, want 3", n)
	}
	lastOnly := AppendBlock(nil, []uint16{2}, [][]byte{{'c'}})
	if _, err := rcv.Receive(lastOnly); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := rcv.Next(); ok {
		t.Fatal("delivered c before a and b")
	}
	barrier := snd.Supersede()
	if barrier != 3 || snd.Pending() != 0 || snd.OldestUnacked() != 3 {
		t.Fatalf("Supersede: barrier %d, %d pending, oldest %d; want 3, 0, 3", barrier, snd.Pending(), snd.OldestUnacked())
	}
	snd.Acked(1) // a late ack of the superseded packet changes nothing
	if snd.Pending() != 0 {
		t.Fatalf("a late ack brought back %d pending", snd.Pending())
	}
	if _, err := snd.Send([]byte("d")); err != nil {
		t.Fatal(err)
	}
	rcv.SkipTo(barrier)
	rcv.SkipTo(barrier - 2) // behind: nothing
	block, _ = snd.Fill(block[:0], 2, 0, 0, 1000)
	if _, err := rcv.Receive(block); err != nil {
		t.Fatal(err)
	}
	id, data, ok := rcv.Next()
	if !ok || id != 3 || string(data) != "d" {
		t.Fatalf("after the barrier Next = %d %q %v, want 3 \"d\" true", id, data, ok)
	}
	if _, _, ok := rcv.Next(); ok {
		t.Fatal("a superseded message was delivered")
	}
}
