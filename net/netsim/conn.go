package netsim

import (
	"net"
	"net/netip"
	"sync"
	"time"

	"tremor/net/netchan"
)

// MaxHeld is how many packets a Conn holds waiting for delivery before it
// drops new ones, so that a flood through a long delay cannot use unbounded
// memory.
const MaxHeld = 1 << 16

var _ netchan.Conn = (*Conn)(nil)

// Conn is a netchan.Conn that impairs the packets it sends. WriteTo passes
// each packet through a Link, using the time since Wrap as virtual time,
// and a scheduler goroutine writes it to the inner Conn when it is due.
// ReadFrom, LocalAddr and SetReadDeadline go straight to the inner Conn, so
// received packets are not impaired: wrap the other end too to impair both
// directions. A Conn is safe for concurrent use.
//
// A packet due at once while nothing is waiting is written to the inner
// Conn by WriteTo itself, which then returns the inner Conn's error; a
// delayed packet's write error is only counted (it is not Delivered).
type Conn struct {
	inner netchan.Conn
	start time.Time
	wake  chan struct{} // holds a token when the earliest packet changed
	done  chan struct{} // closed by Close
	exit  chan struct{} // closed when the scheduler returns

	mu         sync.Mutex
	link       *Link
	held       heldQueue
	seq        uint64   // order of packets with equal times
	free       [][]byte // spare packet buffers
	heldBytes  int
	delivered  uint64
	dropped    uint64 // beyond MaxHeld
	delivering bool   // the scheduler is writing packets it took out
	closed     bool
}

// Wrap returns a Conn that sends through c with the impairments cfg, its
// random decisions seeded by seed, and starts its scheduler goroutine.
// Closing the Conn closes c.
func Wrap(c netchan.Conn, cfg Config, seed uint64) *Conn {
	w := &Conn{
		inner: c,
		start: time.Now(),
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
		exit:  make(chan struct{}),
		link:  NewLink(cfg, seed),
	}
	go w.schedule()
	return w
}

// Inner returns the wrapped Conn.
func (w *Conn) Inner() netchan.Conn { return w.inner }

// SetConfig changes the impairments from the next WriteTo on; packets
// already sent keep their arrival times. It is how a cvar such as
// cl_packetdelay takes effect at once.
func (w *Conn) SetConfig(cfg Config) {
	w.mu.Lock()
	w.link.SetConfig(cfg)
	w.mu.Unlock()
}

// Config returns the impairments in force.
func (w *Conn) Config() Config {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.link.Config()
}

// Stats returns the counts so far.
func (w *Conn) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.link.Stats()
	s.Dropped += w.dropped
	s.Delivered = w.delivered
	s.QueuedBytes = w.heldBytes
	return s
}

// WriteTo implements netchan.Conn. It decides the packet's fate at once, in
// call order, and copies p if the packet has to wait; a dropped packet is
// dropped silently, as UDP would. After Close it returns net.ErrClosed (NET_QueuePacket).
func (w *Conn) WriteTo(p []byte, to netip.AddrPort) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return net.ErrClosed
	}
	now := time.Since(w.start)
	arrivals := w.link.Send(now, len(p))
	if len(arrivals) == 0 {
		w.mu.Unlock()
		return nil
	}
	if w.held.len() == 0 && !w.delivering && arrivals[len(arrivals)-1] <= now {
		// Due now and nothing ahead of it: write it here.
		n := len(arrivals)
		w.mu.Unlock()
		var err error
		for range n {
			if err = w.inner.WriteTo(p, to); err != nil {
				break
			}
			w.mu.Lock()
			w.delivered++
			w.mu.Unlock()
		}
		return err
	}
	wasFirst := w.held.len() == 0
	var first time.Duration
	if !wasFirst {
		first = w.held.items[0].at
	}
	for _, at := range arrivals {
		if w.held.len() >= MaxHeld {
			w.dropped++
			continue
		}
		var buf []byte
		if n := len(w.free); n > 0 {
			buf, w.free = w.free[n-1], w.free[:n-1]
		}
		buf = append(buf[:0], p...)
		w.held.push(heldPacket{at: at, seq: w.seq, to: to, buf: buf})
		w.seq++
		w.heldBytes += len(p)
	}
	wake := wasFirst || arrivals[0] < first
	w.mu.Unlock()
	if wake {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// ReadFrom implements netchan.Conn by reading from the inner Conn.
func (w *Conn) ReadFrom(p []byte) (int, netip.AddrPort, error) { return w.inner.ReadFrom(p) }

// FragmentSize implements netchan.FragmentSizer by asking the inner
// Conn: 0 (the default) unless it is a FragmentSizer.
func (w *Conn) FragmentSize(to netip.AddrPort) int {
	if fs, ok := w.inner.(netchan.FragmentSizer); ok {
		return fs.FragmentSize(to)
	}
	return 0
}

// LocalAddr implements netchan.Conn.
func (w *Conn) LocalAddr() netip.AddrPort { return w.inner.LocalAddr() }

// SetReadDeadline implements netchan.Conn.
func (w *Conn) SetReadDeadline(t time.Time) error { return w.inner.SetReadDeadline(t) }

// Close implements netchan.Conn: it stops the scheduler, discards the
// packets still waiting and closes the inner Conn. Closing twice returns
// net.ErrClosed.
func (w *Conn) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return net.ErrClosed
	}
	w.closed = true
	close(w.done)
	w.mu.Unlock()
	<-w.exit
	w.mu.Lock()
	w.held.items = nil
	w.free = nil
	w.heldBytes = 0
	w.mu.Unlock()
	return w.inner.Close()
}

// schedule writes held packets to the inner Conn as they fall due (NET_FlushPacketQueue).
func (w *Conn) schedule() {
	defer close(w.exit)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var batch []heldPacket
	for {
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return
		}
		now := time.Since(w.start)
		for w.held.len() > 0 && w.held.items[0].at <= now {
			batch = append(batch, w.held.pop())
		}
		wait := time.Duration(-1)
		if w.held.len() > 0 {
			wait = w.held.items[0].at - now
		}
		w.delivering = len(batch) > 0
		w.mu.Unlock()

		if len(batch) > 0 {
			var ok uint64
			for _, hp := range batch {
				if w.inner.WriteTo(hp.buf, hp.to) == nil {
					ok++
				}
			}
			w.mu.Lock()
			w.delivering = false
			w.delivered += ok
			for i := range batch {
				w.heldBytes -= len(batch[i].buf)
				if !w.closed {
					w.free = append(w.free, batch[i].buf)
				}
				batch[i] = heldPacket{}
			}
			w.mu.Unlock()
			batch = batch[:0]
			continue
		}

		var fire <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			fire = timer.C
		}
		select {
		case <-w.done:
			return
		case <-w.wake:
		case <-fire:
		}
		timer.Stop()
	}
}

// heldPacket is a packet waiting for its arrival time.
type heldPacket struct {
	at  time.Duration
	seq uint64
	to  netip.AddrPort
	buf []byte
}

// heldQueue is a min-heap of packets by arrival time, then send order.
type heldQueue struct{ items []heldPacket }

func (q *heldQueue) len() int { return len(q.items) }

func (q *heldQueue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (q *heldQueue) push(p heldPacket) {
	q.items = append(q.items, p)
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *heldQueue) pop() heldPacket {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = heldPacket{}
	q.items = q.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
}
