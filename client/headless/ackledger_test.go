package headless_test

import (
	"sync"
	"testing"

	"tremor/client"
	"tremor/server"
)

// ackLedger checks the acks carrier's packet acks across both ends of
// every connection of a test: it hears, through server.ObserveAcks and
// client.ObserveAcks, each packet an end marks received and each packet
// whose ack reaches the other end, and counts a false ack for every
// packet acknowledged that its receiver never marked received. It also
// counts the wraps of the carrier's 16-bit sequence the packets crossed.
type ackLedger struct {
	off   uint16 // the sequence offset both ends were given
	mu    sync.Mutex
	conns map[uint16]*ackConn // by qport
}

// ackConn is one connection's packets, by netchan sequence: up (client
// to server) and down.
type ackConn struct {
	upRecv, upAcked, downRecv, downAcked map[uint32]bool
}

// newAckLedger starts the ledger, with the carriers made from now on
// numbering their packets from the netchan sequence plus off, and stops
// it when the test ends (it must end after the server and the clients).
func newAckLedger(t *testing.T, off uint16) *ackLedger {
	l := &ackLedger{off: off, conns: map[uint16]*ackConn{}}
	server.SetAckSequenceOffset(off)
	client.SetAckSequenceOffset(off)
	server.ObserveAcks(func(e server.AckEvent) { l.note(e.Qport, e.Sequence, e.Acked, true) })
	client.ObserveAcks(func(e client.AckEvent) { l.note(e.Qport, e.Sequence, e.Acked, false) })
	t.Cleanup(func() {
		server.ObserveAcks(nil)
		client.ObserveAcks(nil)
		server.SetAckSequenceOffset(0)
		client.SetAckSequenceOffset(0)
	})
	return l
}

// note records one event of the server's end (srv) or a client's.
func (l *ackLedger) note(qport uint16, seq uint32, acked, srv bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.conns[qport]
	if c == nil {
		c = &ackConn{map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}}
		l.conns[qport] = c
	}
	switch {
	case srv && acked: // a server message the client acknowledged
		c.downAcked[seq] = true
	case srv: // a client message the server received
		c.upRecv[seq] = true
	case acked: // a client message the server acknowledged
		c.upAcked[seq] = true
	default:
		c.downRecv[seq] = true
	}
}

// ackFigures are the ledger's counts for one connection.
type ackFigures struct {
	qport                    uint16
	upAcked, downAcked       int // packets acknowledged each way
	upFalse, downFalse       int // of them, never marked received
	upWraps, downWraps       int // wraps of the 16-bit sequence crossed
	upReceived, downReceived int
}

// figures returns each connection's counts.
func (l *ackLedger) figures() []ackFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ackFigures
	for q, c := range l.conns {
		f := ackFigures{qport: q, upAcked: len(c.upAcked), downAcked: len(c.downAcked),
			upReceived: len(c.upRecv), downReceived: len(c.downRecv)}
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
		t.Logf("qport %d: up %d acked of %d received, %d false, %d wraps; down %d acked of %d received, %d false, %d wraps",
			f.qport, f.upAcked, f.upReceived, f.upFalse, f.upWraps, f.downAcked, f.downReceived, f.downFalse, f.downWraps)
		if f.upFalse+f.downFalse > 0 {
			t.Errorf("qport %d: %d false acks up, %d down", f.qport, f.upFalse, f.downFalse)
		}
		if f.upAcked == 0 || f.downAcked == 0 {
			t.Errorf("qport %d: %d packets acked up, %d down: the ledger heard nothing", f.qport, f.upAcked, f.downAcked)
		}
		falseAcks += f.upFalse + f.downFalse
		if w := min(f.upWraps, f.downWraps); minWraps < 0 || w < minWraps {
			minWraps = w
		}
	}
	return falseAcks, max(minWraps, 0)
}
