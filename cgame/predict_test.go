package cgame

import (
	"math"
	"strconv"
	"testing"

	"tremor/bg"
)

// On a clean connection prediction never misses: the server runs the same
// Pmove on the same commands, so replaying the unacknowledged commands from
// any snapshot gives exactly what the server will compute.
func TestPredictionClean(t *testing.T) {
	tests := []struct {
		name   string
		frames int
		opts   []simOpt
	}{
		{"lan", 4000, nil},
		{"mostly extrapolating", 1000, []simOpt{withLatency(40, 5)}},
		{"codec", 2000, []simOpt{withCodec()}},
		{"aliasing engine", 1000, []simOpt{withAlias()}},
		{"100ms latency", 2000, []simOpt{withLatency(100, 20)}},
		{"snapshot loss", 2000, []simOpt{withLatency(60, 10), withLoss(4)}},
		{"fast frames", 3000, []simOpt{withFrameMsec(7)}},
		{"slow frames", 1000, []simOpt{withFrameMsec(41), withCodec()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, tt.opts...)
			s.checkSelf = true
			chats := 0
			s.svFrame = func(s *sim) {
				if s.rng.IntN(10) == 0 {
					chats++
					s.serverCommand(`chat "bot: line ` + strconv.Itoa(chats) + `"`)
				}
			}
			cfg := DefaultConfig()
			g := New(s, s.m, &cfg)
			start := -1
			var evs, corrections int
			s.run(g, tt.frames, func(i int) {
				if !g.Ready() {
					return
				}
				if !g.Predicting {
					t.Fatalf("frame %d: not predicting", i)
				}
				if g.Predicted != s.oracle {
					t.Fatalf("frame %d: predicted origin %v velocity %v, server computes %v %v",
						i, g.Predicted.Origin, g.Predicted.Velocity, s.oracle.Origin, s.oracle.Velocity)
				}
				if g.DrawnOrigin != PointOf(s.oracle.Origin) {
					t.Fatalf("frame %d: drawn at %v, predicted %v", i, g.DrawnOrigin, s.oracle.Origin)
				}
				if start < 0 {
					start = s.oracleEvs
					return
				}
				for _, e := range g.Events {
					switch e.Source {
					case SourcePredicted:
						evs++
					case SourceCorrection:
						corrections++
					}
				}
			})
			st := g.Stats
			if st.PredictionMisses != 0 || st.PredictionErrorMax != 0 {
				t.Errorf("%d misses (max %.2f px), want none", st.PredictionMisses, st.PredictionErrorMax)
			}
			if st.PredictionCommandsLost != 0 {
				t.Errorf("commands lost %d times", st.PredictionCommandsLost)
			}
			if want := s.oracleEvs - start; evs != want || corrections != 0 {
				t.Errorf("fired %d predicted events and %d corrections, the moves made %d", evs, corrections, want)
			}
			if seq := int(g.Snap.ServerCommandSequence); g.Chat.Total != seq || st.ServerCommandsLost != 0 ||
				g.Chat.Last().Text != "bot: line "+strconv.Itoa(seq) {
				t.Errorf("%d chat lines, last %q; the current snapshot follows %d", g.Chat.Total, g.Chat.Last().Text, seq)
			}
			if s.svDone < int32(tt.frames)/2 {
				t.Errorf("the server ran only %d commands", s.svDone)
			}
			t.Logf("%d frames, %d snapshots used, %d dropped, %d extrapolated, %d commands replayed, %d events",
				st.Frames, st.SnapshotsUsed, st.SnapshotsDropped, st.FramesExtrapolated, st.CommandsReplayed, evs)
		})
	}
}

// A server correction (the server moves the player, as a push the client
// could not predict would) is one misprediction; the error vector is the
// correction's size and decays linearly to zero over cg_errorDecay.
func TestPredictionCorrection(t *testing.T) {
	const nudge = 10 // px
	tests := []struct {
		name  string
		decay int32
	}{
		{"decay 100", 100},
		{"decay 250", 250},
		{"decay 0 snaps", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, withMap(flatMap(t)), withInput(idleInput))
			const at = 3000
			nudged := false
			s.svFrame = func(s *sim) {
				if !nudged && s.sv.CommandTime >= at {
					nudged = true
					s.sv.Origin.X += bg.Px(nudge)
				}
			}
			cfg := DefaultConfig()
			cfg.ErrorDecay = tt.decay
			g := New(s, s.m, &cfg)
			missAt := int32(-1)
			var before Point
			s.run(g, 400, func(i int) {
				if !g.Ready() {
					return
				}
				if g.Stats.PredictionMisses == 0 {
					before = g.DrawnOrigin
					return
				}
				if missAt < 0 {
					missAt = g.Time
					want := Point{X: -float64(bg.Px(nudge))}
					if g.PredictedError != want && tt.decay > 0 {
						t.Fatalf("error vector %v, want %v", g.PredictedError, want)
					}
					if tt.decay > 0 && g.DrawnOrigin != before {
						t.Errorf("the miss frame draws %v, the frame before %v: not smooth", g.DrawnOrigin, before)
					}
				}
				dt := g.Time - missAt
				f := 0.0
				if tt.decay > 0 {
					f = math.Max(0, float64(tt.decay-dt)/float64(tt.decay))
				}
				want := PointOf(g.Predicted.Origin).add(Point{X: -float64(bg.Px(nudge)) * f})
				if math.Abs(g.DrawnOrigin.X-want.X) > 1e-9 || g.DrawnOrigin.Y != want.Y {
					t.Fatalf("%d ms after the miss drawn at %v, want %v", dt, g.DrawnOrigin, want)
				}
			})
			if !nudged || missAt < 0 {
				t.Fatal("the correction never happened")
			}
			if g.Stats.PredictionMisses != 1 {
				t.Errorf("%d misses, want 1", g.Stats.PredictionMisses)
			}
			if g.Stats.PredictionErrorMax != nudge {
				t.Errorf("largest error %.2f px, want %d", g.Stats.PredictionErrorMax, nudge)
			}
			if g.DrawnError != (Point{}) {
				t.Errorf("error still drawn at the end: %v", g.DrawnError)
			}
		})
	}
}

// cl_nopredict switches prediction off and on between frames: while off the
// player is drawn where the snapshots put it, interpolated; when it comes
// back on, prediction resumes without a false miss.
func TestNoPredictToggle(t *testing.T) {
	s := newSim(t, withCodec())
	cfg := DefaultConfig()
	g := New(s, s.m, &cfg)
	var offFrames, onFrames, offEvents int
	s.run(g, 1500, func(i int) {
		if !g.Ready() {
			return
		}
		switch {
		case cfg.NoPredict:
			offFrames++
			if g.Predicting {
				t.Fatalf("frame %d: predicting with cl_nopredict", i)
			}
			want := PointOf(g.Snap.PS.Origin)
			if g.NextSnap != nil && !g.nextFrameTeleport {
				want = lerp(want, PointOf(g.NextSnap.PS.Origin), g.Frac)
			}
			if g.DrawnOrigin != want {
				t.Fatalf("frame %d: drawn at %v, the snapshots say %v", i, g.DrawnOrigin, want)
			}
			for _, e := range g.Events {
				if e.Predicted {
					t.Fatalf("frame %d: predicted event %d with cl_nopredict", i, e.Event)
				}
				if e.Source == SourcePlayerState {
					offEvents++
				}
			}
		default:
			onFrames++
			if !g.Predicting || g.Predicted != s.oracle {
				t.Fatalf("frame %d: prediction %v, server %v", i, g.Predicted.Origin, s.oracle.Origin)
			}
		}
		// the console flips the cvar between frames
		switch i {
		case 300, 700, 1100:
			cfg.NoPredict = true
		case 500, 900:
			cfg.NoPredict = false
		}
	})
	if offFrames < 500 || onFrames < 600 {
		t.Fatalf("%d frames off, %d on", offFrames, onFrames)
	}
	if offEvents == 0 {
		t.Error("no player events from the snapshots while not predicting")
	}
	if g.Stats.PredictionMisses != 0 {
		t.Errorf("%d misses from toggling", g.Stats.PredictionMisses)
	}
}

// When the oldest command prediction needs has left the engine's command
// ring, cgame counts it and draws the snapshot instead of guessing.
func TestPredictionCommandsLost(t *testing.T) {
	s := newSim(t, withLatency(200, 60), withCmdBackup(16))
	g := New(s, s.m, nil)
	s.run(g, 300, func(i int) {
		if !g.Ready() {
			return
		}
		// Early on the player's spawn time is newer than the commands.
		if i > 100 && g.Predicting {
			t.Fatalf("frame %d: predicting without the commands", i)
		}
		if !g.DrawnOrigin.finite() {
			t.Fatalf("frame %d: drawn at %v", i, g.DrawnOrigin)
		}
	})
	if g.Stats.PredictionCommandsLost == 0 {
		t.Error("lost commands not counted")
	}
	if g.Stats.PredictionMisses != 0 {
		t.Errorf("%d misses", g.Stats.PredictionMisses)
	}
}

// pmove_fixed must be the same on both sides: then prediction is exact;
// when they differ it is not, which is why it is the server's setting.
func TestPmoveFixed(t *testing.T) {
	tests := []struct {
		name       string
		server     int32 // pmove_msec, 0 for variable
		client     bool
		clientMsec int32
		wantMisses bool
	}{
		{"both fixed", 8, true, 8, false},
		{"both fixed 11", 11, true, 11, false},
		{"client fixed only", 0, true, 8, true},
		{"server fixed only", 8, false, 8, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, withPmoveFixed(tt.server))
			s.checkSelf = true
			cfg := DefaultConfig()
			cfg.PmoveFixed, cfg.PmoveMsec = tt.client, tt.clientMsec
			g := New(s, s.m, &cfg)
			s.run(g, 1500, func(i int) {
				if !tt.wantMisses && g.Ready() && g.Predicted != s.oracle {
					t.Fatalf("frame %d: predicted %v, server %v", i, g.Predicted.Origin, s.oracle.Origin)
				}
			})
			if got := g.Stats.PredictionMisses > 0; got != tt.wantMisses {
				t.Errorf("%d misses", g.Stats.PredictionMisses)
			}
		})
	}
}

// A teleport the client did not predict (a respawn, a server-side
// teleport) is not a misprediction to smooth: the error vector is dropped
// and the player appears at the new place at once.
func TestTeleportResetsError(t *testing.T) {
	s := newSim(t, withMap(flatMap(t)), withInput(idleInput))
	step := 0
	s.svFrame = func(s *sim) {
		switch {
		case step == 0 && s.sv.CommandTime >= 3000:
			s.sv.Origin.X += bg.Px(10) // a push: one miss
			step++
		case step == 1 && s.sv.CommandTime >= 3100:
			s.sv.Origin.X += bg.Px(300) // a teleport: no miss
			s.sv.EFlags ^= bg.EFTeleportBit
			step++
		}
	}
	cfg := DefaultConfig()
	cfg.ErrorDecay = 1000 // still large when the teleport comes
	g := New(s, s.m, &cfg)
	teleported := false
	s.run(g, 300, func(i int) {
		if !g.Ready() || g.Predicted.EFlags&bg.EFTeleportBit == 0 {
			return
		}
		if !teleported {
			teleported = true
			if g.Stats.PredictionMisses != 1 {
				t.Fatalf("%d misses before the teleport", g.Stats.PredictionMisses)
			}
		}
		if g.DrawnError != (Point{}) || g.DrawnOrigin != PointOf(g.Predicted.Origin) {
			t.Fatalf("frame %d: error %v drawn after the teleport", i, g.DrawnError)
		}
	})
	if !teleported || step != 2 {
		t.Fatal("no teleport")
	}
	if g.Stats.PredictionMisses != 1 || g.Stats.PredictionTeleports != 1 {
		t.Errorf("%d misses, %d teleports; want 1 and 1", g.Stats.PredictionMisses, g.Stats.PredictionTeleports)
	}
}
