package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxLookups is how many name lookups run at once, so that a slow name
// does not hold the others.
const maxLookups = 4

// resolveDone is the answer to one name sent to the resolver.
type resolveDone struct {
	master bool // a master's name, else a favourite's
	gen    uint32
	label  string
	port   uint16 // when label has none
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

// resolve looks a "host[:port]" up with lookup, port defPort when none.
// It blocks: a lookup goroutine calls it.
func resolve(ctx context.Context, lookup LookupFunc, s string, defPort uint16) (netip.AddrPort, error) {
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
	host = strings.Trim(host, "[]")
	if a, err := netip.ParseAddr(host); err == nil {
		return netip.AddrPortFrom(a.Unmap(), defPort), nil
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("browser: cannot resolve %q: %w", s, err)
	}
	// The first IPv4 address, as net.ResolveUDPAddr picks, else the first.
	var pick netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if a.Is4() {
			pick = a
			break
		}
		if !pick.IsValid() && a.IsValid() {
			pick = a
		}
	}
	if !pick.IsValid() {
		return netip.AddrPort{}, fmt.Errorf("browser: cannot resolve %q: no address", s)
	}
	return netip.AddrPortFrom(pick, defPort), nil
}

// lookupHost is the default LookupFunc: the system's resolver.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// queueLookup queues the lookup of j's name; Frame starts it when the
// pacing and maxLookups allow. A favourite's name already queued or being
// looked up is not queued again.
func (b *Browser) queueLookup(j resolveDone) {
	if !j.master {
		if b.favLookup[j.label] {
			return
		}
		b.favLookup[j.label] = true
	}
	b.lookups = append(b.lookups, j)
}

// dropMasterLookups removes the masters' lookups from the queue.
func (b *Browser) dropMasterLookups() {
	q := b.lookups[:0]
	for _, j := range b.lookups {
		if !j.master {
			q = append(q, j)
		}
	}
	clear(b.lookups[len(q):])
	b.lookups = q
}

// startLookups starts the queued lookups, in order, while fewer than
// maxLookups run and the pacing allows: each counts as one packet. Those
// no longer wanted (a favourite removed or resolved, a master of an
// earlier refresh) are dropped.
func (b *Browser) startLookups(now time.Time) {
	n := 0
	for n < len(b.lookups) && b.running < maxLookups && b.ctx.Err() == nil {
		j := b.lookups[n]
		if b.lookupStale(j) {
			n++
			if !j.master {
				delete(b.favLookup, j.label)
			}
			continue
		}
		if !b.pace.allow(now) {
			break
		}
		n++
		b.pace.note(now)
		b.running++
		b.wg.Add(1)
		go lookupOne(b.ctx, &b.wg, b.cfg.Lookup, j, b.resolved)
	}
	if n > 0 {
		m := copy(b.lookups, b.lookups[n:])
		clear(b.lookups[m:])
		b.lookups = b.lookups[:m]
	}
}

// lookupStale reports whether j's answer would no longer be used.
func (b *Browser) lookupStale(j resolveDone) bool {
	if j.master {
		return j.gen != b.gen[Internet]
	}
	for i := range b.lists[Favorites].entries {
		if e := &b.lists[Favorites].entries[i]; e.Label == j.label && !e.Addr.IsValid() {
			return false
		}
	}
	return true
}

// lookupOne resolves j's name and sends the answer to out, unless ctx is
// done first.
func lookupOne(ctx context.Context, wg *sync.WaitGroup, lookup LookupFunc, j resolveDone, out chan<- resolveDone) {
	defer wg.Done()
	j.addr, j.err = resolve(ctx, lookup, j.label, j.port)
	select {
	case out <- j:
	case <-ctx.Done():
	}
}

// takeResolved files the lookups' answers that arrived.
func (b *Browser) takeResolved() {
	for {
		select {
		case r := <-b.resolved:
			b.running--
			if r.master {
				b.masterResolved(r)
			} else {
				delete(b.favLookup, r.label)
				b.favoriteResolved(r)
			}
		default:
			return
		}
	}
}

// resolveNote says why label did not resolve, for a status line.
func resolveNote(label string, err error) string {
	reason := err.Error()
	var de *net.DNSError
	if errors.As(err, &de) {
		reason = de.Err
		if de.IsNotFound {
			reason = "no such host"
		}
	}
	return fmt.Sprintf("cannot resolve %s: %s", label, reason)
}
