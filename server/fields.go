package server

import (
	"tremor/bg"
	"tremor/net/msg"
)

// messageTo returns the server's message writer reset for a message to
// c: the delta fields it writes count in c's FieldStats, never in
// another connection's.
func (s *Server) messageTo(c *client) *msg.Writer {
	w := &s.w
	w.Reset(s.msgBuf[:], msg.Huffman)
	w.SetFieldStats(&c.fields)
	return w
}

// FieldStats returns the delta-field counters of slot n's connection:
// the player and entity states the server encoded to that client and
// the usercmds it decoded from it, since the client connected (a new
// connection in the slot starts from zero); nil for a slot number out of
// range. Read them with the tables' Stats (bg.PlayerStateTable.Stats).
// They are the server's own, updated as it runs: read them on the
// server goroutine (through Do while Run runs).
func (s *Server) FieldStats(n int) *msg.FieldStats {
	if uint(n) >= bg.MaxClients {
		return nil
	}
	return &s.svs.clients[n].fields
}
