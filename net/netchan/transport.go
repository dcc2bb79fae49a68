package netchan

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is the default server UDP port (Quake III PORT_SERVER).
const DefaultPort = 27960

// ResolveAddr turns "host[:port]" (a name, an IPv4 address, or an IPv6
// address with or without brackets) into a UDP address, port DefaultPort
// when none is given. An IPv4-mapped IPv6 address comes back as IPv4.
func ResolveAddr(s string) (netip.AddrPort, error) {
	if _, _, err := net.SplitHostPort(s); err != nil {
		s = net.JoinHostPort(strings.Trim(s, "[]"), strconv.Itoa(DefaultPort))
	}
	ua, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("netchan: cannot resolve %q: %w", s, err)
	}
	ap := ua.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// Conn is a packet connection: what a Chan writes to and its owner reads
// from. UDPConn and LoopbackConn implement it; tests and network simulators
// wrap it.
type Conn interface {
	// ReadFrom reads one packet into p and returns its length and sender.
	// It blocks until a packet arrives or the read deadline passes (then the
	// error satisfies errors.Is(err, os.ErrDeadlineExceeded)). A packet
	// longer than p is truncated.
	ReadFrom(p []byte) (n int, from netip.AddrPort, err error)
	// WriteTo sends p as one packet to the address to. p may be reused as
	// soon as WriteTo returns.
	WriteTo(p []byte, to netip.AddrPort) error
	// LocalAddr returns the connection's own address.
	LocalAddr() netip.AddrPort
	// SetReadDeadline sets when blocked and future reads time out; the zero
	// time means never.
	SetReadDeadline(t time.Time) error
	// Close closes the connection; blocked reads return net.ErrClosed.
	Close() error
}

// FragmentSizer is implemented by a Conn whose peers need a fragment
// size other than FragmentSize: a WebRTC transport, whose DataChannel
// messages must fit one SCTP chunk, returns WebRTCFragmentSize for its
// peers. New asks it once, for the channel's remote address, and the
// channel uses the answer both ways: it cuts the messages it sends into
// fragments of that size and takes a received fragment of that size as
// not the last of its message, so both ends of a connection must agree.
// An answer of 0, or one outside 1..FragmentSize, means FragmentSize.
// A Conn that wraps another (netsim's) passes the question on.
type FragmentSizer interface {
	FragmentSize(to netip.AddrPort) int
}

// fragmentSizeFor returns the fragment size of a channel to remote
// through conn.
func fragmentSizeFor(conn Conn, remote netip.AddrPort) int {
	if fs, ok := conn.(FragmentSizer); ok {
		if n := fs.FragmentSize(remote); n > 0 && n <= FragmentSize {
			return n
		}
	}
	return FragmentSize
}

var (
	_ Conn = (*UDPConn)(nil)
	_ Conn = (*LoopbackConn)(nil)
)

// UDPConn is a Conn over a real UDP socket. Addresses it returns are
// unmapped (an IPv4 peer of a dual-stack socket is a plain IPv4 address), so
// they compare equal to addresses parsed from "a.b.c.d:port". On Linux it
// is also a BatchConn.
type UDPConn struct {
	c     *net.UDPConn
	local netip.AddrPort
	batch *udpBatch // ReadBatch and WriteBatch (batch_linux.go)
}

// ListenUDP opens a UDP socket on addr, "host:port" as for net.ListenUDP:
// ":27960" listens on every address, "127.0.0.1:0" on an ephemeral port of
// the IPv4 loopback.
func ListenUDP(addr string) (*UDPConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("netchan: listen %q: %w", addr, err)
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("netchan: listen %q: %w", addr, err)
	}
	var local netip.AddrPort
	if la, ok := c.LocalAddr().(*net.UDPAddr); ok {
		local = unmap(la.AddrPort())
	}
	return &UDPConn{c: c, local: local, batch: newUDPBatch(c, local)}, nil
}

// ReadFrom implements Conn. It does not allocate.
func (u *UDPConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	n, from, err := u.c.ReadFromUDPAddrPort(p)
	return n, unmap(from), err
}

// WriteTo implements Conn. It does not allocate.
func (u *UDPConn) WriteTo(p []byte, to netip.AddrPort) error {
	_, err := u.c.WriteToUDPAddrPort(p, to)
	return err
}

// LocalAddr implements Conn.
func (u *UDPConn) LocalAddr() netip.AddrPort { return u.local }

// SetReadDeadline implements Conn.
func (u *UDPConn) SetReadDeadline(t time.Time) error { return u.c.SetReadDeadline(t) }

// Close implements Conn.
func (u *UDPConn) Close() error { return u.c.Close() }

// unmap turns an IPv4-mapped IPv6 address into the plain IPv4 address.
func unmap(a netip.AddrPort) netip.AddrPort {
	if a.Addr().Is4In6() {
		return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
	}
	return a
}
