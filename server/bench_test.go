package server

import (
	"fmt"
	"testing"
)

// BenchmarkServerFrame measures one server frame at sv_fps 20 with 8 or
// 16 connected clients (in-memory transport, rate 25000, snaps 20, each
// sending a usercmd packet per frame) and 4 bots: reading the clients'
// packets, running the game, building and sending every snapshot. The
// clients' own work is not timed. It reports the snapshot bytes (message
// payload) sent per client snapshot.
func BenchmarkServerFrame(b *testing.B) {
	for _, n := range []int{8, 16} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			cfg := testConfig()
			cfg.MaxClients = n + 4
			h := newHarness(b, cfg)
			h.srv.Exec("addbot 4")
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
