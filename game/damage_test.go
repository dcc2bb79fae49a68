package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// TestArmor rails a player (100 damage) with different armor: armor
// absorbs 2/3 of the damage, rounded up, as far as it lasts.
func TestArmor(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		armor                 int32
		wantHealth, wantArmor int32
	}{
		{"none", 0, 100, 0},
		{"runs out", 30, 130, 0},
		{"absorbs two thirds", 100, 167, 33},
		{"plenty", 200, 167, 133},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, c := start(t, room(t), testConfig(), 2)
			a, b := c[0], c[1]
			h.Place(a.Num, 5, floorRow)
			h.Place(b.Num, 15, floorRow)
			ps := h.PS(b.Num)
			ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor] = 200, tc.armor
			shoot(h, a, bg.WPRailgun, aimRight)
			if ps.Stats[bg.StatHealth] != tc.wantHealth || ps.Stats[bg.StatArmor] != tc.wantArmor {
				t.Errorf("health %d armor %d, want %d and %d", ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor], tc.wantHealth, tc.wantArmor)
			}
			if ps.DamageCount != 100 {
				t.Errorf("DamageCount %d, want 100 (health and armor together)", ps.DamageCount)
			}
		})
	}
}

// TestKnockbackScale rails a player left to right with different
// g_knockback: the push is min(damage, 200)·g_knockback/200 px/s.
func TestKnockbackScale(t *testing.T) {
	for _, k := range []int32{0, 500, 1000, 2000} {
		t.Run(itoa(int(k)), func(t *testing.T) {
			cfg := testConfig()
			cfg.Knockback = k
			h, c := start(t, room(t), cfg, 2)
			a, b := c[0], c[1]
			h.Place(a.Num, 15, floorRow)
			h.Place(b.Num, 5, floorRow)
			shoot(h, a, bg.WPRailgun, aimLeft)
			want := -bg.Px(100 * k / 200)
			if v := h.PS(b.Num).Velocity; v.X != want || v.Y != 0 {
				t.Errorf("velocity %v, want (%d, 0)", v, want)
			}
		})
	}
}

// TestQuad picks up quad damage from the map and checks that it
// triples damage and runs out after 30 s.
func TestQuad(t *testing.T) {
	m := gametest.ParseMap(t, "",
		"....................",
		"....................",
		"..S..Q..........S...",
	)
	h, c := start(t, m, testConfig(), 2)
	a, b := c[0], c[1]
	h.Place(a.Num, 6, 3)
	h.Place(b.Num, 15, 3)
	h.PS(b.Num).Stats[bg.StatHealth] = 200
	h.Frame()
	pickedAt := h.Time() - gametest.FrameMsec // the level time of the command's frame
	if got, want := h.PS(a.Num).Powerups[bg.PWQuad], pickedAt+30000; got != want {
		t.Fatalf("quad until %d, want %d", got, want)
	}
	if h.Entity(a.Num).S.Powerups&(1<<bg.PWQuad) == 0 {
		t.Error("player entity does not show quad")
	}
	shoot(h, a, bg.WPMachinegun, aimRight)
	if got := 200 - health(h, b); got != 3*bg.Weapons[bg.WPMachinegun].Damage {
		t.Errorf("quad bullet did %d, want %d", got, 3*bg.Weapons[bg.WPMachinegun].Damage)
	}
	h.RunUntil(31000, func() bool { return h.PS(a.Num).Powerups[bg.PWQuad] == 0 })
	if left := h.Time() - pickedAt; left < 30000 || left > 30000+gametest.FrameMsec {
		t.Errorf("quad lasted %d ms, want 30000", left)
	}
	hp := health(h, b)
	shoot(h, a, bg.WPMachinegun, aimRight)
	if got := hp - health(h, b); got != bg.Weapons[bg.WPMachinegun].Damage {
		t.Errorf("bullet after quad did %d, want %d", got, bg.Weapons[bg.WPMachinegun].Damage)
	}
}

// TestSelfKill: a rocket at one's own feet kills a weak player, and the
// frag counts against them.
func TestSelfKill(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 1)
	a := c[0]
	h.Place(a.Num, 10, floorRow)
	h.PS(a.Num).Stats[bg.StatHealth] = 10
	shoot(h, a, bg.WPRocketLauncher, aimDown)
	ps := h.PS(a.Num)
	if ps.PmType != bg.PMDead {
		t.Fatal("alive after a rocket at the feet with 10 health")
	}
	if ps.Persistant[bg.PersScore] != -1 || ps.Persistant[bg.PersKiller] != int32(a.Num) {
		t.Errorf("score %d killer %d, want -1 and self", ps.Persistant[bg.PersScore], ps.Persistant[bg.PersKiller])
	}
	if h.Stats.Suicides[a.Num] != 1 || h.Stats.KillsByMOD[bg.MODRocketSplash] != 1 {
		t.Errorf("stats suicides %d rocket splash kills %d, want 1 and 1", h.Stats.Suicides[a.Num], h.Stats.KillsByMOD[bg.MODRocketSplash])
	}
}

func TestLava(t *testing.T) {
	m := gametest.ParseMap(t, "",
		"....................",
		"....................",
		"..S..........S......",
		"#########~~#########",
	)
	h, c := start(t, m, testConfig(), 1)
	a := c[0]
	h.Place(a.Num, 10, 4) // standing in the lava, on the border below
	h.Frame()
	if got := health(h, a); got != 100-game.LavaDamage {
		t.Fatalf("health %d after touching lava, want %d", got, 100-game.LavaDamage)
	}
	if playerEvent(h, a.Num) != bg.EvLavaBurn {
		t.Errorf("event %d, want EvLavaBurn", playerEvent(h, a.Num))
	}
	h.RunUntil(5000, func() bool { return h.PS(a.Num).PmType == bg.PMDead })
	ps := h.PS(a.Num)
	if ps.PmType != bg.PMDead || ps.Persistant[bg.PersScore] != -1 || ps.Persistant[bg.PersKiller] != -1 {
		t.Errorf("pm type %d score %d killer %d, want dead, -1, world (-1)", ps.PmType, ps.Persistant[bg.PersScore], ps.Persistant[bg.PersKiller])
	}
	if h.Stats.KillsByMOD[bg.MODLava] != 1 {
		t.Errorf("lava kills %d, want 1", h.Stats.KillsByMOD[bg.MODLava])
	}
}
