//go:build !linux

package netchan

import (
	"net"
	"net/netip"
)

// udpBatch is empty where UDPConn has no batch calls: it is a BatchConn
// on Linux only.
type udpBatch struct{}

func newUDPBatch(*net.UDPConn, netip.AddrPort) *udpBatch { return nil }
