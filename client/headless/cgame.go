package headless

import (
	"tremor/cgame"
	"tremor/client"
)

// cgameTotals accumulates the stats of the CGames the engine runs for
// successive levels (one per gamestate). cgame tells misses of the shared
// movement code from corrections the server explains (a hit, a push, a
// death); a miss within a second of a new gamestate is a correction too,
// since the commands sent across the level change never ran.
type cgameTotals struct {
	misses, corrections  int
	settled              int // of the misses, those right after a gamestate
	errorMax             float64
	frames, extrapolated int

	// cg is the engine's cgame as of the last frame, kept to take its
	// counters when the engine replaces it.
	cg *cgame.CGame
	// gsAt is the client's real time when cg was made: usercmds sent
	// across a map change carry the old server id and are never run by
	// the server, so the prediction may differ for a moment after.
	gsAt int32
	// cgMisses is cg's PredictionMisses as of the last frame.
	cgMisses int
}

// gamestateSettle is how long after a new gamestate a prediction
// difference counts as a correction: the commands the client sent while
// the level changed were never run by the server.
const gamestateSettle = 1000 // ms

// follow takes the counters of c's cgame after a frame: its prediction
// misses right after a new gamestate count as settling, and a cgame the
// engine replaced (a new gamestate) adds its counters to the totals.
func (t *cgameTotals) follow(c *client.Client) {
	cg := c.CGame()
	if cg == nil {
		return
	}
	if cg != t.cg {
		t.take()
		t.cg, t.gsAt, t.cgMisses = cg, c.Realtime(), 0
	}
	if d := cg.Stats.PredictionMisses - t.cgMisses; d > 0 && c.Realtime()-t.gsAt < gamestateSettle {
		t.settled += d
	}
	t.cgMisses = cg.Stats.PredictionMisses
}

// take adds the counters of the cgame followed to the totals, once.
func (t *cgameTotals) take() {
	if t.cg == nil {
		return
	}
	s := &t.cg.Stats
	t.misses += s.PredictionMisses
	t.corrections += s.PredictionCorrections
	t.errorMax = max(t.errorMax, s.PredictionErrorMax)
	t.frames += s.Frames
	t.extrapolated += s.FramesExtrapolated
	t.cg = nil
}
