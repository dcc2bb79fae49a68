package client

import (
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// acksLoop is one exchange of the acks carrier as the client handles
// it: now and then a command by id; a message with the packet acks and
// the block of the commands due; the server's packet acks for it; a
// server message marked received.
type acksLoop struct {
	c        *Client
	out, in  uint32
	commands int
}

func newAcksLoop(tb testing.TB) *acksLoop {
	c, _ := primedClient(tb)
	c.conn.acks = newClientAcks(100, c.qport)
	return &acksLoop{c: c, out: 1, in: 1}
}

func (l *acksLoop) run() {
	c := l.c
	c.lastNow += 16 * time.Millisecond
	if l.out%4 == 0 {
		if err := c.AddReliableCommand("say hi"); err != nil {
			panic(err)
		}
		l.commands++
	}
	w := &c.w
	w.Reset(c.wbuf[:], msg.Huffman)
	c.writeAcks(w, l.out)
	_ = (*serverHandler)(c).Ack(uint16(l.out), 0xffffffff)
	c.receivedAcks(l.in)
	l.out++
	l.in++
}

// TestAcksPathDoesNotAllocate checks that the client's side of the acks
// carrier allocates nothing a message once its buffers have grown:
// writing packet acks and blocks, taking the server's packet acks,
// marking messages received (no ObserveAcks, as in a game).
func TestAcksPathDoesNotAllocate(t *testing.T) {
	l := newAcksLoop(t)
	for range 200 {
		l.run()
	}
	if n := testing.AllocsPerRun(500, l.run); n != 0 {
		t.Fatalf("%v allocations a message on the acks carrier", n)
	}
	a := l.c.Acks()
	if !a.On || a.Messages.Acked != uint64(l.commands) || a.Endpoint.Received == 0 {
		t.Fatalf("%d commands, %+v", l.commands, a)
	}
}

// BenchmarkAcksPath measures acksLoop.run.
func BenchmarkAcksPath(b *testing.B) {
	l := newAcksLoop(b)
	for range 200 {
		l.run()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l.run()
	}
}

// sentMessage is what a client message carried of reliable commands.
type sentMessage struct {
	ring    []string // ClcClientCommand texts
	packets bool     // a ClcAck
	byID    []string // ClcMessages texts
}

// sentParser is a proto.ClientHandler and AckHandler that notes what a
// client message carried.
type sentParser struct {
	m   sentMessage
	buf [proto.MaxMessagesBlock]byte
}

func (p *sentParser) ClientHeader(proto.ClientHeader, []byte) (bool, error) { return false, nil }
func (p *sentParser) ClientCommand(_ int32, text string) error {
	p.m.ring = append(p.m.ring, text)
	return nil
}
func (p *sentParser) MoveKey(bool) (uint32, *bg.UserCmd, *[proto.MaxPacketUsercmds]bg.UserCmd, error) {
	return 0, nil, new([proto.MaxPacketUsercmds]bg.UserCmd), nil
}
func (p *sentParser) Move([]bg.UserCmd, bool, error) error          { return nil }
func (p *sentParser) Ack(uint16, uint32) error                      { p.m.packets = true; return nil }
func (p *sentParser) MessagesBuffer() *[proto.MaxMessagesBlock]byte { return &p.buf }
func (p *sentParser) Messages(block []byte, err error) error {
	if err != nil {
		return err
	}
	_, err = reliable.ParseBlock(block, proto.MessagesPerPacket, proto.MaxMessageBytes, func(_ uint16, data []byte) {
		p.m.byID = append(p.m.byID, string(data))
	})
	return err
}
func (p *sentParser) MessageBase(uint16) error { return nil }

// send writes c's next message and returns what it carried and its
// netchan sequence.
func send(t *testing.T, c *Client) (sentMessage, uint32) {
	t.Helper()
	seq := c.conn.ch.OutgoingSequence()
	c.writePacket()
	var p sentParser
	var r msg.Reader
	if err := proto.ParseClientMessage(&r, append([]byte(nil), c.w.Bytes()...), &p, nil); err != nil {
		t.Fatalf("the client's message does not parse: %v", err)
	}
	return p.m, seq
}

// TestAcksSwitchBack checks the client's side of a gamestate that puts
// it back on the rings from the acks carrier: a command made after the
// switch goes in the ring but waits there while one sent by id before
// it is unacknowledged, which goes again when due; the packet acks go on
// meanwhile; once the
// server acknowledges the packet, the ring's command goes and the
// carrier ends (no ClcAck). A disconnect never waits.
func TestAcksSwitchBack(t *testing.T) {
	for _, disconnect := range []bool{false, true} {
		c, _ := primedClient(t)
		c.conn.acks = newClientAcks(100, c.qport)
		if err := c.AddReliableCommand("say before"); err != nil {
			t.Fatal(err)
		}
		m, seq := send(t, c)
		if !m.packets || len(m.ring) != 0 || len(m.byID) != 1 || m.byID[0] != "say before" {
			t.Fatalf("on the acks carrier the client sent %+v", m)
		}
		c.gamestateCarrier(true) // a gamestate without SvcMessageBase
		if c.Acks().On || c.sendsByID() {
			t.Fatal("still on the acks carrier after a gamestate on the rings")
		}
		if disconnect {
			c.addCommand("disconnect")
			if m, _ := send(t, c); len(m.ring) != 1 || m.ring[0] != "disconnect" {
				t.Fatalf("a disconnect waited: %+v", m)
			}
			continue
		}
		if err := c.AddReliableCommand("say after"); err != nil {
			t.Fatal(err)
		}
		c.lastNow += time.Second // "say before" is due again
		if m, _ := send(t, c); !m.packets || len(m.ring) != 0 || len(m.byID) != 1 || m.byID[0] != "say before" {
			t.Fatalf("with a command by id unacknowledged the client sent %+v", m)
		}
		_ = (*serverHandler)(c).Ack(uint16(seq), 1) // the server had the packet
		m, _ = send(t, c)
		if m.packets || len(m.ring) != 1 || m.ring[0] != "say after" || c.conn.acks != nil {
			t.Fatalf("once acknowledged the client sent %+v (carrier %v)", m, c.conn.acks != nil)
		}
	}
}
