package netchan

import (
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"time"
)

// Limits of a LoopbackConn.
const (
	// LoopbackQueueLen is how many packets each direction of a loopback
	// pair holds before it drops new ones, as a full socket buffer would.
	LoopbackQueueLen = 128

	// MaxLoopbackPacket is the longest packet a LoopbackConn carries, the
	// largest UDP payload over IPv4.
	MaxLoopbackPacket = 65507
)

// Errors returned by LoopbackConn.WriteTo.
var (
	ErrLoopbackAddr   = errors.New("netchan: loopback conn can only send to its peer")
	ErrPacketTooLarge = errors.New("netchan: packet larger than MaxLoopbackPacket")
)

// loopbackPrefix is the IPv6 discard-only prefix 100::/64 (RFC 6666): no real
// packet can come from it, so loopback addresses never collide with UDP ones.
var loopbackPrefix = netip.MustParsePrefix("100::/64")

var loopbackPairs atomic.Uint64

// IsLoopbackAddr reports whether addr is a LoopbackConn address.
func IsLoopbackAddr(addr netip.AddrPort) bool {
	return loopbackPrefix.Contains(addr.Addr())
}

// LoopbackConn is one end of an in-memory packet pair made by NewLoopback,
// for a server embedded in the client: both ends speak exactly the protocol
// they would over UDP. It is safe for concurrent use. Steady traffic does
// not allocate, except that a read which has to wait with a deadline set
// allocates a timer.
type LoopbackConn struct {
	local, remote netip.AddrPort
	in, out       *PacketRing
	rd            *ReadDeadline
}

// NewLoopback returns the two ends of an in-memory packet pair. What one
// end writes to the other's address, the other reads; packets are copied,
// and each direction holds up to LoopbackQueueLen packets, dropping new ones
// when full.
//
// The n-th pair made by the process has the addresses [100::n]:1 (a) and
// [100::n]:2 (b), in the IPv6 discard-only prefix 100::/64, so every pair's
// addresses are distinct from each other and from any real address;
// IsLoopbackAddr recognises them.
func NewLoopback() (a, b *LoopbackConn) {
	n := loopbackPairs.Add(1)
	ip := loopbackPrefix.Addr().As16()
	for i := range 8 {
		ip[15-i] = byte(n >> (8 * i))
	}
	addr := netip.AddrFrom16(ip)
	ab, ba := NewPacketRing(LoopbackQueueLen), NewPacketRing(LoopbackQueueLen)
	a = &LoopbackConn{
		local: netip.AddrPortFrom(addr, 1), remote: netip.AddrPortFrom(addr, 2),
		in: ba, out: ab, rd: NewReadDeadline(),
	}
	b = &LoopbackConn{local: a.remote, remote: a.local, in: ab, out: ba, rd: NewReadDeadline()}
	return a, b
}

// LocalAddr implements Conn.
func (c *LoopbackConn) LocalAddr() netip.AddrPort { return c.local }

// RemoteAddr returns the address of the other end of the pair.
func (c *LoopbackConn) RemoteAddr() netip.AddrPort { return c.remote }

// WriteTo implements Conn. to must be the peer's address (ErrLoopbackAddr
// otherwise). A packet sent while the peer's queue is full, or after the
// peer closed, is dropped silently, as UDP would.
func (c *LoopbackConn) WriteTo(p []byte, to netip.AddrPort) error {
	select {
	case <-c.rd.Done():
		return net.ErrClosed
	default:
	}
	if to != c.remote {
		return ErrLoopbackAddr
	}
	if len(p) > MaxLoopbackPacket {
		return ErrPacketTooLarge
	}
	c.out.Push(p, c.local)
	return nil
}

// ReadFrom implements Conn. Like a UDP socket, it reports a passed
// deadline even when packets are waiting.
func (c *LoopbackConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	return c.rd.Read(c.in, p)
}

// SetReadDeadline implements Conn. It wakes blocked reads so they see the
// new deadline.
func (c *LoopbackConn) SetReadDeadline(t time.Time) error { return c.rd.Set(t) }

// Close implements Conn: blocked and later reads and writes on c return
// net.ErrClosed, and packets the peer sends to c are dropped. Closing twice
// returns net.ErrClosed.
func (c *LoopbackConn) Close() error {
	if err := c.rd.Close(); err != nil {
		return err
	}
	c.in.Close()
	return nil
}
