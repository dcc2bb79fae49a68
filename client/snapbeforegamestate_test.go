package client

import (
	"testing"

	"tremor/bg"
)

// A snapshot that arrives before the gamestate (the gamestate's message
// lost, or overtaken on a reordering link) is thrown away as invalid: it
// cannot be read against baselines the client does not have yet. Read
// against empty ones it decoded entities the server never built (TestSoak
// saw one, "client 1 message 2", in CI).
func TestSnapshotBeforeGamestate(t *testing.T) {
	c, s := newPair(t, Config{})
	var got []SnapshotInfo
	c.Hooks.Snapshot = func(info SnapshotInfo, _ *bg.PlayerState, _ []bg.EntityState) { got = append(got, info) }
	now := int32(0)
	handshake(t, c, s, &now)
	s.sendSnapshot(1000, bg.PlayerState{CommandTime: 1000, ClientNum: 3}, []bg.EntityState{{Number: 5, EType: 2}}, 0, 0)
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	if len(got) != 1 || got[0].Valid {
		t.Fatalf("a snapshot before the gamestate: %+v, want one, invalid", got)
	}
	if c.Stats().SnapshotsInvalid != 1 {
		t.Errorf("SnapshotsInvalid %d, want 1", c.Stats().SnapshotsInvalid)
	}
	// Then the gamestate, and the next snapshot is taken.
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	s.sendSnapshot(1050, bg.PlayerState{CommandTime: 1050, ClientNum: 3}, nil, 0, 0)
	step(t, c, s, now, bg.UserCmd{})
	if len(got) != 2 || !got[1].Valid || c.State() != Active {
		t.Fatalf("after the gamestate: %+v, state %v; want a valid snapshot and Active", got, c.State())
	}
}
