package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDNS is a Config.Lookup that answers from a table and counts its
// calls. A host it has no answer for blocks until ctx is done or the
// test ends.
type fakeDNS struct {
	mu       sync.Mutex
	addrs    map[string][]netip.Addr // answers; a host in fail gets an error first
	fail     map[string]int          // how many of a host's lookups fail
	calls    map[string]int
	running  int // lookups in progress
	most     int // most lookups ever in progress at once
	notDone  int // lookups that returned with their ctx not done
	release  chan struct{}
	released sync.Once
}

func newFakeDNS(t *testing.T) *fakeDNS {
	d := &fakeDNS{addrs: map[string][]netip.Addr{}, fail: map[string]int{}, calls: map[string]int{}, release: make(chan struct{})}
	t.Cleanup(func() { d.released.Do(func() { close(d.release) }) })
	return d
}

func (d *fakeDNS) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	d.calls[host]++
	n := d.calls[host]
	d.running++
	d.most = max(d.most, d.running)
	addrs, known := d.addrs[host]
	failing := n <= d.fail[host]
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.running--
		if ctx.Err() == nil {
			d.notDone++
		}
		d.mu.Unlock()
	}()
	switch {
	case failing:
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case known:
		return addrs, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.release:
		return nil, errors.New("fakeDNS: released")
	}
}

// stats returns the calls so far, the lookups running and the most ever
// running at once.
func (d *fakeDNS) stats() (calls, running, most int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range d.calls {
		calls += n
	}
	return calls, d.running, d.most
}

// until runs frames at the rig's clock until cond holds. Lookups answer
// on goroutines, so it waits for them in real time; the bound only stops
// a test that would hang.
func (r *rig) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
		r.frame()
	}
}

// A favourite whose name did not resolve shows so, and each refresh looks
// it up again.
func TestFavoriteLookupRetried(t *testing.T) {
	dns := newFakeDNS(t)
	dns.addrs["srv.test"] = []netip.Addr{netip.MustParseAddr("2001:db8::5"), netip.MustParseAddr("10.0.0.5")}
	dns.fail["srv.test"] = 1
	st := &memStore{text: []byte("srv.test:27961\n"), saved: true}
	r := newRig(t, Config{Store: st, Lookup: dns.lookup})
	fav := func() Entry { return r.b.Entries(Favorites)[0] }
	r.until(t, "the first lookup answers", func() bool { return fav().State != Pending })
	if e := fav(); e.State != Unresolved || e.Addr.IsValid() || e.State.String() != "unresolved" {
		t.Errorf("after a failed lookup: %v %v, want unresolved with no address", e.State, e.Addr)
	}
	if n := r.b.Status(Favorites).Note; !strings.Contains(n, "srv.test") || !strings.Contains(n, "no such host") {
		t.Errorf("note %q, want the name and why it failed", n)
	}
	if r.b.Refreshing(Favorites) {
		t.Error("refreshing after the lookup failed")
	}

	r.b.Refresh(Favorites)
	r.frame()
	if e := fav(); e.State != Pending {
		t.Errorf("after Refresh: %v, want pending while looked up again", e.State)
	}
	r.until(t, "the second lookup answers", func() bool { return fav().State != Pending || fav().Addr.IsValid() })
	want := netip.MustParseAddrPort("10.0.0.5:27961")
	if e := fav(); e.Addr != want {
		t.Fatalf("after the second lookup: %v %v, want %v", e.State, e.Addr, want)
	}
	r.frame()
	if q := r.conn.sentTo(want); len(q) != 1 {
		t.Errorf("sent %v to %v, want one getinfo", q, want)
	}
	if n := r.b.Status(Favorites).Note; n != "" {
		t.Errorf("note %q after the name resolved", n)
	}
	if calls, _, _ := dns.stats(); calls != 2 {
		t.Errorf("%d lookups, want 2", calls)
	}
}

// A slow name does not hold the others' lookups; at most maxLookups run
// at once.
func TestLookupsConcurrent(t *testing.T) {
	dns := newFakeDNS(t)
	favs := []string{"slow.test"}
	for i := range 6 {
		h := fmt.Sprintf("h%d.test", i)
		dns.addrs[h] = []netip.Addr{netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)})}
		favs = append(favs, h)
	}
	st := &memStore{text: []byte(strings.Join(favs, "\n")), saved: true}
	r := newRig(t, Config{Store: st, Lookup: dns.lookup})
	r.until(t, "every name but the slow one resolves", func() bool {
		for _, e := range r.b.Entries(Favorites)[1:] {
			if !e.Addr.IsValid() {
				return false
			}
		}
		return true
	})
	if e := r.b.Entries(Favorites)[0]; e.State != Pending || e.Addr.IsValid() {
		t.Errorf("slow name: %v %v, want pending", e.State, e.Addr)
	}
	if !r.b.Refreshing(Favorites) {
		t.Error("not refreshing while a name is looked up")
	}
	if _, _, most := dns.stats(); most > maxLookups {
		t.Errorf("%d lookups at once, limit %d", most, maxLookups)
	}
}

// Close ends the lookups in progress and waits for their goroutines, and
// names whose lookup is already out are not looked up again when the
// favourites change.
func TestCloseEndsLookups(t *testing.T) {
	dns := newFakeDNS(t)
	var favs []string
	for i := range MaxFavorites {
		favs = append(favs, fmt.Sprintf("h%d.test", i))
	}
	st := &memStore{text: []byte(strings.Join(favs, "\n")), saved: true}
	r := newRig(t, Config{Store: st, Lookup: dns.lookup})
	r.b.RemoveFavorite(favs[0])
	r.b.RemoveFavorite(favs[1])
	r.until(t, "maxLookups lookups run", func() bool { _, running, _ := dns.stats(); return running == maxLookups })
	for range 10 {
		r.frame()
	}
	if err := r.b.Close(); err != nil {
		t.Fatal(err)
	}
	calls, running, most := dns.stats()
	if running != 0 {
		t.Errorf("%d lookups still running after Close", running)
	}
	if calls != maxLookups || most != maxLookups {
		t.Errorf("%d lookups, %d at once; want %d, all at once", calls, most, maxLookups)
	}
	dns.mu.Lock()
	defer dns.mu.Unlock()
	if dns.notDone != 0 {
		t.Errorf("%d lookups returned with their context not done", dns.notDone)
	}
	for h, n := range dns.calls {
		if n != 1 {
			t.Errorf("%s looked up %d times", h, n)
		}
	}
}

// Name lookups share the packets' budget.
func TestLookupsPaced(t *testing.T) {
	dns := newFakeDNS(t)
	var favs []string
	for i := range 10 {
		h := fmt.Sprintf("h%d.test", i)
		dns.addrs[h] = []netip.Addr{netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)})}
		favs = append(favs, h)
	}
	st := &memStore{text: []byte(strings.Join(favs, "\n")), saved: true}
	r := newRig(t, Config{Store: st, Lookup: dns.lookup, PacketsPerSecond: 5})
	r.until(t, "a second's budget of lookups", func() bool { calls, _, _ := dns.stats(); return calls == 5 })
	for range 10 {
		r.frame()
	}
	r.b.Close()
	if calls, _, _ := dns.stats(); calls != 5 {
		t.Errorf("%d lookups in the first second, budget 5", calls)
	}
	if n := r.conn.count(); n != 0 {
		t.Errorf("%d packets sent in a second the lookups used up", n)
	}
}

// A master given by name is asked once looked up; one that does not
// resolve is said so in the status, and the tab stops refreshing.
func TestMasterLookup(t *testing.T) {
	dns := newFakeDNS(t)
	dns.addrs["master.test"] = []netip.Addr{netip.MustParseAddr("10.1.1.1")}
	dns.fail["gone.test"] = 1
	r := newRig(t, Config{Masters: []string{"master.test", "gone.test:27999"}, Lookup: dns.lookup})
	r.b.Refresh(Internet)
	master := netip.MustParseAddrPort("10.1.1.1:27950")
	r.until(t, "the master is asked", func() bool { return len(r.conn.sentTo(master)) == 2 })
	r.until(t, "both lookups answer", func() bool { return !r.b.inet.masters[1].resolving })
	if n := r.b.Status(Internet).Note; n != "cannot resolve gone.test:27999: no such host" {
		t.Errorf("note %q", n)
	}
	r.clk.advance(10 * time.Second)
	r.frame()
	if r.b.Refreshing(Internet) {
		t.Error("still refreshing")
	}
}
