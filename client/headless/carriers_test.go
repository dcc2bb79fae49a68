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

// soakAckOffset starts the acks carrier's 16-bit packet sequence 300
// packets before its wrap, so that every connection of TestSoakCarriers
// crosses it within its first 15 s each way: at 30 and 20 packets a
// second a real sequence would take an hour.
const soakAckOffset = 1<<16 - 300

// TestSoakCarriers runs both carriers of reliable commands side by side
// on one server over the terrible network: two clients on Quake III's
// rings and two on the acks carrier (messages by id over packet acks),
// all chatting. Every chat line must reach every other client of its
// carrier exactly once and in order, and nobody may be dropped. On the
// acks carrier no packet may be acknowledged, either way, that the
// other end did not receive (ackLedger), across at least one wrap of
// the carrier's 16-bit sequence. The short version runs in every `go
// test`; -soak=DURATION (make soak) runs it for that long.
func TestSoakCarriers(t *testing.T) {
	duration := 40 * time.Second
	if *soakDuration > 0 {
		duration = *soakDuration
	}
	ledger := newAckLedger(t, soakAckOffset) // before the server: stopped after it
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
	for _, d := range ts.drops {
		if !strings.HasSuffix(d, ": disconnected") {
			t.Errorf("server dropped a client: %s", d)
		}
	}
	ts.mu.Unlock()
	ts.stop() // no packet in flight past the ledger's check
	falseAcks, wraps := ledger.check(t)
	t.Logf("acks carrier: %d false acks, each connection crossed at least %d wraps of the 16-bit sequence each way", falseAcks, wraps)
	if wraps < 1 {
		t.Errorf("a connection crossed %d wraps of the 16-bit sequence, want at least 1", wraps)
	}
}

// TestCarrierCosts runs both carriers side by side over 10 % loss and
// 50 ms each way and checks what the report and the server count of
// them: the bytes of the reliable commands each way, the acks carrier's
// packet acks, and the chat delivery delays.
func TestCarrierCosts(t *testing.T) {
	const loss, delay = 10, 50 * time.Millisecond
	cfg := server.DefaultConfig()
	cfg.Seed = 27
	cfg.PacketLoss = loss
	cfg.PacketDelay = int(delay / time.Millisecond)
	ts := startServer(t, cfg, "arena1", 0)
	carriers := []struct{ carrier, prefix string }{{proto.ReliableQ3, "Ring"}, {proto.ReliableAcks, "Acks"}}
	reps := make([]*headless.Report, len(carriers))
	errs := make([]error, len(carriers))
	var wg sync.WaitGroup
	for k, c := range carriers {
		wg.Go(func() {
			reps[k], errs[k] = headless.New(headless.Config{
				Server:     ts.srv.Addr(),
				Clients:    2,
				Duration:   10 * time.Second,
				ChatEvery:  300 * time.Millisecond,
				NamePrefix: c.prefix,
				Seed:       uint64(k + 1),
				Client: client.Config{
					PacketLoss:   loss,
					PacketDelay:  delay,
					ConnectTries: 20,
					Reliable:     c.carrier,
				},
			}).Run(context.Background())
		})
	}
	wg.Wait()
	// Commands bytes up per chat line sent, by carrier.
	perLine := map[string]float64{}
	for k, c := range carriers {
		rep := reps[k]
		if errs[k] != nil {
			t.Fatalf("%s clients: %v", c.carrier, errs[k])
		}
		checkReport(t, rep, 2)
		tot := &rep.Totals
		if tot.ChatSent == 0 || tot.ChatDelays != tot.ChatReceived-tot.ChatDuplicated {
			t.Errorf("%s: %d chat delays measured for %d lines received (%d sent)", c.carrier, tot.ChatDelays, tot.ChatReceived, tot.ChatSent)
		}
		// A line goes up and comes down: it cannot arrive sooner than
		// the delays applied each way.
		if floor := float64(2 * delay / time.Millisecond); tot.ChatDelayP50Ms < floor ||
			tot.ChatDelayP50Ms > tot.ChatDelayP99Ms || tot.ChatDelayP99Ms > tot.ChatDelayMaxMs {
			t.Errorf("%s: chat delay p50 %.0f, p99 %.0f, max %.0f ms; at least %.0f expected", c.carrier,
				tot.ChatDelayP50Ms, tot.ChatDelayP99Ms, tot.ChatDelayMaxMs, floor)
		}
		if tot.ReliableBytesUp == 0 {
			t.Errorf("%s: no reliable bytes counted up", c.carrier)
		}
		perLine[c.carrier] = float64(tot.ReliableBytesUp) / float64(tot.ChatSent)
		// Every message of the acks carrier starts with its packet acks
		// (an op, 16 and 32 bits, Huffman-coded): a few bytes each.
		ackPerPacket := float64(tot.AckBytesUp) / float64(tot.PacketsUp)
		if c.carrier == proto.ReliableQ3 && tot.AckBytesUp != 0 ||
			c.carrier == proto.ReliableAcks && (ackPerPacket < 3 || ackPerPacket > 12) {
			t.Errorf("%s: %d ack bytes up in %d packets", c.carrier, tot.AckBytesUp, tot.PacketsUp)
		}
		t.Logf("%s: %d lines, %.1f reliable bytes up a line, %d ack bytes up, chat delay p50 %.0f ms, p99 %.0f ms",
			c.carrier, tot.ChatSent, perLine[c.carrier], tot.AckBytesUp, tot.ChatDelayP50Ms, tot.ChatDelayP99Ms)
	}
	// The rings repeat a command in every message until it is
	// acknowledged, a round trip of 100 ms at cl_maxpackets: several
	// copies of each; the acks carrier sends it again only after 100 ms.
	if perLine[proto.ReliableQ3] < 1.5*perLine[proto.ReliableAcks] {
		t.Errorf("client commands up a line: rings %.1f bytes, acks %.1f: the rings should repeat theirs",
			perLine[proto.ReliableQ3], perLine[proto.ReliableAcks])
	}
	ts.stop()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	seen := 0
	for _, ci := range ts.left {
		want := proto.ReliableQ3
		if strings.HasPrefix(ci.Name, "Acks") {
			want = proto.ReliableAcks
		}
		if ci.Reliable != want || ci.ReliableBits == 0 || (ci.AckBits > 0) != (want == proto.ReliableAcks) {
			t.Errorf("server: client %s left on %q with %d reliable bits and %d ack bits down", ci.Name, ci.Reliable, ci.ReliableBits, ci.AckBits)
		}
		seen++
	}
	if seen != 4 {
		t.Errorf("server saw %d clients leave, want 4", seen)
	}
}
