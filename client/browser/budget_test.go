package browser

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/net/netchan"
	"tremor/net/oob"
	"tremor/net/srclimit"
)

// refusedAddrs are addresses no master on the internet may send the
// browser to, one of each class and form: private, shared, link-local,
// loopback (also mapped, NAT64 and 6to4), broadcast (the limited one and
// the rig's own network's), multicast (the LAN group too) and reserved.
var refusedAddrs = []string{
	"10.0.0.5:27960", "172.16.0.1:27960", "192.168.1.20:27960", "100.64.0.1:27960",
	"169.254.1.1:27960", "127.0.0.2:27960", "255.255.255.255:27960", "192.168.1.255:27960",
	"224.0.0.1:27960", "239.255.255.250:1900", "240.0.0.1:27960", "0.1.2.3:27960",
	"[::1]:27960", "[::ffff:127.0.0.1]:27961", "[::ffff:10.0.0.5]:27960", "[::ffff:255.255.255.255]:27960",
	"[fd00::1]:27960", "[fe80::1]:27960", "[ff02::1]:27960", "[ff04::696f:7175:616b:6533]:27960",
	"[64:ff9b::7f00:1]:27960", "[2002:7f00:1::1]:27960", "[::127.0.0.1]:27960", "[100::1]:27960",
}

// serversPackets writes addrs as getserversExtResponse packets of at
// most 100 servers each, every address in the form it is given: an
// IPv4-mapped IPv6 address goes as an IPv6 entry, as a rogue master
// would write it (AppendServersResponse would write it as IPv4). The
// last packet carries the EOT.
func serversPackets(addrs []netip.AddrPort) [][]byte {
	var out [][]byte
	for start := 0; start < len(addrs); start += 100 {
		p := []byte(oob.Marker + oob.CmdGetServersExtResponse)
		for _, a := range addrs[start:min(start+100, len(addrs))] {
			if a.Addr().Is4() {
				b := a.Addr().As4()
				p = append(p, '\\')
				p = append(p, b[:]...)
			} else {
				b := a.Addr().As16()
				p = append(p, '/')
				p = append(p, b[:]...)
			}
			p = append(p, byte(a.Port()>>8), byte(a.Port()))
		}
		if start+100 >= len(addrs) {
			p = append(p, `\EOT`...)
		}
		out = append(out, p)
	}
	return out
}

// portsOf returns n ports of ip from first.
func portsOf(ip string, first, n int) []netip.AddrPort {
	var out []netip.AddrPort
	for p := first; p < first+n; p++ {
		out = append(out, netip.AddrPortFrom(netip.MustParseAddr(ip), uint16(p)))
	}
	return out
}

// runRefresh runs frames of 10 ms until the Internet refresh ends (or 60
// simulated seconds pass, which fails), answering each getinfo sent to
// an address of answer as a server would.
func (r *rig) runRefresh(t *testing.T, answer map[netip.AddrPort]bool) {
	t.Helper()
	seen := 0
	for range 6000 {
		r.frame()
		ps := r.conn.packets()
		for _, p := range ps[seen:] {
			if answer[p.to] {
				r.answer(p.to.String(), 20*time.Millisecond, info(challengeOf(t, p.text), "Real "+p.to.String(), "arena1", 1, 1, 8))
			}
		}
		seen = len(ps)
		if !r.b.Refreshing(Internet) {
			return
		}
		r.clk.advance(10 * time.Millisecond)
	}
	t.Fatal("the Internet refresh never ended")
}

// perHost counts the getinfos of ps by host (srclimit.Source).
func perHost(ps []sentPacket) map[netip.Addr]int {
	n := make(map[netip.Addr]int)
	for _, p := range ps {
		if strings.HasPrefix(p.text, oob.CmdGetInfo) {
			n[srclimit.Source(p.to)]++
		}
	}
	return n
}

// TestRogueMaster is the must-show: a master on the internet
// answers with 196 ports of 127.0.0.1, 196 ports of one public victim,
// 196 addresses of one public IPv6 /64, every address it must not send
// the browser to, and two real servers on one host. The browser sends
// nothing to 127.0.0.1 nor to any refused address (they are not even
// listed), at most 2*HostPorts packets to a public host that does not
// answer, and lists both real servers, answered.
func TestRogueMaster(t *testing.T) {
	r := newRig(t, Config{Masters: []string{"198.51.100.7"}})
	master := netip.MustParseAddrPort("198.51.100.7:27950")
	r.b.Refresh(Internet)
	r.frame()

	var list []netip.AddrPort
	list = append(list, portsOf("127.0.0.1", 1000, 196)...)
	list = append(list, portsOf("203.0.113.9", 1000, 196)...)
	for i := range 196 {
		list = append(list, netip.AddrPortFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 8: byte(i), 15: 1}), 27960))
	}
	for _, s := range refusedAddrs {
		list = append(list, netip.MustParseAddrPort(s))
	}
	real := portsOf("198.51.100.20", 27960, 2)
	list = append(list, real...)
	for _, p := range serversPackets(list) {
		r.b.recv.push(p, master, r.clk.Now())
	}
	r.conn.reset() // the master queries
	r.runRefresh(t, map[netip.AddrPort]bool{real[0]: true, real[1]: true})

	ps := r.conn.packets()
	hosts := perHost(ps)
	refused := map[netip.AddrPort]bool{}
	for _, s := range refusedAddrs {
		a := netip.MustParseAddrPort(s)
		refused[netip.AddrPortFrom(a.Addr().Unmap(), a.Port())] = true
	}
	for _, p := range ps {
		if c := classify(p.to.Addr()); refused[p.to] || p.to.Addr().Is4In6() || c != classGlobal {
			t.Errorf("getinfo to %v (%v)", p.to, c)
		}
	}
	if n := hosts[netip.MustParseAddr("127.0.0.1")]; n != 0 {
		t.Errorf("%d packets to 127.0.0.1, want none", n)
	}
	t.Logf("196 ports of 127.0.0.1 listed: %d packets sent to it in the refresh (before the limits: 392)", hosts[netip.MustParseAddr("127.0.0.1")])
	for _, h := range []string{"203.0.113.9", "2001:db8:1:2::"} {
		n := hosts[netip.MustParseAddr(h)]
		if n != 2*HostPorts {
			t.Errorf("%d packets to %s, want %d (%d ports, each tried twice)", n, h, 2*HostPorts, HostPorts)
		}
		t.Logf("196 ports or addresses of public %s listed: %d packets sent to it in the refresh", h, n)
	}
	if n := hosts[netip.MustParseAddr("198.51.100.20")]; n != 2 {
		t.Errorf("%d packets to the real servers' host, want 2 (one each, answered)", n)
	}
	t.Logf("the refresh sent %d getinfos in all", len(ps))

	es := r.b.Entries(Internet)
	states := map[State]int{}
	for _, e := range es {
		states[e.State]++
		if e.Addr.Addr().Is4In6() {
			t.Errorf("entry %v kept mapped", e.Addr)
		}
	}
	// Of the two public victims' 2*196, HostPorts each timed out and the
	// rest not queried; 2 answered; 127.0.0.1 and the refused ones not
	// listed at all.
	want := map[State]int{NotQueried: 2 * (196 - HostPorts), TimedOut: 2 * HostPorts, Answered: 2}
	if !maps.Equal(states, want) {
		t.Errorf("entry states %v, want %v", states, want)
	}
	for _, a := range real {
		i := slices.IndexFunc(es, func(e Entry) bool { return e.Addr == a })
		if i < 0 || es[i].State != Answered || es[i].HostName != "Real "+a.String() {
			t.Errorf("real server %v: %+v", a, es)
		}
	}
	note := r.b.Status(Internet).Note
	wantNote := fmt.Sprintf("%d listed addresses refused", 196+len(refused)) // a mapped address and its IPv4 are one
	if !strings.Contains(note, wantNote) || !strings.Contains(note, fmt.Sprintf("%d servers not queried", 2*(196-HostPorts))) {
		t.Errorf("note %q, want %q and the servers not queried", note, wantNote)
	}
}

// A host whose servers answer is a game host: once one answers, up to
// AnsweredHostPorts of its servers are pinged, the ones held back
// included; beyond them, none.
func TestAnsweringHostGetsMorePorts(t *testing.T) {
	r := newRig(t, Config{Masters: []string{"198.51.100.7"}})
	master := netip.MustParseAddrPort("198.51.100.7:27950")
	r.b.Refresh(Internet)
	r.frame()
	list := portsOf("198.51.100.30", 27960, 40)
	for _, p := range serversPackets(list) {
		r.b.recv.push(p, master, r.clk.Now())
	}
	r.conn.reset()
	answer := map[netip.AddrPort]bool{}
	for _, a := range list {
		answer[a] = true
	}
	r.runRefresh(t, answer)
	if n := perHost(r.conn.packets())[netip.MustParseAddr("198.51.100.30")]; n != AnsweredHostPorts {
		t.Errorf("%d packets to the answering host, want %d (one per server, all answered)", n, AnsweredHostPorts)
	}
	states := map[State]int{}
	for _, e := range r.b.Entries(Internet) {
		states[e.State]++
	}
	if want := map[State]int{Answered: AnsweredHostPorts, NotQueried: 40 - AnsweredHostPorts}; !maps.Equal(states, want) {
		t.Errorf("entry states %v, want %v", states, want)
	}
}

// A refresh pings at most MaxPinged servers, however many hosts the
// masters list, and tries each again at most once.
func TestRefreshBudget(t *testing.T) {
	r := newRig(t, Config{Masters: []string{"198.51.100.7"}, PacketsPerSecond: 1000, Retries: 5, MaxEntries: 2 * MaxPinged})
	if r.b.cfg.Retries != MaxRetries {
		t.Errorf("Retries %d, want it bounded to %d", r.b.cfg.Retries, MaxRetries)
	}
	master := netip.MustParseAddrPort("198.51.100.7:27950")
	r.b.Refresh(Internet)
	r.frame()
	var list []netip.AddrPort
	for i := range MaxPinged + 100 {
		list = append(list, netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), 27960))
	}
	for _, p := range serversPackets(list) {
		r.b.recv.push(p, master, r.clk.Now())
	}
	r.conn.reset()
	r.runRefresh(t, nil)
	if n := r.conn.count(); n != 2*MaxPinged {
		t.Errorf("%d packets in the refresh, want %d", n, 2*MaxPinged)
	}
	for h, n := range perHost(r.conn.packets()) {
		if n > 2 {
			t.Errorf("%d packets to %v", n, h)
		}
	}
}

// recordConn records where the browser sends, and passes to the real
// socket only what goes to 127.0.0.1: the test sends nothing off this
// machine, whatever the browser decides.
type recordConn struct {
	netchan.Conn
	mu sync.Mutex
	to []netip.AddrPort
}

func (c *recordConn) WriteTo(p []byte, to netip.AddrPort) error {
	c.mu.Lock()
	c.to = append(c.to, to)
	c.mu.Unlock()
	if to.Addr() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return nil
	}
	return c.Conn.WriteTo(p, to)
}

func (c *recordConn) sent() []netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.to)
}

// TestLoopbackRogueMaster runs the rogue master for real, over
// UDP on 127.0.0.1: it answers getservers with 196 ports of 127.0.0.1,
// private, broadcast and multicast addresses. A master on this machine
// is in loopback scope, so what it lists on this machine and the
// private network is allowed (make master and the tests rely on it);
// even so, 127.0.0.1 gets at most 2*HostPorts getinfos, and broadcast
// and multicast none.
func TestLoopbackRogueMaster(t *testing.T) {
	mc, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var list []netip.AddrPort
	list = append(list, portsOf("127.0.0.1", 1000, 196)...)
	for _, s := range []string{"10.0.0.5:27960", "192.168.7.20:27960", "255.255.255.255:27960", "224.0.0.1:27960", "[ff02::1]:27960", "240.0.0.1:27960"} {
		list = append(list, netip.MustParseAddrPort(s))
	}
	answers := serversPackets(list)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for ctx.Err() == nil {
			_, from, err := mc.ReadFrom(buf)
			if err != nil {
				return
			}
			for _, p := range answers {
				_ = mc.WriteTo(p, from)
			}
		}
	}()
	t.Cleanup(func() { cancel(); mc.Close(); <-done })

	c4, err := listen("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &recordConn{Conn: c4}
	b := New(Config{Masters: []string{mc.LocalAddr().String()}, Timeout: 200 * time.Millisecond, PacketsPerSecond: 100}, rc, nil)
	defer b.Close()
	b.Refresh(Internet)
	deadline := time.Now().Add(20 * time.Second) // stops a broken test only
	b.Frame(time.Now())
	for b.Refreshing(Internet) && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
		b.Frame(time.Now())
	}
	if b.Refreshing(Internet) {
		t.Fatal("refresh never ended")
	}
	per := map[netip.Addr]int{}
	for _, to := range rc.sent() {
		if to != mc.LocalAddr() {
			per[to.Addr()]++
		}
	}
	if n := per[netip.MustParseAddr("127.0.0.1")]; n != 2*HostPorts {
		t.Errorf("%d getinfos to 127.0.0.1, want %d", n, 2*HostPorts)
	}
	for _, s := range []string{"255.255.255.255", "224.0.0.1", "ff02::1", "240.0.0.1"} {
		if n := per[netip.MustParseAddr(s)]; n != 0 {
			t.Errorf("%d getinfos to %s", n, s)
		}
	}
	for _, s := range []string{"10.0.0.5", "192.168.7.20"} {
		if n := per[netip.MustParseAddr(s)]; n != 2 {
			t.Errorf("%d getinfos to %s, want 2 (a master on this machine may list private servers)", n, s)
		}
	}
	if note := b.Status(Internet).Note; !strings.HasPrefix(note, "4 listed addresses refused") {
		t.Errorf("note %q, want the 4 broadcast, multicast and reserved addresses refused (each listed twice)", note)
	}
	t.Logf("a master on 127.0.0.1 listing 196 ports of 127.0.0.1: %d getinfos to 127.0.0.1; to each private address listed: %d; broadcast and multicast: 0; note %q",
		per[netip.MustParseAddr("127.0.0.1")], per[netip.MustParseAddr("10.0.0.5")], b.Status(Internet).Note)
}
