//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package netchan

import (
	"errors"
	"net/netip"
)

// joinGroup6 cannot join a group on this system.
func joinGroup6(uintptr, netip.Addr, int) error {
	return errors.New("joining an IPv6 multicast group is not supported on this system")
}
