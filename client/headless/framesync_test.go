package headless_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/proto"
	"tremor/server"
)

var frameSyncSoak = flag.Duration("framesync.soak", 0, "run the long frame-sync soak for this long (make framesync-soak)")

// frameSyncNet is the frame-sync soak's network, both ways: 5 % loss and
// 40 ms of jitter on 40 ms of delay.
var frameSyncNet = struct {
	loss          int
	delay, jitter time.Duration
}{5, 40 * time.Millisecond, 40 * time.Millisecond}

// TestFrameSyncSoak runs a server in sv_netmodel framesync with four
// bots and four headless clients over a lossy, jittery link both ways:
// every client runs the game itself from the frames, rolls back and
// checks the server's state hash every sv_frameHashEvery frames. No hash
// may differ, every client must confirm frames to the end, and every
// chat line must arrive once and in order. The short version runs in
// every `go test`; -framesync.soak=DURATION (make framesync-soak) the
// long one.
func TestFrameSyncSoak(t *testing.T) {
	duration := 20 * time.Second
	if *frameSyncSoak > 0 {
		duration = *frameSyncSoak
	} else if testing.Short() {
		t.Skip("20 s of real time")
	}
	const clients = 4
	cfg := server.DefaultConfig()
	cfg.Seed = 27
	cfg.NetModel = proto.NetModelFrameSync
	cfg.PacketLoss = frameSyncNet.loss
	cfg.PacketDelay = int(frameSyncNet.delay / time.Millisecond)
	cfg.PacketJitter = int(frameSyncNet.jitter / time.Millisecond)
	cfg.Game.TimeLimit = 0 // one match for the whole run
	cfg.Game.FragLimit = 0
	ts := startServer(t, cfg, "arena2", 4)
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   clients,
		Duration:  duration,
		ChatEvery: time.Second,
		Seed:      9,
		Client: client.Config{
			PacketLoss:   float64(frameSyncNet.loss),
			PacketDelay:  frameSyncNet.delay,
			PacketJitter: frameSyncNet.jitter,
			ConnectTries: 10,
		},
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, clients)
	newest := int32(0)
	for _, c := range rep.Clients {
		if c.FrameSync != nil {
			newest = max(newest, c.FrameSync.Confirmed)
		}
	}
	for _, c := range rep.Clients {
		fs := c.FrameSync
		if fs == nil {
			t.Errorf("client %d: no frame-sync counters: it ran with snapshots", c.Client)
			continue
		}
		b, _ := json.Marshal(fs)
		t.Logf("client %d: down %.0f B/s, up %.0f B/s, %s", c.Client,
			float64(c.BytesDown)/c.DurationS, float64(c.BytesUp)/c.DurationS, b)
		if fs.Mismatches != 0 || fs.Desync != "" {
			t.Errorf("client %d: %d hash mismatches: %s", c.Client, fs.Mismatches, fs.Desync)
		}
		// A hash every sv_frameHashEvery (5) frames from the first
		// whole state to the last confirmed frame.
		if want := (fs.Confirmed-fs.First)/5 - 1; int32(fs.HashChecks) < want {
			t.Errorf("client %d: %d hashes checked from frame %d to %d, want at least %d", c.Client, fs.HashChecks, fs.First, fs.Confirmed, want)
		}
		if fs.Rollbacks == 0 || fs.Resimulated < fs.Rollbacks {
			t.Errorf("client %d: %d rollbacks, %d frames run again: bots change their inputs every frame", c.Client, fs.Rollbacks, fs.Resimulated)
		}
		// Up to the end: the last frame confirmed is within two seconds
		// of the newest any client saw.
		if fs.Confirmed < newest-40 {
			t.Errorf("client %d: confirmed frame %d at the end, the newest was %d", c.Client, fs.Confirmed, newest)
		}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, d := range ts.drops {
		if !strings.HasSuffix(d, ": disconnected") {
			t.Errorf("server dropped a client: %s", d)
		}
	}
	logReport(t, rep)
}

// TestNetModelSwitch switches a running server from snapshots to frame
// sync and back with map_restart, as a teacher does in class: the
// clients stay connected, run the frames in between (with every hash
// checked) and go back to snapshots, and no chat line is lost.
func TestNetModelSwitch(t *testing.T) {
	if testing.Short() {
		t.Skip("12 s of real time")
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 28
	ts := startServer(t, cfg, "arena1", 2)
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   2,
		Duration:  12 * time.Second,
		ChatEvery: 500 * time.Millisecond,
		Seed:      4,
	})
	go func() {
		time.Sleep(4 * time.Second)
		ts.srv.Exec("set sv_netmodel framesync; map_restart 0")
		time.Sleep(4 * time.Second)
		ts.srv.Exec("set sv_netmodel snapshots; map_restart 0")
	}()
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	logReport(t, rep)
	checkReport(t, rep, 2)
	for _, c := range rep.Clients {
		fs := c.FrameSync
		if fs == nil {
			t.Errorf("client %d never ran in frame sync", c.Client)
			continue
		}
		b, _ := json.Marshal(fs)
		t.Logf("client %d: gamestates %d, snapshots %d, frame sync %s", c.Client, c.Gamestates, c.Snapshots, b)
		if fs.Mismatches != 0 || fs.HashChecks < 10 { // 4 s: 80 frames, a hash every 5
			t.Errorf("client %d: %d of %d hash checks failed", c.Client, fs.Mismatches, fs.HashChecks)
		}
		if c.Gamestates < 3 || c.Snapshots < 100 {
			t.Errorf("client %d: %d gamestates, %d snapshots: the model did not switch both ways", c.Client, c.Gamestates, c.Snapshots)
		}
	}
}

// TestFrameSyncDesync plants a deliberate non-determinism in a frame-sync
// server's game with its desync command: the client's state hash must
// catch it at that frame, name the entity and field from the server's
// whole state of the frame, resynchronise, and agree again afterwards.
func TestFrameSyncDesync(t *testing.T) {
	if testing.Short() {
		t.Skip("8 s of real time")
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 29
	cfg.NetModel = proto.NetModelFrameSync
	cfg.FrameHashEvery = 1 // caught at its very frame
	ts := startServer(t, cfg, "arena2", 3)
	r := headless.New(headless.Config{
		Server:   ts.srv.Addr(),
		Clients:  1,
		Duration: 10 * time.Second,
		Seed:     5,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Once the client has run 40 frames from its whole state, so
		// that the desync falls in its game whatever the machine's load.
		if waitFrameSyncAcked(ctx, ts.srv, 40) {
			ts.srv.Exec("desync")
		}
	}()
	rep, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fs := rep.Clients[0].FrameSync
	if fs == nil {
		t.Fatal("the client ran no frame sync")
	}
	b, _ := json.Marshal(fs)
	t.Logf("%s", b)
	want := "desync: the server's game parts from its clients' at time "
	log := ts.log.String()
	i := strings.Index(log, want)
	if i < 0 {
		t.Fatalf("no desync in the server's log:\n%s", log)
	}
	var at, frame int32
	if _, err := fmt.Sscanf(log[i+len(want):], "%d (frame %d)", &at, &frame); err != nil {
		t.Fatalf("server log %q: %v", log[i:i+80], err)
	}
	if fs.Mismatches != 1 || fs.Resyncs != 1 {
		t.Errorf("%d mismatches, %d resyncs: want the one desync caught and repaired once", fs.Mismatches, fs.Resyncs)
	}
	prefix := fmt.Sprintf("frame %d: ", frame)
	if !strings.HasPrefix(fs.Desync, prefix) || !strings.Contains(fs.Desync, " is ") || !strings.Contains(fs.Desync, ", other has ") {
		t.Errorf("desync named %q, want the entity and field at frame %d", fs.Desync, frame)
	}
	// A hash every frame from the first whole state on, but for the
	// frames between the mismatch and the whole state that repaired it.
	if want := int(fs.Confirmed-fs.First) - 40; fs.HashChecks < want || fs.Confirmed-frame < 20 {
		t.Errorf("%d hash checks from frame %d to %d (desync at %d): the hashes stopped after the resync", fs.HashChecks, fs.First, fs.Confirmed, frame)
	}
}

// waitFrameSyncAcked waits until a human client of srv surely holds n
// frames past its first whole state; false if ctx ends first.
func waitFrameSyncAcked(ctx context.Context, srv *server.Server, n int32) bool {
	for {
		ok := false
		srv.Do(ctx, func() {
			for _, ci := range srv.Clients() {
				if !ci.Bot && ci.FrameSync != nil && ci.FrameSync.WholeStates > 0 && ci.FrameSync.Acked >= n {
					ok = true
				}
			}
		})
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}
