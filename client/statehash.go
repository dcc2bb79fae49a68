package client

import (
	"errors"

	"tremor/common/proto"
)

// The client's side of state-hash verification (docs/statehash.md): a
// server with sv_hashSnapshots sends an SvcStateHash after every
// snapshot, the hashes of the snapshot as it built it; the client hashes
// the snapshot it decoded and compares. A difference is a divergence of
// the snapshot codec (a wrong delta base, a field wider than its table
// says, an entity lost in the merge): it is counted, logged, and ends a
// demo's playback, naming the entity and the field when the server sent
// the detail hashes (sv_hashSnapshots 2).

// HashStats counts the state hashes a client checked.
type HashStats struct {
	// Received counts SvcStateHash operations read.
	Received uint64
	// Checked counts those compared with the snapshot they follow.
	Checked uint64
	// Unchecked counts those with no snapshot to compare: the snapshot
	// before them was thrown away (its base was gone) or missing.
	Unchecked uint64
	// Divergences counts the checks that failed.
	Divergences uint64
	// First and Last are the first and the latest mismatch (zero
	// while Divergences is 0).
	First, Last proto.SnapshotMismatch
	// Game is the server game's state hash of the latest checked
	// snapshot, at GameTime (the snapshot's server time).
	Game     uint64
	GameTime int32
}

// hashCheck is the client's state of the check.
type hashCheck struct {
	stats HashStats
	in    proto.StateHash // read from the message
	mine  proto.StateHash // the client's hashes of the same snapshot
	// diverged is set by a divergence in the message being parsed, for
	// demo playback to stop on.
	diverged bool
}

// HashStats returns what the client's state-hash checks found.
func (c *Client) HashStats() HashStats { return c.hash.stats }

// StateHashBuffer returns where an SvcStateHash is read.
func (h *serverHandler) StateHashBuffer() *proto.StateHash { return &h.hash.in }

// StateHash checks an SvcStateHash against the snapshot parsed just
// before it in the same message. A malformed one ends the message, like
// any malformed operation.
func (h *serverHandler) StateHash(sh *proto.StateHash, err error) error {
	if err != nil {
		return err
	}
	c := (*Client)(h)
	c.checkStateHash(sh)
	return h.goOn()
}

// checkStateHash compares sh with the snapshot of the message being
// parsed.
func (c *Client) checkStateHash(sh *proto.StateHash) {
	st := &c.hash.stats
	st.Received++
	num := c.conn.serverMessageSequence
	s := &c.active.snapshots[num&proto.PacketMask]
	if !s.valid || s.messageNum != num || s.serverTime != sh.ServerTime {
		st.Unchecked++
		return
	}
	st.Checked++
	st.Game, st.GameTime = sh.Game, sh.ServerTime
	d, bad := proto.CheckStateHash(sh, &s.ps, c.entities(s), &c.hash.mine)
	if !bad {
		return
	}
	st.Divergences++
	if st.Divergences == 1 {
		st.First = d
	}
	st.Last = d
	c.hash.diverged = true
	// Log the first divergences and then fewer, so that a broken codec
	// does not flood the console.
	if n := st.Divergences; n <= 4 || n&(n-1) == 0 {
		c.logf("client: snapshot %d diverges from the server's: %v (%d so far)", num, d, n)
	}
}

// hashDivergence returns and clears the divergence found in the message
// just parsed, for demo playback.
func (c *Client) hashDivergence() (proto.SnapshotMismatch, bool) {
	if !c.hash.diverged {
		return proto.SnapshotMismatch{}, false
	}
	c.hash.diverged = false
	return c.hash.stats.Last, true
}

// ErrDemoDiverges wraps the error that stops a demo whose snapshots
// differ from the state hashes the server sent with them.
var ErrDemoDiverges = errors.New("client: demo diverges from the server's state hashes")
