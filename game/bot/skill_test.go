package bot_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
)

// TestSkillTimeToKill pits one bot at a time against a human who never
// moves nor fires, through the real game on two shipped arenas, and
// measures the game time from the start to the human's first death,
// averaged over eight seeds. Skill 1 must take at least three times as
// long as skill 5, and no level may kill faster on average than the one
// above it. Everything runs on simulated game time, so the figures are
// the same on every machine.
func TestSkillTimeToKill(t *testing.T) {
	const (
		seeds = 8
		limit = 120_000 // ms: a human who lasts this long counts as this
	)
	for _, mapName := range []string{"duel1", "arena1"} {
		t.Run(mapName, func(t *testing.T) {
			var mean [6]int32
			for skill := 1; skill <= 5; skill++ {
				var sum int32
				for seed := uint64(1); seed <= seeds; seed++ {
					sum += timeToKill(t, mapName, skill, seed, limit)
				}
				mean[skill] = sum / seeds
			}
			t.Logf("mean time to kill an idle player, skill 1 to 5: %v ms", mean[1:])
			if mean[1] < 3*mean[5] {
				t.Errorf("skill 1 kills in %d ms on average, skill 5 in %d: want skill 1 at least 3 times slower", mean[1], mean[5])
			}
			for s := 1; s < 5; s++ {
				if mean[s] < mean[s+1] {
					t.Errorf("skill %d kills faster (%d ms) than skill %d (%d ms)", s, mean[s], s+1, mean[s+1])
				}
			}
		})
	}
}

// timeToKill runs a bot of skill against an idle human on mapName with
// seed and returns the game time, in ms, until the human's first death;
// limit if it lives that long.
func timeToKill(t *testing.T, mapName string, skill int, seed uint64, limit int32) int32 {
	t.Helper()
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	h := gametest.New(t, mapName, seed, cfg)
	human := h.AddClient("Target")
	h.AddBot("Rook", skill)
	start := h.Time()
	h.RunUntil(limit, func() bool { return h.PS(human.Num).PmType == bg.PMDead })
	return h.Time() - start
}
