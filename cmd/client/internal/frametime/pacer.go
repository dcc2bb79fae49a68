package frametime

import "time"

// Pacer holds frames to a rate (com_maxfps) when the window runs one
// update a frame, as Quake III's Com_Frame slept until its frame was
// due: Wait says how long to sleep before the next frame begins. Frames
// keep to a fixed grid of due times, so an early frame after a late one
// evens the rate out; a frame later than a whole period starts the grid
// afresh, so a hitch is not followed by a burst of frames catching up.
// The zero Pacer is ready.
type Pacer struct {
	due time.Time // when the next frame is due
}

// Wait returns how long to wait, from now, before a frame may begin at
// fps frames a second, and counts that frame. fps 0 or less is no
// limit.
func (p *Pacer) Wait(now time.Time, fps int) time.Duration {
	if fps <= 0 {
		p.due = time.Time{}
		return 0
	}
	period := time.Second / time.Duration(fps)
	if p.due.IsZero() || now.Sub(p.due) > period {
		p.due = now
	}
	wait := max(p.due.Sub(now), 0)
	p.due = p.due.Add(period)
	return wait
}
