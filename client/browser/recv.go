package browser

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"tremor/net/netchan"
	"tremor/net/oob"
)

// recvQueue holds received packets with their arrival times until the
// next Frame. It is bounded, dropping new packets when full as a socket
// buffer would, and reuses its slots' buffers. It is safe for concurrent
// use.
type recvQueue struct {
	mu      sync.Mutex
	slots   []recvSlot
	head, n int
	closed  bool
}

type recvSlot struct {
	buf  []byte
	from netip.AddrPort
	at   time.Time
}

func newRecvQueue(n int) *recvQueue { return &recvQueue{slots: make([]recvSlot, n)} }

// push copies p into the queue; it reports false if it was dropped.
func (q *recvQueue) push(p []byte, from netip.AddrPort, at time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.n == len(q.slots) {
		return false
	}
	s := &q.slots[(q.head+q.n)%len(q.slots)]
	s.buf = append(s.buf[:0], p...)
	s.from, s.at = from, at
	q.n++
	return true
}

// pop copies the oldest packet into p.
func (q *recvQueue) pop(p []byte) (n int, from netip.AddrPort, at time.Time, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return 0, netip.AddrPort{}, time.Time{}, false
	}
	s := &q.slots[q.head]
	n = copy(p, s.buf)
	q.head = (q.head + 1) % len(q.slots)
	q.n--
	return n, s.from, s.at, true
}

func (q *recvQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

func (q *recvQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// pump reads c into the queue, stamping each packet with clock(), until
// c is closed. Longer packets than a connectionless packet can be are
// dropped.
func (q *recvQueue) pump(c netchan.Conn, clock func() time.Time) {
	buf := make([]byte, oob.MaxReceivedLen+1)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || q.isClosed() {
				return
			}
			time.Sleep(time.Millisecond) // an ICMP error on some systems: go on
			continue
		}
		if n > oob.MaxReceivedLen {
			continue
		}
		q.push(buf[:n], from, clock())
	}
}

// udpConn is a netchan.Conn over a socket of one address family (udp4 or
// udp6); netchan.ListenUDP opens dual-stack sockets.
type udpConn struct{ c *net.UDPConn }

func (u *udpConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	n, from, err := u.c.ReadFromUDPAddrPort(p)
	return n, netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), err
}

func (u *udpConn) WriteTo(p []byte, to netip.AddrPort) error {
	_, err := u.c.WriteToUDPAddrPort(p, to)
	return err
}

func (u *udpConn) LocalAddr() netip.AddrPort {
	if a, ok := u.c.LocalAddr().(*net.UDPAddr); ok {
		return a.AddrPort()
	}
	return netip.AddrPort{}
}

func (u *udpConn) SetReadDeadline(t time.Time) error { return u.c.SetReadDeadline(t) }
func (u *udpConn) Close() error                      { return u.c.Close() }
