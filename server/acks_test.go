package server

import (
	"testing"

	"tremor/common/proto"
)

// acksLoop is one exchange of the acks carrier as the server handles it
// for one client: now and then a server command by id; a message with
// the packet acks and the block of the commands due; the client's packet
// acks for it; a client message marked received.
type acksLoop struct {
	s        *Server
	c        *client
	out, in  uint32
	commands int
}

func newAcksLoop(tb testing.TB) *acksLoop {
	h := newHarness(tb, testConfig())
	tc := h.client("Acker")
	h.connect(tc)
	c := &h.srv.svs.clients[tc.num]
	c.acks = newAckState(c, 100)
	return &acksLoop{s: h.srv, c: c, out: 1, in: 1}
}

func (l *acksLoop) run() {
	s, c := l.s, l.c
	s.svs.now += 16
	if l.out%4 == 0 {
		c.pushCommand("print hi")
		l.commands++
	}
	w := s.messageTo(c)
	proto.WriteReliableAck(w, 0)
	s.writeAckHeader(c, w)
	s.writeMessagesBlock(c, w, int32(l.out), len(s.msgBuf))
	m := &s.cm
	*m = clientMessage{s: s, c: c}
	_ = m.Ack(uint16(l.out), 0xffffffff)
	s.receivedAcks(c, l.in)
	*m = clientMessage{}
	l.out++
	l.in++
}

// TestAcksPathDoesNotAllocate checks that the server's side of the acks
// carrier allocates nothing a message once its buffers have grown.
func TestAcksPathDoesNotAllocate(t *testing.T) {
	l := newAcksLoop(t)
	for range 200 {
		l.run()
	}
	if n := testing.AllocsPerRun(500, l.run); n != 0 {
		t.Fatalf("%v allocations a message on the acks carrier", n)
	}
	st := l.c.acks.msgs.Stats()
	if st.Acked != uint64(l.commands) || l.c.acks.ep.Stats().Received == 0 {
		t.Fatalf("%d commands, %+v", l.commands, st)
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
