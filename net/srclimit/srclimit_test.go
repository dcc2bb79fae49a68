package srclimit

import (
	"math"
	"net/netip"
	"testing"
)

func TestSource(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"1.2.3.4:27960", "1.2.3.4"},
		{"[::ffff:1.2.3.4]:5", "1.2.3.4"},
		{"[2001:db8:1:2:3:4:5:6]:27960", "2001:db8:1:2::"},
		{"[2001:db8:1:2:ffff::1]:1", "2001:db8:1:2::"},
	}
	for _, tt := range tests {
		if got := Source(netip.MustParseAddrPort(tt.addr)); got.String() != tt.want {
			t.Errorf("Source(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}

func TestBlock(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"1.2.3.4:27960", "1.2.3.0"},
		{"[::ffff:1.2.3.255]:5", "1.2.3.0"},
		{"[2001:db8:1:2:3:4:5:6]:27960", "2001:db8:1::"},
		{"[2001:db8:1:ff00::1]:1", "2001:db8:1::"},
		{"[2001:db8:2::1]:1", "2001:db8:2::"},
	}
	for _, tt := range tests {
		if got := Block(netip.MustParseAddrPort(tt.addr)); got.String() != tt.want {
			t.Errorf("Block(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}

func TestBucket(t *testing.T) {
	var b Bucket
	for i := range 3 {
		if !b.Allow(0, 3, 100) {
			t.Fatalf("event %d of the burst refused", i)
		}
	}
	if b.Allow(50, 3, 100) {
		t.Fatal("fourth event within the period passed")
	}
	if !b.Allow(100, 3, 100) || b.Allow(150, 3, 100) {
		t.Fatal("one event per period after the burst: wrong")
	}
	// The clock going back restarts the draining from the new time.
	if b.Allow(10, 3, 100) || !b.Allow(110, 3, 100) {
		t.Fatal("draining after the clock went back: wrong")
	}
}

func TestLimiterBounded(t *testing.T) {
	l := NewLimiter[int](1, 1000, 2)
	if !l.Allow(1, 0) || !l.Allow(2, 0) {
		t.Fatal("first events refused")
	}
	if l.Allow(3, 50) {
		t.Fatal("third key admitted into a full table of undrained buckets")
	}
	if l.Allow(1, 50) {
		t.Fatal("second event of key 1 within its period passed")
	}
	if !l.Allow(3, 1000) || l.Len() > 2 {
		t.Fatalf("after the buckets drained: key 3 refused or table of %d keys", l.Len())
	}
}

func TestByteBudget(t *testing.T) {
	var b ByteBudget
	if !b.Spend(0, 1000, 1000, 500) || b.Spend(0, 1, 1000, 500) {
		t.Fatal("burst wrong")
	}
	if b.Spend(1, 1, 1000, 500) { // 0.5 bytes refilled
		t.Fatal("half a byte spent as one")
	}
	if !b.Spend(2, 1, 1000, 500) || !b.Spend(1000, 499, 1000, 500) {
		t.Fatal("refill wrong")
	}
}

func TestFloodBudget(t *testing.T) {
	q := FloodBudget{FloodPackets: 10, QuietBurst: 1000, QuietRate: 1000}
	// Quiet: answers spend the quiet budget, larger than the requests.
	q.Received(0, 20)
	if !q.Spend(0, 500) || q.Flooding() {
		t.Fatal("quiet answer refused")
	}
	// A flood: from the 11th request of the second on, answers may not
	// add up to more than the requests brought since the flood began.
	var in, out int
	for i := range 100 {
		q.Received(10, 20)
		in += 20
		if q.Spend(10, 100) {
			out += 100
		}
		if i > 10 && !q.Flooding() {
			t.Fatal("not flooding after 100 requests in a second")
		}
	}
	if out > in+520 {
		t.Fatalf("answered %d bytes for %d received", out, in)
	}
	// Two quiet seconds end it.
	q.Received(3000, 20)
	if q.Flooding() || !q.Spend(3000, 100) {
		t.Fatal("flood did not end after quiet seconds")
	}
}

// A flood that begins by emptying the quiet budget: without StartEven
// its answers wait until the requests have paid that back; with it, they
// go as soon as the requests since the flood began pay for them.
func TestFloodBudgetStartEven(t *testing.T) {
	for _, even := range []bool{false, true} {
		q := FloodBudget{FloodPackets: 10, QuietBurst: 1000, QuietRate: 1000, StartEven: even}
		for range 10 {
			q.Received(0, 20)
			q.Spend(0, 100)
		}
		q.Received(0, 20) // the 11th: a flood
		if !q.Flooding() {
			t.Fatal("no flood after 11 requests in a second")
		}
		var in, out int = 11 * 20, 1000
		answered := 0
		for i := range 40 {
			now := int32(100 + i*25) // 40 a second
			q.Received(now, 20)
			in += 20
			if q.Spend(now, 100) {
				out += 100
				answered++
			}
		}
		if !even && answered != 0 {
			t.Errorf("StartEven false: %d answers while the quiet second's %d bytes are owed", answered, 1000)
		}
		if even && answered == 0 {
			t.Error("StartEven true: nothing answered in the flood")
		}
		if out > in+q.QuietBurst+q.QuietRate {
			t.Errorf("StartEven %v: %d bytes out for %d in", even, out, in)
		}
	}
}

func TestChallenger(t *testing.T) {
	a := netip.MustParseAddrPort("1.2.3.4:5")
	b := netip.MustParseAddrPort("1.2.3.4:6")
	c := NewChallenger([]byte("key"), 1000)
	v := c.Make(a, 500)
	if v == c.Make(b, 500) {
		t.Error("two ports share a challenge")
	}
	if c.Previous(a, 1500) != v || c.Make(a, 1500) == v {
		t.Error("epochs wrong")
	}
	other := NewChallenger([]byte("other"), 1000)
	if other.Make(a, 500) == v {
		t.Error("two keys share a challenge")
	}
}

// The real-time clock is an int32 of milliseconds that wraps after 24.8
// days of uptime; a bucket full before the wrap stays full after it (a
// comparison of times, rather than their difference, took the wrap for
// a clock going back and emptied it).
func TestBucketAcrossClockWrap(t *testing.T) {
	const burst, period = 5, 1000
	var b Bucket
	now := int32(math.MaxInt32 - 10)
	for i := range burst {
		if !b.Allow(now, burst, period) {
			t.Fatalf("event %d of the burst refused", i)
		}
	}
	now += 20 // past 2^31: negative
	if b.Allow(now, burst, period) {
		t.Error("the wrap of the clock refilled a full bucket")
	}
	now += period
	if !b.Allow(now, burst, period) {
		t.Error("a period after the wrap the bucket did not drain")
	}
	var bb ByteBudget
	now = math.MaxInt32 - 10
	if !bb.Spend(now, 100, 100, 10) {
		t.Fatal("a full budget refused its burst")
	}
	if bb.Spend(now+20, 100, 100, 10) {
		t.Error("the wrap of the clock refilled an empty byte budget")
	}
}
