package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tremor/bg/tilemap"
	"tremor/client"
	"tremor/net/netchan"
	"tremor/server"
)

// startServer runs a dedicated server with one bot on 127.0.0.1.
func startServer(t *testing.T) *server.Server {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 3
	srv, err := server.New(conn, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 1")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		srv.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return srv
}

// reportFields are the fields the issue asks of every client's report.
var reportFields = []string{"connected", "final_state", "disconnect_reason", "duration_s", "snapshots",
	"snapshots_full", "snapshots_rate_delayed", "snapshots_dropped", "bytes_down", "bytes_up",
	"packets_down", "packets_up", "server_commands", "server_command_gaps", "chat_sent",
	"chat_received", "prediction_misses", "prediction_error_max", "frames", "frames_extrapolated",
	"ping_ms_avg"}

func TestRunReport(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	jsonFile, logFile := filepath.Join(dir, "report.json"), filepath.Join(dir, "events.log")
	var stdout, stderr bytes.Buffer
	// Kick client 0 half way: told to go, it is not a failure.
	go func() {
		time.Sleep(2 * time.Second)
		srv.Exec("kick Headless0")
	}()
	code := run(context.Background(), []string{"-clients", "2", "-duration", "4s", "-chat-every", "500ms",
		"-json", jsonFile, "-log", logFile, "+set", "cl_maxpackets", "40", "+set", "rate", "30000",
		"+connect", srv.Addr().String()}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	file, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, stdout.Bytes()) {
		t.Fatal("-json file differs from the report printed")
	}
	var rep struct {
		Clients []map[string]any `json:"clients"`
		Totals  map[string]any   `json:"totals"`
	}
	if err := json.Unmarshal(file, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 2 {
		t.Fatalf("%d clients in the report", len(rep.Clients))
	}
	for _, f := range reportFields {
		for i, c := range rep.Clients {
			if _, ok := c[f]; !ok {
				t.Errorf("client %d has no %s", i, f)
			}
		}
		if f == "final_state" || f == "disconnect_reason" {
			f += "s"
		}
		if _, ok := rep.Totals[f]; !ok {
			t.Errorf("totals have no %s", f)
		}
	}
	if rep.Clients[0]["dropped_by"] != "server" || rep.Clients[1]["dropped_by"] != "user" {
		t.Errorf("dropped by %v and %v", rep.Clients[0]["dropped_by"], rep.Clients[1]["dropped_by"])
	}
	if !strings.Contains(rep.Clients[0]["disconnect_reason"].(string), "kicked") {
		t.Errorf("client 0: %v", rep.Clients[0]["disconnect_reason"])
	}
	if rep.Totals["connected"].(float64) != 2 || rep.Clients[1]["snapshots"].(float64) < 40 {
		t.Errorf("totals %v", rep.Totals)
	}
	events, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"chat_sent", "server_command", "snapshot", "disconnect"} {
		if !bytes.Contains(events, []byte(`"event":"`+ev+`"`)) {
			t.Errorf("no %s event in the log", ev)
		}
	}
}

func TestRunFailsWithoutServer(t *testing.T) {
	// A socket that never answers.
	silent, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-clients", "1", "-duration", "10s",
		"+set", "cl_connectTries", "1", "+connect", silent.LocalAddr().String()}, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no answer") {
		t.Fatalf("exit status %d, stderr %q", code, stderr.String())
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no connect", []string{"-clients", "2"}},
		{"bad flag", []string{"-nosuchflag", "+connect", "127.0.0.1"}},
		{"bad clients", []string{"-clients", "0", "+connect", "127.0.0.1"}},
		{"bad host", []string{"+connect", "no.such.host.invalid:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tc.args, nil, &stdout, &stderr); code != 2 {
				t.Fatalf("exit status %d, want 2: %s", code, stderr.String())
			}
		})
	}
}

// TestRunDownload: the program joins a server running a map it does not
// have, through 20 % loss both ways, downloads it into -mapdir, prints
// its progress, and plays.
func TestRunDownload(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "maps", "examples", "courtyard.map"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 4
	cfg.MapDir = t.TempDir()
	cfg.PacketLoss = 20
	if err := os.WriteFile(filepath.Join(cfg.MapDir, "courtyard.map"), example, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(conn, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Map("courtyard"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		srv.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	mapDir := filepath.Join(t.TempDir(), "maps")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-duration", "8s", "-chat-every", "0", "-mapdir", mapDir,
		"+set", "cl_packetloss", "20", "+set", "cl_connectTries", "30", "+connect", srv.Addr().String()},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "map courtyard downloaded: 717 bytes") {
		t.Errorf("no download line in:\n%s", stderr.String())
	}
	m, err := tilemap.Parse("courtyard.map", example)
	if err != nil {
		t.Fatal(err)
	}
	path, err := client.DownloadPath(mapDir, "courtyard", m.Checksum)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(saved, example) {
		t.Fatalf("saved map: %d bytes (%v), want the server's %d", len(saved), err, len(example))
	}
	var rep struct {
		Clients []struct {
			Connected bool   `json:"connected"`
			Snapshots uint64 `json:"snapshots"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 1 || !rep.Clients[0].Connected || rep.Clients[0].Snapshots == 0 {
		t.Errorf("report %+v: want a client in the game with snapshots", rep.Clients)
	}
}
