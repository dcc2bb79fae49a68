package server

import (
	"fmt"
	"testing"
)

// BenchmarkServerFrame measures one server frame at sv_fps 20 with 8 to
// 64 connected clients (in-memory transport, rate 25000, snaps 20, each
// sending a usercmd packet per frame), with 4 bots or none: reading the
// clients' packets, running the game, building and sending every
// snapshot. The clients' own work is not timed. It reports the snapshot
// bytes (message payload) sent per client snapshot. The bots frag: every
// frag changes the score configstrings (CSScores1, CSScores2), which go
// to every client as new command strings, and those allocate (about one
// allocation a frame on average with 8 clients); without bots a frame
// allocates nothing.
func BenchmarkServerFrame(b *testing.B) {
	for _, tc := range []struct{ clients, bots int }{
		{8, 4}, {16, 4}, {8, 0}, {16, 0}, {32, 0}, {64, 0},
	} {
		n := tc.clients
		b.Run(fmt.Sprintf("clients=%d/bots=%d", n, tc.bots), func(b *testing.B) {
			cfg := testConfig()
			cfg.MaxClients = n + tc.bots
			h := newHarness(b, cfg)
			if tc.bots > 0 {
				h.srv.Exec(fmt.Sprintf("addbot %d", tc.bots))
			}
			for i := 0; i < n; i++ {
				h.connect(h.client(fmt.Sprintf("Player%d", i)))
			}
			h.run(2000)
			count := func() (snaps int, bytes int64) {
				for _, ci := range h.srv.Clients() {
					snaps += ci.Snapshots
					bytes += ci.SnapshotBytes
				}
				return snaps, bytes
			}
			snaps0, bytes0 := count()
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
				}
				b.StartTimer()
			}
			b.StopTimer()
			snaps, bytes := count()
			if snaps > snaps0 {
				b.ReportMetric(float64(bytes-bytes0)/float64(snaps-snaps0), "B/snapshot")
			}
			b.ReportMetric(float64(snaps-snaps0)/float64(b.N), "snapshots/frame")
		})
	}
}
