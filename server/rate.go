package server

import (
	"errors"

	"tremor/net/netchan"
)

// Rate control: everything that decides when a client's next message may
// go is in this file. Quake III spread it over SV_SendClientMessages,
// SV_SendClientSnapshot, SV_RateMsec and the fragment pump of
// SV_Netchan_TransmitNextFragment.
//
// A snapshot may go once the frame clock reaches c.nextSnapshotTime and
// no fragment of the last message is still waiting. After a message of
// size bytes, the next one waits
//
//	max(1000/min(snaps, sv_fps), (size + HeaderRateBytes) × 1000 / rate) ms
//
// (at least NotActiveSnapshotMsec for a client not in the game), and when
// the rate term set the delay, or fragments held a snapshot back, the
// next snapshot carries proto.SnapRateDelayed. Fragments of a long
// message go one at a time, each (bytes + HeaderRateBytes) × 1000 / rate
// ms after the last. A client on the in-memory loopback has no bandwidth
// to save: its rate is not applied.

// rateAllowsSnapshot reports whether c's next snapshot may be built now;
// a snapshot held back by fragments still going out will be flagged
// rate-delayed.
func (s *Server) rateAllowsSnapshot(c *client) bool {
	if s.svs.time-c.nextSnapshotTime < 0 {
		return false
	}
	if c.chan_.HasUnsentFragments() {
		c.rateDelayed = true
		return false
	}
	return true
}

// scheduleNextSnapshot sets when c's next snapshot may go, after a
// message of size bytes (SV_SendClientSnapshot's rate decision).
func (s *Server) scheduleNextSnapshot(c *client, size int) {
	snapMsec := s.snapshotMsec(c)
	if netchan.IsLoopbackAddr(c.chan_.Remote()) {
		c.nextSnapshotTime = s.svs.time + snapMsec
		c.rateDelayed = false
	} else if rm := s.rateMsec(c, size); rm < snapMsec {
		c.nextSnapshotTime = s.svs.time + snapMsec
		c.rateDelayed = false
	} else {
		c.nextSnapshotTime = s.svs.time + rm
		c.rateDelayed = true
	}
	if c.state != StateActive && c.nextSnapshotTime-s.svs.time < NotActiveSnapshotMsec {
		c.nextSnapshotTime = s.svs.time + NotActiveSnapshotMsec
	}
}

// rateMsec returns how long a message of size bytes occupies c's rate
// (SV_RateMsec).
func (s *Server) rateMsec(c *client, size int) int32 {
	return int32((size + HeaderRateBytes) * 1000 / s.clientRate(c))
}

// transmit sends a message on c's channel, scrambled or not, and paces
// the fragments that follow by c's rate (SV_Netchan_Transmit). A channel
// that refuses the message drops the client; it reports whether the
// client is still there.
func (s *Server) transmit(c *client, data []byte, scramble bool) bool {
	c.scramble = scramble
	before := c.chan_.Stats().BytesOut
	err := c.chan_.Transmit(data)
	if errors.Is(err, netchan.ErrQueueFull) || errors.Is(err, netchan.ErrMsgTooLong) {
		s.dropClient(c, "server message overflow")
		return false
	}
	c.nextFragmentTime = s.svs.now + s.rateMsec(c, int(c.chan_.Stats().BytesOut-before))
	return true
}

// pumpFragments sends the next fragment of every client whose rate
// allows it (SV_Netchan_TransmitNextFragment).
func (s *Server) pumpFragments() {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.chan_ == nil || !c.chan_.HasUnsentFragments() {
			continue
		}
		if !netchan.IsLoopbackAddr(c.chan_.Remote()) && s.svs.now-c.nextFragmentTime < 0 {
			continue
		}
		before := c.chan_.Stats().BytesOut
		_ = c.chan_.TransmitNextFragment()
		c.nextFragmentTime = s.svs.now + s.rateMsec(c, int(c.chan_.Stats().BytesOut-before))
	}
}
