package rtc

import (
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"tremor/net/srclimit"
)

// Bounds of the web port's TCP connections (LimitListener): every
// connection, idle or not, holds a goroutine and its buffers until
// ReadHeaderTimeout or IdleTimeout ends it, so a source that opens
// connections and sends nothing would otherwise hold as many as it
// can open.
const (
	// MaxConns bounds the web port's connections at once. A classroom of
	// 30 browsers opening the page together, 6 connections each (HTTP/1.1's
	// usual per-host limit), is 180.
	MaxConns = 256
	// MaxConnsPerSource bounds one source's (an IPv4 address or an IPv6
	// /64, srclimit.Source): a browser opens at most 6 to one host, so 16
	// leaves room for two tabs and a reload.
	MaxConnsPerSource = 16
)

// ConnStats are a LimitListener's counters.
type ConnStats struct {
	Accepted  uint64 // connections handed on
	Refused   uint64 // connections closed at once: too many in total or from their source
	Open      int    // connections open now
	MaxSource int    // the most open from any one source now
}

// LimitListener wraps a TCP listener and closes, as soon as they are
// accepted, the connections past max in total or past perSource from
// one source (srclimit.Source of the remote address), so that idle
// connections cannot pile up. The others are handed on; closing one
// frees its place.
type LimitListener struct {
	net.Listener
	max, perSource int

	mu      sync.Mutex
	open    int
	sources map[netip.Addr]int

	accepted, refused atomic.Uint64
}

// NewLimitListener returns ln bounded to max connections at once and
// perSource from one source.
func NewLimitListener(ln net.Listener, max, perSource int) *LimitListener {
	return &LimitListener{Listener: ln, max: max, perSource: perSource, sources: make(map[netip.Addr]int)}
}

// Accept implements net.Listener: it returns the next connection within
// the bounds, closing those past them.
func (l *LimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		src := connSource(c)
		l.mu.Lock()
		ok := l.open < l.max && l.sources[src] < l.perSource
		if ok {
			l.open++
			l.sources[src]++
		}
		l.mu.Unlock()
		if !ok {
			l.refused.Add(1)
			// A reset rather than a FIN in TIME_WAIT on this side: the
			// refused connection leaves nothing behind.
			if tc, isTCP := c.(*net.TCPConn); isTCP {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
			continue
		}
		l.accepted.Add(1)
		return &limitedConn{Conn: c, l: l, src: src}, nil
	}
}

// Stats returns the listener's counters.
func (l *LimitListener) Stats() ConnStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ConnStats{Accepted: l.accepted.Load(), Refused: l.refused.Load(), Open: l.open}
	for _, n := range l.sources {
		s.MaxSource = max(s.MaxSource, n)
	}
	return s
}

func (l *LimitListener) release(src netip.Addr) {
	l.mu.Lock()
	l.open--
	if l.sources[src]--; l.sources[src] <= 0 {
		delete(l.sources, src)
	}
	l.mu.Unlock()
}

// connSource returns the per-source key of c's remote address.
func connSource(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return srclimit.Source(ta.AddrPort())
	}
	return netip.Addr{}
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	net.Conn
	l    *LimitListener
	src  netip.Addr
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.src) })
	return err
}

// ReadFrom keeps the TCP connection's sendfile path for the files the
// web port serves.
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

type writerOnly struct{ io.Writer }
