package bot_test

import (
	"fmt"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// TestMatch plays bots of mixed skill on each shipped arena — eight on
// arena2 — for five minutes of game time through the real game (package
// game, driven headless by gametest) and checks that they fight, pick
// items up and die, that no entity leaves the world, and that no living
// bot stays within a tile for more than five seconds.
func TestMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("five-minute matches")
	}
	for _, tt := range []struct {
		arena string
		bots  int
	}{
		{"arena2", 8},
		{"arena1", 8},
		{"duel1", 4},
	} {
		t.Run(tt.arena, func(t *testing.T) { playMatch(t, tt.arena, tt.bots) })
	}
}

func playMatch(t *testing.T, mapName string, bots int) {
	const (
		frames   = 6000 // five minutes at 20 Hz
		maxStill = 5000 // ms a living bot may stay within a tile
	)
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0 // one match for the whole run
	h := gametest.New(t, mapName, 1, cfg)
	m := h.Map
	names := []string{"Anvil", "Brick", "Cinder", "Dagger", "Ember", "Flint", "Garnet", "Hatchet"}[:bots]
	clients := make([]int, bots)
	for i := range clients {
		clients[i] = h.AddBot(names[i], 1+i%5)
	}

	worldW, worldH := int32(m.Width)*bg.TileUnits, int32(m.Height)*bg.TileUnits
	inWorld := func(o bg.Vec) bool { return o.X >= 0 && o.Y >= 0 && o.X < worldW && o.Y < worldH }
	var (
		anchor   = make([]bg.Vec, bots)
		anchorAt = make([]int32, bots)
		longest  = make([]int32, bots)
		stuck    []string
		outside  []string
	)
	for f := 0; f < frames; f++ {
		h.Frame()
		now := h.Time()
		for i, c := range clients {
			ps := h.PS(c)
			if ps.PmType != bg.PMNormal {
				anchor[i], anchorAt[i] = ps.Origin, now // dead: not stuck
				continue
			}
			if !inWorld(ps.Origin) && len(outside) < 10 {
				outside = append(outside, fmt.Sprintf("t=%d %s at %v", now, names[i], ps.Origin))
			}
			if d := ps.Origin.Sub(anchor[i]); abs(d.X) > bg.TileUnits || abs(d.Y) > bg.TileUnits {
				anchor[i], anchorAt[i] = ps.Origin, now
			}
			still := now - anchorAt[i]
			longest[i] = max(longest[i], still)
			if still == maxStill+gametest.FrameMsec && len(stuck) < 10 {
				stuck = append(stuck, fmt.Sprintf("t=%d %s within a tile of (%d,%d) px for %d ms",
					now, names[i], ps.Origin.X/bg.UnitsPerPixel, ps.Origin.Y/bg.UnitsPerPixel, still))
			}
		}
		if f%20 == 0 {
			for _, e := range h.Engine.Entities() {
				if !e.Linked || e.S.EType != bg.ETMissile && e.S.EType != bg.ETItem {
					continue
				}
				if p := e.S.Pos.Evaluate(now); !inWorld(p) && len(outside) < 10 {
					outside = append(outside, fmt.Sprintf("t=%d entity %d (type %d) at %v", now, e.S.Number, e.S.EType, p))
				}
			}
		}
	}

	s := &h.Stats
	var b strings.Builder
	for i, c := range clients {
		fmt.Fprintf(&b, "\n  %-8s skill %d: %2d frags %2d deaths %d suicides, longest still %4d ms",
			names[i], 1+i%5, s.Frags[c], s.Deaths[c], s.Suicides[c], longest[i])
	}
	b.WriteString("\n  shots:")
	for w := bg.WPGauntlet; w < bg.NumWeapons; w++ {
		fmt.Fprintf(&b, " %s %d", bg.Weapons[w].Name, s.Shots[w])
	}
	b.WriteString("\n  pickups:")
	for it, n := range s.Pickups {
		if n > 0 {
			fmt.Fprintf(&b, " %s %d", bg.Items[it].Name, n)
		}
	}
	t.Logf("%s, %d bots, %d frames:%s\n%s", mapName, bots, s.Frames, b.String(), s.String())

	if s.TotalFrags() == 0 {
		t.Error("no frags")
	}
	if s.TotalDeaths() == 0 {
		t.Error("no deaths")
	}
	if s.TotalPickups() == 0 {
		t.Error("no pickups")
	}
	for _, o := range outside {
		t.Errorf("left the world: %s", o)
	}
	for _, st := range stuck {
		t.Errorf("stuck: %s", st)
	}
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// TestMatchDeterministic plays the same short match twice through the game
// and compares the world: bots seeded alike think alike.
func TestMatchDeterministic(t *testing.T) {
	run := func() uint64 {
		cfg := game.DefaultConfig()
		h := gametest.New(t, "arena1", 7, cfg)
		for i, name := range []string{"Anvil", "Brick", "Cinder", "Dagger"} {
			h.AddBot(name, 2+i%3)
		}
		h.RunFor(30000)
		return h.Checksum()
	}
	if a, b := run(), run(); a != b {
		t.Errorf("two runs of the same match differ: checksums %x and %x", a, b)
	}
}
