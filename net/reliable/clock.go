package reliable

import "time"

// Clock turns a program's real time in int32 milliseconds, which wraps
// after 24.8 days, into the time.Duration an Endpoint and Messages take,
// which does not: it adds up the differences between the times it is
// given. The zero value starts at 0 with the first time.
type Clock struct {
	last  int32
	set   bool
	total time.Duration
}

// Tick returns the clock at now, ms.
func (c *Clock) Tick(now int32) time.Duration {
	if c.set {
		c.total += time.Duration(now-c.last) * time.Millisecond
	}
	c.last, c.set = now, true
	return c.total
}
