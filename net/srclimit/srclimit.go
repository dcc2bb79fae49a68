// Package srclimit holds the per-source limits that keep a UDP service
// from being flooded or used as a reflector: the key a source is counted
// under, leaky buckets and bounded tables of them, byte budgets, a
// global amplification budget, and stateless challenges. The game server
// and the master server share them. Times are integer milliseconds on
// the caller's clock; nothing here reads the wall clock.
package srclimit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"net/netip"
)

// Source returns the key every per-source limit uses for addr: the IPv4
// address, or the IPv6 address's /64 prefix (one host, or one customer
// of an internet provider, holds a whole /64, so keying by the full
// address would let it rotate through 2^64 sources). The port never
// counts: rotating source ports does not make a new source.
func Source(addr netip.AddrPort) netip.Addr {
	a := addr.Addr().Unmap()
	if a.Is4() {
		return a
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a
	}
	return p.Addr()
}

// Block returns the larger network addr belongs to, for limits that one
// party spread over many sources could otherwise get around: the IPv4
// /24, or the IPv6 /48 (a site's usual allocation; a provider's
// customer often holds a /56 or a /48, that is 256 or 65536 /64
// sources).
func Block(addr netip.AddrPort) netip.Addr {
	a := addr.Addr().Unmap()
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return a
	}
	return p.Addr()
}

// Bucket is a leaky bucket (Quake III's leakyBucket_t): up to burst
// events pass at once, and the level drains by one every period
// milliseconds. The zero value is an empty bucket.
type Bucket struct {
	level int32
	last  int32 // time the level last drained
}

// Allow reports whether one more event may pass at time now, and counts
// it if so.
func (b *Bucket) Allow(now, burst, period int32) bool {
	b.drain(now, period)
	if b.level >= burst {
		return false
	}
	b.level++
	return true
}

func (b *Bucket) drain(now, period int32) {
	if now-b.last < 0 { // the clock went back: start over
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

// ByteBudget is a token bucket of bytes: it holds up to burst bytes and
// refills at perSecond bytes a second. A reply may go only when the
// budget holds its size. The zero value starts full.
type ByteBudget struct {
	tokens int64 // bytes × 1000, so that refills of a few milliseconds are exact
	last   int32
	init   bool
}

// Spend takes n bytes from the budget at time now and reports whether
// they were there; when they were not, nothing is taken.
func (b *ByteBudget) Spend(now int32, n, burst, perSecond int) bool {
	full := int64(burst) * 1000
	if !b.init || now-b.last < 0 {
		b.tokens, b.last, b.init = full, now, true
	}
	b.tokens = min(full, b.tokens+int64(now-b.last)*int64(perSecond))
	b.last = now
	need := int64(n) * 1000
	if b.tokens < need {
		return false
	}
	b.tokens -= need
	return true
}

// FloodBudget decides whether an answer to a request may go, counting
// all sources together. While requests are few (at most FloodPackets in
// the current second and in the one before), answers spend a token
// bucket of QuietBurst bytes refilled at QuietRate a second. In a flood,
// the answers sent since the flood began (those of its first second
// included) may add up to no more bytes than the requests received since
// then: whatever the flood, and from however many addresses, the service
// sends no more than it receives, once the flood has brought QuietBurst
// bytes.
//
// With StartEven set, a flood's account starts with the request that
// began it: the requests and answers of its first second before it were
// quiet ones, paid from the quiet budget, and are not owed, so a flood
// that first empties the quiet budget does not stop every answer for as
// long as the requests take to pay that back. The answers of a flood
// then add up to no more than its requests' bytes plus what the quiet
// budget paid in its first second (at most QuietBurst + QuietRate).
type FloodBudget struct {
	FloodPackets          int // requests a second that make a flood
	QuietBurst, QuietRate int // bytes at once and a second outside a flood
	StartEven             bool

	second               int32 // the second the counters are for (now/1000)
	in, out              int   // request and answer bytes in that second
	packets, prevPackets int
	flooding             bool
	floodIn, floodOut    int // bytes since the flood began
	quiet                ByteBudget
}

// Received counts a request of n bytes at time now.
func (q *FloodBudget) Received(now int32, n int) {
	q.roll(now)
	q.in += n
	q.packets++
	if q.flooding {
		q.floodIn += n
	} else if q.packets > q.FloodPackets {
		q.flooding, q.floodIn, q.floodOut = true, q.in, q.out
		if q.StartEven {
			q.floodIn, q.floodOut = n, 0
		}
	}
}

// Spend reports whether an answer of n bytes may go at time now, and
// counts it if so.
func (q *FloodBudget) Spend(now int32, n int) bool {
	q.roll(now)
	if q.flooding {
		if q.floodOut+n > q.floodIn {
			return false
		}
		q.floodOut += n
	} else if !q.quiet.Spend(now, n, q.QuietBurst, q.QuietRate) {
		return false
	}
	q.out += n
	return true
}

// Flooding reports whether a flood is under way.
func (q *FloodBudget) Flooding() bool { return q.flooding }

func (q *FloodBudget) roll(now int32) {
	sec := now / 1000
	if sec == q.second {
		return
	}
	q.prevPackets = q.packets
	if sec != q.second+1 {
		q.prevPackets = 0 // a quiet second or more went by
	}
	q.second, q.in, q.out, q.packets = sec, 0, 0, 0
	if q.prevPackets <= q.FloodPackets {
		q.flooding = false // a whole quiet second: the flood is over
	}
}

// Limiter is a bounded table of leaky buckets, one per key. When the
// table is full, drained buckets are forgotten; if none is, new keys are
// refused, so a flood from many addresses cannot grow it.
type Limiter[K comparable] struct {
	burst, period int32
	maxKeys       int
	buckets       map[K]Bucket
	lastSweep     int32
}

// NewLimiter returns a Limiter letting burst events of one key pass at
// once and then one every period milliseconds, for at most maxKeys keys
// at a time.
func NewLimiter[K comparable](burst, period int32, maxKeys int) Limiter[K] {
	return Limiter[K]{burst: burst, period: period, maxKeys: maxKeys, buckets: make(map[K]Bucket)}
}

// Allow reports whether one more event for key may pass at time now.
func (l *Limiter[K]) Allow(key K, now int32) bool {
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.maxKeys && !l.sweep(now) {
			return false
		}
		b.last = now
	}
	pass := b.Allow(now, l.burst, l.period)
	l.buckets[key] = b
	return pass
}

// Len returns the number of keys the table holds.
func (l *Limiter[K]) Len() int { return len(l.buckets) }

// sweep forgets drained buckets, at most every 100 ms, and reports
// whether there is room.
func (l *Limiter[K]) sweep(now int32) bool {
	if d := now - l.lastSweep; d < 100 && d >= 0 {
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

// Challenger makes stateless challenges (as SYN cookies and DTLS cookies
// are): a challenge is a keyed hash of the sender's address and port and
// of the current epoch, so the service keeps no table that a flood could
// fill or evict. A packet carrying the challenge proves that its sender
// receives packets at the address it claims. A challenge is valid in the
// epoch it was made and the next one, so it lives between one and two
// epochs.
type Challenger struct {
	epoch int32
	mac   hash.Hash // HMAC-SHA-256
	buf   [4 + 16 + 2]byte
	sum   [sha256.Size]byte
}

// NewChallenger returns a Challenger keyed with key (draw it at random
// when the service starts) whose epochs last epoch milliseconds.
func NewChallenger(key []byte, epoch int32) Challenger {
	return Challenger{epoch: epoch, mac: hmac.New(sha256.New, key)}
}

// Make returns 64 bits of addr's challenge for the epoch of time now.
// Callers shape them into their wire form (a number, a string).
func (c *Challenger) Make(addr netip.AddrPort, now int32) uint64 {
	return c.at(addr, now/c.epoch)
}

// Previous returns 64 bits of addr's challenge for the epoch before
// the one of time now: a challenge is valid if it is the wire form of
// Make's or of Previous's value.
func (c *Challenger) Previous(addr netip.AddrPort, now int32) uint64 {
	return c.at(addr, now/c.epoch-1)
}

func (c *Challenger) at(addr netip.AddrPort, epoch int32) uint64 {
	binary.BigEndian.PutUint32(c.buf[0:4], uint32(epoch))
	ip := addr.Addr().As16()
	copy(c.buf[4:20], ip[:])
	binary.BigEndian.PutUint16(c.buf[20:22], addr.Port())
	c.mac.Reset()
	c.mac.Write(c.buf[:])
	return binary.BigEndian.Uint64(c.mac.Sum(c.sum[:0]))
}
