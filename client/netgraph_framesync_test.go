package client

import "testing"

// In frame sync the net graph counts the rollbacks and the time stalled
// of the complete buckets of the last second, as it counts bytes.
func TestNetGraphFrameSync(t *testing.T) {
	type frame struct {
		at        int32
		rollbacks int
		stalled   bool
		msec      int32
	}
	tests := []struct {
		name           string
		frames         []frame
		now            int32
		rollbacks, msS int
	}{
		{"none", nil, 2000, 0, 0},
		{"one second", []frame{{1000, 1, false, 8}, {1050, 2, false, 8}, {1500, 0, true, 8}, {1508, 0, true, 8}, {1990, 1, true, 16}}, 2000, 4, 32},
		{"current bucket not counted", []frame{{1000, 1, false, 8}, {2010, 5, true, 8}}, 2050, 1, 0},
		{"older than a second dropped", []frame{{500, 3, true, 8}, {1200, 1, true, 8}}, 1650, 1, 8},
		{"negative msec ignored", []frame{{1000, 0, true, -5}}, 1200, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g netGraph
			g.bucket(0)
			for _, f := range tc.frames {
				g.frameSync(f.at, f.rollbacks, f.stalled, f.msec)
			}
			got := g.stats(tc.now)
			if got.Rollbacks != tc.rollbacks || got.StalledMsec != tc.msS {
				t.Errorf("rollbacks %d, stalled %d ms; want %d, %d", got.Rollbacks, got.StalledMsec, tc.rollbacks, tc.msS)
			}
		})
	}
}
