package draw

import (
	"image"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/client"
)

// NetGraphHistory is how many samples of bytes per second the net
// graph's bars show, one per client.NetGraphBucketMsec.
const NetGraphHistory = 64

// NetGraph is the net graph's state between frames (cg_netgraph): the
// figures of the last second as text (client.NetGraph.Text), rebuilt only
// when they change, and the bytes per second each way over the last
// NetGraphHistory samples, drawn as bars.
type NetGraph struct {
	last     client.NetGraph
	lines    [client.NetGraphLines]string
	in, out  [NetGraphHistory]int32
	n        int   // samples taken
	lastTake int32 // real time of the last sample, ms
}

// Sample takes the client's figures at real time now (ms); the bars
// advance once a bucket.
func (ng *NetGraph) Sample(g client.NetGraph, now int32) {
	if ng.n == 0 || g != ng.last {
		ng.last = g
		g.Text(&ng.lines)
	}
	if ng.n == 0 || now-ng.lastTake >= client.NetGraphBucketMsec {
		ng.lastTake = now
		ng.in[ng.n%NetGraphHistory] = int32(g.BytesIn)
		ng.out[ng.n%NetGraphHistory] = int32(g.BytesOut)
		ng.n++
	}
}

// DrawNetGraph draws ng in NetGraphRect: four lines of figures (five on
// the acks carrier: its RTT and the loss each way; two more in frame
// sync: the rollback machine), then the bytes per second down (green)
// and up (orange) as bars, scaled to the largest sample shown.
func (r *Renderer) DrawNetGraph(screen *ebiten.Image, ng *NetGraph) { r.hud.drawNetGraph(screen, ng) }

// drawNetGraph draws ng: see Renderer.DrawNetGraph.
func (hp *hudPainter) drawNetGraph(screen *ebiten.Image, ng *NetGraph) {
	rect := NetGraphRect(int(hp.w), int(hp.h))
	hb := &hp.b
	hb.rect(float32(rect.Min.X), float32(rect.Min.Y), float32(rect.Dx()), float32(rect.Dy()), rgbaOf(colPanel, 1))
	hb.flush(screen)
	n := 0
	for _, l := range ng.lines {
		if l != "" {
			hp.text(screen, l, float64(rect.Min.X+6), float64(rect.Min.Y+2+n*13), 1, colWhite)
			n++
		}
	}
	bars := image.Rect(rect.Min.X+6, rect.Min.Y+4+n*13, rect.Max.X-6, rect.Max.Y-4)
	count := min(ng.n, NetGraphHistory)
	top := int32(1)
	for i := range count {
		top = max(top, ng.in[i], ng.out[i])
	}
	w := float32(bars.Dx()) / NetGraphHistory
	h := float32(bars.Dy())
	cin, cout := rgbaOf(colHealth, 1), rgbaOf(colExplosion, 1)
	for age := range count {
		k := (ng.n - 1 - age) % NetGraphHistory
		x := float32(bars.Max.X) - float32(age+1)*w
		hi := h * float32(ng.in[k]) / float32(top)
		ho := h * float32(ng.out[k]) / float32(top)
		hb.rect(x, float32(bars.Max.Y)-hi, w/2, hi, cin)
		hb.rect(x+w/2, float32(bars.Max.Y)-ho, w/2, ho, cout)
	}
	hb.flush(screen)
}
