package session

import (
	"errors"
	"net/netip"

	"tremor/net/netchan"
)

// errReplaying refuses a connection to another server while a journal
// replays.
var errReplaying = errors.New("session: a journal is replaying: no connection to another server")

// replaying reports whether a journal's replay is still running.
func (s *Session) replaying() bool { return s.jn.rp != nil && !s.jn.rp.done }

// ConnectConn joins the server at to over conn, which the session owns
// from then on: the UDP socket Connect opens, or the browser build's
// WebRTC channel to the server (cmd/client). It refuses while a journal
// replays, closing conn, and stops a journal being recorded: a journal
// records the session with the local server only.
func (s *Session) ConnectConn(conn netchan.Conn, to netip.AddrPort) error {
	if s.replaying() {
		conn.Close()
		return errReplaying
	}
	if s.jn.rec != nil {
		fmtLine(s.stderr, "journal: only a game on the local server is recorded")
		s.stopRecording()
	}
	s.open(conn, to)
	return nil
}
