package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// unlagScene is a shooter p0 standing at tile (2, floorRow) and a target
// p1 that stood in the air at tile (10, 4) until 200 ms after the start
// and on the floor at tile (10, floorRow) from 250 ms on, one frame
// recorded every 50 ms for 500 ms. Nothing runs the clients' commands
// meanwhile, so the shooter's next command may carry any time from the
// start on.
type unlagScene struct {
	h        *gametest.Harness
	shooter  *gametest.Client
	target   *gametest.Client
	t0       int32 // the start
	air, low bg.Vec
}

func newUnlagScene(t *testing.T, cfg game.Config) *unlagScene {
	t.Helper()
	h, cs := start(t, room(t), cfg, 2)
	s := &unlagScene{h: h, shooter: cs[0], target: cs[1], t0: h.Time(),
		air: bg.TileFeet(10, 4, nil), low: bg.TileFeet(10, floorRow, nil)}
	h.Place(s.shooter.Num, 2, floorRow)
	give(h, s.shooter, bg.WPRailgun)
	for tm := s.t0 + gametest.FrameMsec; tm <= s.t0+500; tm += gametest.FrameMsec {
		o := s.air
		if tm-s.t0 > 200 {
			o = s.low
		}
		h.PS(s.target.Num).Origin = o
		h.PS(s.target.Num).Velocity = bg.Vec{}
		h.Game.RunFrame(tm)
	}
	return s
}

// fire sends the shooter's command stamped at, with attack held, aimed
// at point, and reports whether the target lost health and the
// EvUnlagged entities the shot left.
func (s *unlagScene) fire(at int32, point bg.Vec) (hit bool, marks []*game.SharedEntity) {
	h := s.h
	before := health(h, s.target)
	from := h.PS(s.shooter.Num).Origin
	cmd := s.shooter.Cmd
	cmd.ServerTime = at
	cmd.Buttons = bg.ButtonAttack
	cmd.Aim = game.Angle(int64(point.X-from.X), int64(point.Y-from.Y))
	h.Game.ClientThink(s.shooter.Num, &cmd)
	return health(h, s.target) < before, tempEvents(h, bg.EvUnlagged)
}

func TestUnlaggedShotMeetsWhatTheShooterSaw(t *testing.T) {
	tests := []struct {
		name     string
		unlagged bool
		maxUnlag int32
		at       int32 // command time after the start
		aim      string
		hit      bool
		rewound  int32 // EvUnlagged's parm; 0: none sent
	}{
		// The shooter saw the target in the air, 400 ms ago.
		{"on, aim at the air", true, 500, 100, "air", true, 400},
		{"off, aim at the air", false, 500, 100, "air", false, 0},
		{"off, aim at the floor", false, 500, 100, "low", true, 0},
		{"on, aim at the floor", true, 500, 100, "low", false, 0},
		// sv_maxUnlag 200: rewound only to 300 ms, where it stood on
		// the floor.
		{"capped, aim at the air", true, 200, 100, "air", false, 0},
		{"capped, aim at the floor", true, 200, 100, "low", true, 200},
		// A command of the present: nothing to rewind.
		{"on, present", true, 500, 500, "low", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Unlagged, cfg.MaxUnlag = tt.unlagged, tt.maxUnlag
			s := newUnlagScene(t, cfg)
			point := s.air
			if tt.aim == "low" {
				point = s.low
			}
			hit, marks := s.fire(s.t0+tt.at, point)
			if hit != tt.hit {
				t.Errorf("hit = %v, want %v", hit, tt.hit)
			}
			if got := s.h.PS(s.target.Num).Origin; got != s.low {
				t.Errorf("target moved to %v by the shot, want it left at %v", got, s.low)
			}
			if tt.rewound == 0 {
				if len(marks) != 0 {
					t.Errorf("%d EvUnlagged entities, want none", len(marks))
				}
				return
			}
			if len(marks) != 1 {
				t.Fatalf("%d EvUnlagged entities, want 1", len(marks))
			}
			m := &marks[0].S
			want := s.air
			if tt.maxUnlag < 400 {
				want = s.low
			}
			if m.Pos.Base != want || m.Origin2 != s.low || m.OtherEntity != int32(s.shooter.Num) ||
				m.ClientNum != int32(s.target.Num) || m.EventParm != tt.rewound {
				t.Errorf("EvUnlagged at %v, present %v, shooter %d, target %d, %d ms; want %v, %v, %d, %d, %d ms",
					m.Pos.Base, m.Origin2, m.OtherEntity, m.ClientNum, m.EventParm,
					want, s.low, s.shooter.Num, s.target.Num, tt.rewound)
			}
		})
	}
}

// TestUnlaggedSwitchesLive: g_unlagged changed between two shots (the
// engine's SetConfig) applies to the next one.
func TestUnlaggedSwitchesLive(t *testing.T) {
	s := newUnlagScene(t, testConfig())
	cfg := testConfig()
	cfg.Unlagged = false
	s.h.Game.SetConfig(cfg)
	if hit, _ := s.fire(s.t0+100, s.air); hit {
		t.Error("hit where the target stood 400 ms ago after g_unlagged 0")
	}
	cfg.Unlagged = true
	s.h.Game.SetConfig(cfg)
	give(s.h, s.shooter, bg.WPRailgun) // ready again
	if hit, _ := s.fire(s.t0+150, s.air); !hit {
		t.Error("missed where the target stood 350 ms ago after g_unlagged 1")
	}
}

// TestUnlaggedInterpolates: between two recorded frames the target is
// where the line between them puts it, as the client's interpolation
// drew it.
func TestUnlaggedInterpolates(t *testing.T) {
	s := newUnlagScene(t, testConfig())
	// At 225 ms the target was half way between the air (200 ms) and
	// the floor (250 ms).
	mid := bg.Vec{X: (s.air.X + s.low.X) / 2, Y: (s.air.Y + s.low.Y) / 2}
	_, marks := s.fire(s.t0+225, mid)
	if len(marks) != 1 || marks[0].S.Pos.Base != mid {
		t.Fatalf("EvUnlagged %v, want one at %v", marks, mid)
	}
}

// TestUnlaggedNewClientNotHitWhereTheOldStood: a client slot taken over
// forgets the previous occupant's positions.
func TestUnlaggedNewClientNotHitWhereTheOldStood(t *testing.T) {
	s := newUnlagScene(t, testConfig())
	h := s.h
	h.Disconnect(s.target.Num)
	c := h.AddClient("newcomer")
	if c.Num != s.target.Num {
		t.Fatalf("the new client got slot %d, not the freed %d", c.Num, s.target.Num)
	}
	h.PS(c.Num).Origin = s.low
	h.PS(c.Num).Stats[bg.StatHealth] = 100
	before := health(h, c)
	from := h.PS(s.shooter.Num).Origin
	cmd := s.shooter.Cmd
	cmd.ServerTime = s.t0 + 100
	cmd.Buttons = bg.ButtonAttack
	cmd.Aim = game.Angle(int64(s.air.X-from.X), int64(s.air.Y-from.Y))
	h.Game.ClientThink(s.shooter.Num, &cmd)
	if health(h, c) < before {
		t.Error("the newcomer was hit where the previous client of its slot stood")
	}
}

// Recording a frame and a rewound shot allocate nothing.
func TestUnlagAllocatesNothing(t *testing.T) {
	s := newUnlagScene(t, testConfig())
	tm := s.t0 + 500
	marks := 0
	allocs := testing.AllocsPerRun(50, func() {
		tm += gametest.FrameMsec
		s.h.Game.RunFrame(tm)
		h := s.h.PS(s.target.Num)
		from := s.h.PS(s.shooter.Num).Origin
		s.h.Game.FireAtForTest(s.shooter.Num, bg.WPRailgun, game.Angle(int64(h.Origin.X-from.X), int64(h.Origin.Y-from.Y)), tm-120)
		marks += len(tempEvents(s.h, bg.EvUnlagged))
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a frame with a rewound shot", allocs)
	}
	if marks == 0 {
		t.Error("no shot was rewound")
	}
}

// BenchmarkShot is one machinegun shot among 16 players, rewound 200 ms
// or not.
func BenchmarkShot(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "present"
		if on {
			name = "rewound200ms"
		}
		b.Run(name, func(b *testing.B) {
			cfg := testConfig()
			cfg.Unlagged = on
			h := gametest.NewMap(b, room(b), 7, cfg)
			for i := 0; i < 16; i++ {
				h.AddClient("p" + string(rune('a'+i)))
			}
			h.RunFor(2000)
			b.ReportAllocs()
			for b.Loop() {
				h.Game.FireAtForTest(0, bg.WPMachinegun, aimRight, h.Time()-200)
			}
		})
	}
}
