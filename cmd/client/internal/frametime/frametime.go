// Package frametime measures the client's frames: the time between
// frames (what a player sees as the frame rate) and the time spent in
// the game's update and in drawing, over a window of recent frames.
// The framestats console command prints it; docs/PERFORMANCE.md records
// the figures for 16 players under Xvfb.
package frametime

import (
	"fmt"
	"slices"
	"time"
)

// Window is how many recent frames a Recorder keeps.
const Window = 1024

// Recorder keeps the durations of the last Window frames. The zero value
// is ready; it does not allocate after the first Summary.
type Recorder struct {
	interval, update, draw [Window]time.Duration
	cpu                    [Window]time.Duration // CPUTime after each frame
	n, next                int
	total                  int64 // frames recorded since Reset
	sorted                 []time.Duration

	// CPUTime, when set, returns the CPU time the process has used so
	// far, all its threads together (ProcessCPU): Add samples it, and
	// the Summary divides what the frames kept used by their number. With
	// a software renderer that is the renderer's cost too, and it moves
	// with what else the machine runs much less than the frame interval
	// does (docs/PERFORMANCE.md, "Client frame time").
	CPUTime func() time.Duration
}

// Add records one frame: the time since the previous frame began and
// the time its update and its drawing took.
func (r *Recorder) Add(interval, update, draw time.Duration) {
	r.interval[r.next], r.update[r.next], r.draw[r.next] = interval, update, draw
	if r.CPUTime != nil {
		r.cpu[r.next] = r.CPUTime()
	}
	r.next = (r.next + 1) % Window
	r.n = min(r.n+1, Window)
	r.total++
}

// Reset forgets every frame.
func (r *Recorder) Reset() { r.n, r.next, r.total = 0, 0, 0 }

// Dist is a distribution of durations.
type Dist struct {
	Avg, P50, P99, Max time.Duration
}

// String formats d in milliseconds.
func (d Dist) String() string {
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	return fmt.Sprintf("avg %.2f p50 %.2f p99 %.2f max %.2f ms", ms(d.Avg), ms(d.P50), ms(d.P99), ms(d.Max))
}

// Summary describes the frames kept.
type Summary struct {
	Frames                 int // frames in the window
	FPS                    float64
	Interval, Update, Draw Dist
	// Over is how many frame intervals exceeded the budget passed to
	// Summarize (a missed frame at the target rate).
	Over int
	// CPU is the process's CPU time a frame over the frames kept (0
	// without Recorder.CPUTime or with fewer than two frames).
	CPU time.Duration
}

// String is the line framestats prints.
func (s Summary) String() string {
	str := fmt.Sprintf("%d frames, %.1f fps, %d over budget\n  frame  %v\n  update %v\n  draw   %v",
		s.Frames, s.FPS, s.Over, s.Interval, s.Update, s.Draw)
	if s.CPU > 0 {
		str += fmt.Sprintf("\n  cpu    %.2f ms a frame (the process, every thread)", float64(s.CPU)/float64(time.Millisecond))
	}
	return str
}

// Summarize returns the distributions of the frames kept; budget is the
// frame time of the target rate (16.7 ms for 60 fps).
func (r *Recorder) Summarize(budget time.Duration) Summary {
	s := Summary{Frames: r.n}
	if r.n == 0 {
		return s
	}
	var sum time.Duration
	for _, d := range r.interval[:r.n] {
		sum += d
		if d > budget {
			s.Over++
		}
	}
	if sum > 0 {
		s.FPS = float64(r.n) / sum.Seconds()
	}
	if r.CPUTime != nil && r.n > 1 {
		newest, oldest := (r.next+Window-1)%Window, (r.next+Window-r.n)%Window
		s.CPU = (r.cpu[newest] - r.cpu[oldest]) / time.Duration(r.n-1)
	}
	s.Interval = r.dist(r.interval[:r.n])
	s.Update = r.dist(r.update[:r.n])
	s.Draw = r.dist(r.draw[:r.n])
	return s
}

func (r *Recorder) dist(ds []time.Duration) Dist {
	r.sorted = append(r.sorted[:0], ds...)
	slices.Sort(r.sorted)
	var sum time.Duration
	for _, d := range r.sorted {
		sum += d
	}
	n := len(r.sorted)
	return Dist{
		Avg: sum / time.Duration(n),
		P50: r.sorted[n/2],
		P99: r.sorted[min(n-1, n*99/100)],
		Max: r.sorted[n-1],
	}
}
