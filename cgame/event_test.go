package cgame

import (
	"testing"

	"tremor/bg"
)

// A predicted jump plays once, when the prediction first makes it, though
// the command is replayed every frame until the server acknowledges it.
// If the server's player state has another event at that sequence number,
// the server's plays once, as a correction.
func TestPredictedEventsOnce(t *testing.T) {
	const jumpCmd = 60
	tests := []struct {
		name       string
		serverSays int32 // the event the server records for the jump; EvJump agrees
	}{
		{"confirmed", bg.EvJump},
		{"corrected", bg.EvNoAmmo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, withMap(flatMap(t)), withLatency(100, 60), withInput(func(s *sim, n int32, cmd *bg.UserCmd) {
				if n == jumpCmd {
					cmd.UpMove = 127
				}
			}))
			s.afterCmd = func(s *sim, n int32) {
				if n == jumpCmd {
					i := (s.sv.EventSequence - 1) & (bg.MaxPSEvents - 1)
					if s.sv.Events[i] != bg.EvJump {
						t.Fatalf("the server's jump made event %d", s.sv.Events[i])
					}
					s.sv.Events[i] = tt.serverSays
				}
			}
			g := New(s, s.m, nil)
			count := map[EventSource]map[int32]int{}
			replays := 0
			s.run(g, 300, func(i int) {
				for _, e := range g.Events {
					if e.Entity != 0 {
						continue // the bot
					}
					if count[e.Source] == nil {
						count[e.Source] = map[int32]int{}
					}
					count[e.Source][e.Event]++
					if e.Predicted != (e.Source == SourcePredicted) {
						t.Fatalf("event %+v", e)
					}
				}
				if g.Ready() && s.svDone < jumpCmd && s.cmdNum > jumpCmd {
					replays++
				}
			})
			if replays < 5 {
				t.Fatalf("the jump was replayed in only %d frames", replays)
			}
			if n := count[SourcePredicted][bg.EvJump]; n != 1 {
				t.Errorf("jump played %d times", n)
			}
			if n := count[SourcePredicted][bg.EvLand]; n != 1 {
				t.Errorf("landing played %d times", n)
			}
			corrections := 0
			for _, n := range count[SourceCorrection] {
				corrections += n
			}
			want := 0
			if tt.serverSays != bg.EvJump {
				want = 1
				if count[SourceCorrection][tt.serverSays] != 1 {
					t.Errorf("corrections %v, want one %d", count[SourceCorrection], tt.serverSays)
				}
			}
			if corrections != want || g.Stats.EventCorrections != want {
				t.Errorf("%d corrections (%d counted), want %d", corrections, g.Stats.EventCorrections, want)
			}
			if g.Stats.PredictionMisses != 0 {
				t.Errorf("%d misses", g.Stats.PredictionMisses)
			}
		})
	}
}

// Entity events play once per change of the event field: the two counter
// bits make the same event twice in a row a change. A temporary event
// entity plays once however many snapshots it stays in.
func TestEntityEvents(t *testing.T) {
	pain := func(counter int32) bg.EntityState {
		e := player(5, 0, 0)
		e.Event, e.EventParm = bg.EvPain|counter<<bg.EventBitsShift, 40
		return e
	}
	temp := bg.EntityState{Number: 90, EType: bg.ETEvents + bg.EvExplosion, Pos: bg.Trajectory{Base: bg.Vec{X: 320, Y: 64}}}
	obit := bg.EntityState{Number: 91, EType: bg.ETEvents + bg.EvObituary, ClientNum: 3, OtherEntity: 2, EventParm: bg.MODRocket}
	tests := []struct {
		name   string
		snaps  [][]bg.EntityState
		want   int32 // event
		src    EventSource
		played int
	}{
		{"counter", [][]bg.EntityState{{pain(1)}, {pain(1)}, {pain(1)}, {pain(2)}, {pain(2)}, {player(5, 0, 0)}, {pain(3)}}, bg.EvPain, SourceEntity, 3},
		{"same event again", [][]bg.EntityState{{player(5, 0, 0)}, {pain(1)}, {pain(2)}, {pain(3)}, {pain(0)}, {pain(0)}}, bg.EvPain, SourceEntity, 4},
		{"temp entity", [][]bg.EntityState{{}, {temp}, {temp}, {temp}, {}}, bg.EvExplosion, SourceTemp, 1},
		{"obituary", [][]bg.EntityState{{obit}, {obit}}, bg.EvObituary, SourceTemp, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, g := newScripted(t, nil)
			played := 0
			for i, ents := range tt.snaps {
				st := 1000 + int32(i)*50
				c.add(st, ents...)
				c.frame(g, st)
				for _, e := range g.Events {
					if e.Event != tt.want || e.Source != tt.src || e.Predicted {
						t.Fatalf("snapshot %d: event %+v", i, e)
					}
					if e.Time != st {
						t.Errorf("played at %d in the frame at %d", e.Time, st)
					}
					played++
				}
			}
			if played != tt.played {
				t.Errorf("played %d times, want %d", played, tt.played)
			}
		})
	}
	t.Run("obituary record", func(t *testing.T) {
		c, g := newScripted(t, nil)
		c.add(1000, obit)
		c.frame(g, 1000)
		if g.Obituaries.Len() != 1 || g.Obituaries.At(0) != (Obituary{Victim: 3, Killer: 2, MOD: bg.MODRocket, Time: 1000}) {
			t.Fatalf("obituaries %+v", g.Obituaries)
		}
	})
	t.Run("position", func(t *testing.T) {
		c, g := newScripted(t, nil)
		c.add(1000)
		c.add(1050, temp)
		c.frame(g, 1050)
		if len(g.Events) != 1 || g.Events[0].Origin != (Point{320, 64}) || g.Events[0].Entity != 90 {
			t.Fatalf("events %+v", g.Events)
		}
	})
}

// The server's external events of the local player (pain, pickups,
// death) play once, predicting or not.
func TestExternalEvent(t *testing.T) {
	for _, noPredict := range []bool{false, true} {
		name := "predicting"
		if noPredict {
			name = "nopredict"
		}
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NoPredict = noPredict
			c, g := newScripted(t, &cfg)
			played := 0
			for i := int32(0); i < 12; i++ {
				st := 1000 + i*50
				s := c.add(st)
				switch {
				case i >= 2 && i < 6: // one event kept for four snapshots
					s.PS.ExternalEvent, s.PS.ExternalEventParm = bg.EvPain|1<<bg.EventBitsShift, 75
				case i >= 8: // the same event again, the counter moved on
					s.PS.ExternalEvent, s.PS.ExternalEventParm = bg.EvPain|2<<bg.EventBitsShift, 50
				}
				c.frame(g, st)
				for _, e := range g.Events {
					if e.Event != bg.EvPain || e.Source != SourceExternal {
						t.Fatalf("event %+v", e)
					}
					played++
				}
			}
			if played != 2 {
				t.Errorf("played %d times, want 2", played)
			}
		})
	}
}
