package session

import (
	"errors"
	"testing"

	"tremor/bg"
	"tremor/client"
	"tremor/common/proto"
)

// TestReconnect: reconnect refuses with no server joined; in a local
// match a cl_reliable change applies at the next gamestate, a
// map_restart's, without leaving, and reconnect leaves and joins the
// local server again over the loopback, its new connection's gamestate
// applying the next change.
func TestReconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client")
	}
	idle, _ := newIdleSession(t)
	if err := idle.Reconnect(); !errors.Is(err, errNoServer) {
		t.Fatalf("reconnect with no server: %v, want errNoServer", err)
	}

	m := startLocal(t)
	until := func(what string, cond func(c *client.Client) bool) {
		t.Helper()
		for range 1500 {
			m.frame(bg.UserCmd{})
			if c := m.s.Client(); c != nil && cond(c) {
				return
			}
		}
		t.Fatalf("%s: not within 1500 frames", what)
	}
	active := func(acks bool) func(c *client.Client) bool {
		return func(c *client.Client) bool { return c.State() == client.Active && c.Acks().On == acks }
	}
	until("in the match on the rings", active(false))
	first := m.s.Client().Stats().Gamestates

	if err := m.t.Set("cl_reliable", proto.ReliableAcks); err != nil {
		t.Fatal(err)
	}
	for range 120 { // the userinfo reaches the server (at most one change a second)
		m.frame(bg.UserCmd{})
	}
	if m.s.Client().Acks().On {
		t.Fatal("on the acks carrier before a gamestate")
	}
	m.t.ExecuteString("map_restart")
	until("on the acks carrier after the map_restart", active(true))
	c := m.s.Client()
	if c.Stats().Gamestates != first+1 {
		t.Errorf("%d gamestates after the map_restart, want %d: the connection should go on", c.Stats().Gamestates, first+1)
	}

	if err := m.t.Set("cl_reliable", proto.ReliableQ3); err != nil {
		t.Fatal(err)
	}
	if err := m.s.Reconnect(); err != nil {
		t.Fatal(err)
	}
	until("reconnecting", func(c *client.Client) bool { return c.State() < client.Primed })
	until("back on the rings after reconnect", active(false))
	if m.s.Client() != c {
		t.Error("reconnect made a new engine; it should connect again over its own socket")
	}
}
