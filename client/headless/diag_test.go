package headless_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/internal/testutil"
	"tremor/server"
)

// The clients' showpackets and cl_shownet lines reach the run's Console,
// prefixed with the client's index.
func TestDiagnosticsConsole(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.Seed = 5
	ts := startServer(t, cfg, "arena1", 0)
	var out testutil.LockedBuffer
	r := headless.New(headless.Config{
		Server:   ts.srv.Addr(),
		Clients:  2,
		Duration: 1500 * time.Millisecond,
		Client:   client.Config{ShowPackets: true, ShowNet: 1},
		Seed:     3,
		Console:  &out,
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Fatalf("a client failed: %+v", rep.Clients)
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^client 0: send +\d+ : connectionless getchallenge$`,
		`(?m)^client 1: recv +\d+ : connectionless connectResponse$`,
		`(?m)^client 1: recv +\d+ : s=\d+$`,
		`(?m)^client 0: message \d+: \d+ bytes, \d+ read$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matching %s", re)
		}
	}
}
