package netchan

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
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
	in, out       *loopPipe

	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{} // closed and replaced when the deadline changes
	done     chan struct{} // closed by Close
	closed   bool
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
	ab, ba := newLoopPipe(), newLoopPipe()
	a = &LoopbackConn{
		local: netip.AddrPortFrom(addr, 1), remote: netip.AddrPortFrom(addr, 2),
		in: ba, out: ab, changed: make(chan struct{}), done: make(chan struct{}),
	}
	b = &LoopbackConn{
		local: a.remote, remote: a.local,
		in: ab, out: ba, changed: make(chan struct{}), done: make(chan struct{}),
	}
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
	case <-c.done:
		return net.ErrClosed
	default:
	}
	if to != c.remote {
		return ErrLoopbackAddr
	}
	if len(p) > MaxLoopbackPacket {
		return ErrPacketTooLarge
	}
	c.out.push(p)
	return nil
}

// ReadFrom implements Conn. Like a UDP socket, it reports a passed
// deadline even when packets are waiting.
func (c *LoopbackConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
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
			if n, ok := c.in.pop(p); ok {
				return n, c.remote, nil
			}
			timer = time.NewTimer(d)
			timeout = timer.C
		} else if n, ok := c.in.pop(p); ok {
			return n, c.remote, nil
		}
		select {
		case <-c.in.ready:
		case <-changed:
		case <-c.done:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// SetReadDeadline implements Conn. It wakes blocked reads so they see the
// new deadline.
func (c *LoopbackConn) SetReadDeadline(t time.Time) error {
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

// Close implements Conn: blocked and later reads and writes on c return
// net.ErrClosed, and packets the peer sends to c are dropped. Closing twice
// returns net.ErrClosed.
func (c *LoopbackConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.closed = true
	close(c.done)
	c.in.close()
	return nil
}

// loopPipe is one direction of a loopback pair: a bounded ring of packets.
// Slot buffers are kept and reused, so once every slot has carried a packet
// as large as the current ones, writes and reads without a deadline do not
// allocate.
type loopPipe struct {
	mu      sync.Mutex
	slots   [LoopbackQueueLen][]byte
	head, n int
	closed  bool
	ready   chan struct{} // holds a token while packets may be waiting
}

func newLoopPipe() *loopPipe {
	return &loopPipe{ready: make(chan struct{}, 1)}
}

func (q *loopPipe) push(p []byte) {
	q.mu.Lock()
	if q.closed || q.n == LoopbackQueueLen {
		q.mu.Unlock()
		return
	}
	i := (q.head + q.n) % LoopbackQueueLen
	q.slots[i] = append(q.slots[i][:0], p...)
	q.n++
	q.mu.Unlock()
	q.signal()
}

// pop copies the oldest packet into p.
func (q *loopPipe) pop(p []byte) (int, bool) {
	q.mu.Lock()
	if q.n == 0 {
		q.mu.Unlock()
		return 0, false
	}
	n := copy(p, q.slots[q.head])
	q.head = (q.head + 1) % LoopbackQueueLen
	q.n--
	more := q.n > 0
	q.mu.Unlock()
	if more {
		// Pass the token on to another blocked reader.
		q.signal()
	}
	return n, true
}

func (q *loopPipe) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *loopPipe) close() {
	q.mu.Lock()
	q.closed = true
	q.n = 0
	q.slots = [LoopbackQueueLen][]byte{}
	q.mu.Unlock()
}
