package session

import (
	"io"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
)

// localMatch is a session running a local match on an embedded server
// (no LAN port) on a simulated clock of 16 ms frames.
type localMatch struct {
	s   *Session
	t   *console.Table
	now time.Duration
}

// startLocal starts a local match on mapName; the test closes it.
func startLocal(t *testing.T, mapName string) *localMatch {
	t.Helper()
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	if err := tbl.Set("net_port", "-1"); err != nil {
		t.Fatal(err)
	}
	s := New(tbl, io.Discard, 1)
	t.Cleanup(s.Close)
	if err := s.StartMap(mapName); err != nil {
		t.Fatal(err)
	}
	return &localMatch{s: s, t: tbl}
}

// frame runs the console's commands and one session frame with cmd.
func (m *localMatch) frame(cmd bg.UserCmd) {
	m.now += 16 * time.Millisecond
	time.Sleep(200 * time.Microsecond) // the loopback's pump goroutine
	m.t.Execute()
	m.s.Frame(m.now, cmd, false)
}
