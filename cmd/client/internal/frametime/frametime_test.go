package frametime

import (
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
	var r Recorder
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
