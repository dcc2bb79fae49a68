package netsim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"time"
)

// DefaultReorderDelay is the longest extra hold given to a reordered packet
// when Config.ReorderDelay is zero.
const DefaultReorderDelay = 100 * time.Millisecond

// DefaultBurstLength is the length of a burst of loss when
// Config.BurstLength is zero.
const DefaultBurstLength = 250 * time.Millisecond

// Config is a set of impairments for one direction of a link. The zero
// Config is a perfect link: every packet is delivered at once, in order.
// Probabilities outside 0..1 and negative durations or sizes are clamped
// (a NaN probability counts as 0).
type Config struct {
	// Delay is the one-way latency added to every packet, the equivalent of
	// Quake III's cl_packetdelay and sv_packetdelay.
	Delay time.Duration

	// Jitter varies the latency: each packet's delay is Delay plus a value
	// drawn uniformly from [-Jitter, +Jitter], and never less than zero.
	// Jitter alone does not reorder packets: like a queue, the link never
	// lets a packet overtake one sent before it unless Reorder picks it.
	Jitter time.Duration

	// Loss is the probability that a packet is lost, decided for each
	// packet independently.
	Loss float64

	// Duplicate is the probability that a packet arrives twice, decided for
	// each packet independently of Loss. Both copies arrive at the same
	// time.
	Duplicate float64

	// Reorder is the probability that a packet is held back by an extra
	// random delay, drawn uniformly from (0, ReorderDelay], so that packets
	// sent after it overtake it. A held packet does not hold up the packets
	// behind it.
	Reorder float64

	// ReorderDelay is the longest extra hold of a reordered packet; zero
	// means DefaultReorderDelay. For packets to be overtaken it should be
	// longer than the interval between packets (50 ms for snapshots at
	// sv_fps 20).
	ReorderDelay time.Duration

	// Bandwidth is the link's rate in bytes per second; zero means
	// unlimited. A limited link serialises packets one after another: each
	// waits for the ones before it to go out, then takes size/Bandwidth
	// seconds itself, before Delay and Jitter are added.
	Bandwidth int

	// BurstLoss is the probability, per packet, that the packet starts a
	// burst of loss: it and every packet sent in the next BurstLength are
	// lost, the way Wi-Fi drops a run of packets rather than single ones.
	BurstLoss float64

	// BurstLength is how long a burst of loss lasts; zero means
	// DefaultBurstLength.
	BurstLength time.Duration

	// QueueLimit is how many bytes may wait for a Bandwidth-limited link;
	// zero means no limit. A packet that would take the queue beyond
	// QueueLimit is dropped (tail drop). A large limit on a slow link makes
	// a bufferbloated one: nothing is lost, but latency climbs. It has no
	// effect when Bandwidth is zero.
	QueueLimit int
}

// normalized returns c with every field clamped to its valid range.
func (c Config) normalized() Config {
	c.Delay = max(c.Delay, 0)
	c.Jitter = max(c.Jitter, 0)
	c.Loss = clamp01(c.Loss)
	c.Duplicate = clamp01(c.Duplicate)
	c.Reorder = clamp01(c.Reorder)
	c.BurstLoss = clamp01(c.BurstLoss)
	c.BurstLength = max(c.BurstLength, 0)
	c.ReorderDelay = max(c.ReorderDelay, 0)
	c.Bandwidth = max(c.Bandwidth, 0)
	c.QueueLimit = max(c.QueueLimit, 0)
	return c
}

func clamp01(p float64) float64 {
	if !(p > 0) { // also NaN
		return 0
	}
	return min(p, 1)
}

// Stats counts what a Link or a Conn did with the packets given to it.
type Stats struct {
	// Sent counts packets given to Link.Send or Conn.WriteTo.
	Sent uint64
	// Dropped counts packets lost (Loss, a burst) or refused by a full
	// queue (QueueLimit, or for a Conn MaxHeld).
	Dropped uint64
	// Bursts counts bursts of loss started (BurstLoss).
	Bursts uint64
	// Duplicated counts packets delivered twice.
	Duplicated uint64
	// Reordered counts packets held back by Reorder.
	Reordered uint64
	// Delivered counts deliveries: for a Link, the deliveries Send
	// returned; for a Conn, the packets its inner Conn accepted.
	Delivered uint64
	// QueuedBytes is, for a Conn, the bytes accepted but not yet handed to
	// the inner Conn. A Link holds no packets and reports zero; see
	// Link.Backlog.
	QueuedBytes int
}

// maxSize bounds the packet size a Link computes with, far above any UDP
// packet, so that size times a second fits in an int64.
const maxSize = 1 << 31

// Link is the deterministic, clock-free core of the simulator: it decides
// what happens to each packet sent over one direction of a link, given the
// time it was sent. A Link is not safe for concurrent use.
//
// Each Send draws the same number of values from the generator whatever the
// Config, so the decisions for the n-th packet depend only on the seed, n,
// the send times and the Config in force; changing one setting does not
// reshuffle the others' decisions.
type Link struct {
	cfg   Config
	pcg   rand.PCG
	rng   *rand.Rand
	stats Stats

	busyUntil   time.Duration // when the serialisation queue empties
	lastInOrder time.Duration // latest arrival of a packet not held back
	burstUntil  time.Duration // end of the current burst of loss
	out         [2]time.Duration
}

// NewLink returns a Link with the impairments cfg whose random decisions
// come from a PCG generator seeded by seed.
func NewLink(cfg Config, seed uint64) *Link {
	l := &Link{cfg: cfg.normalized()}
	l.pcg.Seed(seed, 0x7472656d6f72) // "tremor"
	l.rng = rand.New(&l.pcg)
	return l
}

// SetConfig replaces the impairments; it applies from the next Send.
// Packets already sent keep the arrival times they were given, and the
// queue and ordering state carry over, so a shorter Delay lets new packets
// arrive sooner only once the earlier ones have.
func (l *Link) SetConfig(cfg Config) { l.cfg = cfg.normalized() }

// Config returns the impairments in force, clamped as described at Config.
func (l *Link) Config() Config { return l.cfg }

// Stats returns the counts so far.
func (l *Link) Stats() Stats { return l.stats }

// Send decides the fate of a packet of size bytes sent at the virtual time
// now and returns its arrival times in increasing order: none if it is
// dropped, two if it is duplicated. The returned slice is owned by the Link
// and valid until the next call; Send does not allocate.
//
// Times are offsets from any fixed origin and should not decrease from one
// call to the next.
func (l *Link) Send(now time.Duration, size int) []time.Duration {
	l.stats.Sent++
	// Draw the same values for every packet, used or not.
	uLoss := l.rng.Float64()
	uDup := l.rng.Float64()
	uReorder := l.rng.Float64()
	uJitter := l.rng.Float64()
	uHold := l.rng.Float64()
	uBurst := l.rng.Float64()

	c := &l.cfg
	size = min(max(size, 0), maxSize)
	t := now
	if c.Bandwidth > 0 {
		if c.QueueLimit > 0 && l.Backlog(now)+size > c.QueueLimit {
			l.stats.Dropped++
			return l.out[:0]
		}
		t = max(now, l.busyUntil) + txTime(size, c.Bandwidth)
		l.busyUntil = t
	}
	if uBurst < c.BurstLoss && now >= l.burstUntil {
		n := c.BurstLength
		if n == 0 {
			n = DefaultBurstLength
		}
		l.burstUntil = now + n
		l.stats.Bursts++
	}
	if uLoss < c.Loss || now < l.burstUntil {
		// Lost after the bottleneck: it still used the link's time.
		l.stats.Dropped++
		return l.out[:0]
	}
	d := c.Delay
	if c.Jitter > 0 {
		span := float64(2*c.Jitter + 1)
		d += time.Duration(math.Floor(uJitter*span)) - c.Jitter
		d = max(d, 0)
	}
	t = max(t+d, l.lastInOrder)
	if uReorder < c.Reorder {
		hold := c.ReorderDelay
		if hold == 0 {
			hold = DefaultReorderDelay
		}
		t += min(1+time.Duration(math.Floor(uHold*float64(hold))), hold)
		l.stats.Reordered++
	} else {
		l.lastInOrder = t
	}
	out := append(l.out[:0], t)
	if uDup < c.Duplicate {
		out = append(out, t)
		l.stats.Duplicated++
	}
	l.stats.Delivered += uint64(len(out))
	return out
}

// Backlog returns how many bytes are still waiting to be serialised onto a
// Bandwidth-limited link at the time now: the quantity QueueLimit bounds.
// It is zero when Bandwidth is zero.
func (l *Link) Backlog(now time.Duration) int {
	bw := l.cfg.Bandwidth
	if bw <= 0 || l.busyUntil <= now {
		return 0
	}
	// (busyUntil-now) * bw / 1s in 128 bits, saturating.
	hi, lo := bits.Mul64(uint64(l.busyUntil-now), uint64(bw))
	if hi >= uint64(time.Second) {
		return math.MaxInt
	}
	q, _ := bits.Div64(hi, lo, uint64(time.Second))
	if q > math.MaxInt {
		return math.MaxInt
	}
	return int(q)
}

// txTime returns how long size bytes take to serialise at bw bytes per
// second, rounded up to the nanosecond. size is at most maxSize.
func txTime(size, bw int) time.Duration {
	x := int64(size) * int64(time.Second)
	q := x / int64(bw)
	if x%int64(bw) != 0 {
		q++
	}
	return time.Duration(q)
}
