package cgame

import (
	"testing"

	"tremor/bg"
)

// pressDelay runs the local player standing still on a flat floor, with
// cl_nopredict set (live, between frames) as noPredict says, then presses
// RightMove and returns how many frames and milliseconds of the sim's
// clock pass between the frame that made the command and the first frame
// that draws the local player elsewhere.
func pressDelay(t *testing.T, lat, interp int32, noPredict bool) (frames int, ms int32) {
	t.Helper()
	pressAt := int32(1 << 30) // first usercmd number with the key down
	s := newSim(t, withMap(flatMap(t)), withLatency(lat, interp),
		withInput(func(s *sim, n int32, cmd *bg.UserCmd) {
			if n >= pressAt {
				cmd.RightMove = 127
			}
		}))
	cfg := DefaultConfig()
	g := New(s, s.m, &cfg)
	s.run(g, 120, nil) // land on the floor with prediction on
	cfg.NoPredict = noPredict
	s.run(g, 30, nil)
	if !g.Ready() || g.Predicting == noPredict {
		t.Fatalf("before the press: ready %v, predicting %v with cl_nopredict %v", g.Ready(), g.Predicting, noPredict)
	}
	rest := g.DrawnOrigin
	s.run(g, 10, func(i int) {
		if g.DrawnOrigin != rest {
			t.Fatalf("standing still, the player drifts from %v to %v", rest, g.DrawnOrigin)
		}
	})

	pressAt = s.cmdNum + 1
	var pressTime int32
	for i := range 100 {
		s.frame()
		if i == 0 {
			pressTime = s.t
		}
		g.Frame(s.t)
		if g.Predicting == noPredict {
			t.Fatalf("frame %d after the press: predicting %v with cl_nopredict %v", i, g.Predicting, noPredict)
		}
		if g.DrawnOrigin != rest {
			if noPredict {
				// The move comes from the snapshots: the newest one
				// drawn must be one the server built after running the
				// pressed command.
				ps := g.Snap.PS
				if g.NextSnap != nil {
					ps = g.NextSnap.PS
				}
				if ps.CommandTime < s.cmds[pressAt&(simCmdRing-1)].ServerTime {
					t.Fatalf("drawn moving from a snapshot (command time %d) older than the press", ps.CommandTime)
				}
			}
			return i, s.t - pressTime
		}
	}
	t.Fatalf("the player never moved after the key press (cl_nopredict %v)", noPredict)
	return 0, 0
}

// cl_nopredict 1 makes the local player lag by the round trip. With
// prediction the key press moves the drawn player in the frame that made
// the command; with cl_nopredict, switched on from the console, the
// player moves only when a snapshot the server built after running the
// command arrives and the render time reaches it: at least two one-way
// latencies later, and at most that plus a snapshot interval, the
// interpolation window and a frame.
func TestNoPredictLagsByRoundTrip(t *testing.T) {
	const frameMsec, svMsec = 16, 50 // newSim's defaults
	var prev int32
	for _, tc := range []struct {
		name        string
		lat, interp int32
	}{
		{"40ms", 40, 60},
		{"100ms", 100, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f, ms := pressDelay(t, tc.lat, tc.interp, false); f != 0 {
				t.Fatalf("predicted: the player moved %d frames (%d ms) after the press, want the same frame", f, ms)
			}
			f, ms := pressDelay(t, tc.lat, tc.interp, true)
			lo, hi := 2*tc.lat, 2*tc.lat+svMsec+tc.interp+frameMsec
			t.Logf("cl_nopredict 1, latency %d ms: moved %d frames, %d ms after the press (band %d..%d)", tc.lat, f, ms, lo, hi)
			if ms < lo || ms > hi {
				t.Fatalf("cl_nopredict 1: moved %d ms (%d frames) after the press, want %d..%d ms", ms, f, lo, hi)
			}
			if ms <= prev {
				t.Fatalf("latency %d: delay %d ms, not longer than %d ms at the lower latency", tc.lat, ms, prev)
			}
			prev = ms
		})
	}
}
