package browser

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// resolveDone is the answer to one name sent to the resolver.
type resolveDone struct {
	master bool // a master's name, else a favourite's
	gen    uint32
	label  string
	addr   netip.AddrPort
	err    error
}

// parseAddr reads a numeric address, "a.b.c.d", "a.b.c.d:port", "::1",
// "[::1]:port", with port defPort when none; ok is false for a name that
// needs the resolver.
func parseAddr(s string, defPort uint16) (netip.AddrPort, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), ap.Port() != 0
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return netip.AddrPortFrom(a.Unmap(), defPort), true
	}
	return netip.AddrPort{}, false
}

// resolve looks a "host[:port]" up, port defPort when none. It blocks:
// the resolver goroutine calls it.
func resolve(s string, defPort uint16) (netip.AddrPort, error) {
	if ap, ok := parseAddr(s, defPort); ok {
		return ap, nil
	}
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host = h
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return netip.AddrPort{}, fmt.Errorf("browser: bad port in %q", s)
		}
		defPort = uint16(n)
	}
	ua, err := net.ResolveUDPAddr("udp", net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(int(defPort))))
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("browser: cannot resolve %q: %w", s, err)
	}
	ap := ua.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// resolveAll sends the resolver the names of jobs; their answers arrive
// in b.resolved and are taken by the next Frames.
func (b *Browser) resolveAll(jobs []resolveDone, defPort uint16) {
	if len(jobs) == 0 {
		return
	}
	b.resolving += len(jobs)
	out := b.resolved
	go func() {
		for _, j := range jobs {
			j.addr, j.err = resolve(j.label, defPort)
			out <- j
		}
	}()
}

// takeResolved files the resolver's answers that arrived.
func (b *Browser) takeResolved() {
	for {
		select {
		case r := <-b.resolved:
			b.resolving--
			if r.master {
				b.masterResolved(r)
			} else {
				b.favoriteResolved(r)
			}
		default:
			return
		}
	}
}
