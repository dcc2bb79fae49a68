package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// hashedMatch is a match of four bots and two scripted runners on the
// load map, seeded: the bots' choices draw on the game's generator.
func hashedMatch(tb testing.TB, seed uint64) *gametest.Harness {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	h := gametest.NewMap(tb, loadMap(tb), seed, cfg)
	for i := 0; i < 4; i++ {
		h.AddBot("bot"+itoa(i), 3)
	}
	for i := 0; i < 2; i++ {
		h.AddClient("p" + itoa(i)).Script = run
	}
	return h
}

// TestStateHashRepeats: two matches from the same seed give the same
// hash after every frame, and the hash moves as the match does.
func TestStateHashRepeats(t *testing.T) {
	a, b := hashedMatch(t, 7), hashedMatch(t, 7)
	seen := map[uint64]bool{}
	for f := 0; f < 400; f++ {
		a.Frame()
		b.Frame()
		ha, hb := a.Game.StateHash(), b.Game.StateHash()
		if ha != hb {
			t.Fatalf("frame %d (time %d): hashes %#x and %#x from the same seed and commands", f, a.Time(), ha, hb)
		}
		seen[ha] = true
	}
	if len(seen) != 400 {
		t.Errorf("%d distinct hashes in 400 frames of a moving match", len(seen))
	}
}

// TestStateHashSeesTheGenerator: matches that differ only by their seed
// differ in hash from the first frame, before any draw shows in the
// world.
func TestStateHashSeesTheGenerator(t *testing.T) {
	a, b := hashedMatch(t, 7), hashedMatch(t, 8)
	if a.Game.StateHash() == b.Game.StateHash() {
		t.Errorf("seeds 7 and 8 give the same hash at the start")
	}
}

// TestStateHashDoesNotDisturb: hashing every frame leaves the match
// exactly as it would have been (the generator is peeked through a copy).
func TestStateHashDoesNotDisturb(t *testing.T) {
	a, b := hashedMatch(t, 3), hashedMatch(t, 3)
	for f := 0; f < 300; f++ {
		a.Frame()
		a.Game.StateHash()
		b.Frame()
	}
	if a.Checksum() != b.Checksum() || a.Game.StateHash() != b.Game.StateHash() {
		t.Errorf("hashing every frame changed the match")
	}
}

// TestStateHashSeesOneField: a one-unit change of one entity's state, or
// of one player state, changes the hash.
func TestStateHashSeesOneField(t *testing.T) {
	h := hashedMatch(t, 5)
	h.RunFor(2000)
	before := h.Game.StateHash()
	players := h.EntitiesOfType(bg.ETPlayer)
	if len(players) == 0 {
		t.Fatal("no player entity in the match")
	}
	n := players[len(players)-1]
	h.Entity(n).S.Pos.Base.Y++
	if h.Game.StateHash() == before {
		t.Errorf("moving player entity %d by one unit leaves the hash unchanged", n)
	}
	h.Entity(n).S.Pos.Base.Y--
	if h.Game.StateHash() != before {
		t.Fatalf("undoing the change does not restore the hash")
	}
	h.PS(0).Ammo[bg.WPRailgun]++
	if h.Game.StateHash() == before {
		t.Errorf("one more rail slug for client 0 leaves the hash unchanged")
	}
}

func TestStateHashAllocatesNothing(t *testing.T) {
	h := hashedMatch(t, 1)
	h.RunFor(2000)
	if a := testing.AllocsPerRun(50, func() { h.Game.StateHash() }); a != 0 {
		t.Errorf("%.2f allocations per StateHash", a)
	}
}

// BenchmarkStateHash16 is the game's state hash on BenchmarkRunFrame16's
// load: 16 moving players and 100 missiles in flight, plus the items.
func BenchmarkStateHash16(b *testing.B) {
	l := newLoad(b, 16, 100)
	for i := 0; i < 200; i++ {
		l.frame()
	}
	in := 0
	for i := 0; i < l.h.Game.NumEntities(); i++ {
		if l.h.Game.EntityInUse(i) {
			in++
		}
	}
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		sink += l.h.Game.StateHash()
	}
	_ = sink
	b.ReportMetric(float64(in), "entities")
}
