package main

import (
	"strings"
	"testing"

	"tremor/internal/testutil"
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

// A cvar set on the console reaches the server, and one the server
// changes comes back to the console, without looping.
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
