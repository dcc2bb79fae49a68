package server

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// A steady server frame — packets in, game frame, snapshots out — does
// not allocate. (Game events allocate: a frag changes the score
// configstrings, which go out as new command strings. Players who only
// run make none.)
func TestFrameDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	cfg := testConfig()
	h := newHarness(t, cfg)
	for _, name := range []string{"Ana", "Bob", "Cid", "Dee"} {
		h.connect(h.client(name))
	}
	h.run(2000)
	// One P and no GC during the measurement, as testing.AllocsPerRun
	// does, so that nothing but this goroutine's frame is counted.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	var mallocs uint64
	const frames = 50
	for range frames {
		for _, c := range h.cls {
			c.tick()
		}
		h.now += 50
		runtime.ReadMemStats(&before)
		h.deliver()
		h.srv.Frame(h.now)
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
		for _, c := range h.cls {
			c.drain()
		}
	}
	if mallocs != 0 {
		t.Fatalf("%d allocations in %d frames", mallocs, frames)
	}
}
