package frametime

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var r Recorder
	if s := r.Summarize(time.Second); s.Frames != 0 || s.FPS != 0 {
		t.Fatalf("empty: %+v", s)
	}
	// 99 frames of 10 ms and one of 50 ms: 1.04 s for 100 frames.
	for i := range 100 {
		iv := 10 * time.Millisecond
		if i == 40 {
			iv = 50 * time.Millisecond
		}
		r.Add(iv, time.Millisecond, 2*time.Millisecond)
	}
	s := r.Summarize(16 * time.Millisecond)
	if s.Frames != 100 || s.Over != 1 {
		t.Errorf("frames %d over %d, want 100 and 1", s.Frames, s.Over)
	}
	if want := 100 / 1.04; s.FPS < want-0.01 || s.FPS > want+0.01 {
		t.Errorf("fps %.3f, want %.3f", s.FPS, want)
	}
	if s.Interval.P50 != 10*time.Millisecond || s.Interval.Max != 50*time.Millisecond || s.Interval.Avg != 10400*time.Microsecond {
		t.Errorf("interval %+v", s.Interval)
	}
	if s.Draw.Avg != 2*time.Millisecond || s.Update.P99 != time.Millisecond {
		t.Errorf("update %+v draw %+v", s.Update, s.Draw)
	}
	// The window slides: after Window more frames of 20 ms the 50 ms one
	// is gone.
	for range Window {
		r.Add(20*time.Millisecond, 0, 0)
	}
	if s := r.Summarize(16 * time.Millisecond); s.Frames != Window || s.Interval.Max != 20*time.Millisecond || s.Over != Window {
		t.Errorf("after sliding: %+v", s)
	}
	r.Reset()
	if s := r.Summarize(time.Second); s.Frames != 0 {
		t.Errorf("after reset: %d frames", s.Frames)
	}
}

func TestNoAllocs(t *testing.T) {
	r := Recorder{CPUTime: ProcessCPU}
	for range 10 {
		r.Add(time.Millisecond, 0, 0)
	}
	r.Summarize(time.Millisecond)
	if n := testing.AllocsPerRun(100, func() {
		r.Add(time.Millisecond, 0, 0)
		r.Summarize(time.Millisecond)
	}); n != 0 {
		t.Errorf("%.0f allocs per frame and summary", n)
	}
}

func TestCPU(t *testing.T) {
	var r Recorder
	var now time.Duration
	r.CPUTime = func() time.Duration { return now }
	// Ten frames of 3 ms of CPU, then the window fills with 5 ms ones.
	for range 10 {
		now += 3 * time.Millisecond
		r.Add(time.Millisecond, 0, 0)
	}
	if s := r.Summarize(time.Second); s.CPU != 3*time.Millisecond {
		t.Errorf("cpu %v a frame, want 3ms", s.CPU)
	}
	for range Window {
		now += 5 * time.Millisecond
		r.Add(time.Millisecond, 0, 0)
	}
	if s := r.Summarize(time.Second); s.CPU != 5*time.Millisecond {
		t.Errorf("after sliding: cpu %v a frame, want 5ms", s.CPU)
	}
	r.Reset()
	now += time.Second // between frames: not counted
	r.Add(time.Millisecond, 0, 0)
	if s := r.Summarize(time.Second); s.CPU != 0 {
		t.Errorf("one frame: cpu %v, want 0", s.CPU)
	}
	now += 2 * time.Millisecond
	r.Add(time.Millisecond, 0, 0)
	if s := r.Summarize(time.Second); s.CPU != 2*time.Millisecond {
		t.Errorf("after reset: cpu %v a frame, want 2ms", s.CPU)
	}
	var none Recorder
	none.Add(time.Millisecond, 0, 0)
	none.Add(time.Millisecond, 0, 0)
	if s := none.Summarize(time.Second); s.CPU != 0 || strings.Contains(s.String(), "cpu") {
		t.Errorf("without CPUTime: cpu %v, %q", s.CPU, s.String())
	}
}

func TestProcessCPU(t *testing.T) {
	a := ProcessCPU()
	// Burn some CPU: the process's time must not go backwards, and on
	// the systems that report it, must grow.
	x := 0
	for i := range 50_000_000 {
		x += i ^ x
	}
	b := ProcessCPU()
	if b < a || (runtime.GOOS == "linux" && b == a) {
		t.Errorf("ProcessCPU went from %v to %v over a busy loop (%d)", a, b, x)
	}
}
