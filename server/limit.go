package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"net/netip"

	"tremor/net/netchan"
)

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

// byteBudget is a token bucket of bytes: it holds up to burst bytes and
// refills at perSecond bytes a second. A reply may go only when the
// budget holds its size.
type byteBudget struct {
	tokens int64 // bytes × 1000, so that refills of a few milliseconds are exact
	last   int32
	init   bool
}

// spend takes n bytes from the budget at time now and reports whether
// they were there; when they were not, nothing is taken.
func (b *byteBudget) spend(now int32, n, burst, perSecond int) bool {
	full := int64(burst) * 1000
	if !b.init || now < b.last {
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

// queryBudget decides whether the answer to a getinfo or getstatus may go,
// from all sources together. While queries are few (at most
// QueryFloodPackets in the current second and in the one before),
// answers spend a token bucket of QueryQuietBurst bytes refilled at
// QueryQuietRate a second. In a flood, the answers sent since the flood
// began (those of its first second included) may add up to no more bytes
// than the queries received since then: whatever the flood, and from
// however many addresses, the server sends no more than it receives,
// once the flood has brought QueryQuietBurst bytes.
type queryBudget struct {
	second               int32 // the second the counters are for (now/1000)
	in, out              int   // query and answer bytes in that second
	packets, prevPackets int
	flooding             bool
	floodIn, floodOut    int // bytes since the flood began
	quiet                byteBudget
}

// received counts a query of n bytes at time now.
func (q *queryBudget) received(now int32, n int) {
	q.roll(now)
	q.in += n
	q.packets++
	if q.flooding {
		q.floodIn += n
	} else if q.packets > QueryFloodPackets {
		q.flooding, q.floodIn, q.floodOut = true, q.in, q.out
	}
}

// spend reports whether an answer of n bytes may go at time now, and
// counts it if so.
func (q *queryBudget) spend(now int32, n int) bool {
	q.roll(now)
	if q.flooding {
		if q.floodOut+n > q.floodIn {
			return false
		}
		q.floodOut += n
	} else if !q.quiet.spend(now, n, QueryQuietBurst, QueryQuietRate) {
		return false
	}
	q.out += n
	return true
}

func (q *queryBudget) roll(now int32) {
	sec := now / 1000
	if sec == q.second {
		return
	}
	q.prevPackets = q.packets
	if sec != q.second+1 {
		q.prevPackets = 0 // a quiet second or more went by
	}
	q.second, q.in, q.out, q.packets = sec, 0, 0, 0
	if q.prevPackets <= QueryFloodPackets {
		q.flooding = false // a whole quiet second: the flood is over
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

// isLocal reports whether addr is on this host: 127.0.0.0/8, ::1, or an
// in-memory loopback pair. The per-IP slot cap exempts such addresses
// (tests and a classroom demo run many clients on one machine); no
// rate limit does.
func isLocal(addr netip.AddrPort) bool {
	a := addr.Addr().Unmap()
	return a.IsLoopback() || netchan.IsLoopbackAddr(addr)
}

// Challenges (Quake III's svs.challenges, made stateless as SYN cookies
// and DTLS cookies are): a challenge is a keyed hash of the sender's
// address and port and of the current ChallengeEpoch, so the server keeps
// no table that a flood of getchallenge packets could fill or evict. A
// connect carrying the challenge proves that its sender receives packets
// at the address it claims.
const (
	// ChallengeEpoch is the length, in milliseconds, of one challenge
	// epoch. A challenge is valid in the epoch it was made and the next
	// one, so it lives between one and two epochs.
	ChallengeEpoch = 30_000
)

// challenger makes and checks stateless challenges.
type challenger struct {
	mac hash.Hash // HMAC-SHA-256 under a key drawn when the server starts
	buf [4 + 16 + 2]byte
	sum [sha256.Size]byte
}

func newChallenger(key []byte) challenger {
	return challenger{mac: hmac.New(sha256.New, key)}
}

// make returns addr's challenge for the epoch of time now: a positive
// int32, never 0.
func (c *challenger) make(addr netip.AddrPort, now int32) int32 {
	return c.at(addr, now/ChallengeEpoch)
}

func (c *challenger) at(addr netip.AddrPort, epoch int32) int32 {
	binary.BigEndian.PutUint32(c.buf[0:4], uint32(epoch))
	ip := addr.Addr().As16()
	copy(c.buf[4:20], ip[:])
	binary.BigEndian.PutUint16(c.buf[20:22], addr.Port())
	c.mac.Reset()
	c.mac.Write(c.buf[:])
	sum := c.mac.Sum(c.sum[:0])
	v := int32(binary.BigEndian.Uint32(sum) & 0x7fffffff)
	if v == 0 {
		v = 1
	}
	return v
}

// valid reports whether value is addr's challenge of the current or the
// previous epoch.
func (c *challenger) valid(addr netip.AddrPort, value, now int32) bool {
	if value <= 0 {
		return false
	}
	e := now / ChallengeEpoch
	return hmac.Equal(u32(c.at(addr, e)), u32(value)) || hmac.Equal(u32(c.at(addr, e-1)), u32(value))
}

func u32(v int32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(v))
	return b[:]
}
