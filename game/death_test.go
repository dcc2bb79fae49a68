package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// kill rails victim from killer (placed on the same row) with victim at 1
// health, and returns the level time of the death.
func kill(t *testing.T, h *gametest.Harness, killer, victim *gametest.Client) int32 {
	t.Helper()
	h.Place(killer.Num, 5, floorRow)
	h.Place(victim.Num, 15, floorRow)
	h.PS(victim.Num).Stats[bg.StatHealth] = 1
	h.PS(victim.Num).EFlags &^= bg.EFSpawnProtect
	h.PS(killer.Num).WeaponTime = 0
	deaths := h.PS(victim.Num).Persistant[bg.PersDeaths]
	shoot(h, killer, bg.WPRailgun, aimRight)
	if h.PS(victim.Num).Persistant[bg.PersDeaths] != deaths+1 {
		t.Fatalf("victim not dead: %+v\nkiller %+v", *h.PS(victim.Num), *h.PS(killer.Num))
	}
	return h.Time() - gametest.FrameMsec
}

func TestDeath(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 2)
	a, b := c[0], c[1]
	kill(t, h, a, b)
	if s := h.PS(a.Num).Persistant[bg.PersScore]; s != 1 {
		t.Errorf("killer score %d, want 1", s)
	}
	pb := h.PS(b.Num)
	if pb.Persistant[bg.PersDeaths] != 1 || pb.Persistant[bg.PersKiller] != int32(a.Num) || pb.Persistant[bg.PersScore] != 0 {
		t.Errorf("victim deaths %d killer %d score %d, want 1, %d, 0", pb.Persistant[bg.PersDeaths], pb.Persistant[bg.PersKiller], pb.Persistant[bg.PersScore], a.Num)
	}
	if h.Entity(b.Num).S.EFlags&bg.EFDead == 0 || playerEvent(h, b.Num) != bg.EvDeath || pb.ExternalEventParm != bg.MODRailgun {
		t.Errorf("victim entity flags %#x event %d parm %d, want EFDead, EvDeath, MOD_RAILGUN", h.Entity(b.Num).S.EFlags, playerEvent(h, b.Num), pb.ExternalEventParm)
	}
	ob := tempEvents(h, bg.EvObituary)
	if len(ob) != 1 || ob[0].S.ClientNum != int32(b.Num) || ob[0].S.OtherEntity != int32(a.Num) ||
		ob[0].S.EventParm != bg.MODRailgun || ob[0].SvFlags&game.SvfBroadcast == 0 {
		t.Errorf("obituaries %+v, want one broadcast: %d killed %d by railgun", ob, a.Num, b.Num)
	}
	// Dead players are not targets.
	shoot(h, a, bg.WPMachinegun, aimRight)
	if pb.DamageEvent != 1 {
		t.Errorf("corpse took damage (DamageEvent %d)", pb.DamageEvent)
	}
}

func TestRespawn(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attack   bool
		min, max int32 // ms after death
	}{
		{"attack after 1.7 s", true, game.RespawnDelay, game.RespawnDelay + 2*gametest.FrameMsec},
		{"forced after 3 s", false, 3000, 3000 + 2*gametest.FrameMsec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, c := start(t, room(t), testConfig(), 2)
			a, b := c[0], c[1]
			died := kill(t, h, a, b)
			if tc.attack {
				b.Cmd.Buttons = bg.ButtonAttack
			}
			spawns := h.PS(b.Num).Persistant[bg.PersSpawnCount]
			teleport := h.PS(b.Num).EFlags & bg.EFTeleportBit
			if !h.RunUntil(4000, func() bool { return h.PS(b.Num).PmType == bg.PMNormal }) {
				t.Fatal("no respawn within 4 s")
			}
			after := h.Time() - gametest.FrameMsec - died
			if after < tc.min || after > tc.max {
				t.Errorf("respawned %d ms after death, want %d..%d", after, tc.min, tc.max)
			}
			ps := h.PS(b.Num)
			if ps.Stats[bg.StatHealth] != game.StartHealth || ps.Stats[bg.StatArmor] != 0 ||
				ps.Stats[bg.StatWeapons] != 1<<bg.WPGauntlet|1<<bg.WPMachinegun ||
				ps.Weapon != bg.WPMachinegun || ps.Ammo[bg.WPMachinegun] != game.StartBullets {
				t.Errorf("new life: health %d armor %d weapons %#x weapon %d bullets %d",
					ps.Stats[bg.StatHealth], ps.Stats[bg.StatArmor], ps.Stats[bg.StatWeapons], ps.Weapon, ps.Ammo[bg.WPMachinegun])
			}
			if ps.Persistant[bg.PersSpawnCount] != spawns+1 || ps.EFlags&bg.EFTeleportBit == teleport {
				t.Errorf("spawn count %d (was %d), teleport bit not toggled: %v", ps.Persistant[bg.PersSpawnCount], spawns, ps.EFlags&bg.EFTeleportBit == teleport)
			}
			if ps.Persistant[bg.PersDeaths] != 1 {
				t.Errorf("deaths %d after respawn, want 1 (persistant)", ps.Persistant[bg.PersDeaths])
			}
		})
	}
}

// TestSpawnProtection: a fresh life takes no damage for g_spawnProtect
// ms, unless it fires first.
func TestSpawnProtection(t *testing.T) {
	cfg := testConfig()
	cfg.SpawnProtect = 1000
	t.Run("expires", func(t *testing.T) {
		h, c := start(t, room(t), cfg, 2)
		a, b := c[0], c[1]
		kill(t, h, a, b)
		b.Cmd.Buttons = bg.ButtonAttack
		h.RunUntil(4000, func() bool { return h.PS(b.Num).PmType == bg.PMNormal })
		b.Cmd.Buttons = 0
		if h.PS(b.Num).EFlags&bg.EFSpawnProtect == 0 || h.Entity(b.Num).S.EFlags&bg.EFSpawnProtect == 0 {
			t.Fatal("no spawn protection")
		}
		h.Place(a.Num, 5, floorRow)
		h.Place(b.Num, 15, floorRow)
		ev := h.PS(b.Num).DamageEvent
		shoot(h, a, bg.WPRailgun, aimRight)
		if health(h, b) != game.StartHealth {
			t.Errorf("protected player took damage: health %d", health(h, b))
		}
		// The rail still pushed it: the client must be told (DamageEvent)
		// so that it does not take the push for a misprediction.
		if ps := h.PS(b.Num); ps.DamageEvent == ev || ps.DamageCount != 0 {
			t.Errorf("protected push: DamageEvent %d -> %d, DamageCount %d; want a bump with count 0", ev, ps.DamageEvent, ps.DamageCount)
		}
		h.RunFor(1000)
		if h.PS(b.Num).EFlags&bg.EFSpawnProtect != 0 {
			t.Fatal("protection still on after 1 s")
		}
		h.PS(a.Num).WeaponTime = 0
		shoot(h, a, bg.WPMachinegun, aimRight)
		if health(h, b) >= game.StartHealth-1 {
			t.Errorf("health %d: unprotected player took no damage", health(h, b))
		}
	})
	t.Run("firing ends it", func(t *testing.T) {
		h, c := start(t, room(t), cfg, 2)
		a, b := c[0], c[1]
		h.RunFor(100) // b's first life is protected too
		if h.PS(b.Num).EFlags&bg.EFSpawnProtect == 0 {
			t.Fatal("no spawn protection at the start")
		}
		h.Place(b.Num, 30, floorRow)
		shoot(h, b, bg.WPMachinegun, aimUp)
		if h.PS(b.Num).EFlags&bg.EFSpawnProtect != 0 {
			t.Error("still protected after firing")
		}
		_ = a
	})
}

// TestTelefragBySpawn fills both spawn points of a map, kills a third
// player, and checks its respawn telefrags whoever stands on the spot.
func TestTelefragBySpawn(t *testing.T) {
	m := gametest.ParseMap(t, "",
		"..............................",
		"..............................",
		"..S.......................S...",
	)
	h, c := start(t, m, testConfig(), 2)
	a, b := c[0], c[1]
	h.Place(a.Num, 8, 3)
	h.Place(b.Num, 18, 3)
	h.PS(b.Num).Stats[bg.StatHealth] = 1
	shoot(h, a, bg.WPRailgun, aimRight)
	if h.PS(b.Num).PmType != bg.PMDead {
		t.Fatal("b not dead")
	}
	d := h.AddClient("d") // takes a free spawn
	h.Place(a.Num, 3, 3)
	h.Place(d.Num, 27, 3)
	b.Cmd.Buttons = bg.ButtonAttack
	h.RunUntil(4000, func() bool { return h.PS(b.Num).PmType == bg.PMNormal })
	victims := 0
	for _, v := range []*gametest.Client{a, d} {
		if h.PS(v.Num).PmType == bg.PMDead {
			victims++
			if h.PS(v.Num).Persistant[bg.PersKiller] != int32(b.Num) {
				t.Errorf("client %d killed by %d, want %d", v.Num, h.PS(v.Num).Persistant[bg.PersKiller], b.Num)
			}
		}
	}
	if victims != 1 || h.Stats.KillsByMOD[bg.MODTelefrag] != 1 {
		t.Errorf("%d players dead, %d telefrags; want 1 and 1", victims, h.Stats.KillsByMOD[bg.MODTelefrag])
	}
	if s := h.PS(b.Num).Persistant[bg.PersScore]; s != 1 {
		t.Errorf("spawner's score %d, want 1", s)
	}
}

// TestTelefragByTeleporter walks a player into a teleporter whose
// destination another player stands on.
func TestTelefragByTeleporter(t *testing.T) {
	m := gametest.ParseMap(t, "teleport 1 20 3\n",
		"..............................",
		"..............................",
		"..S...1...................S...",
	)
	h, c := start(t, m, testConfig(), 2)
	a, b := c[0], c[1]
	h.Place(a.Num, 4, 3)
	h.Place(b.Num, 20, 3)
	h.PS(b.Num).Stats[bg.StatArmor] = 200
	a.Cmd.RightMove = 127
	if !h.RunUntil(2000, func() bool { return h.PS(b.Num).PmType == bg.PMDead }) {
		t.Fatal("no telefrag")
	}
	// Still running right, a stands at the destination or a little past it.
	if o, dest := h.PS(a.Num).Origin, bg.TileFeet(20, 3, nil); o.Y != dest.Y || o.X < dest.X || o.X > dest.X+bg.TileUnits {
		t.Errorf("teleported player at %v, want at the destination %v", o, dest)
	}
	if h.Stats.KillsByMOD[bg.MODTelefrag] != 1 || h.PS(a.Num).Persistant[bg.PersScore] != 1 {
		t.Errorf("telefrags %d, score %d; want 1 and 1", h.Stats.KillsByMOD[bg.MODTelefrag], h.PS(a.Num).Persistant[bg.PersScore])
	}
	if out := tempEvents(h, bg.EvTeleportOut); len(out) != 1 {
		t.Errorf("%d EvTeleportOut events, want 1", len(out))
	}
}

func TestSuicide(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 2)
	a, b := c[0], c[1]
	kill(t, h, a, b) // a: +1
	h.Command(a.Num, "kill")
	ps := h.PS(a.Num)
	if ps.PmType != bg.PMDead || ps.Persistant[bg.PersScore] != 0 || ps.Persistant[bg.PersDeaths] != 1 {
		t.Errorf("after kill: pm type %d score %d deaths %d, want dead, 0, 1", ps.PmType, ps.Persistant[bg.PersScore], ps.Persistant[bg.PersDeaths])
	}
	if h.Stats.Suicides[a.Num] != 1 || h.Stats.Frags[a.Num] != 1 || h.Stats.KillsByMOD[bg.MODSuicide] != 1 {
		t.Errorf("stats: suicides %d frags %d MOD_SUICIDE %d, want 1 1 1", h.Stats.Suicides[a.Num], h.Stats.Frags[a.Num], h.Stats.KillsByMOD[bg.MODSuicide])
	}
	h.Command(a.Num, "kill") // dead already: nothing
	if ps.Persistant[bg.PersScore] != 0 {
		t.Errorf("second kill while dead changed the score to %d", ps.Persistant[bg.PersScore])
	}
}
