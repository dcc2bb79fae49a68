package server

import (
	"testing"

	"tremor/common/proto"
	"tremor/net/infostr"
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

// TestAcksSwitchAtGamestate follows the server's side of a client's
// carrier from gamestate to gamestate: q3 to acks starts a fresh
// carrier; acks to q3 fills the gamestate's block with every command
// waiting and holds new ones in the outbox until the client shows, with
// the gamestate's server id, that it read them, then forgets them and
// ends the carrier with the first client message without packet acks;
// a client whose waiting commands do not fit ahead of the gamestate
// stays on acks, and one asking for acks again while its carrier is
// being wound down stays on the rings.
func TestAcksSwitchAtGamestate(t *testing.T) {
	h := newHarness(t, testConfig())
	tc := h.client("Acker")
	h.connect(tc)
	s, c := h.srv, &h.srv.svs.clients[tc.num]
	ask := func(carrier string) {
		info, err := infostr.SetValueForKey(c.userinfo, proto.ReliableKey, carrier)
		if err != nil {
			t.Fatal(err)
		}
		c.userinfo = info
	}
	out := uint32(1000)
	gamestate := func() {
		s.gamestateCarrier(c)
		if c.acks != nil {
			c.acks.gamestate = false
		}
	}
	sendAll := func() { // one message carrying every command due
		out++
		if c.acks != nil {
			w := s.messageTo(c)
			s.writeMessagesBlock(c, w, int32(out), len(s.msgBuf))
		}
	}

	ask(proto.ReliableAcks)
	gamestate()
	if !c.byID() || c.acks.base != 0 || c.acks.msgs.NextID() != 0 {
		t.Fatalf("q3 to acks: carrier %+v", c.acks)
	}
	for range 3 {
		c.pushCommand("print hi")
	}
	sendAll()

	// Back to the rings: the three go in the gamestate's block.
	ask(proto.ReliableQ3)
	gamestate()
	a := c.acks
	if a == nil || !a.retiring || a.gsCount != 3 || c.byID() {
		t.Fatalf("acks to q3: carrier %+v", a)
	}
	if c.commandsWaiting() < proto.MaxReliableCommands {
		t.Fatalf("new commands not held: %d waiting", c.commandsWaiting())
	}
	// The client's first message with the server id, with packet acks
	// (it still has commands of its own by id): the three are delivered.
	in := c.chan_.IncomingSequence()
	m := &s.cm
	*m = clientMessage{s: s, c: c}
	_ = m.Ack(0, 0)
	s.receivedAcks(c, in)
	if c.acks == nil || a.msgs.Pending() != 0 || c.commandsWaiting() != c.reliableSequence-c.reliableAcknowledge {
		t.Fatalf("confirmed: carrier %v, %d by id waiting", c.acks != nil, a.msgs.Pending())
	}
	// Asking for acks again while the carrier is wound down: rings.
	ask(proto.ReliableAcks)
	gamestate()
	if c.byID() {
		t.Fatal("back on acks while the last switch still has packet acks")
	}
	// A message without packet acks ends the carrier (once confirmed).
	s.receivedAcks(c, in)
	s.receivedAcks(c, in+1)
	if c.acks != nil {
		t.Fatal("the carrier outlived the client's packet acks")
	}

	// On acks again, with more commands waiting than fit ahead of a
	// gamestate: the client stays on acks.
	gamestate()
	if !c.byID() {
		t.Fatal("not on acks again")
	}
	for range proto.MessagesPerPacket + 1 {
		c.pushCommand("print hi")
	}
	sendAll()
	ask(proto.ReliableQ3)
	gamestate()
	if !c.byID() || c.acks.gsCount != proto.MessagesPerPacket {
		t.Fatalf("%d commands waiting, %d fit: the client should stay on acks", c.acks.waiting(), c.acks.gsCount)
	}

	// Waiting commands with acknowledged ones among them (a hole between
	// the oldest waiting id and the next) all fit: back on the rings.
	a = c.acks
	a.gamestate = false
	for range 100 { // every command due again, in a packet acked
		if a.waiting() == 0 {
			break
		}
		s.svs.now += 200
		sendAll()
		_ = m.Ack(a.seq16(out), 1)
	}
	c.pushCommand("print first")
	sendAll()
	c.pushCommand("print second")
	sendAll()
	_ = m.Ack(a.seq16(out), 1) // the second's packet, not the first's
	if a.msgs.Pending() != 2 || a.waiting() != 1 {
		t.Fatalf("%d ids pending, %d waiting; want 2 and 1", a.msgs.Pending(), a.waiting())
	}
	gamestate()
	if c.byID() || a.gsCount != 1 {
		t.Fatalf("one command waiting, %d fit: the client should go back to the rings", a.gsCount)
	}
}
