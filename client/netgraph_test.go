package client

import (
	"math"
	"testing"
	"time"

	"tremor/bg"
)

// graphEvent is one step of a scripted exchange for the net graph.
type graphEvent struct {
	at   int32 // client realtime, ms
	kind byte  // 'i' packet in, 'o' packet out, 'm' message, 's' snapshot, 'r' reset jitter
	n    int   // bytes ('i', 'o'), sequences lost ('m'), ping ('s')
	// for 's': arrival (ms on the reader's clock), server time, flags
	arrival    int32
	serverTime int32
	full, rate bool
}

func runGraph(events []graphEvent) *netGraph {
	var g netGraph
	for _, e := range events {
		switch e.kind {
		case 'i':
			g.packetIn(e.at, e.n)
		case 'o':
			g.packetOut(e.at, e.n)
		case 'm':
			g.message(e.at, uint32(e.n))
		case 's':
			g.snapshot(e.at, time.Duration(e.arrival)*time.Millisecond, e.serverTime, e.full, e.rate, int32(e.n))
		case 'r':
			g.resetJitter()
		}
	}
	return &g
}

// every returns kind events every step ms from start (inclusive) to end
// (exclusive), n each.
func every(kind byte, start, end, step int32, n int) []graphEvent {
	var out []graphEvent
	for t := start; t < end; t += step {
		out = append(out, graphEvent{at: t, kind: kind, n: n})
	}
	return out
}

func cat(parts ...[]graphEvent) []graphEvent {
	var out []graphEvent
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// snaps returns snapshots arriving every interval ms from start, server
// times 50 ms apart from 1000, with the given pings (cycled).
func snaps(start, end, interval int32, pings ...int) []graphEvent {
	var out []graphEvent
	st := int32(1000)
	for t, k := start, 0; t < end; t, k = t+interval, k+1 {
		out = append(out, graphEvent{at: t, kind: 's', n: pings[k%len(pings)], arrival: t, serverTime: st})
		st += 50
	}
	return out
}

// later returns events with their server times dt ms later.
func later(events []graphEvent, dt int32) []graphEvent {
	for i := range events {
		events[i].serverTime += dt
	}
	return events
}

func TestNetGraphAccumulator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []graphEvent
		now    int32
		want   NetGraph
	}{
		{"nothing yet", nil, 5000, NetGraph{Ping: -1, Jitter: -1}},
		{"bytes and packets over one second",
			cat(every('i', 0, 1000, 10, 100), every('o', 0, 1000, 33, 60)), 1000,
			NetGraph{BytesIn: 10000, PacketsIn: 100, BytesOut: 31 * 60, PacketsOut: 31, Ping: -1, Jitter: -1}},
		{"the current bucket is not counted yet",
			every('i', 0, 1050, 10, 100), 1050,
			NetGraph{BytesIn: 10000, PacketsIn: 100, Ping: -1, Jitter: -1}},
		{"the window slides: the first half second has left",
			cat(every('i', 0, 500, 10, 100), every('i', 1000, 1500, 10, 10)), 1500,
			NetGraph{BytesIn: 500, PacketsIn: 50, Ping: -1, Jitter: -1}},
		{"a long silence empties the window",
			every('i', 0, 1000, 10, 100), 60000,
			NetGraph{Ping: -1, Jitter: -1}},
		{"loss: 5 sequences lost of 20 sent",
			cat(every('m', 0, 750, 50, 0), []graphEvent{{at: 800, kind: 'm', n: 3}, {at: 900, kind: 'm', n: 2}}), 1000,
			NetGraph{Messages: 17, Lost: 5, Loss: 100 * 5.0 / 22, Ping: -1, Jitter: -1}},
		// The newest eight that measured one: 50 60 40 50 60 40 50 60.
		{"ping is the mean of the newest snapshots that measured one",
			snaps(0, 1000, 50, 40, 60, -1, 50), 1000,
			NetGraph{Snapshots: 20, Ping: 51.25, Jitter: 0}},
		{"no ping when no snapshot of the last second measured one",
			cat(snaps(0, 500, 50, 40), later(snaps(1000, 2000, 50, -1), 1000)), 2000,
			NetGraph{Snapshots: 20, Ping: -1, Jitter: 0}},
		{"full and rate-delayed snapshots",
			[]graphEvent{
				{at: 100, kind: 's', n: 30, arrival: 100, serverTime: 1000, full: true},
				{at: 150, kind: 's', n: 30, arrival: 150, serverTime: 1050},
				{at: 250, kind: 's', n: 30, arrival: 250, serverTime: 1150, rate: true},
				{at: 300, kind: 's', n: 30, arrival: 300, serverTime: 1200},
			}, 1000,
			NetGraph{Snapshots: 4, Full: 1, RateDelayed: 1, Ping: 30, Jitter: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := runGraph(tc.events)
			got := g.stats(tc.now)
			if !sameGraph(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func sameGraph(a, b NetGraph) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	fa, fb := a, b
	fa.Loss, fa.Ping, fa.Jitter = 0, 0, 0
	fb.Loss, fb.Ping, fb.Jitter = 0, 0, 0
	return fa == fb && near(a.Loss, b.Loss) && near(a.Ping, b.Ping) && near(a.Jitter, b.Jitter)
}

// Jitter is the mean |arrival gap - server time gap| of consecutive
// snapshots.
func TestNetGraphJitter(t *testing.T) {
	type snap struct{ arrival, serverTime int32 }
	for _, tc := range []struct {
		name  string
		snaps []snap
		reset int // reset before this snapshot (0: never)
		want  float64
	}{
		{"one snapshot measures nothing", []snap{{100, 1000}}, 0, -1},
		{"steady 50 ms", []snap{{100, 1000}, {150, 1050}, {200, 1100}, {250, 1150}}, 0, 0},
		{"a constant delay is not jitter", []snap{{190, 1000}, {240, 1050}, {290, 1100}}, 0, 0},
		{"10 ms either way", []snap{{100, 1000}, {160, 1050}, {200, 1100}, {260, 1150}}, 0, 10},
		{"one late snapshot", []snap{{100, 1000}, {150, 1050}, {230, 1100}, {250, 1150}}, 0, (0 + 30 + 30) / 3.0},
		{"a lost snapshot is not jitter", []snap{{100, 1000}, {200, 1100}, {250, 1150}}, 0, 0},
		{"a rate-delayed one neither", []snap{{100, 1000}, {250, 1150}}, 0, 0},
		{"a stale snapshot is skipped", []snap{{100, 1000}, {150, 1050}, {170, 1050}, {200, 1100}}, 0, 0},
		{"a new gamestate starts again", []snap{{100, 1000}, {150, 1050}, {400, 200}, {450, 250}}, 3, 0},
		{"without the reset the server time going back is skipped", []snap{{100, 1000}, {150, 1050}, {400, 200}, {450, 1100}}, 0, (0 + 250) / 2.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g netGraph
			var sum time.Duration
			n := 0
			for i, s := range tc.snaps {
				if tc.reset != 0 && i == tc.reset-1 {
					g.resetJitter()
				}
				if d, ok := g.snapshot(s.arrival, time.Duration(s.arrival)*time.Millisecond, s.serverTime, false, false, 20); ok {
					sum += d
					n++
				}
			}
			got := g.stats(1000).Jitter
			if math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("jitter %v ms, want %v", got, tc.want)
			}
			if tc.want >= 0 && (n == 0 || math.Abs(float64(sum)/float64(n)/float64(time.Millisecond)-tc.want) > 1e-9) {
				t.Fatalf("samples returned: %v over %d, want a mean of %v", sum, n, tc.want)
			}
		})
	}
}

// The client feeds the net graph from its traffic: bytes both ways,
// snapshots, ping and the reliable commands waiting.
func TestClientNetGraph(t *testing.T) {
	c, s := newPair(t, Config{Seed: 3})
	now := int32(0)
	connect(t, c, s, &now)
	for k := int32(1); k <= 40; k++ {
		s.sendSnapshot(1000+50*k, bg.PlayerState{CommandTime: 1000 + 50*k, ClientNum: 3}, nil, s.deltaFor(), 0)
		now += 50
		step(t, c, s, now, bg.UserCmd{})
	}
	if err := c.AddReliableCommand("say hi"); err != nil {
		t.Fatal(err)
	}
	g := c.NetGraph()
	st := c.Stats()
	if g.Snapshots < 19 || g.Snapshots > 21 || g.PacketsIn < g.Snapshots || g.BytesIn == 0 || g.PacketsOut == 0 || g.BytesOut == 0 {
		t.Fatalf("net graph %+v", g)
	}
	if g.Lost != 0 || g.Loss != 0 || g.Full != 0 || g.Ping < 0 || g.Jitter < 0 || g.ReliablePending != 1 {
		t.Fatalf("net graph %+v", g)
	}
	if st.JitterSamples == 0 || st.LossPercent() != 0 {
		t.Fatalf("stats %+v", st)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.NetGraph() }); n != 0 {
		t.Fatalf("NetGraph allocates %v times", n)
	}
}
