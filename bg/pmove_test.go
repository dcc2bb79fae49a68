package bg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tremor/bg/tilemap"
	"tremor/net/msg"
)

// testMap builds a map from grid rows (a border of solid tiles is added)
// and extra directives.
func testMap(t testing.TB, directives string, rows ...string) *tilemap.Map {
	t.Helper()
	m, err := tilemap.FromRows(directives, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// flat is a 30x6 room with a floor.
func flat(t testing.TB) *tilemap.Map {
	return testMap(t, "",
		"..............................",
		"..............................",
		"..............................",
		"..............................",
		"..............................",
		"..S........................S..",
	)
}

// player returns a standing player at tile (x, y) of m (y counts the
// border), ready to move.
func player(x, y int) *PlayerState {
	ps := &PlayerState{Origin: TileFeet(x, y, nil), GroundEntity: EntityNumWorld, PmFlags: PMFOnGround, CommandTime: 1000}
	ps.Stats[StatHealth], ps.Stats[StatMaxHealth] = 100, 100
	return ps
}

// run executes n commands of msec each, calling each(i) to shape them.
func run(ps *PlayerState, w World, n int, msec int32, each func(i int, cmd *UserCmd)) {
	for i := 0; i < n; i++ {
		cmd := UserCmd{ServerTime: ps.CommandTime + msec}
		if each != nil {
			each(i, &cmd)
		}
		pm := Pmove{PS: ps, Cmd: cmd, World: w}
		pm.Run()
	}
}

func px(u int32) float64 { return float64(u) / UnitsPerPixel }

func TestJumpHeight(t *testing.T) {
	for _, msec := range []int32{8, 16, 33} {
		t.Run(fmt.Sprintf("%dms", msec), func(t *testing.T) {
			m := flat(t)
			ps := player(5, 6)
			startY := ps.Origin.Y
			minY := startY
			run(ps, m, 2000/int(msec), msec, func(i int, cmd *UserCmd) {
				if i == 0 {
					cmd.UpMove = 127
				}
				minY = min(minY, ps.Origin.Y)
			})
			h := px(startY - minY)
			// v²/2g = 590²/3625 ≈ 96 px: three tiles.
			if h < 93 || h > 99 {
				t.Fatalf("jump height %.1f px, want about 96", h)
			}
			if ps.Origin.Y != startY || ps.PmFlags&PMFOnGround == 0 {
				t.Fatalf("did not land back on the floor: y %v", px(ps.Origin.Y-startY))
			}
		})
	}
}

func TestJumpNeedsRelease(t *testing.T) {
	m := flat(t)
	ps := player(5, 6)
	jumps := 0
	run(ps, m, 200, 8, func(i int, cmd *UserCmd) {
		cmd.UpMove = 127 // held the whole time
	})
	for i := range ps.Events {
		if ps.Events[i] == EvJump {
			jumps++
		}
	}
	if ps.Origin.Y != TileFeet(5, 6, nil).Y {
		t.Fatal("not back on the floor")
	}
	if jumps != 1 {
		t.Fatalf("holding jump jumped %d times (events %v), want once", jumps, ps.Events)
	}
}

func TestGroundAccelerationAndFriction(t *testing.T) {
	m := flat(t)
	ps := player(3, 6)
	steps := 0
	for ps.Velocity.X < DefaultParams.MaxSpeed && steps < 100 {
		run(ps, m, 1, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
		steps++
	}
	// Quake III's ground acceleration: full speed in well under a fifth of
	// a second.
	if ms := steps * 8; ms > 200 {
		t.Fatalf("took %d ms to reach full speed", ms)
	}
	run(ps, m, 50, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
	if ps.Velocity.X != DefaultParams.MaxSpeed {
		t.Fatalf("speed %v px/s, want exactly %v", px(ps.Velocity.X), px(DefaultParams.MaxSpeed))
	}
	// Let go: friction stops the player within a short distance.
	start := ps.Origin.X
	run(ps, m, 125, 8, nil)
	d := px(ps.Origin.X - start)
	if ps.Velocity.X != 0 {
		t.Fatalf("still moving at %v px/s after 1 s", px(ps.Velocity.X))
	}
	// Exponential decay to StopSpeed (220/6 ≈ 37 px), then linear (≈ 8 px).
	if d < 35 || d > 55 {
		t.Fatalf("stopping distance %.1f px, want 35..55", d)
	}
}

func TestAirControlIsWeakerThanGround(t *testing.T) {
	m := flat(t)
	ground := player(5, 6)
	air := player(20, 6)
	run(air, m, 1, 8, func(_ int, c *UserCmd) { c.UpMove = 127 })
	for i := 0; i < 12; i++ {
		run(ground, m, 1, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
		run(air, m, 1, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
	}
	if air.PmFlags&PMFOnGround != 0 {
		t.Fatal("jumper landed early")
	}
	if !(air.Velocity.X > 0 && air.Velocity.X < ground.Velocity.X) {
		t.Fatalf("air speed %v, ground speed %v", px(air.Velocity.X), px(ground.Velocity.X))
	}
}

func TestWallsStepsAndCeilings(t *testing.T) {
	m := testMap(t, "",
		"..............................",
		"..............................",
		"..............................",
		"...........................#..",
		"...........................#..",
		"..S...............#........#S.",
	)
	ps := player(3, 6)
	steps := 0
	seq := ps.EventSequence
	run(ps, m, 350, 8, func(_ int, c *UserCmd) {
		for ; seq != ps.EventSequence; seq = (seq + 1) & EventSequenceMask {
			if i := seq & (MaxPSEvents - 1); ps.Events[i] == EvStep && ps.EventParms[i] == 32 {
				steps++
			}
		}
		c.RightMove = 127
	})
	// The one-tile block at x=19 is stepped over without jumping (one
	// EvStep of 32 px); the three-tile wall at x=28 stops the player.
	if steps != 1 {
		t.Fatalf("%d step events, want 1", steps)
	}
	wall := int32(28) * TileUnits
	if got := ps.Origin.X + DefaultParams.Maxs.X; got != wall {
		t.Fatalf("right edge at %v px, want flush with the wall at %v", px(got), px(wall))
	}
	if ps.Velocity.X != 0 {
		t.Fatal("velocity not cleared against the wall")
	}

	// Two tiles high is a wall, not a step.
	m2 := testMap(t, "",
		"..............",
		"..............",
		"..............",
		".........#....",
		".........#....",
		"..S......#...S",
	)
	ps = player(3, 6)
	run(ps, m2, 100, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
	if ps.Origin.X+DefaultParams.Maxs.X != 10*TileUnits {
		t.Fatalf("climbed a two-tile wall: x %v", px(ps.Origin.X))
	}

	// A low ceiling stops a jump.
	m3 := testMap(t, "",
		"..........",
		"..........",
		"##########",
		"..........",
		"..........",
		"..S......S",
	)
	ps = player(3, 6)
	minY := ps.Origin.Y
	run(ps, m3, 100, 8, func(i int, c *UserCmd) {
		if i == 0 {
			c.UpMove = 127
		}
		minY = min(minY, ps.Origin.Y)
	})
	if top := minY + DefaultParams.Mins.Y; top != 4*TileUnits {
		t.Fatalf("head reached %v px, want the ceiling at %v", px(top), 4*32)
	}
}

func TestPlatforms(t *testing.T) {
	m := testMap(t, "",
		"..........",
		"..........",
		"..........",
		"==========",
		"..........",
		"..........",
		"..S......S",
	)
	// Jump up through the platform from below and land on it.
	ps := player(3, 7)
	run(ps, m, 150, 8, func(i int, c *UserCmd) {
		if i == 0 {
			c.UpMove = 127
		}
	})
	onPlatform := TileFeet(3, 3, nil).Y
	if ps.Origin.Y == onPlatform {
		t.Fatal("a three-tile jump should not reach a platform four tiles up")
	}
	ps = player(3, 3) // standing on the platform (row 4 counting the border)
	run(ps, m, 60, 8, nil)
	if ps.Origin.Y != TileFeet(3, 3, nil).Y || ps.PmFlags&PMFOnGround == 0 {
		t.Fatalf("did not stand on the platform: y %v", px(ps.Origin.Y))
	}
	// Holding down drops through it to the floor.
	run(ps, m, 100, 8, func(_ int, c *UserCmd) { c.UpMove = -127 })
	if ps.Origin.Y != TileFeet(3, 7, nil).Y {
		t.Fatalf("did not drop through: y %v", px(ps.Origin.Y))
	}
	// From the floor, a jump passes up through a platform two tiles up.
	m2 := testMap(t, "",
		"..........",
		"..........",
		"..........",
		"..........",
		"..........",
		"==========",
		"..S......S",
	)
	ps = player(3, 7)
	run(ps, m2, 150, 8, func(i int, c *UserCmd) {
		if i < 30 {
			c.UpMove = 127
		}
	})
	if ps.Origin.Y != TileFeet(3, 5, nil).Y {
		t.Fatalf("jumped through the platform but did not land on it: y %v px", px(ps.Origin.Y))
	}
}

func TestJumpPadAndTeleporter(t *testing.T) {
	m := testMap(t, "teleport 1 27 2\npad 10 6 300 -800\n",
		"..............................",
		"..............................",
		"..............................",
		"..............................",
		"..............................",
		"..S......^.............1.....S",
	)
	ps := player(7, 6)
	pads, teleports := 0, 0
	seq := ps.EventSequence
	var peakVY int32
	run(ps, m, 300, 8, func(i int, c *UserCmd) {
		for ; seq != ps.EventSequence; seq = (seq + 1) & EventSequenceMask {
			switch ps.Events[seq&(MaxPSEvents-1)] {
			case EvJumpPad:
				pads++
			case EvTeleportIn:
				teleports++
			}
		}
		peakVY = min(peakVY, ps.Velocity.Y)
		if i < 20 {
			c.RightMove = 127
		}
	})
	if pads != 1 {
		t.Fatalf("jump pad events %d, want 1", pads)
	}
	if peakVY != Px(-800) {
		t.Fatalf("pad launched at %v px/s, want -800", px(peakVY))
	}
	// The pad throws the player right; it lands and (running no more)
	// stops before the teleporter at x=24, so no teleport yet.
	if teleports != 0 {
		t.Fatalf("teleported %d times already", teleports)
	}
	ps = player(20, 6)
	bit := ps.EFlags & EFTeleportBit
	for i := 0; i < 100 && ps.EFlags&EFTeleportBit == bit; i++ {
		run(ps, m, 1, 8, func(_ int, c *UserCmd) { c.RightMove = 127 })
	}
	if ps.EFlags&EFTeleportBit == bit {
		t.Fatal("teleport bit not toggled")
	}
	if want := TileFeet(27, 2, nil); ps.Origin != want || ps.Velocity.X == 0 {
		t.Fatalf("at %v with velocity %v, want at %v keeping speed", ps.Origin, ps.Velocity, want)
	}
}

func TestMsecChopping(t *testing.T) {
	m := flat(t)
	cmd := func(ps *PlayerState, ms int32) UserCmd {
		return UserCmd{ServerTime: ps.CommandTime + ms, RightMove: 127, UpMove: 127}
	}
	// pmove_fixed: one 200 ms command equals 25 commands of 8 ms.
	a, b := player(3, 6), player(3, 6)
	pm := Pmove{PS: a, Cmd: cmd(a, 200), World: m, FixedMsec: 8}
	pm.Run()
	for i := 0; i < 25; i++ {
		c := cmd(b, 8)
		if i > 0 {
			c.UpMove = 127
		}
		pm := Pmove{PS: b, Cmd: c, World: m}
		pm.Run()
	}
	if *a != *b {
		t.Fatalf("fixed-step 200 ms:\n%+v\n25×8 ms:\n%+v", *a, *b)
	}
	// Variable steps: a 1500 ms command moves for at most 1000 ms.
	c := player(3, 6)
	c.Velocity.X = DefaultParams.MaxSpeed
	pm = Pmove{PS: c, Cmd: UserCmd{ServerTime: c.CommandTime + 1500, RightMove: 127}, World: flat(t)}
	pm.Run()
	if c.CommandTime != 2500 {
		t.Fatalf("CommandTime %d, want 2500", c.CommandTime)
	}
	if d := px(c.Origin.X - TileFeet(3, 6, nil).X); d > 321 {
		t.Fatalf("moved %.0f px in a capped 1000 ms at 320 px/s", d)
	}
	// An old command does nothing.
	before := *c
	pm = Pmove{PS: c, Cmd: UserCmd{ServerTime: 100, RightMove: 127}, World: m}
	pm.Run()
	if *c != before {
		t.Fatal("a command from the past changed the state")
	}
}

func TestWeaponTimingAndAmmo(t *testing.T) {
	m := flat(t)
	ps := player(3, 6)
	ps.Stats[StatWeapons] = 1<<WPGauntlet | 1<<WPMachinegun | 1<<WPRailgun
	ps.Weapon = WPMachinegun
	ps.Ammo[WPMachinegun] = 100
	ps.Ammo[WPRailgun] = 0
	ps.Ammo[WPGauntlet] = -1
	fired := 0
	seq := ps.EventSequence
	count := func() {
		for ; seq != ps.EventSequence; seq = (seq + 1) & EventSequenceMask {
			if ps.Events[seq&(MaxPSEvents-1)] == EvFireWeapon {
				fired++
			}
		}
	}
	run(ps, m, 125, 8, func(_ int, c *UserCmd) {
		count()
		c.Buttons = ButtonAttack
		c.Weapon = WPMachinegun
	})
	count()
	// 1000 ms at one shot per 100 ms: the first at once, then every 100.
	if fired != 10 || ps.Ammo[WPMachinegun] != 90 {
		t.Fatalf("fired %d, ammo %d; want 10 and 90", fired, ps.Ammo[WPMachinegun])
	}
	// Switch to the empty railgun: drop + raise, then "no ammo".
	noAmmo := false
	run(ps, m, 100, 8, func(_ int, c *UserCmd) {
		c.Buttons = ButtonAttack
		c.Weapon = WPRailgun
		for _, e := range ps.Events {
			noAmmo = noAmmo || e == EvNoAmmo
		}
	})
	if ps.Weapon != WPRailgun || !noAmmo {
		t.Fatalf("weapon %d noAmmo %v", ps.Weapon, noAmmo)
	}
	// A weapon the player lacks cannot be selected.
	run(ps, m, 100, 8, func(_ int, c *UserCmd) { c.Weapon = WPRocketLauncher })
	if ps.Weapon != WPRailgun {
		t.Fatalf("switched to a weapon not held: %d", ps.Weapon)
	}
}

// randomCommands is a reproducible stream of a player's commands with
// uneven frame times, running, jumping, dropping, shooting and switching.
func randomCommands(seed uint64, n int, start int32) []UserCmd {
	rng := rand.New(rand.NewPCG(seed, 1))
	cmds := make([]UserCmd, n)
	t := start
	var c UserCmd
	for i := range cmds {
		t += int32(1 + rng.IntN(40))
		c.ServerTime = t
		if rng.IntN(10) == 0 {
			c.RightMove = int32(rng.IntN(255) - 127)
		}
		if rng.IntN(8) == 0 {
			c.UpMove = int32(rng.IntN(3)-1) * 127
		}
		if rng.IntN(5) == 0 {
			c.Aim = int32(rng.IntN(65536))
		}
		if rng.IntN(12) == 0 {
			c.Buttons ^= ButtonAttack
		}
		if rng.IntN(40) == 0 {
			c.Weapon = int32(1 + rng.IntN(NumWeapons-1))
		}
		cmds[i] = c
	}
	return cmds
}

func armed(ps *PlayerState) {
	ps.Stats[StatWeapons] = 1<<NumWeapons - 2
	for w := range ps.Ammo {
		ps.Ammo[w] = 30
	}
	ps.Weapon = WPMachinegun
}

func playMap(t testing.TB) *tilemap.Map {
	return testMap(t, "teleport 1 3 1\npad 19 10 0 -900\n",
		"..............................",
		"..............................",
		"........====........====......",
		"..............................",
		"..............................",
		"....####..............####....",
		"..............................",
		"....===........#.......===....",
		"...............#..............",
		"..S....1..........^.......S...",
	)
}

// Determinism: the same commands from the same state give the same bits,
// and starting over from any intermediate state as a client receives it
// (through the delta codec) ends in the same state as the straight run —
// the property client-side prediction depends on.
func TestPmoveDeterminism(t *testing.T) {
	m := playMap(t)
	cmds := randomCommands(7, 3000, 1000)
	straight := func() []PlayerState {
		ps := player(3, 10)
		armed(ps)
		out := make([]PlayerState, len(cmds))
		for i, c := range cmds {
			pm := Pmove{PS: ps, Cmd: c, World: m}
			pm.Run()
			out[i] = *ps
			if f := PlayerStateTable.Fits(ps); f != "" {
				t.Fatalf("command %d: field %s does not fit its wire width", i, f)
			}
		}
		return out
	}
	a, b := straight(), straight()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("run differs at command %d", i)
		}
	}
	moved := false
	for i := range a {
		moved = moved || a[i].Origin != a[0].Origin
	}
	if !moved {
		t.Fatal("the command stream never moved the player")
	}
	buf := make([]byte, 4096)
	for _, k := range []int{0, 1, 10, 500, 1234, 2999} {
		// The server sends state k (delta from an older one); the client
		// decodes it and replays the rest of the commands.
		base := a[max(k-5, 0)]
		w := msg.NewWriter(buf, msg.Huffman)
		PlayerStateTable.WriteDeltaPlayerState(w, &base, &a[k])
		var got PlayerState
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		PlayerStateTable.ReadDeltaPlayerState(r, &base, &got)
		if r.Err() != nil || got != a[k] {
			t.Fatalf("state %d did not survive the codec", k)
		}
		for i := k + 1; i < len(cmds); i++ {
			pm := Pmove{PS: &got, Cmd: cmds[i], World: m}
			pm.Run()
			if got != a[i] {
				t.Fatalf("replay from %d differs at %d:\n%+v\n%+v", k, i, got, a[i])
			}
		}
	}
}

func TestTrajectories(t *testing.T) {
	cases := []struct {
		name     string
		tr       Trajectory
		at       int32
		pos, vel Vec
	}{
		{"stationary", Trajectory{Type: TrStationary, Base: Vec{5, 6}, Delta: Vec{100, 100}}, 500, Vec{5, 6}, Vec{}},
		{"interpolate", Trajectory{Type: TrInterpolate, Base: Vec{5, 6}}, 500, Vec{5, 6}, Vec{}},
		{"linear", Trajectory{Type: TrLinear, Time: 1000, Base: Vec{0, 0}, Delta: Vec{1000, -500}}, 1500, Vec{500, -250}, Vec{1000, -500}},
		{"linear backwards in time", Trajectory{Type: TrLinear, Time: 1000, Delta: Vec{1000, 0}}, 900, Vec{-100, 0}, Vec{1000, 0}},
		{"linear stop before", Trajectory{Type: TrLinearStop, Time: 0, Duration: 100, Delta: Vec{1000, 0}}, 50, Vec{50, 0}, Vec{1000, 0}},
		{"linear stop after", Trajectory{Type: TrLinearStop, Time: 0, Duration: 100, Delta: Vec{1000, 0}}, 5000, Vec{100, 0}, Vec{}},
		{"gravity", Trajectory{Type: TrGravity, Time: 0, Base: Vec{0, 0}, Delta: Vec{100, -Px(900)}}, 1000, Vec{100, -Px(900) + Gravity/2}, Vec{100, -Px(900) + Gravity}},
		{"gravity rounding", Trajectory{Type: TrGravity, Time: 0, Delta: Vec{3, 0}}, 333, Vec{1, 1608}, Vec{3, 9657}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if p := c.tr.Evaluate(c.at); p != c.pos {
				t.Errorf("position %v, want %v", p, c.pos)
			}
			if v := c.tr.EvaluateDelta(c.at); v != c.vel {
				t.Errorf("velocity %v, want %v", v, c.vel)
			}
		})
	}
}

func TestTileOf(t *testing.T) {
	for _, c := range []struct {
		u    int32
		want int
	}{{0, 0}, {TileUnits - 1, 0}, {TileUnits, 1}, {-1, -1}, {-TileUnits, -1}, {-TileUnits - 1, -2}} {
		if got := TileOf(c.u); got != c.want {
			t.Errorf("TileOf(%d) = %d, want %d", c.u, got, c.want)
		}
	}
}

func TestPmoveDoesNotAllocate(t *testing.T) {
	m := playMap(t)
	ps := player(3, 10)
	armed(ps)
	cmds := randomCommands(3, 200, 1000)
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		pm := Pmove{PS: ps, Cmd: cmds[i%len(cmds)], World: m}
		pm.Run()
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per Pmove", allocs)
	}
}

func BenchmarkPmove(b *testing.B) {
	m := playMap(b)
	cmds := randomCommands(3, 4096, 1000)
	ps := player(3, 10)
	armed(ps)
	start := *ps
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(cmds) {
			*ps, i = start, 0
		}
		pm := Pmove{PS: ps, Cmd: cmds[i], World: m}
		pm.Run()
		i++
	}
}

// TestFallVelocityPredicted: while a player is in the air, the player
// state's vertical velocity is exactly what PlayerStateTable predicts
// from the last snapshot's, however the client cut the time into
// commands, so a jump sends Velocity.Y only when it starts and lands.
func TestFallVelocityPredicted(t *testing.T) {
	m := flat(t)
	ps := player(5, 6)
	steps := []int32{16, 17, 17, 15, 18, 16, 9, 33}
	var states []PlayerState
	for i := 0; i < 200; i++ {
		cmd := UserCmd{ServerTime: ps.CommandTime + steps[i%len(steps)], RightMove: 127}
		if i%60 == 5 {
			cmd.UpMove = 127 // three jumps
		}
		pm := Pmove{PS: ps, Cmd: cmd, World: m}
		pm.Run()
		if i%3 == 2 { // a snapshot about every 50 ms
			states = append(states, *ps)
		}
	}
	var stats msg.FieldStats
	field := func() (n uint64) {
		for _, s := range PlayerStateTable.Stats(&stats) {
			if s.Name == "Velocity.Y" {
				n = s.SentChanges
			}
		}
		return n
	}
	buf := make([]byte, 512)
	var sent, falling uint64
	for k := 1; k < len(states); k++ {
		before := field()
		w := msg.NewWriter(buf, msg.Huffman)
		w.SetFieldStats(&stats)
		PlayerStateTable.WriteDeltaPlayerState(w, &states[k-1], &states[k])
		var got PlayerState
		PlayerStateTable.ReadDeltaPlayerState(msg.NewReader(w.Bytes(), msg.Huffman), &states[k-1], &got)
		if got != states[k] {
			t.Fatalf("state %d did not survive the codec", k)
		}
		if states[k-1].GroundEntity == EntityNumNone && states[k].GroundEntity == EntityNumNone && states[k-1].Velocity.Y != 0 {
			falling++
			sent += field() - before
		}
	}
	if falling < 20 {
		t.Fatalf("only %d snapshots in the air: the jumps did not happen", falling)
	}
	if sent != 0 {
		t.Errorf("Velocity.Y sent in %d of %d snapshots in the air, want 0", sent, falling)
	}
}

// Step must end for any pair of int32 times: a sum such as CommandTime +
// MaxCommandMsec near 2^31 once wrapped negative, the state was reset on
// every step and Run never returned.
func TestPmoveTimesNearTheLimit(t *testing.T) {
	tests := []struct {
		name          string
		state, final  int32
		wantCommandAt int32
	}{
		{"both just below 2^31", math.MaxInt32 - 500, math.MaxInt32 - 100, math.MaxInt32 - 100},
		{"final at 2^31-1", math.MaxInt32 - 2000, math.MaxInt32, math.MaxInt32},
		{"state at the bottom, final at the top", math.MinInt32 + 5, math.MaxInt32 - 100, math.MaxInt32 - 100},
		{"state at the top, final at the bottom", math.MaxInt32, math.MinInt32, math.MaxInt32},
		{"state ahead", 1000, 500, 1000},
	}
	w := flat(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := PlayerState{CommandTime: tt.state, Origin: TileFeet(3, 3, nil)}
			pm := Pmove{PS: &ps, Cmd: UserCmd{ServerTime: tt.final, RightMove: 127}, World: w}
			steps := 0
			for pm.Step() > 0 {
				steps++
				if steps > MaxCommandMsec {
					t.Fatalf("still stepping after %d steps: command time %d, final %d", steps, ps.CommandTime, tt.final)
				}
			}
			if ps.CommandTime != tt.wantCommandAt {
				t.Errorf("command time %d after %d steps, want %d", ps.CommandTime, steps, tt.wantCommandAt)
			}
		})
	}
}
