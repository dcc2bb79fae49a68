package headless_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/proto"
	"tremor/server"
)

// TestCarrierSwitch has two clients chat with each other over a lossy
// link while their carrier of reliable commands goes from Quake III's
// rings to the acks carrier and back: each change is a cl_reliable
// change, which goes to the server in the userinfo, and a map_restart,
// whose gamestate applies it. Chat lines are in flight both ways at
// each switch; every line must reach the other client once and in
// order, nobody may be dropped, the server must see each client on the
// carrier asked for after each gamestate, and the packet acks must stop
// once the clients are back on the rings. No packet may be acknowledged
// that the other end did not receive.
func TestCarrierSwitch(t *testing.T) {
	ledger := newAckLedger(t, switchAckOffset)
	cfg := server.DefaultConfig()
	cfg.Seed = 33
	cfg.PacketLoss = soakNet.loss
	cfg.PacketDup = soakNet.dup
	cfg.PacketReorder = soakNet.reorder
	cfg.PacketDelay = int(soakNet.delay / time.Millisecond)
	cfg.PacketJitter = int(soakNet.jitter / time.Millisecond)
	ts := startServer(t, cfg, "arena1", 0)

	ccfg := client.Config{
		PacketLoss:      float64(soakNet.loss),
		PacketDuplicate: float64(soakNet.dup),
		PacketReorder:   float64(soakNet.reorder),
		PacketDelay:     soakNet.delay,
		PacketJitter:    soakNet.jitter,
		ConnectTries:    40,
		Reliable:        proto.ReliableQ3,
	}
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   2,
		Duration:  34 * time.Second,
		ChatEvery: 150 * time.Millisecond,
		Seed:      5,
		Client:    ccfg,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The phases: the clients chat on the rings; they ask for the acks
	// carrier, and once the server has their new userinfo the map
	// restarts; once both are back in the game on acks they chat a
	// while, ask for the rings, and the map restarts again; a while
	// after both are back in the game, what the server sent them is
	// read. Each wait is for what the server has of both clients.
	type seen struct {
		carriers []string
		asked    int // clients whose userinfo asks for acks
		active   int
		ackBits  int64
		gs       int
	}
	sample := func() (s seen) {
		ts.srv.Do(ctx, func() {
			for _, ci := range ts.srv.Clients() {
				if ci.Bot || ci.State < server.StateConnected {
					continue
				}
				if strings.Contains(ci.Userinfo, `\reliable\acks`) {
					s.asked++
				}
				if ci.State == server.StateActive {
					s.active++
					s.carriers = append(s.carriers, ci.Reliable)
				}
				s.ackBits += ci.AckBits
				s.gs += ci.Gamestates
			}
		})
		return s
	}
	ask := func(carrier string) {
		c := ccfg
		c.Reliable = carrier
		r.SetClientConfig(c)
	}
	// await waits, up to 8 s, until cond holds of what the server has.
	var waitErr error
	await := func(what string, cond func(s seen) bool) {
		for end := time.Now().Add(8 * time.Second); waitErr == nil; {
			if cond(sample()) {
				return
			}
			if time.Now().After(end) || ctx.Err() != nil {
				waitErr = fmt.Errorf("%s: not within 8 s (%+v)", what, sample())
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	on := func(carrier string) func(s seen) bool {
		return func(s seen) bool {
			return s.active == 2 && s.carriers[0] == carrier && s.carriers[1] == carrier
		}
	}
	samples := map[string]seen{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(5 * time.Second)
		await("both clients in the game", on(proto.ReliableQ3))
		samples["q3"] = sample()
		ask(proto.ReliableAcks)
		await("the userinfo asking for acks", func(s seen) bool { return s.asked == 2 })
		ts.srv.Exec("map_restart")
		await("both on acks", on(proto.ReliableAcks))
		time.Sleep(4 * time.Second)
		samples["acks"] = sample()
		ask(proto.ReliableQ3)
		await("the userinfo asking for the rings", func(s seen) bool { return s.asked == 0 })
		ts.srv.Exec("map_restart")
		await("both back on the rings", on(proto.ReliableQ3))
		time.Sleep(4 * time.Second)
		samples["back"] = sample()
	}()
	rep, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if waitErr != nil {
		t.Fatal(waitErr)
	}
	logReport(t, rep)
	checkReport(t, rep, 2)
	for _, c := range rep.Clients {
		if c.Reliable != proto.ReliableQ3 {
			t.Errorf("client %s ended on the %q carrier, want q3", c.Name, c.Reliable)
		}
	}
	for _, want := range []struct{ phase, carrier string }{
		{"q3", proto.ReliableQ3}, {"acks", proto.ReliableAcks}, {"back", proto.ReliableQ3},
	} {
		s := samples[want.phase]
		t.Logf("%s: the server has the clients on %v, %d bits of packet acks sent, %d gamestates", want.phase, s.carriers, s.ackBits, s.gs)
		if len(s.carriers) != 2 || s.carriers[0] != want.carrier || s.carriers[1] != want.carrier {
			t.Errorf("%s: the server has the clients on %v, want %s for both", want.phase, s.carriers, want.carrier)
		}
	}
	if q, a := samples["q3"], samples["acks"]; q.ackBits != 0 || a.ackBits == 0 || a.gs < q.gs+2 {
		t.Errorf("packet acks: %d bits on the rings, %d after the switch to acks (gamestates %d then %d)", q.ackBits, a.ackBits, q.gs, a.gs)
	}
	ts.stop()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	back := samples["back"]
	var left int64
	for _, ci := range ts.left {
		left += ci.AckBits
	}
	if len(ts.left) != 2 || left != back.ackBits {
		t.Errorf("packet acks went on after the switch back to the rings: %d bits when the clients left, %d 4 s after both were back (%d clients left)",
			left, back.ackBits, len(ts.left))
	}
	for _, d := range ts.drops {
		// A client whose three disconnect packets were all lost leaves
		// when the server stops.
		if !strings.HasSuffix(d, ": disconnected") && !strings.HasSuffix(d, ": Server shutting down") {
			t.Errorf("server dropped a client: %s", d)
		}
	}
	falseAcks, wraps := ledger.check(t)
	t.Logf("acks carrier: %d false acks, at least %d wraps of the 16-bit sequence each way", falseAcks, wraps)
}

// switchAckOffset starts the acks carrier's 16-bit packet sequence so
// that it wraps while TestCarrierSwitch's clients are on the carrier.
const switchAckOffset = 1<<16 - 350
