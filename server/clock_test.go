package server

import (
	"math"
	"strings"
	"testing"

	"tremor/common/proto"
)

// The frame clock restarts with the map before it can wrap, and the
// real-time clock wraps under the server without a hitch: a server
// started 2 s of frame time before proto.RestartTime and 3 s of real
// time before 2^31 keeps its client through both, and the client is told
// why its gamestate came again.
func TestClockRestartKeepsClients(t *testing.T) {
	cfg := testConfig()
	cfg.ClockStart = proto.RestartTime - 2000
	h := newHarness(t, cfg)
	h.now = math.MaxInt32 - 3000
	h.srv.Frame(h.now)
	c := h.client("ann")
	c.sendMoves, c.based = true, true
	h.connect(c)
	start := h.srv.Time()
	if start < proto.RestartTime-2000 {
		t.Fatalf("the clock is at %d after the connect, want near %d", start, proto.RestartTime)
	}
	for range 120 { // 6 s (h.run compares times, which this test wraps)
		h.step(50)
	}
	if h.now > 0 {
		t.Fatalf("the real-time clock did not wrap: now %d", h.now)
	}
	if c.disconnected || !c.active() {
		t.Fatalf("client not in the game after the restart: disconnected %v (%q), state %v\nlog:\n%s",
			c.disconnected, c.disconnectReason, h.srv.Client(c.num).State, h.log)
	}
	if c.gamestates != 2 {
		t.Errorf("%d gamestates, want 2 (the map, then the restart)", c.gamestates)
	}
	if now := h.srv.Time(); now <= 0 || now > 5000 {
		t.Errorf("the clock is at %d ms, want the few seconds since the restart", now)
	}
	if ht := c.lastSnap.header.ServerTime; ht <= 0 || ht > 5000 {
		t.Errorf("the newest snapshot's time is %d ms, want the restarted clock's", ht)
	}
	if ct := c.lastSnap.ps.CommandTime; ct <= 0 || ct > 5000 {
		t.Errorf("the player's command time is %d ms: the usercmds of the restarted clock were not run", ct)
	}
	if !strings.Contains(h.log.String(), "restarting the map with the clock at 0") {
		t.Errorf("the log does not say why the map restarted:\n%s", h.log)
	}
	var why int
	for _, p := range c.commandsMatching("print") {
		if strings.Contains(p, "would wrap") {
			why++
		}
	}
	if why != 1 {
		t.Errorf("the restart's reason printed %d times, want once; server commands: %q", why, c.received)
	}
}
