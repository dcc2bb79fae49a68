package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/proto"
	"tremor/internal/testutil"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// The command line sets cvars and runs commands; quit on the console
// stops the server with status 0; every line is timestamped.
func TestRunCommandLineAndQuit(t *testing.T) {
	var out testutil.LockedBuffer
	stdin := strings.NewReader("status\nquit\n")
	code := run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0", "+set", "sv_hostname", "Test Server",
		"+map", "duel1", "+addbot", "2", "+serverinfo"}, stdin, &out)
	log := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	for _, want := range []string{"listening on 127.0.0.1:", "map duel1 loaded", "client 1 is a bot", "sv_hostname",
		"Test Server", "num score ping", "dropped: Server shutting down", "server stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if len(line) < 24 || line[4] != '-' || line[13] != ':' {
			t.Errorf("line not timestamped: %q", line)
		}
	}
}

// A cvar set on the console is the server's at once: the serverinfo
// shows it.
func TestCvarsBothWays(t *testing.T) {
	var out testutil.LockedBuffer
	stdin := strings.NewReader("sv_fps 30\nwait 3\nset sv_hostname Night\nwait 3\nserverinfo\nwait 3\nquit\n")
	code := run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0"}, stdin, &out)
	log := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	for _, want := range []string{"sv_fps               30", "sv_hostname          Night"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// rcon and standard input share one console: a cvar set through rcon is
// what the console prints, and the other way round.
func TestRconAndConsoleShareCvars(t *testing.T) {
	stdin, typed := io.Pipe()
	defer typed.Close()
	var out testutil.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0", "+set", "rconPassword", "pw"}, stdin, &out)
	}()
	var srv netip.AddrPort
	for end := time.Now().Add(5 * time.Second); !srv.IsValid(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("server did not start:\n%s", out.String())
		}
		if _, rest, ok := strings.Cut(out.String(), "listening on "); ok {
			srv, _ = netip.ParseAddrPort(strings.Fields(rest)[0])
		}
	}
	admin, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	rcon := func(cmd string) string {
		t.Helper()
		if err := admin.WriteTo(oob.Packet("rcon pw "+cmd), srv); err != nil {
			t.Fatal(err)
		}
		_ = admin.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 1<<16)
		n, _, err := admin.ReadFrom(buf)
		if err != nil {
			t.Fatalf("rcon %s: %v", cmd, err)
		}
		return string(buf[:n])
	}
	tests := []struct {
		name, rcon, stdin, want string // want: in the rcon reply, or the log after stdin
	}{
		{"rcon sets, console reads", "fraglimit 7", "fraglimit", `fraglimit is "7"`},
		{"console sets, rcon reads", "", "timelimit 15", `timelimit is "15"`},
		{"sv_configdir stays local", "sv_configdir /", "", "cannot be set through rcon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			switch {
			case tt.rcon != "" && tt.stdin != "":
				rcon(tt.rcon)
				fmt.Fprintln(typed, tt.stdin)
				waitFor(t, &out, tt.want)
			case tt.stdin != "":
				fmt.Fprintln(typed, tt.stdin)
				time.Sleep(50 * time.Millisecond)
				name := strings.Fields(tt.stdin)[0]
				if reply := rcon(name); !strings.Contains(reply, tt.want) {
					t.Errorf("rcon %s: %q lacks %q", name, reply, tt.want)
				}
			default:
				if reply := rcon(tt.rcon); !strings.Contains(reply, tt.want) {
					t.Errorf("rcon %s: %q lacks %q", tt.rcon, reply, tt.want)
				}
			}
		})
	}
	fmt.Fprintln(typed, "quit")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// waitFor waits until the log holds want.
func waitFor(t *testing.T, out *testutil.LockedBuffer, want string) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("log lacks %q:\n%s", want, out.String())
		}
	}
}

// +set cpuprofile FILE writes a CPU profile there by the time the server
// stops; a file that cannot be created stops the server at start-up.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.pprof")
	var out testutil.LockedBuffer
	code := run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0", "+set", "cpuprofile", path},
		strings.NewReader("quit\n"), &out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A profile is gzipped protocol buffers.
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("%s holds %d bytes, not a gzipped profile", path, len(data))
	}

	out = testutil.LockedBuffer{}
	bad := filepath.Join(t.TempDir(), "missing", "server.pprof")
	if code := run([]string{"+set", "net_port", "0", "+set", "cpuprofile", bad}, strings.NewReader(""), &out); code != 1 {
		t.Fatalf("exit %d with an impossible profile path, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "cpuprofile") {
		t.Errorf("the log does not say what failed:\n%s", out.String())
	}
}

// As a client leaves, the log says what its reliable commands cost on
// the way down: one line per client, with its carrier; the acks
// carrier's packet acks are counted apart.
func TestCarrierLogLine(t *testing.T) {
	stdin, typed := io.Pipe()
	defer typed.Close()
	var out testutil.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0", "+map", "duel1"}, stdin, &out)
	}()
	waitFor(t, &out, "listening on ")
	_, rest, _ := strings.Cut(out.String(), "listening on ")
	srv, err := netip.ParseAddrPort(strings.Fields(rest)[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, carrier := range []string{proto.ReliableQ3, proto.ReliableAcks} {
		rep, err := headless.New(headless.Config{
			Server: srv, Clients: 2, Duration: 3 * time.Second, ChatEvery: 300 * time.Millisecond,
			NamePrefix: carrier, Client: client.Config{Reliable: carrier},
		}).Run(context.Background())
		if err != nil || rep.Failed() {
			t.Fatalf("%s clients: %v, %+v", carrier, err, rep.Totals)
		}
	}
	fmt.Fprintln(typed, "quit")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := 0
	for _, line := range strings.Split(out.String(), "\n") {
		_, rest, ok := strings.Cut(line, " reliable client=")
		if !ok {
			continue
		}
		lines++
		kv := map[string]string{}
		for _, f := range strings.Fields(rest)[1:] {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
		name, _ := strconv.Unquote(kv["name"])
		commands, _ := strconv.Atoi(kv["commands_bytes"])
		acks, _ := strconv.Atoi(kv["ack_bytes"])
		out, _ := strconv.Atoi(kv["bytes_out"])
		if !strings.HasPrefix(name, kv["carrier"]) || commands <= 0 || commands >= out ||
			(acks > 0) != (kv["carrier"] == proto.ReliableAcks) {
			t.Errorf("line %q: %s on %s, %d command bytes, %d ack bytes, %d bytes out", line, name, kv["carrier"], commands, acks, out)
		}
	}
	if lines != 4 {
		t.Errorf("%d reliable lines for 4 clients:\n%s", lines, out.String())
	}
}
