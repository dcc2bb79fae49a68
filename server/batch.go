package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"

	"tremor/net/netchan"
)

// Limits of the batched socket I/O Run uses on a netchan.BatchConn.
const (
	// readBatchLen is how many packets Run reads per ReadBatch call.
	readBatchLen = 64
	// sendQueueLen and sendQueueBytes bound the packets queued for one
	// WriteBatch; a fuller queue is flushed early.
	sendQueueLen   = 2 * netchan.MaxBatch
	sendQueueBytes = sendQueueLen * netchan.MaxPacketLen
)

// MaxBatchWait is the longest Run sleeps on a BatchConn, in
// milliseconds, when no frame or fragment is due sooner (no map
// loaded, or sv_fps under 10).
const MaxBatchWait = 100

// sendQueue holds the packets the server sends while a batch is open
// (beginBatch), copied into one buffer, until endBatch sends them with
// one WriteBatch: a frame's snapshots to every client in one system call.
type sendQueue struct {
	open  int // nesting depth of beginBatch
	buf   []byte
	pkts  []netchan.Packet
	conn  netchan.BatchConn
	stats *Stats
}

// queue copies p for to into the queue, flushing first if it is full;
// a packet larger than the whole queue goes out at once, alone.
func (q *sendQueue) queue(p []byte, to netip.AddrPort) error {
	if len(p) > cap(q.buf) {
		q.flush()
		return q.conn.WriteTo(p, to)
	}
	if len(q.pkts) == cap(q.pkts) || len(p) > cap(q.buf)-len(q.buf) {
		q.flush()
	}
	start := len(q.buf)
	q.buf = append(q.buf, p...)
	q.pkts = append(q.pkts, netchan.Packet{Buf: q.buf[start:len(q.buf):len(q.buf)], Addr: to})
	return nil
}

// flush sends every queued packet. A packet the socket refuses is
// counted in SendErrors and skipped, as a refused WriteTo is.
func (q *sendQueue) flush() {
	ps := q.pkts
	for len(ps) > 0 {
		n, err := q.conn.WriteBatch(ps)
		ps = ps[n:]
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				break
			}
			q.stats.SendErrors++
			if len(ps) > 0 {
				ps = ps[1:]
			}
		}
	}
	clear(q.pkts)
	q.pkts, q.buf = q.pkts[:0], q.buf[:0]
}

// beginBatch makes the packets the server sends wait in its send queue
// until the matching endBatch, when its conn is a BatchConn and no
// network simulation is on. Batches nest; the outermost endBatch sends.
func (s *Server) beginBatch() {
	if s.sendq.conn != nil {
		s.sendq.open++
	}
}

// endBatch closes a beginBatch, sending the queue when it was the
// outermost.
func (s *Server) endBatch() {
	if s.sendq.conn == nil || s.sendq.open == 0 {
		return
	}
	s.sendq.open--
	if s.sendq.open == 0 {
		s.sendq.flush()
	}
}

// runBatched is Run on a BatchConn. Instead of waking for every packet,
// it sleeps until the next frame or paced fragment is due (at most
// MaxBatchWait), or until Exec or Do wakes it; then it reads every
// packet waiting, a batch per system call, hands them to Packet in
// order, each at the time the kernel stamped it with (so pings and
// timeouts are what they would be had it woken for the packet), runs
// Frame, and sends everything the packets and the frame produced with
// one WriteBatch. A packet is handled at most a frame after it arrived,
// but before the first frame that follows its arrival, as it would be
// had the server woken for it: only connectionless replies (a server
// browser's getinfo) go out later, and an infoResponse says by how much
// (its hold key), so that a browser's ping is the network's alone.
func (s *Server) runBatched(ctx context.Context, bc netchan.BatchConn) error {
	start := time.Now()
	base := s.svs.now
	clock := func() int32 { return base + int32(time.Since(start)/time.Millisecond) }
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	pkts := make([]netchan.Packet, readBatchLen)
	bufs := make([]byte, readBatchLen*netchan.MaxMsgLen)
	for i := range pkts {
		pkts[i].Buf = bufs[i*netchan.MaxMsgLen : (i+1)*netchan.MaxMsgLen]
	}
	last := clock() // when the socket was last read
	for {
		if ctx.Err() != nil || s.quit {
			s.Shutdown("Server shutting down")
			return nil
		}
		now := clock()
		if wait := s.nextEvent(now, MaxBatchWait); wait > 0 {
			timer.Reset(time.Duration(wait) * time.Millisecond)
			select {
			case <-timer.C:
			case <-s.wake:
			case <-ctx.Done():
			}
		}
		// wakeUp sets a passed read deadline to interrupt a blocked
		// read; this loop never blocks in a read, and a passed deadline
		// would make ReadBatch refuse to read.
		if err := s.conn.SetReadDeadline(time.Time{}); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		now = clock()
		wall := time.Now()
		s.beginEvent(now)
		s.beginBatch()
		s.svs.replyAt = now
		at := last // packets are handed over in order, never going back
		for {
			n, err := bc.ReadBatch(pkts)
			for i := range pkts[:n] {
				p := &pkts[i]
				at = max(at, arrival(now, wall, p.Time))
				s.packetEvent(at, p.Addr, p.Buf[:p.N])
			}
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					s.endBatch()
					return fmt.Errorf("server: %w", err)
				}
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					// ICMP errors and the like: note them and go on.
					s.svs.stats.BadPackets++
				}
				break
			}
			if n < len(pkts) {
				break
			}
		}
		last = now
		s.frameEvent(now)
		s.endBatch()
		s.svs.replyAt = 0
	}
}

// arrival returns the server time a packet stamped t arrived at, given
// that the server time is now at wall clock wall: now if the stamp is
// missing or later than wall.
func arrival(now int32, wall, t time.Time) int32 {
	if t.IsZero() {
		return now
	}
	age := wall.Sub(t)
	if age <= 0 {
		return now
	}
	return now - int32(min(age/time.Millisecond, MaxBatchWait))
}
