package classroom

import (
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/common/console"
	"tremor/internal/testutil"
)

// newModel starts a classroom on duel1 with bots bots and runs it until
// both players are in the game and have landed after spawning.
func newModel(t *testing.T, bots int) *Model {
	t.Helper()
	m, err := New(Config{Map: "duel1", Bots: bots, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for range 100 {
		m.Run(100 * time.Millisecond)
		if m.Player(0).CGame() != nil && m.Player(1).CGame() != nil {
			break
		}
	}
	for i := range 2 {
		if st := m.Player(i).C.State(); st != client.Active {
			t.Fatalf("P%d is %v after %v", i+1, st, m.Now())
		}
	}
	m.Run(2 * time.Second)
	return m
}

// console returns a program table with the classroom's commands, its
// output in buf.
func programTable(m *Model, buf *testutil.LockedBuffer) *console.Table {
	t := console.NewTable()
	t.SetOutput(buf)
	m.AddCommands(t)
	return t
}

// TestNoPredictFollowsOneRoundTripLate is the classroom's first lesson
// without a window: P1 with prediction off and 200 ms each way, P2 with
// prediction on a clean link, both press right at the same frame. P1's
// drawn position starts to move only once the usercmd has reached the
// server and the snapshot showing its effect has come back, at least a
// round trip later; P2's moves in that same frame, and P2 never
// mispredicts.
func TestNoPredictFollowsOneRoundTripLate(t *testing.T) {
	m := newModel(t, 0)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	con.ExecuteString("p1 cl_nopredict 1")
	con.ExecuteString("p1 lag 200")
	m.Run(time.Second) // the new delay fills the pipe, P1 catches up with its own past
	p1, p2 := m.Player(0), m.Player(1)
	if !p1.cv.client.CGame.NoPredict || p2.cv.client.CGame.NoPredict {
		t.Fatalf("cl_nopredict: P1 %v P2 %v, want true false", p1.cv.client.CGame.NoPredict, p2.cv.client.CGame.NoPredict)
	}
	const rtt = 400 * time.Millisecond
	x0 := [2]float64{p1.CGame().DrawnOrigin.X, p2.CGame().DrawnOrigin.X}
	p1.In.Right, p2.In.Right = true, true
	pressed, frames := m.Now(), p2.CGame().Stats.Frames
	var moved [2]time.Duration
	var firstFrame time.Duration // the first client frame that read the key
	for m.Now()-pressed < 2*time.Second && (moved[0] == 0 || moved[1] == 0) {
		m.Run(Step)
		if firstFrame == 0 && p2.CGame().Stats.Frames != frames {
			firstFrame = m.Now() - pressed
		}
		for i, p := range [...]*Player{p1, p2} {
			if moved[i] == 0 && p.CGame().DrawnOrigin.X > x0[i] {
				moved[i] = m.Now() - pressed
			}
		}
	}
	t.Logf("drawn position moved after: P1 %v, P2 %v (round trip %v; first frame after the key %v)", moved[0], moved[1], rtt, firstFrame)
	if moved[0] < rtt {
		t.Errorf("P1 (no prediction, 200 ms each way) moved %v after the key, want at least a round trip, %v", moved[0], rtt)
	}
	if moved[1] == 0 || moved[1] != firstFrame {
		t.Errorf("P2 (prediction, clean link) moved %v after the key, want in the first frame after it (%v)", moved[1], firstFrame)
	}
	if n := p2.CGame().Stats.PredictionMisses; n != 0 {
		t.Errorf("P2 mispredicted %d times on a clean link, want 0", n)
	}
	for i, p := range [...]*Player{p1, p2} {
		st, ok := p.C.NetchanStats()
		ci := m.Server().Client(int(p.C.ClientNum()))
		if !ok || st.PacketsOut == 0 || st.MessagesIn == 0 || ci.Netchan.PacketsIn == 0 || ci.Usercmds == 0 {
			t.Errorf("P%d did not go through the netchan: client %+v, server %+v", i+1, st, ci.Netchan)
		}
	}
}

// TestLaneCountsMatchNetchans checks that the lanes show what the
// netchans count: per player and direction, the packets sent, delivered,
// lost (the receiver's sequence gaps) and duplicated (the receiver's
// duplicates dropped), on links that lose and duplicate both ways.
func TestLaneCountsMatchNetchans(t *testing.T) {
	m := newModel(t, 1)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	for _, l := range []string{"p1 loss 10", "p1 dup 10", "p1 lag 60", "p2 cl_bot 1", "p2 cl_packetloss 25", "p2 sv_packetdup 20", "p2 sv_packetjitter 20"} {
		con.ExecuteString(l)
	}
	m.Player(0).In.Right = true
	m.Run(5 * time.Second)
	m.Player(0).In = Input{Left: true, Jump: true}
	m.Run(5 * time.Second)
	// A clean tail: every packet lost is followed by one delivered, so
	// the receivers have counted the gaps, and nothing is in flight.
	for _, l := range []string{"p1 loss 0", "p1 dup 0", "p1 lag 0", "p2 cl_packetloss 0", "p2 sv_packetdup 0", "p2 sv_packetjitter 0"} {
		con.ExecuteString(l)
	}
	m.Run(time.Second)
	for i := range 2 {
		p := m.Player(i)
		cs, ok := p.C.NetchanStats()
		if !ok {
			t.Fatalf("P%d has no netchan", i+1)
		}
		ss := m.Server().Client(int(p.C.ClientNum())).Netchan
		up, down := m.Counts(i, Up), m.Counts(i, Down)
		t.Logf("P%d up %+v\nP%d down %+v", i+1, up, i+1, down)
		for _, c := range []struct {
			what        string
			lane, chan_ uint64
		}{
			{"up: sent (client's PacketsOut)", up.NetchanSent, cs.PacketsOut},
			{"up: delivered (server's PacketsIn)", up.NetchanDelivered, ss.PacketsIn},
			{"up: lost (server's PacketsDropped)", up.NetchanLost, ss.PacketsDropped},
			{"up: duplicated (server's OutOfOrder)", up.NetchanDuplicated, ss.OutOfOrder},
			{"down: sent (server's PacketsOut)", down.NetchanSent, ss.PacketsOut},
			{"down: delivered (client's PacketsIn)", down.NetchanDelivered, cs.PacketsIn},
			{"down: lost (client's PacketsDropped)", down.NetchanLost, cs.PacketsDropped},
			{"down: duplicated (client's OutOfOrder)", down.NetchanDuplicated, cs.OutOfOrder},
		} {
			if c.lane != c.chan_ {
				t.Errorf("P%d %s: lane %d, netchan %d", i+1, c.what, c.lane, c.chan_)
			}
		}
		if up.NetchanLost+down.NetchanLost == 0 || up.NetchanDuplicated+down.NetchanDuplicated == 0 {
			t.Errorf("P%d: no loss or no duplicate on its impaired link: up %+v down %+v", i+1, up, down)
		}
	}
}

// TestPrefixesAimAtOnePane checks that p1, p2 and sv reach one table
// each, and that the lanes' settings follow the panes' cvars.
func TestPrefixesAimAtOnePane(t *testing.T) {
	m := newModel(t, 0)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	con.ExecuteString("p2 cg_errorDecay 0")
	con.ExecuteString("p2 lag 150")
	con.ExecuteString("p1 cl_packetloss 5")
	con.ExecuteString("sv sv_fps 10")
	p1, p2 := m.Player(0), m.Player(1)
	if p1.cv.client.CGame.ErrorDecay != 100 || p2.cv.client.CGame.ErrorDecay != 0 {
		t.Errorf("cg_errorDecay: P1 %d P2 %d, want 100 0", p1.cv.client.CGame.ErrorDecay, p2.cv.client.CGame.ErrorDecay)
	}
	if d := p2.up.link.Config().Delay; d != 150*time.Millisecond {
		t.Errorf("P2 uplink delay %v, want 150ms", d)
	}
	if d := p2.down.link.Config().Delay; d != 150*time.Millisecond {
		t.Errorf("P2 downlink delay %v, want 150ms", d)
	}
	if d := p1.up.link.Config().Delay; d != 0 {
		t.Errorf("P1 uplink delay %v, want 0", d)
	}
	if l := p1.up.link.Config().Loss; l != 0.05 {
		t.Errorf("P1 uplink loss %v, want 0.05", l)
	}
	if f := m.Server().Config().FPS; f != 10 {
		t.Errorf("sv_fps %d, want 10", f)
	}
	if p1.C.Config().PacketDelay != 0 || p2.C.Config().PacketDelay != 0 {
		t.Error("the client engine delays packets itself: the lanes would not show it")
	}
	con.ExecuteString("inspect last")
	if !strings.Contains(out.String(), "#") || !strings.Contains(out.String(), "bits") {
		t.Errorf("inspect last printed %q", out.String())
	}
	m.Run(200 * time.Millisecond)
	con.ExecuteString("inspect last p1 down")
	e, ok := m.Event(m.Selected())
	if !ok || e.Player != 0 || e.Dir != Down || (e.Kind != KindDelta && e.Kind != KindFull) {
		t.Errorf("inspect last p1 down selected %v %v", ok, e)
	}
	if !strings.Contains(out.String(), "P1 <- server") && !strings.Contains(out.String(), "server -> P1") {
		t.Errorf("inspect last p1 down printed %q", out.String())
	}
}

// TestSlowMotion checks the clock: a real second at 0.1× runs 100 ms,
// paused none.
func TestSlowMotion(t *testing.T) {
	m := newModel(t, 0)
	t0 := m.Now()
	m.SetSpeed(0.1)
	for range 60 {
		m.Advance(time.Second / 60)
	}
	if d := m.Now() - t0; d < 99*time.Millisecond || d > 101*time.Millisecond {
		t.Errorf("a second at 0.1× ran %v, want 100ms", d)
	}
	m.SetPaused(true)
	t1 := m.Now()
	m.Advance(time.Second)
	if m.Now() != t1 {
		t.Errorf("paused clock ran %v", m.Now()-t1)
	}
	m.SetSpeed(0.001)
	if m.Speed() != MinSpeed {
		t.Errorf("speed %v, want clamped to %v", m.Speed(), MinSpeed)
	}
}

// TestEventsInFlight checks that the lanes' events are the packets in
// flight: with 200 ms of lag some are, each with its kind and arrival.
func TestEventsInFlight(t *testing.T) {
	m := newModel(t, 1)
	m.Player(0).T.ExecuteString("lag 200")
	m.Run(time.Second)
	kinds := map[Kind]int{}
	n := 0
	m.Events(0, func(e *Event) {
		if e.Player != 0 {
			return
		}
		n++
		kinds[e.Kind]++
		if e.Copies != 1 || e.Arrive[0]-e.Sent != 200*time.Millisecond {
			t.Errorf("%s: want one copy 200 ms on the way", Headline(e))
		}
	})
	if n == 0 || kinds[KindUsercmd] == 0 || kinds[KindDelta] == 0 {
		t.Errorf("P1's packets in flight: %d, kinds %v", n, kinds)
	}
}

// TestPingFollowsTheLink sets a pane's lag as a teacher does and reads
// the panes' ping as a class would, every 50 ms for two seconds: the pane
// whose link changed reads the new round trip within them, the other
// keeps reading its own all along.
func TestPingFollowsTheLink(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before string // run 3 s before the lines ("": nothing)
		lines  string
		player int
		// Every reading for 2 s (stay), or one within them, is above
		// lo and under hi.
		lo, hi float64
		stay   bool
	}{
		{"p2 lag 200: P2 reads over 400 ms", "", "p2 lag 200", 1, 400, 500, false},
		{"p2 lag 200: P1 keeps its clean link's", "", "p2 lag 200", 0, 0, 100, true},
		{"p1 lag 0 after p1 lag 200: P1 back under 100 ms", "p1 lag 200", "p1 lag 0", 0, 0, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, 0)
			var out testutil.LockedBuffer
			con := programTable(m, &out)
			if tc.before != "" {
				con.ExecuteString(tc.before)
				m.Run(3 * time.Second)
			}
			was := m.Player(tc.player).Figures().Ping
			con.ExecuteString(tc.lines)
			changed := m.Now()
			var got client.Ping
			reached := false
			for m.Now()-changed < 2*time.Second {
				m.Run(50 * time.Millisecond)
				got = m.Player(tc.player).Figures().Ping
				in := got.Samples > 0 && got.Mean > tc.lo && got.Mean < tc.hi
				if tc.stay && !in {
					t.Fatalf("P%d ping %.1f ms %v after %q, want it to stay over %.0f and under %.0f", tc.player+1, got.Mean, m.Now()-changed, tc.lines, tc.lo, tc.hi)
				}
				if !tc.stay && in {
					reached = true
					break
				}
			}
			t.Logf("P%d ping %.1f ms (%d-%d) %v after %q; %.1f ms before", tc.player+1, got.Mean, got.Low, got.High, m.Now()-changed, tc.lines, was.Mean)
			if !tc.stay && !reached {
				t.Fatalf("P%d ping %.1f ms 2 s after %q, want over %.0f and under %.0f", tc.player+1, got.Mean, tc.lines, tc.lo, tc.hi)
			}
		})
	}
}
