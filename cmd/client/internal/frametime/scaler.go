package frametime

import "time"

// Scaler chooses the render scale (r_scale 0, automatic): the share of
// the screen's width and height the world is drawn at, lowered when
// frames miss their budget and raised again once they have room. A
// machine whose frames all arrive in time stays at 1.
//
// A frame misses when its interval exceeds the budget by a quarter (a
// vsync missed). When ScaleWindow frames hold ScaleMisses misses, the
// scale drops by ScaleStep, to MinScale at the least. After upAfter
// frames in a row without a miss it rises by ScaleStep; if the next
// drop comes soon after such a rise, upAfter doubles (to at most
// MaxUpAfter), so a scale the machine cannot hold is not retried every
// few seconds.
type Scaler struct {
	scale   float64
	window  [ScaleWindow]bool
	n       int // frames seen
	misses  int // in window
	clean   int // frames in a row without a miss
	upAfter int
	sinceUp int // frames since the last rise; -1 before any
}

// Scaler tuning.
const (
	ScaleWindow  = 30
	ScaleMisses  = 8
	ScaleStep    = 0.125
	MinScale     = 0.5
	FirstUpAfter = 180 // 3 s at 60 fps
	MaxUpAfter   = 1800
)

// NewScaler returns a scaler at scale 1.
func NewScaler() *Scaler {
	return &Scaler{scale: 1, upAfter: FirstUpAfter, sinceUp: -1}
}

// Scale returns the scale chosen.
func (s *Scaler) Scale() float64 { return s.scale }

// Frame takes one frame's interval and the frame budget and reports
// whether the scale changed.
func (s *Scaler) Frame(interval, budget time.Duration) bool {
	miss := interval > budget+budget/4
	i := s.n % ScaleWindow
	if s.n >= ScaleWindow && s.window[i] {
		s.misses--
	}
	s.window[i] = miss
	if miss {
		s.misses++
		s.clean = 0
	} else {
		s.clean++
	}
	s.n++
	if s.sinceUp >= 0 {
		s.sinceUp++
	}
	switch {
	case s.misses >= ScaleMisses && s.scale > MinScale:
		if s.sinceUp >= 0 && s.sinceUp < 4*ScaleWindow {
			s.upAfter = min(2*s.upAfter, MaxUpAfter)
		}
		s.scale = max(MinScale, s.scale-ScaleStep)
		s.reset()
		return true
	case s.clean >= s.upAfter && s.scale < 1:
		s.scale = min(1, s.scale+ScaleStep)
		s.sinceUp = 0
		s.reset()
		return true
	}
	return false
}

// reset starts a new window after a change, so that frames drawn at the
// old scale do not decide the next step.
func (s *Scaler) reset() {
	s.window = [ScaleWindow]bool{}
	s.n, s.misses, s.clean = 0, 0, 0
}
