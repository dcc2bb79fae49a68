package frametime

import (
	"testing"
	"time"
)

const budget = time.Second / 60

// run feeds frames whose interval depends on the scale in force, as a
// fill-bound renderer's does, and returns the scales after each change.
func run(s *Scaler, frames int, interval func(scale float64) time.Duration) []float64 {
	var steps []float64
	for range frames {
		if s.Frame(interval(s.Scale()), budget) {
			steps = append(steps, s.Scale())
		}
	}
	return steps
}

func TestScaler(t *testing.T) {
	t.Run("fast machine stays at 1", func(t *testing.T) {
		s := NewScaler()
		if steps := run(s, 3000, func(float64) time.Duration { return budget }); len(steps) != 0 {
			t.Errorf("scale changed: %v", steps)
		}
	})
	t.Run("a lone hitch changes nothing", func(t *testing.T) {
		s := NewScaler()
		n := 0
		steps := run(s, 600, func(float64) time.Duration {
			n++
			if n%100 == 0 {
				return 5 * budget
			}
			return budget
		})
		if len(steps) != 0 {
			t.Errorf("scale changed: %v", steps)
		}
	})
	t.Run("fill-bound settles where it fits", func(t *testing.T) {
		// Frame time proportional to the pixels: 1.6 budgets at scale 1,
		// so it fits at scale² <= 1/1.6·1.25, about 0.88; 0.875 fits.
		s := NewScaler()
		cost := func(sc float64) time.Duration { return time.Duration(1.6 * sc * sc * float64(budget)) }
		run(s, 6000, cost)
		if got := s.Scale(); got != 0.875 {
			t.Errorf("scale %v, want 0.875", got)
		}
		// It tries 1 again now and then, less and less often.
		steps := run(s, 6000, cost)
		if len(steps) == 0 || len(steps) > 8 {
			t.Errorf("%d changes in 100 s at the edge (%v), want a few retries", len(steps), steps)
		}
		if got := s.Scale(); got != 0.875 && got != 1 {
			t.Errorf("scale %v after retries", got)
		}
	})
	t.Run("never below the minimum", func(t *testing.T) {
		s := NewScaler()
		run(s, 3000, func(float64) time.Duration { return 10 * budget })
		if s.Scale() != MinScale {
			t.Errorf("scale %v, want %v", s.Scale(), MinScale)
		}
	})
	t.Run("recovers when the load goes", func(t *testing.T) {
		s := NewScaler()
		run(s, 600, func(float64) time.Duration { return 3 * budget })
		if s.Scale() >= 1 {
			t.Fatal("did not scale down under load")
		}
		run(s, 3000, func(float64) time.Duration { return budget })
		if s.Scale() != 1 {
			t.Errorf("scale %v after the load went, want 1", s.Scale())
		}
	})
}
