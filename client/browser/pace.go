package browser

import "time"

// pacer bounds sends to n in any window of one second: it remembers the
// times of the last n sends, and a send is allowed when fewer than n
// were made or the oldest of them is a second old.
type pacer struct {
	times []time.Time // ring of the last sends
	next  int         // oldest, where the next send is written
	count int
}

func (p *pacer) init(n int) {
	if n == len(p.times) {
		return
	}
	p.times = make([]time.Time, max(1, n))
	p.next, p.count = 0, 0
}

// allow reports whether a send at now keeps within the bound.
func (p *pacer) allow(now time.Time) bool {
	return p.count < len(p.times) || now.Sub(p.times[p.next]) >= time.Second
}

// note records a send at now.
func (p *pacer) note(now time.Time) {
	p.times[p.next] = now
	p.next = (p.next + 1) % len(p.times)
	p.count = min(p.count+1, len(p.times))
}
