package session

import "errors"

// errNoServer refuses a reconnect with no server to join again.
var errNoServer = errors.New("reconnect: no server to join again (connect HOST[:PORT], or map NAME for a local match)")

// Reconnect joins the last server again, as Quake III's reconnect
// (CL_Reconnect_f) does: while the session has a client engine that
// joined a server (playing, joining, or dropped by it) the engine leaves
// and connects again over its own socket, the local server's loopback
// included; after disconnect, which ends the engine and stops the local
// server, it joins again the last server connect joined. A new
// connection is how a cl_reliable change applies at once: its first
// gamestate decides the carrier (a map change or map_restart does it
// without leaving). It refuses while a journal replays.
func (s *Session) Reconnect() error {
	if s.replaying() {
		return errReplaying
	}
	if s.c != nil && s.c.ServerAddr().IsValid() {
		s.c.Reconnect()
		return nil
	}
	return s.reconnectLast()
}
