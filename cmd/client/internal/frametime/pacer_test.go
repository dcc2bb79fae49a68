package frametime

import (
	"testing"
	"time"
)

func TestPacer(t *testing.T) {
	ms := time.Millisecond
	// Each case runs frames that are ready at the given times (ms from
	// the start; no earlier than the last one began) and checks each
	// one's wait, in ms; 50 fps is a frame every 20 ms.
	tests := []struct {
		name  string
		fps   int
		ready []time.Duration
		want  []time.Duration
	}{
		{"first frame at once", 50, []time.Duration{0}, []time.Duration{0}},
		{"fast frames wait their turn", 50, []time.Duration{0, 5, 25, 45}, []time.Duration{0, 15, 15, 15}},
		{"frames on time do not wait", 50, []time.Duration{0, 20, 40, 60}, []time.Duration{0, 0, 0, 0}},
		{"an early frame after a late one", 50, []time.Duration{0, 30, 42}, []time.Duration{0, 0, 0}},
		{"slightly late frames keep the grid", 50, []time.Duration{0, 21, 41, 50}, []time.Duration{0, 0, 0, 10}},
		{"a hitch starts afresh", 50, []time.Duration{0, 100, 105}, []time.Duration{0, 0, 15}},
		{"no limit", 0, []time.Duration{0, 1, 2}, []time.Duration{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Pacer
			start := time.Unix(1000, 0)
			begun := start // when the last frame began: ready, or after its wait
			for i, r := range tt.ready {
				now := start.Add(r * ms)
				if now.Before(begun) {
					now = begun
				}
				got := p.Wait(now, tt.fps)
				if got != tt.want[i]*ms {
					t.Errorf("frame %d ready at %v: wait %v, want %v", i, r*ms, got, tt.want[i]*ms)
				}
				begun = now.Add(got)
			}
		})
	}
}
