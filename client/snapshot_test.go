package client

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
)

// world makes a sequence of entity lists that move, appear and vanish.
type world struct {
	rng  *rand.Rand
	ents []bg.EntityState
}

func (w *world) next() []bg.EntityState {
	var out []bg.EntityState
	for _, e := range w.ents {
		switch w.rng.IntN(10) {
		case 0: // gone
		default:
			e.Pos.Base.X += w.rng.Int32N(200) - 100
			e.Pos.Delta.Y = w.rng.Int32N(3000)
			out = append(out, e)
		}
	}
	for k := w.rng.IntN(3); k > 0; k-- {
		n := int32(w.rng.IntN(200))
		out = append(out, bg.EntityState{Number: n, EType: bg.ETPlayer, ClientNum: n % 64,
			Pos: bg.Trajectory{Type: bg.TrLinear, Base: bg.Vec{X: n * 100, Y: 2000}}})
	}
	slices.SortFunc(out, func(a, b bg.EntityState) int { return int(a.Number - b.Number) })
	out = slices.CompactFunc(out, func(a, b bg.EntityState) bool { return a.Number == b.Number })
	w.ents = out
	return out
}

// Snapshots delta-coded from older snapshots in the ring decode to what
// the server built, field for field.
func TestSnapshotDeltaFromRing(t *testing.T) {
	c, s := newPair(t, Config{})
	type got struct {
		info SnapshotInfo
		ps   bg.PlayerState
		ents []bg.EntityState
	}
	var snaps []got
	c.Hooks.Snapshot = func(info SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
		snaps = append(snaps, got{info, *ps, slices.Clone(ents)})
	}
	now := int32(0)
	connect(t, c, s, &now)
	snaps = snaps[:0]
	w := &world{rng: rand.New(rand.NewPCG(1, 2))}
	serverTime := int32(1000)
	deltas := []int{1, 1, 2, 3, 1, 5, 0, 1, 4, 2, 1, 1, 9, 1, 1, 14, 1, 0, 1, 1}
	for i := range 200 {
		serverTime += 50
		ps := bg.PlayerState{CommandTime: serverTime - 10, ClientNum: 3, Origin: bg.Vec{X: int32(i * 37), Y: 900}}
		ps.Stats[bg.StatHealth] = int32(100 - i%50)
		d := deltas[i%len(deltas)]
		s.sendSnapshot(serverTime, ps, w.next(), d, 0)
		now += 50
		step(t, c, s, now, bg.UserCmd{})
	}
	if len(snaps) != 200 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	for _, g := range snaps {
		f := s.history[g.info.MessageNum]
		if !g.info.Valid || f.messageNum != g.info.MessageNum {
			t.Fatalf("snapshot %d: valid %v", g.info.MessageNum, g.info.Valid)
		}
		if g.ps != f.ps || !slices.Equal(g.ents, f.ents) || g.info.ServerTime != f.serverTime {
			t.Fatalf("snapshot %d differs from what the server built", g.info.MessageNum)
		}
	}
	st := c.Stats()
	if st.Snapshots != 201 || st.SnapshotsFull != 1+20 || st.SnapshotsInvalid != 0 {
		t.Fatalf("stats %+v", st)
	}
	if m := s.lastMsg(); m.moveOp != proto.ClcMove {
		t.Fatalf("op %d after valid deltas", m.moveOp)
	}
}

// A snapshot delta-coded from one the client never got is read and
// thrown away, and the next usercmd packet asks for a full snapshot.
func TestUnusableBaseAsksNoDelta(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(s *fakeServer, serverTime *int32) int // returns the delta to use
	}{
		{"base lost", func(s *fakeServer, st *int32) int {
			s.conn.lose.Store(true)
			*st += 50
			s.sendSnapshot(*st, bg.PlayerState{CommandTime: *st}, nil, 1, 0)
			s.conn.lose.Store(false)
			return 1
		}},
		{"base too old", func(s *fakeServer, st *int32) int {
			return proto.PacketBackup
		}},
		{"base never sent", func(s *fakeServer, st *int32) int {
			return 40
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Config{})
			var infos []SnapshotInfo
			c.Hooks.Snapshot = func(info SnapshotInfo, _ *bg.PlayerState, _ []bg.EntityState) { infos = append(infos, info) }
			now := int32(0)
			connect(t, c, s, &now)
			st := int32(1000)
			// Fill the ring so that a delta of PacketBackup names a message
			// that existed.
			for range proto.PacketBackup {
				st += 50
				s.sendSnapshot(st, bg.PlayerState{CommandTime: st}, nil, 1, 0)
				now += 50
				step(t, c, s, now, bg.UserCmd{})
			}
			if m := s.lastMsg(); m.moveOp != proto.ClcMove {
				t.Fatalf("op %d before", m.moveOp)
			}
			d := tc.setup(s, &st)
			st += 50
			s.sendSnapshot(st, bg.PlayerState{CommandTime: st}, nil, d, 0)
			s.command(`print "after the snapshot"`) // the message stays aligned
			s.sendCommands()
			now += 50
			step(t, c, s, now, bg.UserCmd{})
			if last := infos[len(infos)-1]; last.Valid {
				t.Fatalf("snapshot from an unusable base taken as valid: %+v", last)
			}
			if c.Stats().SnapshotsInvalid != 1 || c.Stats().ServerCommands == 0 {
				t.Fatalf("stats %+v", c.Stats())
			}
			if m := s.lastMsg(); m.moveOp != proto.ClcMoveNoDelta {
				t.Fatalf("op %d after an unusable base, want moveNoDelta", m.moveOp)
			}
			// A full snapshot mends it.
			st += 50
			s.sendSnapshot(st, bg.PlayerState{CommandTime: st}, nil, 0, 0)
			now += 50
			step(t, c, s, now, bg.UserCmd{})
			if m := s.lastMsg(); m.moveOp != proto.ClcMove {
				t.Fatalf("op %d after a full snapshot", m.moveOp)
			}
		})
	}
}

// Duplicated, reordered and late snapshots, and a server that repeats a
// frame's time, never move the render time backwards, and every pair of
// snapshots cgame can see has increasing server times, so an
// interpolation fraction is always finite.
func TestDuplicateReorderedLateSnapshots(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	cg := cgame.New(c, c.Map(), nil)
	rng := rand.New(rand.NewPCG(7, 8))
	st := int32(1000)
	last := c.ServerTime()
	lastCG := int32(-1 << 30)
	var stale uint64
	for i := range 400 {
		st += 50
		t0 := st
		switch rng.IntN(8) {
		case 0: // the same server time again (a server that repeats a frame)
			t0 = st - 50
			st -= 50
			stale++
		}
		// (An older server time in a newer message is no longer stale:
		// time running backwards within one map drops the connection,
		// TestServerTimeLimits.)
		s.sendSnapshot(t0, bg.PlayerState{CommandTime: t0 - 5}, nil, s.deltaFor(), 0)
		switch rng.IntN(6) {
		case 0: // duplicate of the newest packet
			s.conn.resend(len(s.conn.packets)-1, s.client)
		case 1: // a late packet
			s.conn.resend(len(s.conn.packets)-1-rng.IntN(min(10, len(s.conn.packets))), s.client)
		}
		for range 3 {
			now += 16 + int32(rng.IntN(3))
			step(t, c, s, now, bg.UserCmd{})
			if c.ServerTime() < last {
				t.Fatalf("frame %d: server time went back from %d to %d", i, last, c.ServerTime())
			}
			last = c.ServerTime()
			checkUsablePairs(t, c)
			cg.Frame(c.Realtime())
			if math.IsNaN(cg.Frac) || math.IsInf(cg.Frac, 0) || cg.Frac < 0 || cg.Frac > 1 {
				t.Fatalf("frame %d: interpolation fraction %v", i, cg.Frac)
			}
			if cg.Time < lastCG {
				t.Fatalf("frame %d: cgame time went back from %d to %d", i, lastCG, cg.Time)
			}
			lastCG = cg.Time
		}
	}
	if got := c.Stats().SnapshotsStale; got != stale {
		t.Fatalf("stale %d, want %d", got, stale)
	}
}

// checkUsablePairs checks that the snapshots the client shows have
// strictly increasing server times.
func checkUsablePairs(t *testing.T, c *Client) {
	t.Helper()
	cur, _ := c.CurrentSnapshotNumber()
	prev := int32(-1 << 30)
	for n := cur - proto.PacketBackup + 1; n <= cur; n++ {
		sn := &c.active.snapshots[n&proto.PacketMask]
		if n <= 0 || !sn.usable || sn.messageNum != n {
			continue
		}
		if sn.serverTime <= prev {
			t.Fatalf("usable snapshot %d at %d after one at %d", n, sn.serverTime, prev)
		}
		prev = sn.serverTime
	}
}

// The parse entity ring wraps without splitting a snapshot's list, and a
// base whose entities were overwritten is refused.
func TestParseEntityRingWraps(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	ents := make([]bg.EntityState, 200)
	for i := range ents {
		ents[i] = bg.EntityState{Number: int32(i + 1), EType: bg.ETItem, Pos: bg.Trajectory{Base: bg.Vec{X: int32(i)}}}
	}
	st := int32(1000)
	var bad int
	c.Hooks.Snapshot = func(info SnapshotInfo, ps *bg.PlayerState, got []bg.EntityState) {
		f := s.frames[info.MessageNum&proto.PacketMask]
		if info.Valid && !slices.Equal(got, f.ents) {
			bad++
		}
	}
	for i := range 300 {
		st += 50
		for k := range ents {
			ents[k].Pos.Base.Y = int32(i)
		}
		s.sendSnapshot(st, bg.PlayerState{CommandTime: st}, ents, 1, 0)
		now += 50
		step(t, c, s, now, bg.UserCmd{})
	}
	if bad != 0 || c.Stats().SnapshotsInvalid != 0 {
		t.Fatalf("%d wrong, stats %+v", bad, c.Stats())
	}
	if c.active.parseEntNum < 300*200 {
		t.Fatalf("ring did not wrap: %d", c.active.parseEntNum)
	}
	// 200 entities a snapshot: only 40 snapshots fit in the ring, so a
	// base 31 messages back still fits, but not after 45 more.
	st += 50
	s.sendSnapshot(st, bg.PlayerState{CommandTime: st}, ents, 31, 0)
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	if c.Stats().SnapshotsInvalid != 0 {
		t.Fatal("a base still in the ring was refused")
	}
}
