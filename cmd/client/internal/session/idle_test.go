package session

import (
	"io"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
)

// newIdleSession returns a session with no LAN port whose handshake gives
// up after one try of resend ms.
func newIdleSession(t *testing.T) (*Session, *console.Table) {
	t.Helper()
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	for k, v := range map[string]string{"net_port": "-1", "cl_connectTries": "1"} {
		if err := tbl.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	s := New(tbl, io.Discard, 1)
	t.Cleanup(s.Close)
	return s, tbl
}

// runUntil runs frames until cond holds or 10 s of frames have passed.
func runUntil(t *testing.T, s *Session, tbl *console.Table, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		tbl.Execute()
		s.Frame(time.Since(start), bg.UserCmd{}, false)
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	idle, reason := s.Idle()
	t.Fatalf("%s: not within 10 s (idle %v, reason %q, status %q)", what, idle, reason, s.Status())
}

// The session is idle — the window shows its main menu — before any game,
// not while one is being joined or played, and again after the server
// drops the player, with the server's reason.
func TestIdleAroundAKick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server")
	}
	s, tbl := newIdleSession(t)
	if idle, reason := s.Idle(); !idle || reason != "" {
		t.Fatalf("new session: Idle() = %v, %q; want true, \"\"", idle, reason)
	}
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	if idle, _ := s.Idle(); idle {
		t.Fatal("idle while joining the local match")
	}
	runUntil(t, s, tbl, "joining", func() bool { return s.Active() != nil })
	if idle, _ := s.Idle(); idle {
		t.Fatal("idle while playing")
	}
	tbl.ExecuteString("clientkick 0")
	runUntil(t, s, tbl, "kicked", func() bool { idle, _ := s.Idle(); return idle })
	_, reason := s.Idle()
	if !strings.Contains(reason, "server disconnected") || !strings.Contains(strings.ToLower(reason), "kick") {
		t.Errorf("after a kick: reason %q, want the server's kick message", reason)
	}
	s.Disconnect()
	if idle, reason := s.Idle(); !idle || reason != "" {
		t.Errorf("after leaving on purpose: Idle() = %v, %q; want true, \"\"", idle, reason)
	}
}
