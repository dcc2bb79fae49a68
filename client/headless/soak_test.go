package headless_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/server"
)

// soakNet is the terrible network of the soak test, both ways: 20%
// loss, 5% duplication, 10% reordering, 50±30 ms latency.
var soakNet = struct {
	loss, dup, reorder int
	delay, jitter      time.Duration
}{20, 5, 10, 50 * time.Millisecond, 30 * time.Millisecond}

// TestSoak runs clients through the terrible network with a 2 s
// blackout. The short version runs in every `go test`; -soak=DURATION
// (make soak) runs the long one with more clients and a blackout every
// 30 s.
func TestSoak(t *testing.T) {
	if *soakDuration > 0 {
		var blackouts []time.Duration
		for at := 15 * time.Second; at+5*time.Second < *soakDuration; at += 30 * time.Second {
			blackouts = append(blackouts, at)
		}
		runSoak(t, 8, *soakDuration, blackouts)
		return
	}
	runSoak(t, 4, 18*time.Second, []time.Duration{8 * time.Second})
}

func runSoak(t *testing.T, clients int, duration time.Duration, blackouts []time.Duration) {
	cfg := server.DefaultConfig()
	cfg.Seed = 21
	cfg.PacketLoss = soakNet.loss
	cfg.PacketDup = soakNet.dup
	cfg.PacketReorder = soakNet.reorder
	cfg.PacketDelay = int(soakNet.delay / time.Millisecond)
	cfg.PacketJitter = int(soakNet.jitter / time.Millisecond)
	ts := startServer(t, cfg, "arena2", 2)

	ccfg := client.Config{
		PacketLoss:      float64(soakNet.loss),
		PacketDuplicate: float64(soakNet.dup),
		PacketReorder:   float64(soakNet.reorder),
		PacketDelay:     soakNet.delay,
		PacketJitter:    soakNet.jitter,
		ConnectTries:    30, // each try is lost 36% of the time
	}
	check := &checkSnapshots{frames: ts.frames}
	r := headless.New(headless.Config{
		Server:     ts.srv.Addr(),
		Clients:    clients,
		Duration:   duration,
		ChatEvery:  500 * time.Millisecond,
		Client:     ccfg,
		Seed:       2,
		OnSnapshot: check.hook,
	})
	// The blackouts: nothing gets through either way for 2 s.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		start := time.Now()
		for _, at := range blackouts {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(start.Add(at))):
			}
			dark := ccfg
			dark.PacketLoss = 100
			r.SetClientConfig(dark)
			ts.srv.Exec("set sv_packetloss 100")
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
			r.SetClientConfig(ccfg)
			ts.srv.Exec(fmt.Sprintf("set sv_packetloss %d", soakNet.loss))
		}
	}()
	rep, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep)
	checkReport(t, rep, clients)
	check.verify(t, rep.Totals.Snapshots)
	if rep.Totals.SnapshotsDropped == 0 {
		t.Error("no snapshot lost: the network was not terrible")
	}
	// 20 % loss and ±30 ms of jitter on the way down show in the report.
	for _, c := range rep.Clients {
		if c.LossPct <= 0 || c.LossPct >= 100 || c.JitterMs <= 0 {
			t.Errorf("client %d: loss %.1f %%, jitter %.1f ms", c.Client, c.LossPct, c.JitterMs)
		}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, d := range ts.drops {
		if !strings.HasSuffix(d, ": disconnected") { // the clients leaving at the end
			t.Errorf("server dropped a client: %s", d)
		}
	}
}
