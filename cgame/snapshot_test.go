package cgame

import (
	"math"
	"math/rand/v2"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Between two snapshots the fraction is the render time's place between
// their server times, and a player is drawn that far between its two
// positions.
func TestInterpolationFraction(t *testing.T) {
	c, g := newScripted(t, nil)
	c.add(1000, player(1, 0, 0))
	c.add(1050, player(1, 800, 0))
	c.add(1100, player(1, 1600, 0))
	for rt := int32(1000); rt < 1100; rt += 5 {
		c.frame(g, rt)
		base := int32(1000)
		if rt >= 1050 {
			base = 1050
		}
		frac := float64(rt-base) / 50
		if g.Snap.ServerTime != base || g.NextSnap == nil || g.NextSnap.ServerTime != base+50 {
			t.Fatalf("render %d: between %d and %v", rt, g.Snap.ServerTime, g.NextSnap)
		}
		if !near(g.Frac, frac) || g.Extrapolating {
			t.Fatalf("render %d: fraction %v, want %v", rt, g.Frac, frac)
		}
		e := g.Entity(1)
		if len(g.Entities) != 1 || g.Entities[0] != e {
			t.Fatalf("render %d: entities %v", rt, g.Entities)
		}
		if want := float64(rt-1000) * 16; !near(e.Lerp.X, want) {
			t.Fatalf("render %d: drawn at %v, want %v", rt, e.Lerp.X, want)
		}
	}
	if g.Stats.FramesExtrapolated != 0 {
		t.Errorf("%d frames extrapolated", g.Stats.FramesExtrapolated)
	}
}

// Without a next snapshot players are carried on their velocity for at
// most MaxExtrapolateMsec, missiles follow their trajectory, and the
// frame counts as extrapolated.
func TestExtrapolation(t *testing.T) {
	c, g := newScripted(t, nil)
	missile := bg.EntityState{Number: 80, EType: bg.ETMissile,
		Pos: bg.Trajectory{Type: bg.TrLinear, Time: 1000, Delta: bg.Vec{X: bg.Px(1000)}}}
	c.add(1000, player(1, 0, 1600), missile)
	c.add(1050, player(1, 800, 1600), missile)
	frames := 0
	for rt := int32(1050); rt <= 1300; rt += 10 {
		c.frame(g, rt)
		frames++
		if g.NextSnap != nil {
			t.Fatal("a next snapshot from nowhere")
		}
		if g.Extrapolating != (rt > 1050) {
			t.Fatalf("render %d: extrapolating %v", rt, g.Extrapolating)
		}
		dt := min(rt-1050, MaxExtrapolateMsec)
		p := g.Entity(1)
		if want := 800 + 1.6*float64(dt); !near(p.Lerp.X, want) || p.Extrapolated != (dt > 0) {
			t.Fatalf("render %d: player at %v (extrapolated %v), want %v", rt, p.Lerp.X, p.Extrapolated, want)
		}
		m := g.Entity(80)
		if want := float64(bg.Px(1000)) * float64(rt-1000) / 1000; !near(m.Lerp.X, want) {
			t.Fatalf("render %d: missile at %v, want %v", rt, m.Lerp.X, want)
		}
	}
	if g.Stats.FramesExtrapolated != frames-1 {
		t.Errorf("%d frames extrapolated, want %d", g.Stats.FramesExtrapolated, frames-1)
	}
	// The next snapshot arrives late: drawing resumes from it at once.
	c.add(1100, player(1, 1600, 1600))
	c.add(1350, player(1, 2000, 0))
	c.frame(g, 1310)
	if g.Snap.ServerTime != 1100 || g.NextSnap == nil || g.Extrapolating {
		t.Fatalf("late snapshots not used: snap %d", g.Snap.ServerTime)
	}
}

// A player whose teleport bit toggles between two snapshots, or every
// entity across a level change, is not drawn sliding between the two
// positions: it stays at the old one, then appears at the new one.
func TestNoLerpAcrossTeleport(t *testing.T) {
	tests := []struct {
		name  string
		apply func(s *Snapshot)
	}{
		{"teleport bit", func(s *Snapshot) { s.Entities[0].EFlags ^= bg.EFTeleportBit }},
		{"server count", func(s *Snapshot) { s.Flags ^= proto.SnapServerCount }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, g := newScripted(t, nil)
			c.add(1000, player(1, 0, 0))
			tt.apply(c.add(1050, player(1, 10000, 0)))
			for rt := int32(1000); rt <= 1060; rt += 5 {
				c.frame(g, rt)
				want := 0.0
				if rt >= 1050 {
					want = 10000
				}
				if x := g.Entity(1).Lerp.X; x != want {
					t.Fatalf("render %d: drawn at %v, want %v", rt, x, want)
				}
			}
		})
	}
}

// The local player's own entity is not among the entities to draw.
func TestOwnEntityLeftOut(t *testing.T) {
	c, g := newScripted(t, nil)
	s := c.add(1000, player(0, 0, 0), player(3, 0, 0))
	s.PS.ClientNum = 0
	c.frame(g, 1000)
	if len(g.Entities) != 1 || g.Entities[0].Current.Number != 3 {
		t.Fatalf("entities %d", len(g.Entities))
	}
}

// checkInvariants fails the test if a frame broke a rule the drawing code
// relies on.
func checkInvariants(t *testing.T, g *CGame, lastTime, lastSnap int32, restarts, jumps int) {
	t.Helper()
	if !g.Ready() {
		return
	}
	if g.Stats.LevelRestarts == restarts && g.Stats.TimeJumpsBack == jumps {
		if g.Time < lastTime {
			t.Fatalf("time went back from %d to %d", lastTime, g.Time)
		}
		if g.Snap.ServerTime < lastSnap {
			t.Fatalf("snapshot went back from %d to %d", lastSnap, g.Snap.ServerTime)
		}
	}
	if math.IsNaN(g.Frac) || g.Frac < 0 || g.Frac > 1 {
		t.Fatalf("fraction %v", g.Frac)
	}
	if g.Time < g.Snap.ServerTime || (g.NextSnap != nil && (g.Time >= g.NextSnap.ServerTime || g.NextSnap.ServerTime <= g.Snap.ServerTime)) {
		t.Fatalf("render time %d outside snap %d next %v", g.Time, g.Snap.ServerTime, g.NextSnap)
	}
	if !g.DrawnOrigin.finite() {
		t.Fatalf("local player drawn at %v", g.DrawnOrigin)
	}
	for _, e := range g.Entities {
		if !e.Lerp.finite() {
			t.Fatalf("entity %d drawn at %v", e.Current.Number, e.Lerp)
		}
	}
}

// Duplicated, reordered, late and lost snapshots and an engine clock that
// stumbles never make time run backwards, a fraction NaN or the picture
// freeze: once the stream is sane again cgame shows its newest snapshots.
func TestBadSnapshotStreams(t *testing.T) {
	type step struct {
		snaps  []int32 // server times of snapshots arriving (-1: lost)
		render int32
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"duplicates", []step{{[]int32{1000}, 1000}, {[]int32{1050, 1050}, 1020}, {[]int32{1050}, 1060}, {[]int32{1100, 1100}, 1090}}},
		{"out of order", []step{{[]int32{1000, 1100}, 1000}, {[]int32{1050}, 1040}, {[]int32{1150, 1120}, 1110}, {[]int32{1000}, 1130}}},
		{"equal times", []step{{[]int32{1000, 1000, 1000}, 1000}, {[]int32{1000}, 1000}, {[]int32{1050}, 1000}}},
		{"late", []step{{[]int32{1000}, 1000}, {nil, 1200}, {[]int32{1050, 1100, 1150}, 1210}, {[]int32{1200, 1250}, 1220}}},
		{"lost", []step{{[]int32{1000, -1, -1}, 1000}, {[]int32{1150, -1}, 1100}, {[]int32{1250}, 1200}}},
		{"clock back", []step{{[]int32{1000, 1050}, 1040}, {[]int32{1100}, 900}, {[]int32{1150}, -5000}, {[]int32{1200}, 1160}}},
		{"clock leaps", []step{{[]int32{1000, 1050}, 1040}, {[]int32{1100}, 1 << 30}, {[]int32{1150}, 1160}}},
		{"first snapshot lost", []step{{[]int32{-1}, 1000}, {[]int32{-1, 1050}, 1000}, {[]int32{1100}, 1060}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, g := newScripted(t, nil)
			var lastTime, lastSnap int32
			maxSnap := int32(0)
			for i, st := range tt.steps {
				for _, ts := range st.snaps {
					if ts < 0 {
						c.snaps = append(c.snaps, nil)
						continue
					}
					c.add(ts, player(1, ts*3, 100))
					maxSnap = max(maxSnap, ts)
				}
				c.frame(g, st.render)
				checkInvariants(t, g, lastTime, lastSnap, 0, 0)
				if g.Ready() {
					lastTime, lastSnap = g.Time, g.Snap.ServerTime
				}
				_ = i
			}
			// A sane stream afterwards: cgame follows it.
			for ts := maxSnap + 50; ts < maxSnap+1000; ts += 50 {
				c.add(ts, player(1, ts*3, 100))
				c.frame(g, max(ts-30, g.Time))
				checkInvariants(t, g, lastTime, lastSnap, 0, 0)
				lastTime, lastSnap = g.Time, g.Snap.ServerTime
			}
			if g.Snap == nil || g.Snap.ServerTime < maxSnap+850 {
				t.Fatalf("stuck at snapshot %v", g.Snap)
			}
		})
	}
}

// A random storm of snapshots and clocks keeps every invariant.
func TestRandomSnapshotStorm(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		storm(t, rng, 400)
	}
}

// A step back of the engine's clock is held; a jump back of more than
// JumpBackTime (its estimate reset after a stall) is followed.
func TestJumpBack(t *testing.T) {
	c, g := newScripted(t, nil)
	for st := int32(1000); st <= 3000; st += 50 {
		c.add(st, player(1, st, 0))
	}
	c.frame(g, 5000) // the engine's clock ran on through a stall
	c.frame(g, 4700) // a correction: held
	if g.Time != 5000 || g.Stats.TimeHeld != 1 || g.Stats.TimeJumpsBack != 0 {
		t.Fatalf("after a 300 ms step back: time %d, held %d, jumps %d; want 5000, 1, 0", g.Time, g.Stats.TimeHeld, g.Stats.TimeJumpsBack)
	}
	c.frame(g, 2950) // its estimate reset to the newest snapshot: followed
	if g.Stats.TimeJumpsBack != 1 || g.Time != 3000 {
		t.Fatalf("after the reset: time %d, jumps %d; want 3000 (the newest snapshot), 1", g.Time, g.Stats.TimeJumpsBack)
	}
}

// storm drives a scripted client with random snapshots and render times:
// time runs backwards only when the engine's clock jumps back by more
// than JumpBackTime.
func storm(t *testing.T, rng *rand.Rand, frames int) {
	c, g := newScripted(t, nil)
	c.cmds = append(c.cmds, bg.UserCmd{ServerTime: 0})
	st, rt := int32(1000), int32(1000)
	flags := int32(0)
	var lastTime, lastSnap int32
	restarts, jumps := 0, 0
	for i := 0; i < frames; i++ {
		for k := rng.IntN(3); k > 0; k-- {
			switch rng.IntN(12) {
			case 0:
				c.snaps = append(c.snaps, nil)
			case 1:
				c.add(st-int32(rng.IntN(200)), player(1, int32(rng.IntN(1<<20)), 0)) // stale
			case 2:
				flags ^= proto.SnapServerCount
				s := c.add(st, player(1, 0, 0))
				s.Flags = flags
			default:
				st += int32(rng.IntN(80))
				e := player(1, int32(rng.IntN(1<<20)), int32(rng.IntN(4000)-2000))
				if rng.IntN(8) == 0 {
					e.EFlags ^= bg.EFTeleportBit
				}
				s := c.add(st, e, bg.EntityState{Number: int32(2 + rng.IntN(5)), EType: int32(rng.IntN(8)),
					Event: int32(rng.IntN(1 << 10)), Pos: bg.Trajectory{Type: int32(rng.IntN(5)), Time: st - int32(rng.IntN(3000))}})
				s.Flags = flags
				s.PS.Origin.X = int32(rng.IntN(1 << 16))
				s.PS.EFlags = int32(rng.IntN(4))
				s.PS.EventSequence = int32(rng.IntN(1 << 16))
				s.PS.Events[0] = int32(rng.IntN(bg.NumEvents))
			}
		}
		switch rng.IntN(10) {
		case 0:
			rt -= int32(rng.IntN(300))
		case 1:
			rt += int32(rng.IntN(300))
		default:
			rt += int32(rng.IntN(30))
		}
		if rng.IntN(50) == 0 {
			c.cmds = append(c.cmds, bg.UserCmd{ServerTime: rt, RightMove: 127, UpMove: 127})
		}
		c.frame(g, rt)
		if g.Stats.TimeJumpsBack != jumps && rt >= lastTime-JumpBackTime {
			t.Fatalf("time jumped back from %d to the engine's %d, less than JumpBackTime", lastTime, rt)
		}
		checkInvariants(t, g, lastTime, lastSnap, restarts, jumps)
		restarts, jumps = g.Stats.LevelRestarts, g.Stats.TimeJumpsBack
		if g.Ready() {
			lastTime, lastSnap = g.Time, g.Snap.ServerTime
		}
	}
}

// FuzzFrames drives cgame with snapshot streams and clocks from the fuzzer.
func FuzzFrames(f *testing.F) {
	f.Add(uint64(1), uint16(100))
	f.Add(uint64(99), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, frames uint16) {
		storm(t, rand.New(rand.NewPCG(seed, seed>>7)), int(frames%2000))
	})
}
