package netchan

import (
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// The pieces of an in-memory Conn: a ring of received packets and the
// read-deadline state that wakes blocked readers. LoopbackConn is built
// from them, and so is any Conn that gathers packets from elsewhere (the
// windowed client's embedded server joins a loopback end and a UDP socket
// this way).

// PacketRing is a bounded queue of received packets with their senders,
// dropping new packets when full as a socket buffer would. Slot buffers
// are kept and reused, so steady traffic does not allocate. It is safe
// for concurrent use.
type PacketRing struct {
	mu      sync.Mutex
	slots   []ringSlot
	head, n int
	closed  bool
	ready   chan struct{} // holds a token while packets may be waiting
}

type ringSlot struct {
	buf  []byte
	from netip.AddrPort
}

// NewPacketRing returns a ring of n packets.
func NewPacketRing(n int) *PacketRing {
	return &PacketRing{slots: make([]ringSlot, n), ready: make(chan struct{}, 1)}
}

// Push copies p, received from from, into the ring; it reports false if
// the ring was full or closed and the packet dropped.
func (q *PacketRing) Push(p []byte, from netip.AddrPort) bool {
	q.mu.Lock()
	if q.closed || q.n == len(q.slots) {
		q.mu.Unlock()
		return false
	}
	s := &q.slots[(q.head+q.n)%len(q.slots)]
	s.buf = append(s.buf[:0], p...)
	s.from = from
	q.n++
	q.mu.Unlock()
	q.signal()
	return true
}

// Pop copies the oldest packet into p and returns its length and sender.
func (q *PacketRing) Pop(p []byte) (int, netip.AddrPort, bool) {
	q.mu.Lock()
	if q.n == 0 {
		q.mu.Unlock()
		return 0, netip.AddrPort{}, false
	}
	s := &q.slots[q.head]
	n, from := copy(p, s.buf), s.from
	q.head = (q.head + 1) % len(q.slots)
	q.n--
	more := q.n > 0
	q.mu.Unlock()
	if more {
		q.signal() // pass the token on to another blocked reader
	}
	return n, from, true
}

// Ready receives a token while packets may be waiting.
func (q *PacketRing) Ready() <-chan struct{} { return q.ready }

// Close empties the ring and drops every later Push.
func (q *PacketRing) Close() {
	q.mu.Lock()
	q.closed = true
	q.n = 0
	for i := range q.slots {
		q.slots[i] = ringSlot{}
	}
	q.mu.Unlock()
}

func (q *PacketRing) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// ReadDeadline is the read deadline and closed state of an in-memory
// Conn. Set wakes blocked reads so they see the new deadline; Close wakes
// them for good. The zero value is not usable: use NewReadDeadline.
type ReadDeadline struct {
	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{} // closed and replaced when the deadline changes
	done     chan struct{} // closed by Close
	closed   bool
}

// NewReadDeadline returns an open ReadDeadline with no deadline.
func NewReadDeadline() *ReadDeadline {
	return &ReadDeadline{changed: make(chan struct{}), done: make(chan struct{})}
}

// Set sets the deadline (zero: none), as Conn.SetReadDeadline.
func (d *ReadDeadline) Set(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return net.ErrClosed
	}
	d.deadline = t
	close(d.changed)
	d.changed = make(chan struct{})
	return nil
}

// Close marks the Conn closed and wakes every blocked read; it returns
// net.ErrClosed if it was closed already.
func (d *ReadDeadline) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return net.ErrClosed
	}
	d.closed = true
	close(d.done)
	return nil
}

// Done is closed by Close.
func (d *ReadDeadline) Done() <-chan struct{} { return d.done }

// Read reads the oldest packet of q into p, waiting for one until the
// deadline or Close. Like a UDP socket it reports a passed deadline
// (os.ErrDeadlineExceeded) even when packets are waiting, and
// net.ErrClosed once closed. Only a read that has to wait with a deadline
// set allocates (a timer).
func (d *ReadDeadline) Read(q *PacketRing, p []byte) (int, netip.AddrPort, error) {
	for {
		d.mu.Lock()
		closed, deadline, changed := d.closed, d.deadline, d.changed
		d.mu.Unlock()
		if closed {
			return 0, netip.AddrPort{}, net.ErrClosed
		}
		var timeout <-chan time.Time
		var timer *time.Timer
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
			}
			if n, from, ok := q.Pop(p); ok {
				return n, from, nil
			}
			timer = time.NewTimer(left)
			timeout = timer.C
		} else if n, from, ok := q.Pop(p); ok {
			return n, from, nil
		}
		select {
		case <-q.Ready():
		case <-changed:
		case <-d.done:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}
