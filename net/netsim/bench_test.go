package netsim

import (
	"testing"
	"time"

	"tremor/net/netchan"
)

func BenchmarkLinkSend(b *testing.B) {
	l := NewLink(Config{Delay: 40 * ms, Jitter: 15 * ms, Loss: 0.05, Duplicate: 0.05, Reorder: 0.05, Bandwidth: 1 << 20, QueueLimit: 1 << 16}, 1)
	b.ReportAllocs()
	var now time.Duration
	for b.Loop() {
		now += 100 * time.Microsecond
		l.Send(now, 1200)
	}
}

// BenchmarkConnWriteTo measures a Conn sending over a loopback pair whose
// other end is drained by a reader; delivered/op is the share of writes the
// reader received (the loopback queue drops what the reader cannot keep up
// with).
func BenchmarkConnWriteTo(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"passthrough", Config{}},
		{"delayed", Config{Delay: ms, Jitter: ms / 2, Loss: 0.01}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a, peer := netchan.NewLoopback()
			w := Wrap(a, bc.cfg, 1)
			read := make(chan int)
			go func() {
				n := 0
				buf := make([]byte, 2048)
				for {
					if _, _, err := peer.ReadFrom(buf); err != nil {
						read <- n
						return
					}
					n++
				}
			}()
			p := make([]byte, 1200)
			to := peer.LocalAddr()
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				w.WriteTo(p, to)
			}
			b.StopTimer()
			time.Sleep(5 * ms) // let delayed packets out
			w.Close()
			peer.Close()
			b.ReportMetric(float64(<-read)/float64(b.N), "delivered/op")
		})
	}
}
