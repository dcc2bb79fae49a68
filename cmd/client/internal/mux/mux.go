// Package mux joins several netchan.Conns into one, so that the server
// embedded in the client serves its own player over the in-memory
// loopback and LAN players over UDP through the single Conn the server
// engine takes.
package mux

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"tremor/net/netchan"
)

// QueueLen is how many received packets wait for ReadFrom; more are
// dropped, as a full socket buffer would drop them.
const QueueLen = 256

// packet is one received packet in a reusable buffer.
type packet struct {
	buf  [netchan.MaxLoopbackPacket]byte
	n    int
	from netip.AddrPort
}

// Conn reads from every Conn it joins and writes each packet through the
// Conn its destination belongs to: loopback addresses
// (netchan.IsLoopbackAddr) through the first, the rest through the second.
// It is safe for concurrent use.
type Conn struct {
	lo, udp netchan.Conn
	queue   chan *packet
	free    chan *packet

	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{}
	done     chan struct{}
	closed   bool
	wg       sync.WaitGroup
}

// New joins lo (the loopback end the local player talks to) and udp. It
// owns both from now on.
func New(lo, udp netchan.Conn) *Conn {
	c := &Conn{lo: lo, udp: udp, queue: make(chan *packet, QueueLen), free: make(chan *packet, QueueLen),
		changed: make(chan struct{}), done: make(chan struct{})}
	for range QueueLen {
		c.free <- new(packet)
	}
	c.wg.Add(2)
	go c.pump(lo)
	go c.pump(udp)
	return c
}

// pump moves packets from one Conn into the queue until it is closed.
func (c *Conn) pump(from netchan.Conn) {
	defer c.wg.Done()
	var spare packet
	for {
		var p *packet
		select {
		case p = <-c.free:
		default:
			p = &spare // queue full: read and drop
		}
		n, addr, err := from.ReadFrom(p.buf[:])
		if err != nil {
			if p != &spare {
				c.free <- p
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if p == &spare {
			continue
		}
		p.n, p.from = n, addr
		c.queue <- p
	}
}

// ReadFrom implements netchan.Conn.
func (c *Conn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	for {
		c.mu.Lock()
		closed, deadline, changed := c.closed, c.deadline, c.changed
		c.mu.Unlock()
		if closed {
			return 0, netip.AddrPort{}, net.ErrClosed
		}
		var timeout <-chan time.Time
		var timer *time.Timer
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
			}
			timer = time.NewTimer(d)
			timeout = timer.C
		}
		select {
		case p := <-c.queue:
			if timer != nil {
				timer.Stop()
			}
			n := copy(b, p.buf[:p.n])
			from := p.from
			c.free <- p
			return n, from, nil
		case <-changed:
		case <-c.done:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
	}
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
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.deadline = t
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

// Close implements netchan.Conn: it closes both Conns.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.closed = true
	close(c.done)
	c.mu.Unlock()
	err := errors.Join(c.lo.Close(), c.udp.Close())
	// A pump blocked on a full queue: drain so it can see the close.
	go func() {
		for range c.queue {
		}
	}()
	c.wg.Wait()
	close(c.queue)
	return err
}

var _ netchan.Conn = (*Conn)(nil)
