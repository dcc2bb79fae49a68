package session

import "tremor/client"

// Idle reports whether the player is in no game at all: no demo playing,
// and no connection, or one that has ended. The window shows its main
// menu whenever the session is idle (Quake III's UI showed its main menu
// whenever the client was disconnected). reason says why the last
// connection ended when the server ended it (a kick, a shutdown) or it
// failed (no answer, a refused map); it is empty when there was none or
// the player left on purpose.
func (s *Session) Idle() (idle bool, reason string) {
	if s.pb != nil {
		return false, ""
	}
	if s.c == nil {
		return true, ""
	}
	if s.c.State() != client.Disconnected {
		return false, ""
	}
	switch kind, why := s.c.Dropped(); kind {
	case client.DropByServer, client.DropError:
		return true, why // "server disconnected: was kicked", "no answer from ..."
	}
	return true, ""
}
