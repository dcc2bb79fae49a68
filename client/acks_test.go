package client

import (
	"testing"
	"time"

	"tremor/net/msg"
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
