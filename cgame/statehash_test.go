package cgame

import (
	"testing"

	"tremor/bg"
)

// TestPredictedHash: while predicting, the hash is that of the state the
// server computes for the same commands (the simulation's oracle), at its
// command time; with cl_nopredict there is none.
func TestPredictedHash(t *testing.T) {
	s := newSim(t, withCodec())
	cfg := DefaultConfig()
	g := New(s, s.m, &cfg)
	var on, off int
	s.run(g, 1200, func(i int) {
		if !g.Ready() {
			return
		}
		ct, h, ok := g.PredictedHash()
		switch {
		case cfg.NoPredict:
			off++
			if ok {
				t.Fatalf("frame %d: a predicted hash with cl_nopredict", i)
			}
		default:
			on++
			if !ok || h != bg.HashPlayerState(&s.oracle) || ct != s.oracle.CommandTime {
				t.Fatalf("frame %d: hash %#x at %d (%v), the server's state hashes to %#x at %d",
					i, h, ct, ok, bg.HashPlayerState(&s.oracle), s.oracle.CommandTime)
			}
		}
		switch i {
		case 500:
			cfg.NoPredict = true
		case 800:
			cfg.NoPredict = false
		}
	})
	if on < 600 || off < 200 {
		t.Errorf("%d frames predicted, %d not", on, off)
	}
}
