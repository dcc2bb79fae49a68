package master

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"tremor/net/oob"
)

// sent is a packet the master sent.
type sent struct {
	to netip.AddrPort
	p  []byte
}

type harness struct {
	t   *testing.T
	m   *Master
	out []sent
	log bytes.Buffer
}

func newHarness(t *testing.T, cfg Config) *harness {
	h := &harness{t: t}
	cfg.Key = []byte("test key")
	h.m = New(cfg, func(to netip.AddrPort, p []byte) {
		h.out = append(h.out, sent{to, bytes.Clone(p)})
	}, &h.log)
	return h
}

// take returns and forgets the packets sent so far.
func (h *harness) take() []sent {
	out := h.out
	h.out = nil
	return out
}

var heartbeat = oob.Packet(oob.FormatHeartbeat(oob.HeartbeatDarkPlaces))

// getInfoChallenge checks that the master sent exactly one getinfo, to
// addr, and returns its challenge.
func (h *harness) getInfoChallenge(addr netip.AddrPort) string {
	h.t.Helper()
	out := h.take()
	if len(out) != 1 || out[0].to != addr {
		h.t.Fatalf("sent %d packets (%v), want one getinfo to %v", len(out), out, addr)
	}
	text, err := oob.Parse(out[0].p)
	if err != nil {
		h.t.Fatal(err)
	}
	ch, err := oob.ParseGetInfo(text)
	if err != nil || len(ch) != ChallengeLen {
		h.t.Fatalf("getinfo %q: challenge %q, %v", text, ch, err)
	}
	return ch
}

func info(challenge string, clients, maxClients int) string {
	return fmt.Sprintf(`\challenge\%s\protocol\3\gamename\Tremor\hostname\Test\mapname\arena1\clients\%d\sv_maxclients\%d\gametype\0`,
		challenge, clients, maxClients)
}

func infoResponse(info string) []byte { return oob.Packet(oob.FormatInfoResponse(info)) }

// register lists addr: heartbeat, getinfo, infoResponse.
func (h *harness) register(now int32, addr netip.AddrPort, clients, maxClients int) {
	h.t.Helper()
	h.m.Packet(now, addr, heartbeat)
	ch := h.getInfoChallenge(addr)
	h.m.Packet(now+5, addr, infoResponse(info(ch, clients, maxClients)))
	if _, ok := h.m.servers[addr]; !ok {
		h.t.Fatalf("%v not listed after answering the challenge; log:\n%s", addr, h.log.String())
	}
}

func (h *harness) listed() []netip.AddrPort {
	var a []netip.AddrPort
	for _, s := range h.m.Servers() {
		a = append(a, s.Addr)
	}
	return a
}

var (
	srvA = netip.MustParseAddrPort("192.0.2.1:27960")
	srvB = netip.MustParseAddrPort("192.0.2.2:27960")
)

func TestRegister(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	h.m.Packet(1000, srvA, heartbeat)
	out := h.take()
	if len(out) != 1 || out[0].to != srvA {
		t.Fatalf("heartbeat answered with %v", out)
	}
	if len(out[0].p) > len(heartbeat) {
		t.Fatalf("getinfo of %d bytes answers a heartbeat of %d", len(out[0].p), len(heartbeat))
	}
	h.out = out
	ch := h.getInfoChallenge(srvA)
	if len(h.m.Servers()) != 0 {
		t.Fatal("listed before answering")
	}

	// The right challenge from another port or address, a wrong one
	// from the right address: not listed.
	h.m.Packet(1010, netip.AddrPortFrom(srvA.Addr(), 27961), infoResponse(info(ch, 1, 8)))
	h.m.Packet(1010, srvB, infoResponse(info(ch, 1, 8)))
	h.m.Packet(1010, srvA, infoResponse(info("AAAAAAAAAAA", 1, 8)))
	h.m.Packet(1010, srvA, infoResponse(info(ch[:10], 1, 8)))
	if got := h.listed(); len(got) != 0 {
		t.Fatalf("listed %v on a wrong challenge or address", got)
	}

	h.m.Packet(1010, srvA, infoResponse(info(ch, 1, 8)))
	list := h.m.Servers()
	if len(list) != 1 {
		t.Fatalf("listed %d servers, want 1", len(list))
	}
	s := list[0]
	if s.Addr != srvA || s.Protocol != 3 || s.Game != "Tremor" || s.Hostname != "Test" || s.Map != "arena1" || s.Clients != 1 || s.MaxClients != 8 {
		t.Errorf("listed %+v", s)
	}
	if !strings.Contains(h.log.String(), "192.0.2.1:27960: listed") {
		t.Errorf("log:\n%s", h.log.String())
	}
	if h.m.Stats().Registered != 1 || len(h.take()) != 0 {
		t.Error("registration counted wrong or answered")
	}
}

func TestChallengeAge(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	h.m.Packet(0, srvA, heartbeat)
	ch := h.getInfoChallenge(srvA)
	// Valid in its epoch and the next, not after.
	h.m.Packet(2*ChallengeEpoch, srvA, infoResponse(info(ch, 1, 8)))
	if len(h.m.Servers()) != 0 {
		t.Fatal("a challenge two epochs old was accepted")
	}
	h.m.Packet(2*ChallengeEpoch-1, srvA, infoResponse(info(ch, 1, 8)))
	if len(h.m.Servers()) != 1 {
		t.Fatal("a challenge of the previous epoch was refused")
	}
}

func TestRefusedHeartbeats(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	short := oob.Packet("heartbeat X")
	h.m.Packet(0, srvA, short)
	h.m.Packet(0, srvA, oob.Packet("heartbeat"))
	h.m.Packet(0, srvA, []byte("heartbeat DarkPlaces\n")) // no marker
	if out := h.take(); len(out) != 0 {
		t.Fatalf("answered %d bad or short heartbeats", len(out))
	}
	// The limit per address and port: HeartbeatBurst at once (two went
	// to the bad ones above), then one per HeartbeatPeriod.
	for range HeartbeatBurst + 5 {
		h.m.Packet(0, srvB, heartbeat)
	}
	if n := len(h.take()); n != HeartbeatBurst {
		t.Fatalf("%d getinfos for %d heartbeats from one address and port, want %d", n, HeartbeatBurst+5, HeartbeatBurst)
	}
	h.m.Packet(HeartbeatPeriod, srvB, heartbeat)
	if n := len(h.take()); n != 1 {
		t.Fatalf("%d getinfos after HeartbeatPeriod, want 1", n)
	}
}

// Heartbeats forged from a server's address on other ports, enough to use
// up any per-address allowance, do not keep its own heartbeat (every
// 300 s) from being answered.
func TestForgedHeartbeatsOtherPort(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	victim := netip.AddrPortFrom(srvA.Addr(), 27960)
	now := int32(1000)
	for i := range 64 {
		h.m.Packet(now, netip.AddrPortFrom(srvA.Addr(), uint16(1+i%2)), heartbeat)
	}
	for s := range 900 {
		now += 1000
		h.m.Packet(now, netip.AddrPortFrom(srvA.Addr(), 1), heartbeat)
		h.m.Packet(now, netip.AddrPortFrom(srvA.Addr(), 2), heartbeat)
		h.take()
		if s%300 == 150 {
			h.m.Packet(now, victim, heartbeat)
			ch := h.getInfoChallenge(victim)
			h.m.Packet(now+5, victim, infoResponse(info(ch, 1, 8)))
			if got := h.listed(); len(got) != 1 || got[0] != victim {
				t.Fatalf("at %d s: listed %v, want %v", s, got, victim)
			}
		}
	}
}

func TestBadInfo(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	for i, bad := range []string{
		`\protocol\3\clients\1`,                  // no sv_maxclients
		`\protocol\3\clients\1\sv_maxclients\0`,  // 0 slots
		`\protocol\x\clients\1\sv_maxclients\8`,  // not a number
		`\clients\1\sv_maxclients\8`,             // no protocol
		`\protocol\3\clients\-1\sv_maxclients\8`, // negative
		`\protocol\3\clients\1\sv_maxclients\8\gametype\z`,
	} {
		now := int32(i) * HeartbeatPeriod
		h.m.Packet(now, srvA, heartbeat)
		ch := h.getInfoChallenge(srvA)
		h.m.Packet(now, srvA, infoResponse(`\challenge\`+ch+bad))
		if len(h.m.Servers()) != 0 {
			t.Fatalf("listed with info %s", bad)
		}
	}
}

func TestExpiry(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Timeout = 60 * time.Second
	h := newHarness(t, cfg)
	h.register(0, srvA, 1, 8)
	h.register(30_000, srvB, 1, 8)
	h.m.Tick(60_004)
	if got := h.listed(); len(got) != 2 {
		t.Fatalf("before the timeout: listed %v", got)
	}
	h.m.Tick(60_005)
	if got := h.listed(); len(got) != 1 || got[0] != srvB {
		t.Fatalf("after A's timeout: listed %v", got)
	}
	// A fresh verified answer extends B: it needs a challenge of the
	// current epoch.
	h.m.Packet(80_000, srvB, heartbeat)
	ch := h.getInfoChallenge(srvB)
	h.m.Packet(80_000, srvB, infoResponse(info(ch, 2, 8)))
	h.m.Tick(100_000)
	if got := h.m.Servers(); len(got) != 1 || got[0].Clients != 2 {
		t.Fatalf("after a refresh: %v", got)
	}
	h.m.Tick(140_000)
	if got := h.listed(); len(got) != 0 {
		t.Fatalf("after B's timeout: listed %v", got)
	}
	if h.m.Stats().Expired != 2 || !strings.Contains(h.log.String(), "expired") {
		t.Errorf("expiries: %+v, log:\n%s", h.m.Stats(), h.log.String())
	}
}

// A heartbeat from a listed server makes the master ask again, but an
// unanswered getinfo removes nothing: heartbeats can be forged and the
// answer kept from arriving, so a server leaves only by timing out.
func TestHeartbeatDoesNotRemove(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Timeout = 60 * time.Second
	h := newHarness(t, cfg)
	h.register(0, srvA, 1, 8)
	h.register(0, srvB, 1, 8)

	// A (forged) heartbeat for A, whose getinfo is never answered; B
	// heartbeats and answers.
	h.m.Packet(10_000, srvA, heartbeat)
	h.getInfoChallenge(srvA)
	h.m.Packet(10_000, srvB, heartbeat)
	ch := h.getInfoChallenge(srvB)
	h.m.Packet(10_010, srvB, infoResponse(info(ch, 1, 8)))
	for now := int32(11_000); now < 60_000; now += 1000 {
		h.m.Tick(now)
	}
	if got := h.listed(); len(got) != 2 {
		t.Fatalf("before the timeout: listed %v", got)
	}
	if out := h.take(); len(out) != 0 {
		t.Fatalf("the master resent getinfos: %v", out)
	}
	// A times out 60 s after its last verified answer; B, refreshed at
	// 10 s, stays.
	h.m.Tick(60_005)
	if got := h.listed(); len(got) != 1 || got[0] != srvB {
		t.Fatalf("after A's timeout: listed %v", got)
	}
}

func TestTableLimits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxPerSource = 2
	cfg.MaxServers = 3
	h := newHarness(t, cfg)
	a := netip.MustParseAddrPort("[2001:db8:0:1::1]:27960")
	b := netip.MustParseAddrPort("[2001:db8:0:1:ffff::2]:27961") // same /64
	c := netip.MustParseAddrPort("[2001:db8:0:1::3]:27962")
	h.register(0, a, 1, 8)
	h.register(0, b, 1, 8)
	// A third server of that /64: its heartbeat is not even answered,
	// and an answer with a valid challenge is not listed either.
	h.m.Packet(0, c, heartbeat)
	if out := h.take(); len(out) != 0 {
		t.Fatalf("heartbeat beyond the per-source limit answered: %v", out)
	}
	h.m.Packet(0, c, infoResponse(info(challengeText(h.m.challenger.Make(c, 0)), 1, 8)))
	if len(h.m.Servers()) != 2 {
		t.Fatal("listed beyond the per-source limit")
	}
	h.register(0, srvA, 1, 8)
	h.m.Packet(0, srvB, heartbeat)
	if out := h.take(); len(out) != 0 || len(h.m.Servers()) != 3 {
		t.Fatalf("heartbeat beyond the table's limit answered: %v", out)
	}
	// Removing one makes room.
	h.m.remove(a)
	h.register(0, c, 1, 8)
}

// tryRegister runs a heartbeat and, if the master asks, the answer, and
// reports whether addr got listed.
func (h *harness) tryRegister(now int32, addr netip.AddrPort) bool {
	h.m.Packet(now, addr, heartbeat)
	out := h.take()
	if len(out) == 0 {
		return false
	}
	text, err := oob.Parse(out[0].p)
	if err != nil {
		h.t.Fatal(err)
	}
	ch, err := oob.ParseGetInfo(text)
	if err != nil {
		h.t.Fatal(err)
	}
	h.m.Packet(now+5, addr, infoResponse(info(ch, 1, 8)))
	_, ok := h.m.servers[addr]
	return ok
}

// One IPv6 /56 (256 /64 sources, what one customer often holds) lists at
// most MaxPerBlock servers, and servers elsewhere still get in.
func TestBlockLimit(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	listed := 0
	for sub := range 256 {
		for port := range DefaultMaxPerSource {
			a := netip.AddrPortFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, byte(sub), 15: 1}), uint16(27960+port))
			if h.tryRegister(0, a) {
				listed++
			}
		}
	}
	if listed != DefaultMaxPerBlock {
		t.Fatalf("one /56 listed %d servers, want %d", listed, DefaultMaxPerBlock)
	}
	// The same for an IPv4 /24.
	listed = 0
	for host := range 256 {
		for port := range 4 {
			if h.tryRegister(0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(host)}), uint16(27960+port))) {
				listed++
			}
		}
	}
	if listed != DefaultMaxPerBlock {
		t.Fatalf("one /24 listed %d servers, want %d", listed, DefaultMaxPerBlock)
	}
	// Another /48 and another /24 are listed.
	h.register(0, netip.MustParseAddrPort("[2001:db8:1::1]:27960"), 1, 8)
	h.register(0, srvA, 1, 8)
	if n := len(h.m.Servers()); n != 2*DefaultMaxPerBlock+2 {
		t.Fatalf("%d servers listed, want %d", n, 2*DefaultMaxPerBlock+2)
	}
	// A server leaving makes room in its block.
	h.m.remove(netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, 0}), 27960))
	if !h.tryRegister(0, netip.MustParseAddrPort("198.51.100.200:1")) {
		t.Fatal("no room in the /24 after a server left")
	}
}

// getServers sends q and returns the servers of the answer, checking
// that it ends with EOT and nothing follows.
func (h *harness) getServers(now int32, from netip.AddrPort, q string) ([]netip.AddrPort, int) {
	h.t.Helper()
	h.m.Packet(now, from, oob.Packet(q))
	out := h.take()
	var addrs []netip.AddrPort
	for i, s := range out {
		if s.to != from {
			h.t.Fatalf("answer sent to %v", s.to)
		}
		r, err := oob.ParseServersResponse(s.p)
		if err != nil {
			h.t.Fatal(err)
		}
		if r.EOT != (i == len(out)-1) {
			h.t.Fatalf("packet %d of %d: EOT %v", i, len(out), r.EOT)
		}
		addrs = append(addrs, r.Addrs...)
	}
	return addrs, len(out)
}

func TestGetServersFilters(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	empty := netip.MustParseAddrPort("192.0.2.10:1")
	full := netip.MustParseAddrPort("192.0.2.11:1")
	some := netip.MustParseAddrPort("192.0.2.12:1")
	six := netip.MustParseAddrPort("[2001:db8::1]:1")
	h.register(0, empty, 0, 8)
	h.register(0, full, 8, 8)
	h.register(0, some, 2, 8) // two bots count as clients
	h.register(0, six, 2, 8)
	// Servers of other games, one of Tremor's protocol, and a Quake III
	// server, which gives no game name.
	other := netip.MustParseAddrPort("192.0.2.13:1")
	xon := netip.MustParseAddrPort("192.0.2.14:1")
	q3 := netip.MustParseAddrPort("192.0.2.15:1")
	for _, s := range []struct {
		addr netip.AddrPort
		info string
	}{
		{other, `\protocol\68\gamename\Other\clients\1\sv_maxclients\8`},
		{xon, `\protocol\3\gamename\Xonotic\clients\1\sv_maxclients\8`},
		{q3, `\protocol\68\clients\1\sv_maxclients\8`},
	} {
		h.m.Packet(0, s.addr, heartbeat)
		ch := h.getInfoChallenge(s.addr)
		h.m.Packet(0, s.addr, infoResponse(`\challenge\`+ch+s.info))
	}

	client := netip.MustParseAddrPort("198.51.100.1:5000")
	tests := []struct {
		q    string
		want []netip.AddrPort
	}{
		{"getservers 3", []netip.AddrPort{some}},
		{"getservers 3 empty full\n", []netip.AddrPort{empty, full, some}}, // qstat's
		{"getservers Tremor 3 full", []netip.AddrPort{full, some}},
		{"getservers tremor 3 empty", []netip.AddrPort{empty, some}},
		{"getservers Other 3", nil},
		{"getservers Xonotic 3 empty", []netip.AddrPort{xon}},
		{"getservers 68", []netip.AddrPort{q3}},
		{"getservers Other 68", []netip.AddrPort{other}},
		{"getservers 4 empty full", nil},
		{"getserversExt Tremor 3", []netip.AddrPort{some, six}},
		{"getserversExt Tremor 3 ipv6", []netip.AddrPort{six}},
		{"getserversExt Tremor 3 ipv4 empty", []netip.AddrPort{empty, some}},
	}
	for i, tt := range tests {
		from := netip.AddrPortFrom(client.Addr(), uint16(5000+i))
		got, _ := h.getServers(int32(i)*QueryPeriod, from, tt.q)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%q: got %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestGetServersSplit(t *testing.T) {
	h := newHarness(t, Config{Timeout: time.Hour, MaxServers: 1000, MaxPerSource: 1, MaxPerBlock: 1000})
	for i := range 400 {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 27960)
		h.register(int32(i/32)*1000, addr, 1, 8)
	}
	got, packets := h.getServers(20_000, netip.MustParseAddrPort("198.51.100.1:1"), "getservers 3")
	if len(got) != 400 || packets < 2 {
		t.Fatalf("%d servers in %d packets, want 400 in at least 2", len(got), packets)
	}
}

func TestGetServersLimits(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	for i := range 20 {
		h.register(0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 2, 0, byte(i)}), 27960), 1, 8)
	}
	q := oob.Packet("getservers 3")
	// Per source: QueryBurst at once, whatever the port.
	from := netip.MustParseAddrPort("198.51.100.1:1")
	answered := 0
	for i := range QueryBurst + 3 {
		h.m.Packet(1000, netip.AddrPortFrom(from.Addr(), uint16(1+i)), q)
		if len(h.take()) > 0 {
			answered++
		}
	}
	if answered != QueryBurst {
		t.Fatalf("answered %d of %d getservers from one address, want %d", answered, QueryBurst+3, QueryBurst)
	}

	// A flood from many addresses (each within its own limit): no more
	// bytes go out than came in, beyond what the quiet budget paid.
	var in, out int
	for i := range 20_000 {
		src := netip.AddrPortFrom(netip.AddrFrom4([4]byte{203, 0, byte(i >> 8), byte(i)}), 1)
		now := int32(2000 + i/10) // 10 000 a second
		h.m.Packet(now, src, q)
		in += len(q)
		for _, s := range h.take() {
			out += len(s.p)
		}
	}
	if out > in+QuietBurst+QuietRate {
		t.Fatalf("flood: %d bytes out for %d in", out, in)
	}
	if out == 0 {
		t.Fatal("flood: nothing answered at all")
	}
	t.Logf("flood of %d requests: %d bytes in, %d out", 20_000, in, out)
}

// With a long list, forged getservers bring their victim at most
// QueryBurst answers, each AnswerPackets packets at once and then
// AnswerPackets a second; the browser that did ask still gets its whole
// list.
func TestGetServersLongList(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxPerSource, cfg.MaxPerBlock = DefaultMaxServers, DefaultMaxServers
	h := newHarness(t, cfg)
	for i := range DefaultMaxServers {
		h.register(0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 4, byte(i >> 8), byte(i)}), 27960), 1, 8)
	}
	h.take()
	victim := netip.MustParseAddrPort("198.51.100.7:5000")
	reqs := [][]byte{oob.Packet("getservers 3"), oob.Packet("getserversExt Tremor 3")}
	in := 0
	now := int32(10_000)
	for i := range 4 {
		q := reqs[i%2]
		h.m.Packet(now, victim, q)
		in += len(q)
	}
	type list struct {
		addrs map[netip.AddrPort]bool
		eot   bool
	}
	lists := map[bool]*list{false: {addrs: map[netip.AddrPort]bool{}}, true: {addrs: map[netip.AddrPort]bool{}}}
	out := 0
	read := func() int {
		sent := h.take()
		for _, p := range sent {
			if p.to != victim {
				t.Fatalf("answer sent to %v", p.to)
			}
			r, err := oob.ParseServersResponse(p.p)
			if err != nil {
				t.Fatal(err)
			}
			l := lists[r.Ext]
			for _, a := range r.Addrs {
				l.addrs[a] = true
			}
			l.eot = l.eot || r.EOT
			out += len(p.p)
		}
		return len(sent)
	}
	if n := read(); n != QueryBurst*AnswerPackets {
		t.Fatalf("%d packets at once for 4 getservers, want %d (%d answers of %d packets)", n, QueryBurst*AnswerPackets, QueryBurst, AnswerPackets)
	}
	h.m.Tick(now + 999)
	if n := read(); n != 0 {
		t.Fatalf("%d packets within the second", n)
	}
	for sec := int32(1); sec <= 4; sec++ {
		h.m.Tick(now + sec*1000)
		if n := read(); n > QueryBurst*AnswerPackets {
			t.Fatalf("second %d: %d packets, want at most %d", sec, n, QueryBurst*AnswerPackets)
		}
	}
	for ext, l := range lists {
		if len(l.addrs) != DefaultMaxServers || !l.eot {
			t.Errorf("ext %v: %d servers, EOT %v; want all %d and EOT", ext, len(l.addrs), l.eot, DefaultMaxServers)
		}
	}
	if len(h.m.pending) != 0 {
		t.Errorf("%d answers still pending", len(h.m.pending))
	}
	t.Logf("4 getservers (%d bytes) from one address with %d servers listed: %d bytes back over 4 s (x%d)", in, DefaultMaxServers, out, out/in)
}

// 150 forged getservers a second (about 2.4 KB/s), from a different
// /24 each second, make a flood; a browser asking now and then still
// gets its whole list, and the master sends no more than it received
// beyond what the quiet budget paid (QuietBurst + QuietRate at most).
func TestGetServersFloodFairShare(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	for i := range 200 {
		h.register(0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 5), byte(i)}), 27960), 1, 8)
	}
	h.take()
	req := oob.Packet("getservers 3")
	browser := netip.MustParseAddrPort("203.0.113.9:27000")
	in, out, asked, complete := 0, 0, 0, 0
	now := int32(10_000)
	for sec := range 20 {
		for v := range 150 {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, byte(sec), byte(v)}), 5000)
			h.m.Packet(now+int32(v*6), from, req)
			in += len(req)
		}
		if sec%5 == 4 {
			h.m.Packet(now+500, browser, req)
			in += len(req)
			asked++
		}
		h.m.Tick(now + 999)
		got := map[netip.AddrPort]bool{}
		eot := false
		for _, p := range h.take() {
			out += len(p.p)
			if p.to != browser {
				continue
			}
			r, err := oob.ParseServersResponse(p.p)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range r.Addrs {
				got[a] = true
			}
			eot = eot || r.EOT
		}
		if eot && len(got) == 200 {
			complete++
		}
		now += 1000
	}
	if !h.m.budget.Flooding() {
		t.Fatal("150 getservers a second did not make a flood")
	}
	if complete == 0 {
		t.Fatalf("the browser got no complete list in %d tries during the flood", asked)
	}
	if out > in+QuietBurst+QuietRate {
		t.Fatalf("%d bytes out for %d in", out, in)
	}
	t.Logf("browser: %d complete lists of %d; flood: %d bytes in, %d out", complete, asked, in, out)
}

func TestLogRateLimit(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	for i := range 3 * LogLines {
		h.m.Packet(0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 3, 0, byte(i)}), 1), oob.Packet("heartbeat"))
	}
	h.m.Packet(1000, srvA, oob.Packet("heartbeat"))
	lines := strings.Split(strings.TrimSpace(h.log.String()), "\n")
	if len(lines) != LogLines+1 || !strings.Contains(lines[LogLines], fmt.Sprintf("(%d lines left out before this one)", 2*LogLines)) {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestPrintable(t *testing.T) {
	if got := printable("a\x1b[31mb\n", 64); got != "a?[31mb?" {
		t.Errorf("printable = %q", got)
	}
	if got := printable(strings.Repeat("x", 100), 64); len(got) != 64 {
		t.Errorf("printable kept %d bytes", len(got))
	}
}

func FuzzPacket(f *testing.F) {
	f.Add([]byte("\xff\xff\xff\xffheartbeat DarkPlaces\n"))
	f.Add(infoResponse(info("AAAAAAAAAAA", 1, 8)))
	f.Add(oob.Packet("getserversExt Tremor 3 ipv6 empty full"))
	f.Add(oob.Packet("getservers 3 empty full"))
	f.Add([]byte("\xff\xff\xff\xffGetservers 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out int
		m := New(Config{Timeout: time.Minute, MaxServers: 4, MaxPerSource: 2, MaxPerBlock: 3, Key: []byte("k")},
			func(to netip.AddrPort, p []byte) { out += len(p) }, nil)
		from := netip.MustParseAddrPort("192.0.2.1:27960")
		m.Packet(0, from, data)
		m.Tick(1000)
		if len(m.Servers()) != 0 {
			t.Fatal("one packet listed a server")
		}
		text, _ := oob.Parse(data)
		cmd := oob.Command(text)
		isQuery := strings.EqualFold(cmd, oob.CmdGetServers) || strings.EqualFold(cmd, oob.CmdGetServersExt)
		if out > len(data) && !isQuery {
			t.Fatalf("answered %d bytes to %d", out, len(data))
		}
	})
}
