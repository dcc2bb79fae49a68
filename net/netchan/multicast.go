package netchan

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// Multicast6 is the IPv6 group LAN server browsers query and servers
// join: ioquake3's NET_MULTICAST_IP6, ff04::696f:7175:616b:6533
// (admin-local scope; the low bytes spell "ioquake3"), so that Quake III
// tools and Tremor find servers on an IPv6-only LAN the way IPv4 ones
// find them by broadcast.
var Multicast6 = netip.MustParseAddr("ff04::696f:7175:616b:6533")

// JoinMulticast6 makes u receive packets sent to the IPv6 group on every
// up, multicast-capable interface (IPV6_JOIN_GROUP), as ioquake3's
// servers joined NET_MULTICAST_IP6. It returns how many interfaces
// joined; u must be an IPv6 (or dual-stack) socket. Where the system
// cannot join (a build without the socket option, an IPv4-only socket)
// it returns an error and u works as before, unreachable by multicast.
func JoinMulticast6(u *UDPConn, group netip.Addr) (int, error) {
	if !group.Is6() || !group.IsMulticast() {
		return 0, fmt.Errorf("netchan: %v is not an IPv6 multicast group", group)
	}
	if u.local.Addr().Is4() {
		return 0, fmt.Errorf("netchan: %v is an IPv4 socket: no IPv6 group", u.local)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return 0, fmt.Errorf("netchan: interfaces: %w", err)
	}
	rc, err := u.c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("netchan: %w", err)
	}
	joined := 0
	var errs []error
	for _, ifi := range ifs {
		if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagMulticast == 0 {
			continue
		}
		var jerr error
		if err := rc.Control(func(fd uintptr) { jerr = joinGroup6(fd, group, ifi.Index) }); err != nil {
			jerr = err
		}
		if jerr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifi.Name, jerr))
			continue
		}
		joined++
	}
	if joined == 0 {
		if len(errs) == 0 {
			return 0, errors.New("netchan: no up multicast interface to join " + group.String() + " on")
		}
		return 0, fmt.Errorf("netchan: joining %v: %w", group, errors.Join(errs...))
	}
	return joined, nil
}
