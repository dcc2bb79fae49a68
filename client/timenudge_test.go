package client

import (
	"math/rand/v2"
	"testing"

	"tremor/bg"
	"tremor/cgame"
)

// nudgeRun is what one pass of the same snapshot stream gave.
type nudgeRun struct {
	nudge        int     // the Config.TimeNudge asked for
	serverTimes  []int32 // the engine's render time at every measured frame
	frames       int     // cgame frames measured
	extrapolated int     // of those, frames cgame extrapolated
	flagged      int     // frames with CGame.Extrapolating set
	engineExtrap uint64
}

// runNudge drives the real engine and a cgame on it through a fixed
// stream: server time 7000 ms ahead of the client's clock, a snapshot
// every 50 ms arriving 40 ms (plus a seeded 0..4 ms jitter) later, a
// client frame every 16 ms. The stream and the frame times do not depend
// on the nudge.
func runNudge(t *testing.T, nudge int) nudgeRun {
	t.Helper()
	c, s := newPair(t, Config{TimeNudge: nudge})
	now := int32(0)
	connect(t, c, s, &now)
	cg := cgame.New(c, c.Map(), nil)
	rng := rand.New(rand.NewPCG(11, 12))
	const offset, latency = 7000, 40
	nextSnap := now + offset - now%50
	type pending struct{ at, serverTime int32 }
	var queue []pending
	r := nudgeRun{nudge: nudge}
	warm := now + 2000
	var extrap0 int
	var engine0 uint64
	for end := now + 8000; now < end; now += 16 {
		for nextSnap <= now+offset {
			queue = append(queue, pending{nextSnap - offset + latency + int32(rng.IntN(5)), nextSnap})
			nextSnap += 50
		}
		for len(queue) > 0 && queue[0].at <= now {
			st := queue[0].serverTime
			s.sendSnapshot(st, bg.PlayerState{CommandTime: st - 10, ClientNum: 3}, nil, s.deltaFor(), 0)
			queue = queue[1:]
		}
		step(t, c, s, now, bg.UserCmd{})
		cg.Frame(c.Realtime())
		if now < warm {
			extrap0, engine0 = cg.Stats.FramesExtrapolated, c.Stats().FramesExtrapolated
			continue
		}
		if !cg.Ready() {
			t.Fatalf("nudge %d: cgame has no snapshot at %d", nudge, now)
		}
		r.frames++
		r.serverTimes = append(r.serverTimes, c.ServerTime())
		if cg.Extrapolating {
			r.flagged++
		}
	}
	r.extrapolated = cg.Stats.FramesExtrapolated - extrap0
	r.engineExtrap = c.Stats().FramesExtrapolated - engine0
	return r
}

// cl_timeNudge shifts the render time the engine gives cgame, and nothing
// else: with the same snapshot stream, the time sync converges the same
// way whatever the nudge, the render time of every frame is the nudge-0
// one minus the (clamped) nudge, and so a negative nudge makes cgame
// extrapolate past the newest snapshot more often, a positive one less.
// -50 is clamped to -MaxTimeNudge.
func TestTimeNudgeExtrapolation(t *testing.T) {
	base := runNudge(t, 0)
	t.Logf("nudge 0: %d of %d frames extrapolated", base.extrapolated, base.frames)
	if base.frames < 300 {
		t.Fatalf("only %d frames measured", base.frames)
	}
	for _, tc := range []struct {
		name  string
		nudge int
		shift int32 // render time relative to nudge 0
		more  bool  // extrapolates more than nudge 0
	}{
		{"minus 50", -50, MaxTimeNudge, true},
		{"minus 20", -20, 20, true},
		{"plus 30", 30, -30, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runNudge(t, tc.nudge)
			t.Logf("nudge %d: %d of %d frames extrapolated (%d flagged)", tc.nudge, r.extrapolated, r.frames, r.flagged)
			if r.frames != base.frames || r.engineExtrap != base.engineExtrap {
				t.Fatalf("time sync differs: %d frames, %d engine extrapolations; nudge 0: %d, %d",
					r.frames, r.engineExtrap, base.frames, base.engineExtrap)
			}
			for i, st := range r.serverTimes {
				if st != base.serverTimes[i]+tc.shift {
					t.Fatalf("frame %d: render time %d, want nudge 0's %d %+d", i, st, base.serverTimes[i], tc.shift)
				}
			}
			if r.flagged != r.extrapolated {
				t.Fatalf("%d frames flagged Extrapolating, Stats count %d", r.flagged, r.extrapolated)
			}
			if tc.more && r.extrapolated <= base.extrapolated {
				t.Fatalf("nudge %d: %d frames extrapolated, not more than nudge 0's %d", tc.nudge, r.extrapolated, base.extrapolated)
			}
			if !tc.more && r.extrapolated >= base.extrapolated {
				t.Fatalf("nudge %d: %d frames extrapolated, not fewer than nudge 0's %d", tc.nudge, r.extrapolated, base.extrapolated)
			}
		})
	}
}
