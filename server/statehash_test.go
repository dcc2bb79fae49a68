package server

import (
	"fmt"
	"testing"

	"tremor/common/proto"
)

// hashRecord is an SvcStateHash a test client read, with the snapshot
// read before it.
type hashRecord struct {
	messageNum int32
	sh         proto.StateHash
	snap       snapRecord
}

// TestFrameHashRepeats: two servers from the same seed with the same bots
// report the same game hash after every frame, at the frame's time; a
// third from another seed does not.
func TestFrameHashRepeats(t *testing.T) {
	newBots := func(seed uint64) *harness {
		cfg := testConfig()
		cfg.Seed = seed
		h := newHarness(t, cfg)
		if _, _, ok := h.srv.FrameHash(); ok {
			t.Fatal("a frame hash before the first frame")
		}
		h.srv.Exec("addbot 3")
		return h
	}
	a, b, other := newBots(42), newBots(42), newBots(43)
	same := 0
	for i := 0; i < 200; i++ {
		a.step(50)
		b.step(50)
		other.step(50)
		ta, ha, okA := a.srv.FrameHash()
		tb, hb, okB := b.srv.FrameHash()
		_, ho, _ := other.srv.FrameHash()
		if !okA || !okB || ta != a.srv.Time() || ta != tb || ha != hb {
			t.Fatalf("step %d: hashes %#x at %d (%v) and %#x at %d (%v); server time %d", i, ha, ta, okA, hb, tb, okB, a.srv.Time())
		}
		if ha != a.arena().StateHash() {
			t.Fatalf("step %d: FrameHash is not the game's hash after the frame", i)
		}
		if ho == ha {
			same++
		}
	}
	if same != 0 {
		t.Errorf("seeds 42 and 43 gave the same hash at %d of 200 frames", same)
	}
}

// TestHashSnapshots: with sv_hashSnapshots every snapshot message ends
// with its state hashes, which match the snapshot the client decoded and
// carry the game's hash of that frame; with 0 there are none.
func TestHashSnapshots(t *testing.T) {
	for _, level := range []int{0, 1, 2} {
		t.Run(fmt.Sprint(level), func(t *testing.T) {
			cfg := testConfig()
			cfg.HashSnapshots = level
			h := newHarness(t, cfg)
			h.srv.Exec("addbot 3")
			c := h.client("Checker")
			h.connect(c)
			games := map[int32]uint64{}
			for i := 0; i < 60; i++ {
				h.step(50)
				ft, fh, _ := h.srv.FrameHash()
				games[ft] = fh
			}
			if len(c.errs) > 0 {
				t.Fatalf("client errors: %v", c.errs)
			}
			if level == 0 {
				if len(c.hashes) != 0 {
					t.Fatalf("%d state hashes with sv_hashSnapshots 0", len(c.hashes))
				}
				// The setting takes at once, as rcon would change it.
				h.srv.Exec("sv_hashSnapshots 1")
				h.run(500)
				if len(c.hashes) < 5 {
					t.Fatalf("%d state hashes in the 500 ms after sv_hashSnapshots 1", len(c.hashes))
				}
				return
			}
			checked := 0
			for _, r := range c.hashes {
				s := r.snap
				if s.messageNum != r.messageNum || !s.usable {
					continue
				}
				if r.sh.ServerTime != s.header.ServerTime || r.sh.Detail != (level == 2) {
					t.Fatalf("message %d: hash of time %d (detail %v) after the snapshot of %d", r.messageNum, r.sh.ServerTime, r.sh.Detail, s.header.ServerTime)
				}
				if d, bad := proto.CheckStateHash(&r.sh, &s.ps, s.ents, new(proto.StateHash)); bad {
					t.Fatalf("message %d: %v", r.messageNum, d)
				}
				if g, ok := games[r.sh.ServerTime]; ok && g != r.sh.Game {
					t.Fatalf("message %d: game hash %#x, the server's frame hash %#x", r.messageNum, r.sh.Game, g)
				}
				checked++
			}
			if checked < 40 {
				t.Errorf("%d state hashes checked in 3 s (%d received)", checked, len(c.hashes))
			}
		})
	}
}

// BenchmarkServerFrameHashed is BenchmarkServerFrame with 16 clients for
// each setting of sv_hashSnapshots: the game's frame hash is taken every
// frame in all three; 1 and 2 add the hashes of every snapshot.
func BenchmarkServerFrameHashed(b *testing.B) {
	for _, level := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("hashSnapshots=%d", level), func(b *testing.B) {
			cfg := testConfig()
			cfg.MaxClients = 20
			cfg.HashSnapshots = level
			h := newHarness(b, cfg)
			h.srv.Exec("addbot 4")
			for i := 0; i < 16; i++ {
				h.connect(h.client(fmt.Sprintf("Player%d", i)))
			}
			h.run(2000)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				for _, c := range h.cls {
					c.tick()
				}
				h.now += 50
				b.StartTimer()
				h.deliver()
				h.srv.Frame(h.now)
				b.StopTimer()
				for _, c := range h.cls {
					c.drain()
					c.hashes = c.hashes[:0]
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkFrameHash is the game's state hash alone, as the server takes
// it after every frame, with 16 clients and 4 bots in play.
func BenchmarkFrameHash(b *testing.B) {
	cfg := testConfig()
	cfg.MaxClients = 20
	h := newHarness(b, cfg)
	h.srv.Exec("addbot 4")
	for i := 0; i < 16; i++ {
		h.connect(h.client(fmt.Sprintf("Player%d", i)))
	}
	h.run(2000)
	g := h.srv.Game()
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		sink += g.StateHash()
	}
	_ = sink
}
