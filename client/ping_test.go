package client

import (
	"math"
	"sort"
	"testing"
)

// TestPingMeter checks the meter on given pings: the mean, newest,
// least and most of the newest PingWindow, a snapshot that measured none
// left out.
func TestPingMeter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pings []int32
		want  Ping
	}{
		{"none measured", nil, Ping{}},
		{"only snapshots that measured none", []int32{-1, -1}, Ping{}},
		{"fewer than the window", []int32{40, 60, -1, 50}, Ping{Mean: 50, Newest: 50, Low: 40, High: 60, Samples: 3}},
		{"the window keeps the newest eight",
			[]int32{900, 900, 10, 20, 30, 40, 50, 60, 70, 80},
			Ping{Mean: 45, Newest: 80, Low: 10, High: 80, Samples: PingWindow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m pingMeter
			for _, p := range tc.pings {
				m.add(p)
			}
			if got := m.ping(); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// simLink is a link whose one-way delay, the same both ways, changes
// over time: delay(t) in ms at client time t.
type simLink func(t int32) int32

// stepLink returns a link of before ms each way until at, after ms from then.
func stepLink(before, after, at int32) simLink {
	return func(t int32) int32 {
		if t < at {
			return before
		}
		return after
	}
}

// pingOverLink runs a client and a server over link for end ms as the
// engines do: the client sends a usercmd packet every 33 ms
// (cl_maxpackets 30), the server runs a frame every 50 ms (sv_fps 20) and
// sends a snapshot acknowledging the newest packet it has received, and
// the client takes the ping of each snapshot (from that packet's sending
// to the snapshot's arrival) in the order they arrive, an older one
// overtaken by a newer dropped as the netchan drops it. It returns the
// meter's reading after each snapshot, and each reading's time.
func pingOverLink(link simLink, end int32) (at []int32, read []Ping) {
	type packet struct{ sent, arrive int32 }
	var cmds []packet
	for t := int32(0); t < end; t += 33 {
		cmds = append(cmds, packet{t, t + link(t)})
	}
	type snap struct{ sent, arrive, ping int32 }
	var snaps []snap
	for f := int32(50); f < end; f += 50 {
		acked := int32(-1)
		for _, c := range cmds {
			if c.arrive <= f {
				acked = max(acked, c.sent)
			}
		}
		if acked >= 0 {
			a := f + link(f)
			snaps = append(snaps, snap{f, a, a - acked})
		}
	}
	sort.SliceStable(snaps, func(i, j int) bool { return snaps[i].arrive < snaps[j].arrive })
	var m pingMeter
	newest := int32(-1)
	for _, s := range snaps {
		if s.arrive >= end || s.sent <= newest {
			continue
		}
		newest = s.sent
		m.add(s.ping)
		at, read = append(at, s.arrive), append(read, m.ping())
	}
	return at, read
}

// TestPingOverAChangingLink runs the ping over links whose delay steps
// (as `p2 lag 200` does in the classroom) and checks that the ping shown
// crosses to the new round trip within a few round trips of the change,
// where the session's mean (what the classroom showed before) stays far
// from it.
func TestPingOverAChangingLink(t *testing.T) {
	const change = 3000
	for _, tc := range []struct {
		name string
		link simLink
		// After change + within ms, every reading is above (or, with
		// below, under) bound.
		within int32
		bound  float64
		below  bool
	}{
		{"steady 25 ms each way", stepLink(25, 25, change), 0, 50, false},
		{"steady 25 ms each way stays near the round trip", stepLink(25, 25, change), 0, 50 + 50 + 33, true},
		{"25 to 200 ms each way: above 400 within three round trips", stepLink(25, 200, change), 3 * 400, 400, false},
		{"200 to 25 ms each way: under 100 within three round trips", stepLink(200, 25, change), 3 * 400, 100 + 33, true},
		// A short round trip: the window's eight snapshots take longer
		// than three round trips to fill with the new ones.
		{"0 to 50 ms each way: above 100 within a round trip and a window", stepLink(0, 50, change), 100 + PingWindow*50 + 50, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, read := pingOverLink(tc.link, change+3000)
			var sum float64
			crossed := int32(-1)
			for i, p := range read {
				sum += float64(p.Newest)
				if at[i] < change+tc.within {
					continue
				}
				if crossed < 0 {
					crossed = at[i]
				}
				if p.Samples != PingWindow || p.Low > p.High || p.Mean < float64(p.Low) || p.Mean > float64(p.High) {
					t.Fatalf("at %d ms: %+v is not a reading of a full window", at[i], p)
				}
				if tc.below && p.Mean >= tc.bound || !tc.below && p.Mean <= tc.bound {
					t.Fatalf("at %d ms (%d ms after the change): ping %.1f ms (%d to %d), want %s %.0f",
						at[i], at[i]-change, p.Mean, p.Low, p.High, map[bool]string{true: "under", false: "above"}[tc.below], tc.bound)
				}
			}
			if crossed < 0 {
				t.Fatal("no reading after the change")
			}
			last := read[len(read)-1]
			t.Logf("last reading %.1f ms (%d to %d), session mean %.1f ms", last.Mean, last.Low, last.High, sum/float64(len(read)))
			// What the classroom showed before, the session's mean, is
			// still half way between the two after three seconds.
			if big := math.Abs(float64(tc.link(change) - tc.link(0))); big >= 100 && math.Abs(last.Mean-sum/float64(len(read))) < big/2 {
				t.Errorf("the session mean %.1f ms is as near the new round trip as the ping shown, %.1f", sum/float64(len(read)), last.Mean)
			}
		})
	}
}
