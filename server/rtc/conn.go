package rtc

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"time"

	"tremor/net/netchan"
)

var (
	_ netchan.Conn          = (*conn)(nil)
	_ netchan.FragmentSizer = (*conn)(nil)
	_ netchan.BatchConn     = (*batchConn)(nil)
	_ netchan.FragmentSizer = (*batchConn)(nil)
)

// conn is the Transport's netchan.Conn. Its reads come from the ring
// that the DataChannels feed and, unless the game socket has batch
// reads (batchConn), the game socket's packets too.
type conn struct{ t *Transport }

// ReadFrom implements netchan.Conn.
func (c *conn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	return c.t.rd.Read(c.t.ring, p)
}

// WriteTo implements netchan.Conn: to a WebRTC peer's address over its
// DataChannel, to any other over UDP.
func (c *conn) WriteTo(p []byte, to netip.AddrPort) error { return c.t.writeTo(p, to) }

// LocalAddr implements netchan.Conn: the game socket's address.
func (c *conn) LocalAddr() netip.AddrPort { return c.t.udp.LocalAddr() }

// SetReadDeadline implements netchan.Conn.
func (c *conn) SetReadDeadline(t time.Time) error { return c.t.rd.Set(t) }

// Close implements netchan.Conn by closing the Transport.
func (c *conn) Close() error { return c.t.Close() }

// FragmentSize implements netchan.FragmentSizer:
// netchan.WebRTCFragmentSize for an open WebRTC peer, 0 (the default)
// for any other address.
func (c *conn) FragmentSize(to netip.AddrPort) int { return c.t.fragmentSize(to) }

// batchConn is the Transport's Conn over a game socket with batch
// reads and writes (Linux): ReadBatch takes the ring's packets and then
// the socket's, without blocking, as the server's batched loop wants.
type batchConn struct{ *conn }

// pollSlice is how long batchConn.ReadFrom blocks in the socket before
// it looks at the ring again.
const pollSlice = 5 * time.Millisecond

// ReadFrom implements netchan.Conn. The server reads a batchConn with
// ReadBatch; ReadFrom, for other callers, takes the ring's packets first
// and waits on the socket in slices of pollSlice (SharedPort: on the
// ring alone).
func (c *batchConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	t := c.t
	if t.cfg.SharedPort {
		return c.conn.ReadFrom(p)
	}
	for {
		if n, from, ok := t.ring.Pop(p); ok {
			return n, from, nil
		}
		deadline := t.deadline()
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
		}
		slice := time.Now().Add(pollSlice)
		if !deadline.IsZero() && deadline.Before(slice) {
			slice = deadline
		}
		if err := t.udp.SetReadDeadline(slice); err != nil {
			return 0, netip.AddrPort{}, err
		}
		n, from, err := t.udp.ReadFrom(p)
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, from, err
		}
	}
}

// SetReadDeadline implements netchan.Conn: the ring's deadline and,
// unless the ICE mux reads it, the socket's, so that a deadline set to
// now interrupts a read of either.
func (c *batchConn) SetReadDeadline(d time.Time) error {
	if err := c.t.rd.Set(d); err != nil {
		return err
	}
	c.t.dlMu.Lock()
	c.t.dl = d
	c.t.dlMu.Unlock()
	if c.t.cfg.SharedPort {
		return nil
	}
	return c.t.udp.SetReadDeadline(d)
}

// ReadBatch implements netchan.BatchConn: the DataChannels' packets
// (and with SharedPort the game socket's, which the ICE mux read),
// then, without SharedPort, what the socket holds, with recvmmsg.
func (c *batchConn) ReadBatch(ps []netchan.Packet) (int, error) {
	t := c.t
	n := 0
	for n < len(ps) {
		m, from, ok := t.ring.Pop(ps[n].Buf)
		if !ok {
			break
		}
		ps[n].N, ps[n].Addr, ps[n].Time = m, from, time.Time{}
		n++
	}
	if t.cfg.SharedPort || n == len(ps) {
		if n == 0 && t.isClosed() {
			return 0, net.ErrClosed
		}
		return n, nil
	}
	m, err := t.batch.ReadBatch(ps[n:])
	return n + m, err
}

// WriteBatch implements netchan.BatchConn: runs of UDP packets go out
// with one sendmmsg each, a WebRTC peer's over its DataChannel.
func (c *batchConn) WriteBatch(ps []netchan.Packet) (int, error) {
	t := c.t
	done := 0
	for done < len(ps) {
		run := done
		for run < len(ps) {
			p, gone := t.peerFor(ps[run].Addr)
			if p != nil || gone {
				break
			}
			run++
		}
		if run > done {
			n, err := t.batch.WriteBatch(ps[done:run])
			done += n
			if err != nil {
				return done, err
			}
			continue
		}
		if err := t.writeTo(ps[done].Buf, ps[done].Addr); err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

// deadline returns the read deadline batchConn was given.
func (t *Transport) deadline() time.Time {
	t.dlMu.Lock()
	defer t.dlMu.Unlock()
	return t.dl
}

func (t *Transport) isClosed() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.closed
}
