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
// next Frame. It is bounded and reuses its slots' buffers. When it is
// full, a new packet takes the place of the newest packet of the flow
// (source address and port) with the most packets queued, if that flow
// has at least two more than the new packet's; failing that, of the
// source address with the most, on the same terms; else the new packet
// is dropped, as a full socket buffer would drop it. So a flood from one
// address, on one port or rotating through many, only ever displaces
// itself: the one answer of each real server still gets in. (Sources are
// addresses, not srclimit's IPv6 /64s: on a LAN every host shares one
// /64. A flood rotating through many source addresses is not told apart
// from as many servers.) It is safe for concurrent use.
type recvQueue struct {
	mu      sync.Mutex
	slots   []recvSlot
	head, n int
	flows   map[netip.AddrPort]int // packets queued per source address and port
	sources map[netip.Addr]int     // packets queued per source address
	closed  bool
}

type recvSlot struct {
	buf  []byte
	from netip.AddrPort
	at   time.Time
}

func newRecvQueue(n int) *recvQueue {
	return &recvQueue{slots: make([]recvSlot, n), flows: make(map[netip.AddrPort]int), sources: make(map[netip.Addr]int)}
}

// push copies p into the queue; it reports false if it was dropped.
func (q *recvQueue) push(p []byte, from netip.AddrPort, at time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.n == len(q.slots) && !q.evictFor(from) {
		return false
	}
	s := &q.slots[(q.head+q.n)%len(q.slots)]
	s.buf = append(s.buf[:0], p...)
	s.from, s.at = from, at
	q.n++
	q.flows[from]++
	q.sources[from.Addr()]++
	return true
}

// evictFor makes room in the full queue for a packet from from, by
// dropping the newest packet of the heaviest flow, or else of the
// heaviest source, if it holds at least two packets more than from's.
// It reports whether it made room.
func (q *recvQueue) evictFor(from netip.AddrPort) bool {
	var flow netip.AddrPort
	most := 0
	for f, c := range q.flows {
		if c > most {
			flow, most = f, c
		}
	}
	if most >= q.flows[from]+2 {
		q.removeLast(func(a netip.AddrPort) bool { return a == flow })
		return true
	}
	var src netip.Addr
	most = 0
	for s, c := range q.sources {
		if c > most {
			src, most = s, c
		}
	}
	if most >= q.sources[from.Addr()]+2 {
		q.removeLast(func(a netip.AddrPort) bool { return a.Addr() == src })
		return true
	}
	return false
}

// removeLast removes the newest queued packet whose source match
// accepts, moving the newer ones up so that the order stays that of
// arrival; the slots' buffers move with them.
func (q *recvQueue) removeLast(match func(netip.AddrPort) bool) {
	for k := q.n - 1; k >= 0; k-- {
		if !match(q.slots[(q.head+k)%len(q.slots)].from) {
			continue
		}
		q.forget(q.slots[(q.head+k)%len(q.slots)].from)
		for j := k; j < q.n-1; j++ {
			a, b := (q.head+j)%len(q.slots), (q.head+j+1)%len(q.slots)
			q.slots[a], q.slots[b] = q.slots[b], q.slots[a]
		}
		q.n--
		return
	}
}

// forget takes one packet from from off the counts.
func (q *recvQueue) forget(from netip.AddrPort) {
	if q.flows[from]--; q.flows[from] <= 0 {
		delete(q.flows, from)
	}
	if q.sources[from.Addr()]--; q.sources[from.Addr()] <= 0 {
		delete(q.sources, from.Addr())
	}
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
	q.forget(s.from)
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
