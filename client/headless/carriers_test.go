package headless_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/proto"
	"tremor/server"
)

// terribleNet is seed 001's terrible network, each way: 30 % loss, 10 %
// duplication, 10 % reordering, and a one-way delay of 100 ms ± 250 ms
// of jitter.
var terribleNet = struct {
	loss, dup, reorder int
	delay, jitter      time.Duration
}{30, 10, 10, 100 * time.Millisecond, 250 * time.Millisecond}

// TestSoakCarriers runs both carriers of reliable commands side by side
// on one server over the terrible network: two clients on Quake III's
// rings and two on the acks carrier (messages by id over packet acks),
// all chatting. Every chat line must reach every other client of its
// carrier exactly once and in order, and nobody may be dropped. The
// short version runs in every `go test`; -soak=DURATION (make soak) runs
// it for that long.
func TestSoakCarriers(t *testing.T) {
	duration := 40 * time.Second
	if *soakDuration > 0 {
		duration = *soakDuration
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 26
	cfg.PacketLoss = terribleNet.loss
	cfg.PacketDup = terribleNet.dup
	cfg.PacketReorder = terribleNet.reorder
	cfg.PacketDelay = int(terribleNet.delay / time.Millisecond)
	cfg.PacketJitter = int(terribleNet.jitter / time.Millisecond)
	ts := startServer(t, cfg, "arena1", 1)

	run := func(carrier, prefix string, seed uint64) (*headless.Report, error) {
		r := headless.New(headless.Config{
			Server:     ts.srv.Addr(),
			Clients:    2,
			Duration:   duration,
			ChatEvery:  400 * time.Millisecond,
			NamePrefix: prefix,
			Seed:       seed,
			Client: client.Config{
				PacketLoss:      float64(terribleNet.loss),
				PacketDuplicate: float64(terribleNet.dup),
				PacketReorder:   float64(terribleNet.reorder),
				PacketDelay:     terribleNet.delay,
				PacketJitter:    terribleNet.jitter,
				ConnectTries:    40,
				Reliable:        carrier,
			},
		})
		return r.Run(context.Background())
	}
	var wg sync.WaitGroup
	reps := map[string]*headless.Report{}
	errs := map[string]error{}
	var mu sync.Mutex
	for _, c := range []struct{ carrier, prefix string }{{proto.ReliableQ3, "Ring"}, {proto.ReliableAcks, "Acks"}} {
		wg.Go(func() {
			rep, err := run(c.carrier, c.prefix, uint64(len(c.prefix)*7+len(c.carrier)))
			mu.Lock()
			defer mu.Unlock()
			reps[c.carrier], errs[c.carrier] = rep, err
		})
	}
	wg.Wait()
	for _, carrier := range []string{proto.ReliableQ3, proto.ReliableAcks} {
		rep := reps[carrier]
		if err := errs[carrier]; err != nil {
			t.Fatalf("%s clients: %v", carrier, err)
		}
		t.Run(carrier, func(t *testing.T) {
			logReport(t, rep)
			checkReport(t, rep, 2)
			for _, c := range rep.Clients {
				if c.Reliable != carrier {
					t.Errorf("client %s ended on the %q carrier, want %q", c.Name, c.Reliable, carrier)
				}
				if carrier == proto.ReliableAcks {
					t.Logf("client %s: ack RTT %.0f ms, upstream loss %.1f %% (applied %d %%), %d commands sent, %d resends",
						c.Name, c.AckRTTMs, c.UpstreamLossPct, terribleNet.loss, c.CommandsSent, c.CommandResends)
					if c.CommandsSent == 0 || c.AckRTTMs <= 0 {
						t.Errorf("client %s sent %d commands by id with an ack RTT of %.0f ms", c.Name, c.CommandsSent, c.AckRTTMs)
					}
				}
			}
		})
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, d := range ts.drops {
		if !strings.HasSuffix(d, ": disconnected") {
			t.Errorf("server dropped a client: %s", d)
		}
	}
}
