package headless_test

import (
	"sync"
	"testing"

	"tremor/client"
	"tremor/common/proto"
	"tremor/server"
)

// ackLedger checks the acks carrier's packet acks across both ends of
// every connection of a test: it hears, through server.ObserveAcks and
// client.ObserveAcks, each packet an end sends, each it marks received
// and each whose ack reaches its sender, and counts a false ack for
// every packet acknowledged that its receiver never marked received. It
// also counts the wraps of the carrier's 16-bit sequence the packets
// crossed, and sets the loss each sender measured by its acks against
// the loss the link applied.
type ackLedger struct {
	off   uint16 // the sequence offset both ends were given
	mu    sync.Mutex
	conns map[uint16]*ackConn // by qport
}

// ackConn is one connection's packets, by netchan sequence: up (client
// to server) and down.
type ackConn struct {
	upSent, upRecv, upAcked, downSent, downRecv, downAcked map[uint32]bool
}

// newAckLedger starts the ledger, with the carriers made from now on
// numbering their packets from the netchan sequence plus off, and stops
// it when the test ends (it must end after the server and the clients).
func newAckLedger(t *testing.T, off uint16) *ackLedger {
	l := &ackLedger{off: off, conns: map[uint16]*ackConn{}}
	server.SetAckSequenceOffset(off)
	client.SetAckSequenceOffset(off)
	server.ObserveAcks(func(e proto.AckEvent) { l.note(e.Qport, e.Sequence, int(e.Kind), true) })
	client.ObserveAcks(func(e proto.AckEvent) { l.note(e.Qport, e.Sequence, int(e.Kind), false) })
	t.Cleanup(func() {
		server.ObserveAcks(nil)
		client.ObserveAcks(nil)
		server.SetAckSequenceOffset(0)
		client.SetAckSequenceOffset(0)
	})
	return l
}

// note records one event of the server's end (srv) or a client's, of
// kind proto.AckSent, AckReceived or AckAcked.
func (l *ackLedger) note(qport uint16, seq uint32, kind int, srv bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.conns[qport]
	if c == nil {
		c = &ackConn{map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}}
		l.conns[qport] = c
	}
	sent, recv, acked := c.upSent, c.downRecv, c.upAcked // a client's events
	if srv {
		sent, recv, acked = c.downSent, c.upRecv, c.downAcked
	}
	switch kind {
	case int(proto.AckSent):
		sent[seq] = true
	case int(proto.AckReceived):
		recv[seq] = true
	case int(proto.AckAcked):
		acked[seq] = true
	}
}

// ackFigures are the ledger's counts for one connection.
type ackFigures struct {
	qport                    uint16
	upSent, downSent         int // packets sent on the carrier each way
	upReceived, downReceived int // of them, marked received
	upAcked, downAcked       int // of them, acknowledged to their sender
	upFalse, downFalse       int // acknowledged but never marked received
	upWraps, downWraps       int // wraps of the 16-bit sequence crossed
}

// loss returns, in per cent, the share of n sent packets of which only
// got arrived.
func loss(got, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(n-got) / float64(n)
}

// figures returns each connection's counts.
func (l *ackLedger) figures() []ackFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ackFigures
	for q, c := range l.conns {
		f := ackFigures{qport: q, upSent: len(c.upSent), downSent: len(c.downSent),
			upAcked: len(c.upAcked), downAcked: len(c.downAcked)}
		for s := range c.upSent {
			if c.upRecv[s] {
				f.upReceived++
			}
		}
		for s := range c.downSent {
			if c.downRecv[s] {
				f.downReceived++
			}
		}
		for s := range c.upAcked {
			if !c.upRecv[s] {
				f.upFalse++
			}
		}
		for s := range c.downAcked {
			if !c.downRecv[s] {
				f.downFalse++
			}
		}
		f.upWraps, f.downWraps = l.wraps(c.upRecv), l.wraps(c.downRecv)
		out = append(out, f)
	}
	return out
}

// wraps returns how many times the carrier's sequence (netchan sequence
// plus the offset, 16 bits) wrapped between the first and the last of
// seqs.
func (l *ackLedger) wraps(seqs map[uint32]bool) int {
	if len(seqs) == 0 {
		return 0
	}
	lo, hi := ^uint64(0), uint64(0)
	for s := range seqs {
		lo, hi = min(lo, uint64(s)), max(hi, uint64(s))
	}
	return int((hi+uint64(l.off))>>16 - (lo+uint64(l.off))>>16)
}

// check logs each connection's figures and fails the test on a false
// ack; it returns the totals of false acks and wraps crossed (the
// fewest of any connection's two directions).
func (l *ackLedger) check(t *testing.T) (falseAcks, minWraps int) {
	t.Helper()
	figs := l.figures()
	minWraps = -1
	for _, f := range figs {
		t.Logf("qport %d: up %d sent, %d received, %d acked, %d false acks, %d wraps, loss applied %.1f %%, measured by its acks %.1f %%; "+
			"down %d sent, %d received, %d acked, %d false acks, %d wraps, loss applied %.1f %%, measured %.1f %%",
			f.qport, f.upSent, f.upReceived, f.upAcked, f.upFalse, f.upWraps, loss(f.upReceived, f.upSent), loss(f.upAcked, f.upSent),
			f.downSent, f.downReceived, f.downAcked, f.downFalse, f.downWraps, loss(f.downReceived, f.downSent), loss(f.downAcked, f.downSent))
		if f.upFalse+f.downFalse > 0 {
			t.Errorf("qport %d: %d false acks up, %d down", f.qport, f.upFalse, f.downFalse)
		}
		if f.upAcked == 0 || f.downAcked == 0 {
			t.Errorf("qport %d: %d packets acked up, %d down: the ledger heard nothing", f.qport, f.upAcked, f.downAcked)
		}
		// A packet's ack rides in the 33 next messages the other way:
		// only those whose every ack was lost, or that were still in
		// flight when the carrier or the run ended, go unacknowledged:
		// a few packets, 2 % of a long run.
		if d := f.upReceived - f.upAcked; d < 0 || d > max(10, f.upSent/50) {
			t.Errorf("qport %d: upstream loss measured by the acks %.1f %%, applied %.1f %%", f.qport,
				loss(f.upAcked, f.upSent), loss(f.upReceived, f.upSent))
		}
		falseAcks += f.upFalse + f.downFalse
		if w := min(f.upWraps, f.downWraps); minWraps < 0 || w < minWraps {
			minWraps = w
		}
	}
	return falseAcks, max(minWraps, 0)
}
