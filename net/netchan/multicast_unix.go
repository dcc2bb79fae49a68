//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package netchan

import (
	"net/netip"
	"syscall"
)

// joinGroup6 sets IPV6_JOIN_GROUP for group on interface ifindex of the
// socket fd.
func joinGroup6(fd uintptr, group netip.Addr, ifindex int) error {
	mreq := &syscall.IPv6Mreq{Multiaddr: group.As16(), Interface: uint32(ifindex)}
	return syscall.SetsockoptIPv6Mreq(int(fd), syscall.IPPROTO_IPV6, syscall.IPV6_JOIN_GROUP, mreq)
}
