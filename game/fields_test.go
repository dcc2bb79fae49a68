package game_test

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
	"tremor/net/msg"
)

// measureFields plays a bot match and delta-codes, every server frame,
// each player's state against its previous frame and each linked entity
// against its previous frame (or from nothing when it appears), as a
// snapshot to a client would, predictors included. It returns the field counters of that
// traffic, counted in a FieldStats of its own.
func measureFields(t *testing.T, frames int) (stats *msg.FieldStats, bits int) {
	stats = new(msg.FieldStats)
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	h := gametest.New(t, "arena2", 11, cfg)
	for i := 0; i < 8; i++ {
		h.AddBot("", 1+i%5)
	}
	var prevPS [bg.MaxClients]bg.PlayerState
	var prevES [msg.MaxEntities]bg.EntityState
	var had [msg.MaxEntities]bool
	buf := make([]byte, 1<<16)
	w := msg.NewWriter(buf, msg.Huffman)
	w.SetFieldStats(stats)
	for f := 0; f < frames; f++ {
		h.Frame()
		w.Reset(buf, msg.Huffman)
		for c := 0; c < 8; c++ {
			cur := h.PS(c)
			bg.PlayerStateTable.WriteDeltaPlayerState(w, &prevPS[c], cur)
			prevPS[c] = *cur
		}
		for n := 0; n < h.Game.NumEntities(); n++ {
			e := h.Entity(n)
			if !e.Linked || e.SvFlags&game.SvfNoClient != 0 {
				had[n] = false
				continue
			}
			// As a snapshot codes them: from the previous frame with its
			// predictors over the 50 ms between (nothing if unchanged),
			// or from nothing when the entity appears.
			switch {
			case !had[n]:
				bg.EntityStateTable.WriteEntity(w, nil, &e.S, 0)
			case prevES[n] != e.S:
				bg.EntityStateTable.WriteEntity(w, &prevES[n], &e.S, 50)
			}
			prevES[n], had[n] = e.S, true
		}
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		bits += w.BitLen()
	}
	return stats, bits
}

// TestFieldOrderMatchesMeasurement keeps the field tables ordered by how
// often fields change in real play (docs/fields.md shows the numbers): a
// field may not change more than twice as often as a field listed before
// it. Rarely changing fields (under 1% of frames) are not compared.
func TestFieldOrderMatchesMeasurement(t *testing.T) {
	const frames = 2400 // two minutes at 20 Hz
	stats, bits := measureFields(t, frames)
	for _, tbl := range []struct {
		name  string
		stats []msg.FieldStat
	}{{"PlayerState", bg.PlayerStateTable.Stats(stats)}, {"EntityState", bg.EntityStateTable.Stats(stats)}} {
		for i, s := range tbl.stats {
			if s.Array {
				continue
			}
			for _, earlier := range tbl.stats[:i] {
				if earlier.Array || s.SentChanges < frames/100 {
					continue
				}
				if s.SentChanges > 2*earlier.SentChanges+frames/100 {
					t.Errorf("%s: %s changed %d times but comes after %s (%d): reorder bg/tables.go",
						tbl.name, s.Name, s.SentChanges, earlier.Name, earlier.SentChanges)
				}
			}
		}
		t.Logf("%s suggested order: %v", tbl.name, msg.SuggestOrder(tbl.stats))
	}
	var b strings.Builder
	if err := bg.PlayerStateTable.WriteReport(&b, stats); err != nil {
		t.Fatal(err)
	}
	if err := bg.EntityStateTable.WriteReport(&b, stats); err != nil {
		t.Fatal(err)
	}
	t.Logf("measured over %d frames of 8 bots on arena2, %d bytes coded (%.1f per frame):\n%s",
		frames, bits/8, float64(bits)/8/frames, b.String())
}
