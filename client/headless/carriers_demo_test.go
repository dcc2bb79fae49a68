package headless_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/proto"
	"tremor/server"
)

// TestDemoOnTheAcksCarrier records a client on the acks carrier over a
// lossy link, where server commands arrive as message blocks, resent
// and out of order, and plays the demo back: the playback runs every
// chat line the live client ran, once each and in order, as the live
// client did.
func TestDemoOnTheAcksCarrier(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s of real time")
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 31
	cfg.PacketLoss = 20
	ts := startServer(t, cfg, "arena1", 0)
	file := &memFile{}
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   2,
		Duration:  10 * time.Second,
		ChatEvery: 300 * time.Millisecond,
		Seed:      8,
		Client:    client.Config{Reliable: proto.ReliableAcks, PacketLoss: 20, ConnectTries: 20},
		Record: func(i int) (io.WriteCloser, error) {
			if i != 0 {
				return nil, nil
			}
			return file, nil
		},
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, 2)
	if rep.Clients[0].Reliable != proto.ReliableAcks {
		t.Fatalf("the recorded client ended on the %q carrier", rep.Clients[0].Reliable)
	}
	data := file.buf.Bytes()
	p, err := client.NewPlayback(bytes.NewReader(data), int64(len(data)), client.PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var lines []int
	p.Client().Hooks.ServerCommand = func(_ int32, text string) {
		// chat "Player1: client 1 line N"
		if i := strings.Index(text, "client 1 line "); strings.HasPrefix(text, "chat ") && i >= 0 {
			n, err := strconv.Atoi(strings.TrimRight(text[i+len("client 1 line "):], "\""))
			if err != nil {
				t.Errorf("unreadable chat line %q", text)
				return
			}
			lines = append(lines, n)
		}
	}
	if res := p.TimeDemo(16*time.Millisecond, nil); res.Err != nil {
		t.Fatalf("playback ended with %v", res.Err)
	}
	want := rep.Clients[0].ChatReceived
	if len(lines) != want {
		t.Fatalf("playback ran %d of client 1's chat lines, the live client %d", len(lines), want)
	}
	for i, n := range lines {
		if n != lines[0]+i {
			t.Fatalf("playback ran client 1's lines %v: not each once in order", lines)
		}
	}
	t.Logf("playback ran client 1's lines %d to %d, as the live client did", lines[0], lines[len(lines)-1])
}
