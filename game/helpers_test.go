package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
	"tremor/game/gametest"
)

// Aim angles (1/65536 turn, clockwise, y down).
const (
	aimRight = 0
	aimDown  = 16384
	aimLeft  = 32768
	aimUp    = 49152
)

// floorRow is the tile row players stand in on the test rooms: the rows
// given to ParseMap are 1..8, the border below is the floor.
const floorRow = 8

// room is a 40×8 open room (map tiles 1..40 × 1..8) with two spawns.
func room(t testing.TB) *tilemap.Map {
	return gametest.ParseMap(t, "",
		"........................................",
		"........................................",
		"........................................",
		"........................................",
		"........................................",
		"........................................",
		"........................................",
		"..S.....S.......................S...S...",
	)
}

// testConfig is DefaultConfig without limits, spawn protection or bots,
// so that behaviour tests see plain damage.
func testConfig() game.Config {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit, cfg.SpawnProtect = 0, 0, 0
	return cfg
}

// start returns a harness on m with n scripted clients named p0, p1...
// in the game, one frame run (so that attack works), each at full
// health 100 and no armor.
func start(t testing.TB, m *tilemap.Map, cfg game.Config, n int) (*gametest.Harness, []*gametest.Client) {
	t.Helper()
	h := gametest.NewMap(t, m, 7, cfg)
	cs := make([]*gametest.Client, n)
	for i := range cs {
		cs[i] = h.AddClient("p" + string(rune('0'+i)))
	}
	h.Frame()
	for _, c := range cs {
		h.PS(c.Num).Stats[bg.StatHealth] = 100
	}
	return h, cs
}

// give hands client c weapon with plenty of ammo, ready to fire.
func give(h *gametest.Harness, c *gametest.Client, weapon int32) {
	ps := h.PS(c.Num)
	ps.Stats[bg.StatWeapons] |= 1 << weapon
	if ps.Ammo[weapon] >= 0 {
		ps.Ammo[weapon] = 50
	}
	ps.Weapon = weapon
	ps.WeaponState = bg.WeaponReady
	ps.WeaponTime = 0
	c.Cmd.Weapon = weapon
}

// shoot makes c fire weapon once along aim through its usercmds: one
// frame with attack held, then attack released.
func shoot(h *gametest.Harness, c *gametest.Client, weapon, aim int32) {
	give(h, c, weapon)
	c.Cmd.Aim = aim
	c.Cmd.Buttons = bg.ButtonAttack
	h.Frame()
	c.Cmd.Buttons = 0
}

func health(h *gametest.Harness, c *gametest.Client) int32 { return h.PS(c.Num).Stats[bg.StatHealth] }

// tempEvents returns the temporary entities carrying event ev.
func tempEvents(h *gametest.Harness, ev int32) []*game.SharedEntity {
	var out []*game.SharedEntity
	for _, i := range h.EntitiesOfType(bg.ETEvents + ev) {
		out = append(out, h.Entity(i))
	}
	return out
}

// missiles returns the entity numbers of the missiles in flight.
func missiles(h *gametest.Harness) []int { return h.EntitiesOfType(bg.ETMissile) }

// entityEvent returns the event number an entity carries, without the
// counter bits.
func entityEvent(e *game.SharedEntity) int32 { return e.S.Event &^ bg.EventBits }

// playerEvent returns the external event of a client, without the
// counter bits.
func playerEvent(h *gametest.Harness, c int) int32 { return h.PS(c).ExternalEvent &^ bg.EventBits }
