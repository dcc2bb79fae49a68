package server

import "net/netip"

// bucket is a leaky bucket (Quake III's leakyBucket_t): up to burst
// events pass at once, and the level drains by one every period
// milliseconds.
type bucket struct {
	level int32
	last  int32 // time the level last drained
}

// allow reports whether one more event may pass at time now, and counts
// it if so.
func (b *bucket) allow(now, burst, period int32) bool {
	b.drain(now, period)
	if b.level >= burst {
		return false
	}
	b.level++
	return true
}

func (b *bucket) drain(now, period int32) {
	if now < b.last { // the clock went back: start over
		b.last = now
	}
	if n := (now - b.last) / period; n > 0 {
		b.level = max(0, b.level-n)
		b.last += n * period
	}
	if b.level == 0 {
		b.last = now
	}
}

// limiter is a bounded table of leaky buckets, one per key. When the
// table is full, drained buckets are forgotten; if none is, new keys are
// refused, so a flood from many addresses cannot grow it.
type limiter[K comparable] struct {
	burst, period int32
	maxKeys       int
	buckets       map[K]bucket
	lastSweep     int32
}

func newLimiter[K comparable](burst, period int32, maxKeys int) limiter[K] {
	return limiter[K]{burst: burst, period: period, maxKeys: maxKeys, buckets: make(map[K]bucket)}
}

// allow reports whether one more event for key may pass at time now.
func (l *limiter[K]) allow(key K, now int32) bool {
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.maxKeys && !l.sweep(now) {
			return false
		}
		b.last = now
	}
	pass := b.allow(now, l.burst, l.period)
	l.buckets[key] = b
	return pass
}

// sweep forgets drained buckets, at most every 100 ms, and reports
// whether there is room.
func (l *limiter[K]) sweep(now int32) bool {
	if now-l.lastSweep < 100 && now >= l.lastSweep {
		return len(l.buckets) < l.maxKeys
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		b.drain(now, l.period)
		if b.level == 0 {
			delete(l.buckets, k)
		}
	}
	return len(l.buckets) < l.maxKeys
}

// challenge is one outstanding getchallenge answer.
type challenge struct {
	value int32
	time  int32 // when it was given out
}

// challengeTable binds challenges to the address that asked for them
// (Quake III's svs.challenges). It holds at most MaxChallenges entries;
// when full, the oldest is replaced.
type challengeTable struct {
	m map[netip.AddrPort]challenge
}

// Challenge limits.
const (
	// MaxChallenges is how many addresses may hold a challenge at once.
	MaxChallenges = 1024
	// ChallengeLifetime is how long, in milliseconds, a challenge stays
	// valid.
	ChallengeLifetime = 60_000
)

// get returns addr's challenge if it has a live one.
func (t *challengeTable) get(addr netip.AddrPort, now int32) (int32, bool) {
	c, ok := t.m[addr]
	if !ok || now-c.time > ChallengeLifetime || now < c.time {
		return 0, false
	}
	return c.value, true
}

// put gives addr the challenge value, evicting the oldest entry when the
// table is full.
func (t *challengeTable) put(addr netip.AddrPort, value, now int32) {
	if t.m == nil {
		t.m = make(map[netip.AddrPort]challenge)
	}
	if _, ok := t.m[addr]; !ok && len(t.m) >= MaxChallenges {
		var oldest netip.AddrPort
		first := true
		var oldestTime int32
		for a, c := range t.m {
			if first || c.time-oldestTime < 0 {
				oldest, oldestTime, first = a, c.time, false
			}
		}
		delete(t.m, oldest)
	}
	t.m[addr] = challenge{value: value, time: now}
}

// valid reports whether value is the live challenge given to addr.
func (t *challengeTable) valid(addr netip.AddrPort, value, now int32) bool {
	v, ok := t.get(addr, now)
	return ok && v == value
}
