package client

import (
	"net/netip"
	"time"
)

// JournalHooks let a program record every event the engine consumes and
// feed them back (common/journal, docs/journal.md): the packets Frame
// handles, in the order and at the frame it handles them, and the
// client challenges it draws. They are called on the goroutine that
// calls Frame and Connect.
type JournalHooks struct {
	// Packet is called for every packet Frame handles, before it is
	// handled; at is when the reader got it (the arrival time the net
	// graph uses). data is valid during the call only.
	Packet func(from netip.AddrPort, data []byte, at time.Duration)
	// Source, when set, replaces the packets the reader got (which are
	// then left unread): Frame handles each packet Source writes into
	// buf, until it returns ok false. A journal's replay sets it.
	Source func(buf []byte) (n int, from netip.AddrPort, at time.Duration, ok bool)
	// Challenge is called with every client challenge drawn (Connect, a
	// fresh challenge after a refusal); the client uses the value it
	// returns. A recording returns drawn; a replay, the recorded one.
	Challenge func(drawn int32) int32
}

// SetJournalHooks sets the journal's hooks; set them before Connect.
func (c *Client) SetJournalHooks(h JournalHooks) { c.journal.hooks = h }

// journalState is the client's part of a journal: the hooks and the
// buffer of the packets Source gives.
type journalState struct {
	hooks JournalHooks
	buf   *packet
}

// journalPacket passes p to the Packet hook, if any.
func (c *Client) journalPacket(p *packet) {
	if h := c.journal.hooks.Packet; h != nil {
		h(p.from, p.buf[:p.n], p.at)
	}
}

// replayPackets handles the packets the Source hook gives, if there is
// one, and reports whether there is.
func (c *Client) replayPackets() bool {
	src := c.journal.hooks.Source
	if src == nil {
		return false
	}
	if c.journal.buf == nil {
		c.journal.buf = new(packet)
	}
	p := c.journal.buf
	for {
		n, from, at, ok := src(p.buf[:])
		if !ok {
			break
		}
		c.arrival = at
		c.packetEvent(from, p.buf[:n])
	}
	return true
}

// newChallenge draws a client challenge, through the Challenge hook if
// there is one.
func (c *Client) newChallenge() int32 {
	n := newClientChallenge()
	if h := c.journal.hooks.Challenge; h != nil {
		n = h(n)
	}
	return n
}
