//go:build !js

package session

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"tremor/cmd/client/internal/mux"
	"tremor/common/console"
	"tremor/net/netchan"
	"tremor/server"
	"tremor/server/rtc"
)

// bindLANCvars binds the cvars of the local server's LAN port
// (bindCvars' list); they are read when the server starts.
func bindLANCvars(v *console.Vars, c *Config) {
	v.StringVar(&c.NetIP, "net_ip", "", 0, "address the local server's LAN port listens on (empty: every address)")
	v.IntVar(&c.NetPort, "net_port", 27960, -1, 65535, 0, "UDP port of the local server for LAN players (0: any free port, -1: none)")
}

// openLAN opens the local server's LAN port (net_ip, net_port) unless
// net_port is -1, and returns the conn the server reads: local, the
// loopback end of the window's own player, multiplexed with the UDP
// socket (package mux); and the socket's address. Without a socket it
// returns local and no address.
func (s *Session) openLAN(local netchan.Conn) (netchan.Conn, netip.AddrPort) {
	port := s.cfg.NetPort
	if port < 0 {
		return local, netip.AddrPort{}
	}
	udp, err := netchan.ListenUDP(net.JoinHostPort(s.cfg.NetIP, strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintf(s.stderr, "session: no LAN port, local play only: %v\n", err)
		return local, netip.AddrPort{}
	}
	if _, err := netchan.JoinMulticast6(udp, netchan.Multicast6); err != nil && !udp.LocalAddr().Addr().Is4() {
		fmt.Fprintf(s.stderr, "session: IPv6 LAN browsers will not find this server: %v\n", err)
	}
	// Browser players: the page and WebRTC signalling on sv_webPort,
	// ICE on the LAN port (package rtc).
	sc := server.ConfigOf(s.t)
	lan, web, line, err := rtc.Start(udp, sc.WebPort, sc.WebDir,
		func(format string, args ...any) { fmtLine(s.stderr, "server: "+format, args...) })
	if err != nil {
		fmt.Fprintf(s.stderr, "session: no browser players: %v\n", err)
	}
	m := mux.New(local, lan)
	fmt.Fprintf(s.stderr, "session: LAN players can join on UDP %v\n", m.UDPAddr())
	if web == nil {
		return m, m.UDPAddr()
	}
	fmt.Fprintf(s.stderr, "session: %s\n", line)
	s.webURL = web.URL()
	return web.Sized(m), m.UDPAddr()
}

// Connect joins the server at addr ("host[:port]") over UDP.
func (s *Session) Connect(addr string) error {
	if s.replaying() { // before a socket is opened for nothing
		return errReplaying
	}
	to, err := netchan.ResolveAddr(addr)
	if err != nil {
		return err
	}
	local := "0.0.0.0:0"
	if to.Addr().Is6() {
		local = "[::]:0"
	}
	conn, err := netchan.ListenUDP(local)
	if err != nil {
		return err
	}
	if err := s.ConnectConn(conn, to); err != nil {
		return err
	}
	s.lastServer = addr
	return nil
}

// reconnectLast joins again, over a new socket, the server the last
// connect joined (reconnect after disconnect).
func (s *Session) reconnectLast() error {
	if s.lastServer == "" {
		return errNoServer
	}
	return s.Connect(s.lastServer)
}
