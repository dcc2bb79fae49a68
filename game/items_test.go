package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// itemRoom has one item of each kind on the floor row 3, at x = 3, 5, 7...
func itemRoom(t testing.TB) *gametest.Harness {
	m := gametest.ParseMap(t, "",
		"..............................",
		"..............................",
		".S.+.*.a.A.R.r.m.............S",
	)
	h, _ := start(t, m, testConfig(), 0)
	return h
}

// itemEntity returns the entity of the item with classname class.
func itemEntity(t testing.TB, h *gametest.Harness, class string) int {
	t.Helper()
	for _, i := range h.EntitiesOfType(bg.ETItem) {
		if h.Entity(i).S.ModelIndex == bg.ItemByClass(class) {
			return i
		}
	}
	t.Fatalf("no %s on the map", class)
	return -1
}

var itemX = map[string]int{
	"item_health": 4, "item_health_mega": 6, "item_armor_shard": 8, "item_armor_body": 10,
	"weapon_rocketlauncher": 12, "ammo_rockets": 14, "ammo_bullets": 16,
}

func TestItemPickup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		class string
		set   func(ps *bg.PlayerState)
		check func(ps *bg.PlayerState) bool
		taken bool
	}{
		{"health", "item_health", func(ps *bg.PlayerState) { ps.Stats[bg.StatHealth] = 50 },
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatHealth] == 75 }, true},
		{"health caps at max", "item_health", func(ps *bg.PlayerState) { ps.Stats[bg.StatHealth] = 90 },
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatHealth] == 100 }, true},
		{"health refused at max", "item_health", func(ps *bg.PlayerState) { ps.Stats[bg.StatHealth] = 100 },
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatHealth] == 100 }, false},
		{"mega to twice max", "item_health_mega", func(ps *bg.PlayerState) { ps.Stats[bg.StatHealth] = 150 },
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatHealth] == 200 }, true},
		{"armor shard", "item_armor_shard", nil,
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatArmor] == 5 }, true},
		{"body armor caps at twice max", "item_armor_body", func(ps *bg.PlayerState) { ps.Stats[bg.StatArmor] = 150 },
			func(ps *bg.PlayerState) bool { return ps.Stats[bg.StatArmor] == 200 }, true},
		{"weapon", "weapon_rocketlauncher", nil, func(ps *bg.PlayerState) bool {
			return ps.Stats[bg.StatWeapons]&(1<<bg.WPRocketLauncher) != 0 && ps.Ammo[bg.WPRocketLauncher] == 10
		}, true},
		{"weapon tops up by one", "weapon_rocketlauncher", func(ps *bg.PlayerState) { ps.Ammo[bg.WPRocketLauncher] = 30 },
			func(ps *bg.PlayerState) bool { return ps.Ammo[bg.WPRocketLauncher] == 31 }, true},
		{"ammo", "ammo_rockets", func(ps *bg.PlayerState) { ps.Ammo[bg.WPRocketLauncher] = 3 },
			func(ps *bg.PlayerState) bool { return ps.Ammo[bg.WPRocketLauncher] == 8 }, true},
		{"ammo caps", "ammo_rockets", func(ps *bg.PlayerState) { ps.Ammo[bg.WPRocketLauncher] = 48 },
			func(ps *bg.PlayerState) bool { return ps.Ammo[bg.WPRocketLauncher] == 50 }, true},
		{"ammo refused when full", "ammo_bullets", func(ps *bg.PlayerState) { ps.Ammo[bg.WPMachinegun] = 200 },
			func(ps *bg.PlayerState) bool { return ps.Ammo[bg.WPMachinegun] == 200 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := itemRoom(t)
			a := h.AddClient("a")
			h.Frame()
			ps := h.PS(a.Num)
			ps.Stats[bg.StatHealth] = 100
			if tc.set != nil {
				tc.set(ps)
			}
			item := itemEntity(t, h, tc.class)
			h.Place(a.Num, itemX[tc.class], 3)
			h.Frame()
			if !tc.check(ps) {
				t.Errorf("after touching %s: health %d armor %d weapons %#x ammo %v", tc.class,
					ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor], ps.Stats[bg.StatWeapons], ps.Ammo)
			}
			if taken := !h.Game.ItemAvailable(item); taken != tc.taken {
				t.Errorf("taken %v, want %v", taken, tc.taken)
			}
			if tc.taken {
				if playerEvent(h, a.Num) != bg.EvItemPickup || ps.ExternalEventParm != bg.ItemByClass(tc.class) {
					t.Errorf("event %d parm %d, want EvItemPickup of item %d", playerEvent(h, a.Num), ps.ExternalEventParm, bg.ItemByClass(tc.class))
				}
				if e := h.Entity(item); e.S.EFlags&bg.EFNoDraw == 0 || e.SvFlags&game.SvfNoClient == 0 {
					t.Errorf("taken item flags %#x svflags %#x, want EFNoDraw and SvfNoClient", e.S.EFlags, e.SvFlags)
				}
				if h.Stats.Pickups[bg.ItemByClass(tc.class)] != 1 {
					t.Errorf("stats count %d pickups, want 1", h.Stats.Pickups[bg.ItemByClass(tc.class)])
				}
			}
		})
	}
}

// TestItemRespawn takes each item once and checks it comes back after
// its Respawn seconds, not a frame earlier, with EvItemRespawn.
func TestItemRespawn(t *testing.T) {
	for _, class := range []string{"item_health", "item_armor_body", "weapon_rocketlauncher", "ammo_bullets"} {
		t.Run(class, func(t *testing.T) {
			h := itemRoom(t)
			a := h.AddClient("a")
			h.Frame()
			h.PS(a.Num).Stats[bg.StatHealth] = 50
			h.PS(a.Num).Ammo[bg.WPMachinegun] = 10
			item := itemEntity(t, h, class)
			h.Place(a.Num, itemX[class], 3)
			h.Frame()
			takenAt := h.Time() - gametest.FrameMsec // level time of the pickup
			if h.Game.ItemAvailable(item) {
				t.Fatal("not picked up")
			}
			h.Place(a.Num, 24, 3) // out of the way
			respawn := bg.Items[bg.ItemByClass(class)].Respawn * 1000
			h.RunFor(takenAt + respawn - gametest.FrameMsec - h.Time())
			if h.Game.ItemAvailable(item) {
				t.Fatalf("back %d ms early", takenAt+respawn-h.Time())
			}
			h.Frame()
			if !h.Game.ItemAvailable(item) {
				t.Fatalf("not back after %d ms", h.Time()-takenAt)
			}
			e := h.Entity(item)
			if entityEvent(e) != bg.EvItemRespawn || e.SvFlags&game.SvfNoClient != 0 {
				t.Errorf("event %d svflags %#x, want EvItemRespawn and visible", entityEvent(e), e.SvFlags)
			}
		})
	}
}

// TestHealthCountdown: health and armor above the maximum count down by
// one a second, as the 125 of a new life and mega health do.
func TestHealthCountdown(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 1)
	ps := h.PS(c[0].Num)
	ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor] = 150, 120
	h.RunFor(10000)
	if ps.Stats[bg.StatHealth] != 140 || ps.Stats[bg.StatArmor] != 110 {
		t.Errorf("after 10 s: health %d armor %d, want 140 and 110", ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor])
	}
	h.RunFor(50000)
	if ps.Stats[bg.StatHealth] != 100 || ps.Stats[bg.StatArmor] != 100 {
		t.Errorf("after 60 s: health %d armor %d, want 100 and 100", ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor])
	}
}
