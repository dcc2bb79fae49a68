// Package mux joins several netchan.Conns into one, so that the server
// embedded in the client serves its own player over the in-memory
// loopback and LAN players over UDP through the single Conn the server
// engine takes.
package mux

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"tremor/net/netchan"
)

// QueueLen is how many received packets wait for ReadFrom; more are
// dropped, as a full socket buffer would drop them.
const QueueLen = 256

// Conn reads from every Conn it joins and writes each packet through the
// Conn its destination belongs to: loopback addresses
// (netchan.IsLoopbackAddr) through the first, the rest through the second.
// It is safe for concurrent use.
//
// Only the loopback end may carry loopback addresses: a UDP packet whose
// source claims one (a LAN host can forge any source address) is dropped
// and counted (SpoofedLoopback), or the server would take it for the
// local player's. 127.0.0.1 and ::1 stay allowed on the UDP side, since
// players on the same machine join that way.
type Conn struct {
	lo, udp netchan.Conn
	ring    *netchan.PacketRing
	rd      *netchan.ReadDeadline
	wg      sync.WaitGroup
	spoofed atomic.Uint64
}

// New joins lo (the loopback end the local player talks to) and udp. It
// owns both from now on.
func New(lo, udp netchan.Conn) *Conn {
	c := &Conn{lo: lo, udp: udp, ring: netchan.NewPacketRing(QueueLen), rd: netchan.NewReadDeadline()}
	c.wg.Add(2)
	go c.pump(lo, false)
	go c.pump(udp, true)
	return c
}

// pump moves packets from one Conn into the ring until it is closed. The
// UDP end's packets from loopback addresses are dropped.
func (c *Conn) pump(from netchan.Conn, isUDP bool) {
	defer c.wg.Done()
	buf := make([]byte, netchan.MaxLoopbackPacket)
	for {
		n, addr, err := from.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if isUDP && netchan.IsLoopbackAddr(addr) {
			c.spoofed.Add(1)
			continue
		}
		c.ring.Push(buf[:n], addr) // dropped when full
	}
}

// SpoofedLoopback returns how many packets arrived on the UDP end from a
// loopback address and were dropped.
func (c *Conn) SpoofedLoopback() uint64 { return c.spoofed.Load() }

// ReadFrom implements netchan.Conn.
func (c *Conn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	return c.rd.Read(c.ring, b)
}

// WriteTo implements netchan.Conn.
func (c *Conn) WriteTo(p []byte, to netip.AddrPort) error {
	if netchan.IsLoopbackAddr(to) {
		return c.lo.WriteTo(p, to)
	}
	return c.udp.WriteTo(p, to)
}

// LocalAddr implements netchan.Conn: the loopback end's address, the one
// the local client connects to.
func (c *Conn) LocalAddr() netip.AddrPort { return c.lo.LocalAddr() }

// UDPAddr returns the UDP end's address, the one LAN players join.
func (c *Conn) UDPAddr() netip.AddrPort { return c.udp.LocalAddr() }

// SetReadDeadline implements netchan.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.rd.Set(t) }

// Close implements netchan.Conn: it closes both Conns.
func (c *Conn) Close() error {
	if err := c.rd.Close(); err != nil {
		return err
	}
	err := errors.Join(c.lo.Close(), c.udp.Close())
	c.wg.Wait()
	c.ring.Close()
	return err
}

var _ netchan.Conn = (*Conn)(nil)
