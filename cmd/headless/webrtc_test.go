package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tremor/net/netchan"
	"tremor/server"
	"tremor/server/rtc"
)

// TestWebRTCClients: -webrtc joins the clients to a real server over
// WebRTC DataChannels (pion as the page), where they play and receive
// snapshots as browser players.
func TestWebRTCClients(t *testing.T) {
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rtc.Listen(udp, rtc.Config{SharedPort: true})
	if err != nil {
		t.Fatal(err)
	}
	web, err := tr.ListenHTTP("127.0.0.1:0", "")
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 5
	srv, err := server.New(tr.Conn(), cfg, nil)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx); close(done) }()
	defer func() { cancel(); <-done; srv.Close() }()

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-clients", "2", "-duration", "3s", "-chat-every", "0",
		"-webrtc", "http://" + web.String() + "/", "+connect", srv.Addr().String()}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	var rep struct {
		Clients []struct {
			Connected bool    `json:"connected"`
			Snapshots uint64  `json:"snapshots"`
			DurationS float64 `json:"duration_s"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for i, c := range rep.Clients {
		// sv_fps 20: about 20 snapshots a second in the game.
		if !c.Connected || c.Snapshots < uint64(c.DurationS*20*0.5) {
			t.Errorf("client %d: connected %v, %d snapshots in %.1f s", i, c.Connected, c.Snapshots, c.DurationS)
		}
	}
	if st := tr.Stats(); st.Opened != 2 || st.PacketsIn == 0 {
		t.Errorf("transport stats %+v: want 2 peers opened and their packets in", st)
	}
}
