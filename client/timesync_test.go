package client

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"tremor/bg"
)

// The three correction regimes of the server-time estimate.
func TestAdjustTimeDeltaRegimes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		delta        int32 // estimate: server time - realtime
		snapOffset   int32 // new snapshot's server time - realtime
		extrapolated bool
		want         int32
		resets, fast uint64
	}{
		{"reset ahead", 0, 600, false, 600, 1, 0},
		{"reset behind", 1000, 0, false, 0, 1, 0},
		{"reset edge", 0, 501, false, 501, 1, 0},
		{"halve at 500", 0, 500, false, 250, 0, 1},
		{"halve ahead", 0, 300, false, 150, 0, 1},
		{"halve behind", 0, -302, false, -151, 0, 1},
		{"halve edge", 40, 141, false, 90, 0, 1},
		{"drift forward at 100", 0, 100, false, 1, 0, 0},
		{"drift forward", 10, 50, false, 11, 0, 0},
		{"drift back after extrapolating", 10, 50, true, 8, 0, 0},
		{"drift back, estimate ahead", 10, -50, true, 8, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{}
			c.realtime = 10000
			c.active.serverTimeDelta = tc.delta
			c.active.snap.serverTime = c.realtime + tc.snapOffset
			c.active.newSnapshots = true
			c.active.extrapolated = tc.extrapolated
			c.adjustTimeDelta()
			if c.active.serverTimeDelta != tc.want || c.stats.TimeResets != tc.resets || c.stats.TimeFastAdjusts != tc.fast {
				t.Fatalf("delta %d (resets %d, halvings %d), want %d (%d, %d)",
					c.active.serverTimeDelta, c.stats.TimeResets, c.stats.TimeFastAdjusts, tc.want, tc.resets, tc.fast)
			}
			if c.active.newSnapshots || (tc.extrapolated && tc.resets+tc.fast == 0 && c.active.extrapolated) {
				t.Fatal("flags not cleared")
			}
		})
	}
}

// A link with latency: the estimate settles just behind the newest
// snapshot; a latency jump is absorbed without time running backwards;
// cl_timeNudge shifts the render time.
func TestTimeSyncConverges(t *testing.T) {
	for _, nudge := range []int{0, 20, -20} {
		t.Run("nudge "+strconv.Itoa(nudge), func(t *testing.T) {
			c, s := newPair(t, Config{TimeNudge: nudge})
			now := int32(0)
			connect(t, c, s, &now)
			rng := rand.New(rand.NewPCG(3, uint64(nudge+100)))
			// Server time runs 7000 ms ahead of the client's clock;
			// snapshots leave every 50 ms and take latency ms to arrive.
			const offset = 7000
			latency := int32(40)
			nextSnap := now + offset - now%50
			last := c.ServerTime()
			type pending struct{ at, serverTime int32 }
			var queue []pending
			check := func(from, to int32) {
				for ; now < to; now += 16 + int32(rng.IntN(2)) {
					for nextSnap <= now+offset {
						queue = append(queue, pending{nextSnap - offset + latency + int32(rng.IntN(5)), nextSnap})
						nextSnap += 50
					}
					for len(queue) > 0 && queue[0].at <= now {
						st := queue[0].serverTime
						s.sendSnapshot(st, bg.PlayerState{CommandTime: st - 10}, nil, s.deltaFor(), 0)
						queue = queue[1:]
					}
					step(t, c, s, now, bg.UserCmd{})
					if c.ServerTime() < last {
						t.Fatalf("time went back from %d to %d", last, c.ServerTime())
					}
					last = c.ServerTime()
					if now >= from {
						_, newest := c.CurrentSnapshotNumber()
						behind := newest - (c.ServerTime() + int32(nudge))
						// Between the previous snapshot and the newest, give
						// or take a frame and the arrival jitter.
						if behind < -25 || behind > 75 {
							t.Fatalf("at %d: estimate %d ms behind the newest snapshot", now, behind)
						}
					}
				}
			}
			check(now+3000, now+6000)
			resets := c.Stats().TimeResets
			latency = 700 // a latency spike: snapshots arrive 660 ms later
			check(now+3000, now+8000)
			if c.Stats().TimeResets == resets {
				t.Fatal("a 660 ms jump did not reset the estimate")
			}
			if c.Stats().PingCount == 0 {
				t.Fatal("no ping measured")
			}
		})
	}
}
