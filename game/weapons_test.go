package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

func TestMachinegun(t *testing.T) {
	t.Run("hit", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 2)
		a, b := c[0], c[1]
		h.Place(a.Num, 5, floorRow)
		h.Place(b.Num, 15, floorRow)
		shoot(h, a, bg.WPMachinegun, aimRight)
		if got, want := health(h, b), int32(100-bg.Weapons[bg.WPMachinegun].Damage); got != want {
			t.Fatalf("health %d, want %d", got, want)
		}
		if h.PS(a.Num).Ammo[bg.WPMachinegun] != 49 {
			t.Errorf("ammo %d, want 49", h.PS(a.Num).Ammo[bg.WPMachinegun])
		}
		if got := h.PS(a.Num).Persistant[bg.PersHits]; got != 1 {
			t.Errorf("attacker PersHits %d, want 1", got)
		}
		ps := h.PS(b.Num)
		if ps.DamageEvent != 1 || ps.DamageCount != 7 {
			t.Errorf("DamageEvent %d DamageCount %d, want 1 and 7", ps.DamageEvent, ps.DamageCount)
		}
		if d := ps.DamageDir; d < 32768-512 || d > 32768+512 {
			t.Errorf("DamageDir %d, want about %d (from the left)", d, 32768)
		}
		// 7 damage · 1000 / 200 = 35 px/s to the right, give or take the spread.
		if v := ps.Velocity; v.X < bg.Px(34) || v.X > bg.Px(35) || v.Y < -bg.Px(1) || v.Y > bg.Px(1) {
			t.Errorf("knockback velocity %v, want about (%d, 0)", v, bg.Px(35))
		}
		flesh := tempEvents(h, bg.EvBulletHitFlesh)
		if len(flesh) != 1 || flesh[0].S.EventParm != int32(b.Num) || flesh[0].S.OtherEntity != int32(a.Num) || flesh[0].S.Origin2 != (bg.Vec{}) {
			t.Errorf("bullet impact events %+v, want one on client %d from client %d, without the muzzle", flesh, b.Num, a.Num)
		}
	})
	t.Run("miss", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 2)
		a, b := c[0], c[1]
		h.Place(a.Num, 5, floorRow)
		h.Place(b.Num, 15, floorRow)
		shoot(h, a, bg.WPMachinegun, aimUp)
		if health(h, b) != 100 {
			t.Errorf("health %d, want 100", health(h, b))
		}
		wall := tempEvents(h, bg.EvBulletHitWall)
		if len(wall) != 1 {
			t.Fatalf("%d wall impacts, want 1", len(wall))
		}
		// The ceiling is the bottom edge of the border row 0; its normal points down.
		if wall[0].S.Pos.Base.Y != bg.TileUnits || wall[0].S.Aim != aimDown {
			t.Errorf("impact at %v normal %d, want y=%d normal %d", wall[0].S.Pos.Base, wall[0].S.Aim, bg.TileUnits, aimDown)
		}
	})
}

func TestGauntlet(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gap    int // tiles between the players
		damage int32
	}{
		{"adjacent", 1, 50},
		{"out of reach", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, c := start(t, room(t), testConfig(), 2)
			a, b := c[0], c[1]
			h.Place(a.Num, 5, floorRow)
			h.Place(b.Num, 5+tc.gap, floorRow)
			shoot(h, a, bg.WPGauntlet, aimRight)
			if got := 100 - health(h, b); got != tc.damage {
				t.Errorf("damage %d, want %d", got, tc.damage)
			}
		})
	}
}

func TestRailgun(t *testing.T) {
	t.Run("through players", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 3)
		h.Place(c[0].Num, 5, floorRow)
		h.Place(c[1].Num, 10, floorRow)
		h.Place(c[2].Num, 15, floorRow)
		h.PS(c[1].Num).Stats[bg.StatHealth] = 150
		h.PS(c[2].Num).Stats[bg.StatHealth] = 150
		shoot(h, c[0], bg.WPRailgun, aimRight)
		for _, v := range c[1:] {
			if health(h, v) != 50 {
				t.Errorf("client %d health %d, want 50", v.Num, health(h, v))
			}
		}
		trails := tempEvents(h, bg.EvRailTrail)
		if len(trails) != 1 {
			t.Fatalf("%d rail trails, want 1", len(trails))
		}
		tr := trails[0]
		start := h.PS(c[0].Num).Origin
		if tr.S.Pos.Base != start || tr.S.Origin2 != (bg.Vec{X: 41 * bg.TileUnits, Y: start.Y}) {
			t.Errorf("trail %v to %v, want %v to the right wall", tr.S.Pos.Base, tr.S.Origin2, start)
		}
		if tr.SvFlags&game.SvfBroadcast == 0 {
			t.Error("rail trail is not broadcast")
		}
	})
	t.Run("stopped by a wall", func(t *testing.T) {
		m := gametest.ParseMap(t, "",
			"..........#.........",
			"..........#.........",
			"..........#.........",
			"..S.......#......S..",
		)
		h, c := start(t, m, testConfig(), 2)
		h.Place(c[0].Num, 5, 4)
		h.Place(c[1].Num, 15, 4)
		shoot(h, c[0], bg.WPRailgun, aimRight)
		if health(h, c[1]) != 100 {
			t.Errorf("health behind the wall %d, want 100", health(h, c[1]))
		}
		if tr := tempEvents(h, bg.EvRailTrail); len(tr) != 1 || tr[0].S.Origin2.X != 11*bg.TileUnits {
			t.Errorf("trail %+v, want one ending at x=%d", tr, 11*bg.TileUnits)
		}
	})
}

// runUntilHit runs frames until client v's DamageEvent changes.
func runUntilHit(t *testing.T, h *gametest.Harness, v int) {
	t.Helper()
	ev := h.PS(v).DamageEvent
	if !h.RunUntil(3000, func() bool { return h.PS(v).DamageEvent != ev }) {
		t.Fatal("no hit within 3 s")
	}
}

func TestRocketDirectHit(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 2)
	a, b := c[0], c[1]
	h.Place(a.Num, 5, floorRow)
	h.Place(b.Num, 15, floorRow)
	h.PS(b.Num).Stats[bg.StatHealth] = 200
	shoot(h, a, bg.WPRocketLauncher, aimRight)
	ms := missiles(h)
	if len(ms) != 1 {
		t.Fatalf("%d missiles, want 1", len(ms))
	}
	rocket := h.Entity(ms[0])
	if rocket.S.Pos.Type != bg.TrLinear || rocket.S.Pos.Delta != (bg.Vec{X: bg.Weapons[bg.WPRocketLauncher].Speed}) {
		t.Errorf("rocket trajectory %+v, want linear at %d units/s", rocket.S.Pos, bg.Weapons[bg.WPRocketLauncher].Speed)
	}
	runUntilHit(t, h, b.Num)
	if got := health(h, b); got != 100 {
		t.Errorf("health %d, want 200-100 (direct hit, no splash on top)", got)
	}
	// min(100, 200)·1000/200 = 500 px/s along the rocket's flight.
	if v := h.PS(b.Num).Velocity; v != (bg.Vec{X: bg.Px(500)}) {
		t.Errorf("knockback velocity %v, want (%d, 0)", v, bg.Px(500))
	}
	if h.PS(b.Num).PmFlags&bg.PMFTimeKnockback == 0 || h.PS(b.Num).PmTime != 200 {
		t.Errorf("PmFlags %#x PmTime %d, want knockback time 200 ms", h.PS(b.Num).PmFlags, h.PS(b.Num).PmTime)
	}
	if rocket.S.EType != bg.ETGeneral || entityEvent(rocket) != bg.EvMissileHit || rocket.S.EventParm != int32(b.Num) {
		t.Errorf("rocket became type %d event %d parm %d, want ETGeneral EvMissileHit on %d",
			rocket.S.EType, entityEvent(rocket), rocket.S.EventParm, b.Num)
	}
}

func TestRocketMiss(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 2)
	a, b := c[0], c[1]
	h.Place(a.Num, 5, floorRow)
	h.Place(b.Num, 15, floorRow)
	shoot(h, a, bg.WPRocketLauncher, aimUp)
	n := missiles(h)[0]
	if !h.RunUntil(2000, func() bool { return h.Entity(n).S.EType != bg.ETMissile }) {
		t.Fatal("the rocket did not explode")
	}
	e := h.Entity(n)
	if entityEvent(e) != bg.EvMissileMiss || e.S.Aim != aimDown || e.S.Pos.Base.Y != bg.TileUnits+1 {
		t.Errorf("explosion event %d normal %d at %v, want EvMissileMiss, normal down, one unit under the ceiling",
			entityEvent(e), e.S.Aim, e.S.Pos.Base)
	}
	if health(h, a) != 100 || health(h, b) != 100 {
		t.Errorf("health %d and %d after a far explosion, want 100", health(h, a), health(h, b))
	}
	h.RunFor(400)
	if h.Game.EntityInUse(n) {
		t.Error("explosion entity still in use after EventValidMsec")
	}
}

// TestSplashFalloff fires a rocket at the floor under the shooter and
// measures the splash on a player k tiles away: 100·(R−d)/R at distance d
// from the explosion to the nearest point of the box, R = 120 px. The
// shooter, at distance 0, takes half of the full 100.
func TestSplashFalloff(t *testing.T) {
	const R = 120 * bg.UnitsPerPixel
	for k := 1; k <= 5; k++ {
		d := int32(k)*bg.TileUnits - bg.Px(12)
		want := int32(0)
		if d < R {
			want = 100 * (R - d) / R
		}
		t.Run(string(rune('0'+k))+" tiles", func(t *testing.T) {
			h, c := start(t, room(t), testConfig(), 2)
			a, b := c[0], c[1]
			h.Place(a.Num, 10, floorRow)
			h.Place(b.Num, 10+k, floorRow)
			h.PS(a.Num).Stats[bg.StatHealth] = 200
			shoot(h, a, bg.WPRocketLauncher, aimDown) // it reaches the floor in this frame
			if got := 100 - health(h, b); got != want {
				t.Errorf("splash damage %d at %d px, want %d", got, d/bg.UnitsPerPixel, want)
			}
			if got := 200 - health(h, a); got != 50 {
				t.Errorf("self damage %d, want 50 (100 halved)", got)
			}
			if want > 0 {
				if v := h.PS(b.Num).Velocity; v.X <= 0 || v.Y >= 0 {
					t.Errorf("splash knockback %v, want away and up", v)
				}
			}
		})
	}
}

// TestRocketJump compares a plain jump with a jump whose first frame
// fires a rocket at the floor: the explosion's push, at full damage
// although the damage itself is halved, carries the player far higher.
func TestRocketJump(t *testing.T) {
	peak := func(rocket bool) (height int32, hp int32) {
		h, c := start(t, room(t), testConfig(), 1)
		a := c[0]
		h.Place(a.Num, 10, floorRow)
		give(h, a, bg.WPRocketLauncher)
		y0 := h.PS(a.Num).Origin.Y
		top := y0
		a.Cmd.UpMove = 127
		a.Cmd.Aim = aimDown
		if rocket {
			a.Cmd.Buttons = bg.ButtonAttack
		}
		for i := 0; i < 40; i++ {
			h.Frame()
			a.Cmd.Buttons = 0
			a.Cmd.UpMove = 0
			top = min(top, h.PS(a.Num).Origin.Y)
		}
		return (y0 - top) / bg.UnitsPerPixel, health(h, a)
	}
	jump, hp0 := peak(false)
	rj, hp1 := peak(true)
	t.Logf("jump %d px, rocket jump %d px costing %d health", jump, rj, hp0-hp1)
	if rj < 2*jump {
		t.Errorf("rocket jump %d px, want at least twice the %d px jump", rj, jump)
	}
	if hp1 >= hp0 || hp0-hp1 > 50 {
		t.Errorf("rocket jump cost %d health, want between 1 and 50 (self damage halved)", hp0-hp1)
	}
}

func TestGrenade(t *testing.T) {
	t.Run("bounce and fuse", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 2)
		a, b := c[0], c[1]
		h.Place(a.Num, 5, floorRow)
		h.Place(b.Num, 30, floorRow)
		shoot(h, a, bg.WPGrenadeLauncher, aimRight)
		n := missiles(h)[0]
		g := h.Entity(n)
		if g.S.Pos.Type != bg.TrGravity || g.S.EFlags&bg.EFBounceHalf == 0 {
			t.Fatalf("grenade trajectory %d flags %#x, want TrGravity with EFBounceHalf", g.S.Pos.Type, g.S.EFlags)
		}
		speed := bg.Weapons[bg.WPGrenadeLauncher].Speed
		if !h.RunUntil(1000, func() bool { return entityEvent(g) == bg.EvGrenadeBounce }) {
			t.Fatal("no bounce")
		}
		floor := int32(floorRow+1) * bg.TileUnits
		if g.S.Pos.Delta.X != speed/2 || g.S.Pos.Delta.Y >= 0 || g.S.Pos.Base.Y != floor-1 {
			t.Errorf("after the floor: base %v velocity %v, want on the floor, %d across and upwards",
				g.S.Pos.Base, g.S.Pos.Delta, speed/2)
		}
		fired := h.Time() // within a second of firing
		if !h.RunUntil(3000, func() bool { return g.S.EType != bg.ETMissile }) {
			t.Fatal("no explosion")
		}
		if entityEvent(g) != bg.EvExplosion {
			t.Errorf("event %d, want EvExplosion", entityEvent(g))
		}
		if dt := h.Time() - fired; dt < 1500 || dt > game.GrenadeFuse {
			t.Errorf("exploded %d ms after the bounce, want the fuse (%d ms from firing)", dt, game.GrenadeFuse)
		}
	})
	t.Run("direct hit", func(t *testing.T) {
		h, c := start(t, room(t), testConfig(), 2)
		a, b := c[0], c[1]
		h.Place(a.Num, 5, floorRow)
		h.Place(b.Num, 8, floorRow)
		h.PS(b.Num).Stats[bg.StatHealth] = 200
		shoot(h, a, bg.WPGrenadeLauncher, aimRight)
		runUntilHit(t, h, b.Num)
		if got := health(h, b); got != 100 {
			t.Errorf("health %d, want 200-100", got)
		}
		if h.PS(b.Num).Velocity.X <= 0 {
			t.Errorf("knockback %v, want to the right", h.PS(b.Num).Velocity)
		}
	})
}
