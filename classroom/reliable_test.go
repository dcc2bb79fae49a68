package classroom

import (
	"strings"
	"testing"
	"time"

	"tremor/internal/testutil"
)

// TestCarriersInTheLanes runs P1 on Quake III's rings and P2 on the acks
// carrier (p2 cl_reliable acks reconnects it), both over 20 % loss and
// 150 ms each way, and has the server say the same chat lines to both.
// On each lane the model must follow every line from its first send to
// its acknowledgement: P1's lines go again in every snapshot until
// acknowledged, P2's only after the resend interval, so P1's downlink
// sends more copies; P2's are acknowledged by packet acks.
func TestCarriersInTheLanes(t *testing.T) {
	m := newModel(t, 0)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	for _, l := range []string{"p1 lag 150", "p2 lag 150", "p1 loss 20", "p2 loss 20", "p1 reconnect", "p2 cl_reliable acks"} {
		con.ExecuteString(l)
	}
	p1, p2 := m.Player(0), m.Player(1)
	if c := m.Counts(1, Down); c.Sent > 5 {
		t.Fatalf("P2's counts after its reconnect: %+v", c)
	}
	for range 200 {
		m.Run(100 * time.Millisecond)
		if p1.CGame() != nil && p2.CGame() != nil {
			break
		}
	}
	m.Run(2 * time.Second)
	if now, asked := p2.Carrier(); now != "acks" || asked != "acks" {
		t.Fatalf("P2's carrier %s (asked %s), want acks", now, asked)
	}
	if now, _ := p1.Carrier(); now != "q3" {
		t.Fatalf("P1's carrier %s, want q3", now)
	}
	before := [2]Counts{m.Counts(0, Down), m.Counts(1, Down)}
	const lines = 20
	for i := range lines {
		con.ExecuteString("sv say line " + string(rune('a'+i)))
		m.Run(time.Second)
	}
	m.Run(2 * time.Second)
	var got [2]Counts
	for i := range 2 {
		c := m.Counts(i, Down)
		c.RelSent -= before[i].RelSent
		c.RelResent -= before[i].RelResent
		c.RelAcked -= before[i].RelAcked
		c.RelBytes -= before[i].RelBytes
		got[i] = c
		t.Logf("P%d down: %d sent first, %d again, %d acked, %d bytes of commands, %d of packet acks, delay mean %v max %v",
			i+1, c.RelSent, c.RelResent, c.RelAcked, c.RelBytes, c.AckBytes, c.DelayMean(), c.DelayMax)
		if c.RelSent < lines || c.RelAcked < lines {
			t.Errorf("P%d: %d chat lines sent, %d acknowledged, want %d each", i+1, c.RelSent, c.RelAcked, lines)
		}
		if c.RelResent == 0 {
			t.Errorf("P%d: no command sent again over 20 %% loss and a 300 ms round trip", i+1)
		}
		if c.DelayMax < 150*time.Millisecond {
			t.Errorf("P%d: longest delivery %v, less than the lane's 150 ms", i+1, c.DelayMax)
		}
	}
	if got[0].RelResent <= got[1].RelResent || got[0].RelBytes <= got[1].RelBytes {
		t.Errorf("the rings sent %d copies again (%d bytes), the acks carrier %d (%d bytes): the rings should send more",
			got[0].RelResent, got[0].RelBytes, got[1].RelResent, got[1].RelBytes)
	}
	if got[0].AckBytes != 0 || got[1].AckBytes == 0 {
		t.Errorf("packet acks: %d bytes on the rings, %d on the acks carrier", got[0].AckBytes, got[1].AckBytes)
	}
	// The lanes' events: on each, a packet that sends a line first, one
	// that sends it again, and one from P that acknowledges it.
	for i := range 2 {
		var first, again, acks int
		var ackLine string
		m.Events(10*time.Second, func(e *Event) {
			if e.Player != i {
				return
			}
			if e.Dir == Down {
				if e.RelNew > 0 {
					first++
				}
				if e.RelAgain > 0 {
					again++
				}
			} else if e.Acks > 0 {
				acks++
				ackLine = ReliableLine(e)
			}
		})
		t.Logf("P%d's lane: %d packets first, %d again, %d acknowledging: %q", i+1, first, again, acks, ackLine)
		if first == 0 || again == 0 || acks == 0 {
			t.Errorf("P%d's lane: %d packets sending a command first, %d again, %d acknowledging", i+1, first, again, acks)
		}
		want := "#"
		if i == 1 {
			want = "id "
		}
		if !strings.Contains(ackLine, "first to acknowledge the other way's "+want) {
			t.Errorf("P%d's acknowledging packet: %q", i+1, ackLine)
		}
	}
}
