package session

import (
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
)

// localMatch is a session running a local match on duel1 (startDuel) on
// a simulated clock of 16 ms frames.
type localMatch struct {
	s   *Session
	t   *console.Table
	now time.Duration
}

// startLocal starts a local match on duel1; the test closes it.
func startLocal(t *testing.T) *localMatch {
	t.Helper()
	tbl, s := startDuel(t, t.TempDir())
	return &localMatch{s: s, t: tbl}
}

// frame runs the console's commands and one session frame with cmd.
func (m *localMatch) frame(cmd bg.UserCmd) {
	m.now += 16 * time.Millisecond
	time.Sleep(200 * time.Microsecond) // the loopback's pump goroutine
	m.t.Execute()
	m.s.Frame(m.now, cmd, false)
}
