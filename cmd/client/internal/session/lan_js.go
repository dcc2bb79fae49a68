package session

import (
	"net/netip"

	"tremor/common/console"
	"tremor/net/netchan"
)

// bindLANCvars binds nothing. The browser build opens no sockets
// (docs/web.md): its local server has the window's own player, over the
// loopback, and bots.
func bindLANCvars(*console.Vars, *Config) {}

// reconnectLast refuses: after disconnect the browser build has no
// channel to the last server, which connect opens again.
func (s *Session) reconnectLast() error { return errNoServer }

// openLAN returns local: in a browser the local server has no LAN port.
func (s *Session) openLAN(local netchan.Conn) (netchan.Conn, netip.AddrPort) {
	return local, netip.AddrPort{}
}
