package browser

import (
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/common/console"
	"tremor/common/proto"
	"tremor/net/oob"
)

// fakeConn records what the browser sends; its reads wait until Close.
// Tests hand the browser its answers with push, bypassing the reader.
type fakeConn struct {
	mu     sync.Mutex
	local  netip.AddrPort
	sent   []sentPacket
	closed chan struct{}
	once   sync.Once
}

type sentPacket struct {
	to   netip.AddrPort
	text string
}

func newFakeConn(local string) *fakeConn {
	return &fakeConn{local: netip.MustParseAddrPort(local), closed: make(chan struct{})}
}

func (c *fakeConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.closed
	return 0, netip.AddrPort{}, net.ErrClosed
}

func (c *fakeConn) WriteTo(p []byte, to netip.AddrPort) error {
	text, err := oob.Parse(p)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.sent = append(c.sent, sentPacket{to, text})
	c.mu.Unlock()
	return nil
}

func (c *fakeConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *fakeConn) SetReadDeadline(time.Time) error { return nil }
func (c *fakeConn) Close() error                    { c.once.Do(func() { close(c.closed) }); return nil }
func (c *fakeConn) packets() []sentPacket {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}
func (c *fakeConn) reset()                            { c.mu.Lock(); c.sent = nil; c.mu.Unlock() }
func (c *fakeConn) count() int                        { c.mu.Lock(); defer c.mu.Unlock(); return len(c.sent) }
func (c *fakeConn) sentTo(to netip.AddrPort) []string { return textsTo(c.packets(), to) }

func textsTo(ps []sentPacket, to netip.AddrPort) []string {
	var out []string
	for _, p := range ps {
		if p.to == to {
			out = append(out, p.text)
		}
	}
	return out
}

// clock is a settable clock for Config.Clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) time.Time { return c.advance(d) }

func (c *clock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// memStore is a Store in memory.
type memStore struct {
	text  []byte
	saved bool
	err   error
}

func (s *memStore) Load() ([]byte, error) {
	if !s.saved {
		return nil, fs.ErrNotExist
	}
	return s.text, nil
}

func (s *memStore) Save(text []byte) error {
	if s.err != nil {
		return s.err
	}
	s.text, s.saved = slices.Clone(text), true
	return nil
}

// rig is a browser on a fake conn with a fake clock and no broadcast.
type rig struct {
	b    *Browser
	conn *fakeConn
	clk  *clock
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	r := &rig{conn: newFakeConn("192.168.1.10:40000"), clk: newClock()}
	cfg.Clock = r.clk.Now
	if cfg.Interfaces == nil {
		cfg.Interfaces = func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("192.168.1.255")} }
	}
	r.b = New(cfg, r.conn, r.conn)
	t.Cleanup(func() { r.b.Close() })
	return r
}

// frame runs a Frame at the clock's time.
func (r *rig) frame() { r.b.Frame(r.clk.Now()) }

// answer hands the browser an infoResponse from from, arriving after
// delay, with info's keys.
func (r *rig) answer(from string, delay time.Duration, info string) {
	p := oob.Packet(oob.FormatInfoResponse(info))
	r.b.recv.push(p, netip.MustParseAddrPort(from), r.clk.Now().Add(delay))
}

// challengeOf returns the challenge of a getinfo text.
func challengeOf(t *testing.T, text string) string {
	t.Helper()
	c, err := oob.ParseGetInfo(text)
	if err != nil || c == "" {
		t.Fatalf("not a getinfo with a challenge: %q (%v)", text, err)
	}
	return c
}

func info(challenge, host, mapName string, clients, humans, maxc int) string {
	return fmt.Sprintf(`\challenge\%s\protocol\%d\hostname\%s\mapname\%s\clients\%d\g_humanplayers\%d\sv_maxclients\%d\gametype\0`,
		challenge, proto.Version, host, mapName, clients, humans, maxc)
}

func TestLANQueries(t *testing.T) {
	r := newRig(t, Config{LANPort: 27960, LANPorts: 4})
	r.b.Refresh(LAN)
	if !r.b.Refreshing(LAN) {
		t.Error("not refreshing after Refresh")
	}
	r.frame()
	ps := r.conn.packets()
	// Each port: 127.0.0.1, the broadcast address, the IPv6 group.
	var want []netip.AddrPort
	for p := uint16(27960); p < 27964; p++ {
		want = append(want, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), p),
			netip.AddrPortFrom(netip.MustParseAddr("192.168.1.255"), p), netip.AddrPortFrom(Multicast6, p))
	}
	var got []netip.AddrPort
	challenges := map[string]bool{}
	for _, p := range ps {
		got = append(got, p.to)
		challenges[challengeOf(t, p.text)] = true
	}
	if !slices.Equal(got, want) {
		t.Errorf("sent to %v, want %v", got, want)
	}
	if len(challenges) != len(want) {
		t.Errorf("%d distinct challenges for %d queries", len(challenges), len(want))
	}
	// A second refresh has fresh challenges.
	r.conn.reset()
	r.b.Refresh(LAN)
	r.frame()
	for _, p := range r.conn.packets() {
		if challenges[challengeOf(t, p.text)] {
			t.Errorf("challenge %q used again", p.text)
		}
	}
	// The refresh ends LANWait after its last query.
	r.clk.advance(DefaultLANWait - time.Millisecond)
	r.frame()
	if !r.b.Refreshing(LAN) {
		t.Error("refresh ended before LANWait")
	}
	r.clk.advance(time.Millisecond)
	r.frame()
	if r.b.Refreshing(LAN) {
		t.Error("refresh still on after LANWait")
	}
}

func TestLANAnswers(t *testing.T) {
	r := newRig(t, Config{LANPort: 27960, LANPorts: 2})
	r.b.Refresh(LAN)
	r.frame()
	bc := netip.MustParseAddrPort("192.168.1.255:27960")
	ch := challengeOf(t, r.conn.sentTo(bc)[0])
	other := challengeOf(t, r.conn.sentTo(netip.MustParseAddrPort("192.168.1.255:27961"))[0])
	lo := challengeOf(t, r.conn.sentTo(netip.MustParseAddrPort("127.0.0.1:27960"))[0])

	r.answer("192.168.1.20:27960", 12*time.Millisecond, info(ch, "Good", "arena1", 5, 2, 8))
	r.answer("192.168.1.21:27960", 3*time.Millisecond, info("wrong", "WrongChallenge", "arena1", 1, 1, 8))
	r.answer("10.9.9.9:27960", 3*time.Millisecond, info(ch, "OtherNetwork", "arena1", 1, 1, 8))
	r.answer("192.168.1.22:27961", 3*time.Millisecond, info(ch, "OtherPort", "arena1", 1, 1, 8))
	r.answer("192.168.1.23:27960", 3*time.Millisecond, info(other, "ChallengeOfAnotherPort", "arena1", 1, 1, 8))
	r.answer("192.168.1.24:27960", 3*time.Millisecond, info(lo, "LoopbackChallenge", "arena1", 1, 1, 8))
	r.answer("192.168.1.25:27960", 3*time.Millisecond, info("", "NoChallenge", "arena1", 1, 1, 8))
	r.frame()

	es := r.b.Entries(LAN)
	if len(es) != 1 {
		t.Fatalf("entries %+v, want only the good answer", es)
	}
	want := Entry{Label: "192.168.1.20:27960", Addr: netip.MustParseAddrPort("192.168.1.20:27960"), State: Answered,
		HostName: "Good", Map: "arena1", Humans: 2, Bots: 3, Max: 8, Protocol: proto.Version, Ping: 12}
	if es[0] != want {
		t.Errorf("entry %+v\nwant  %+v", es[0], want)
	}
	if st := r.b.Status(LAN); st.Entries != 1 || st.Answered != 1 || !st.Refreshing {
		t.Errorf("status %+v", st)
	}
}

// A server on this machine answers the query to 127.0.0.1 and the
// broadcast: it is listed once, at 127.0.0.1.
func TestLANLocalServerOnce(t *testing.T) {
	r := newRig(t, Config{LANPort: 27960, LANPorts: 1})
	r.b.Refresh(LAN)
	r.frame()
	r.b.own = map[netip.Addr]bool{netip.MustParseAddr("192.168.1.10"): true}
	bc := challengeOf(t, r.conn.sentTo(netip.MustParseAddrPort("192.168.1.255:27960"))[0])
	lo := challengeOf(t, r.conn.sentTo(netip.MustParseAddrPort("127.0.0.1:27960"))[0])
	r.answer("192.168.1.10:27960", 4*time.Millisecond, info(bc, "Local", "arena1", 0, 0, 8))
	r.answer("127.0.0.1:27960", 2*time.Millisecond, info(lo, "Local", "arena1", 0, 0, 8))
	r.frame()
	es := r.b.Entries(LAN)
	if len(es) != 1 || es[0].Label != "127.0.0.1:27960" || es[0].Ping != 2 {
		t.Errorf("entries %+v, want one at 127.0.0.1 with the better ping", es)
	}
}

func TestFavoritesPersist(t *testing.T) {
	st := &memStore{}
	r := newRig(t, Config{Store: st})
	for _, a := range []string{"10.0.0.1:27960", "10.0.0.2", "10.0.0.1:27960"} {
		if err := r.b.AddFavorite(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"", "a b", `x"y`, "a;quit", strings.Repeat("a", MaxLabelLen+1)} {
		if err := r.b.AddFavorite(bad); err == nil {
			t.Errorf("AddFavorite(%q) accepted", bad)
		}
	}
	if got := string(st.text); got != "10.0.0.1:27960\n10.0.0.2\n" {
		t.Errorf("saved %q", got)
	}
	r.b.RemoveFavorite("10.0.0.1:27960")
	if got := string(st.text); got != "10.0.0.2\n" {
		t.Errorf("saved after remove %q", got)
	}
	// A new browser loads them; bad lines are skipped.
	st.text = []byte("# mine\n10.0.0.2\n\n  10.0.0.3:27961  \nbad;line\n10.0.0.2\n")
	b2 := New(Config{Store: st}, nil, nil)
	defer b2.Close()
	if got := b2.Favorites(); !slices.Equal(got, []string{"10.0.0.2", "10.0.0.3:27961"}) {
		t.Errorf("loaded %q", got)
	}
	es := b2.Entries(Favorites)
	if len(es) != 2 || es[0].Addr != netip.MustParseAddrPort("10.0.0.2:27960") || es[0].State != Pending {
		t.Errorf("entries %+v", es)
	}
	// A failing store is reported in the status.
	st.err = fmt.Errorf("disk full")
	if err := r.b.AddFavorite("10.0.0.4"); err != nil {
		t.Fatal(err)
	}
	if n := r.b.Status(Favorites).Note; !strings.Contains(n, "disk full") {
		t.Errorf("note %q, want the save error", n)
	}
}

func TestFavoritesPingAndTimeout(t *testing.T) {
	r := newRig(t, Config{Timeout: time.Second, Retries: 1})
	up, down := netip.MustParseAddrPort("10.0.0.1:27960"), netip.MustParseAddrPort("10.0.0.2:27960")
	r.b.AddFavorite(up.String())
	r.b.AddFavorite(down.String())
	r.frame()
	q := r.conn.sentTo(up)
	if len(q) != 1 || len(r.conn.sentTo(down)) != 1 {
		t.Fatalf("sent %v, want one getinfo each", r.conn.packets())
	}
	// An answer from elsewhere with the right challenge, and one from the
	// right address with another, are both ignored.
	r.answer("10.0.0.9:27960", 5*time.Millisecond, info(challengeOf(t, q[0]), "Spoof", "arena1", 0, 0, 8))
	r.answer(up.String(), 5*time.Millisecond, info("stale", "Stale", "arena1", 0, 0, 8))
	r.frame()
	for _, e := range r.b.Entries(Favorites) {
		if e.State != Pending {
			t.Errorf("entry %+v answered by a wrong answer", e)
		}
	}
	r.answer(up.String(), 30*time.Millisecond, info(challengeOf(t, q[0]), "Up", "arena1", 1, 1, 8))
	r.frame()
	// The silent one is tried again after Timeout, then timed out.
	r.clk.advance(time.Second)
	r.frame()
	if n := len(r.conn.sentTo(down)); n != 2 {
		t.Errorf("%d queries to the silent server after Timeout, want 2", n)
	}
	if e := r.b.Entries(Favorites)[1]; e.State != Pending {
		t.Errorf("silent server %v during its retry", e.State)
	}
	r.clk.advance(time.Second)
	r.frame()
	es := r.b.Entries(Favorites)
	if es[0].State != Answered || es[0].HostName != "Up" || es[0].Ping != 30 {
		t.Errorf("answered entry %+v", es[0])
	}
	if es[1].State != TimedOut || es[1].Ping != 0 {
		t.Errorf("silent entry %+v, want timed out", es[1])
	}
	if n := len(r.conn.sentTo(down)); n != 2 {
		t.Errorf("%d queries to the silent server, want 2 (one retry)", n)
	}
	if r.b.Refreshing(Favorites) {
		t.Error("still refreshing after every entry settled")
	}
	// A late answer to the timed-out query changes nothing.
	r.answer(down.String(), 0, info(challengeOf(t, r.conn.sentTo(down)[1]), "Late", "arena1", 0, 0, 8))
	r.frame()
	if e := r.b.Entries(Favorites)[1]; e.State != TimedOut {
		t.Errorf("late answer: %+v", e)
	}
}

// However long the list, no window of one second holds more than
// PacketsPerSecond packets, and every server is queried.
func TestPacing(t *testing.T) {
	const rate = 20
	r := newRig(t, Config{PacketsPerSecond: rate, Timeout: 10 * time.Second})
	const n = 100
	for i := range n {
		if err := r.b.AddFavorite(fmt.Sprintf("10.0.%d.%d:27960", i/200, i%200+1)); err != nil {
			t.Fatal(err)
		}
	}
	var times []time.Time
	for range 1000 { // 10 s in frames of 10 ms
		before := r.conn.count()
		r.frame()
		for range r.conn.count() - before {
			times = append(times, r.clk.Now())
		}
		r.clk.advance(10 * time.Millisecond)
	}
	if len(times) != n {
		t.Fatalf("%d packets sent, want %d", len(times), n)
	}
	for i := range times {
		j := i
		for j < len(times) && times[j].Sub(times[i]) < time.Second {
			j++
		}
		if j-i > rate {
			t.Fatalf("%d packets in the second from %v", j-i, times[i].Sub(times[0]))
		}
	}
	if got := times[n-1].Sub(times[0]); got < (n/rate-1)*time.Second {
		t.Errorf("100 packets over %v", got)
	}
	t.Logf("%d packets over %v at most %d a second", n, times[n-1].Sub(times[0]), rate)
}

func TestInternet(t *testing.T) {
	r := newRig(t, Config{Masters: []string{"10.1.1.1", ""}, Timeout: time.Second})
	master := netip.MustParseAddrPort("10.1.1.1:27950")
	r.b.Refresh(Internet)
	r.frame()
	q := r.conn.sentTo(master)
	if len(q) != 2 {
		t.Fatalf("to the master: %q, want getservers and getserversExt", q)
	}
	for _, text := range q {
		gs, err := oob.ParseGetServers(text)
		if err != nil || gs.Protocol != proto.Version || !gs.Empty || !gs.Full {
			t.Errorf("master query %q: %+v %v", text, gs, err)
		}
	}
	s1, s2 := netip.MustParseAddrPort("10.2.0.1:27960"), netip.MustParseAddrPort("[2001:db8::1]:27961")
	list := oob.AppendServersResponse(nil, true, []netip.AddrPort{s1, s2}, true)
	r.b.recv.push(list, netip.MustParseAddrPort("10.1.1.2:27950"), r.clk.Now()) // not a master asked
	r.frame()
	if n := len(r.b.Entries(Internet)); n != 0 {
		t.Fatalf("%d entries from a list of an address not asked", n)
	}
	r.b.recv.push(list, master, r.clk.Now())
	r.b.recv.push(oob.AppendServersResponse(nil, false, []netip.AddrPort{s1}, true), master, r.clk.Now())
	r.frame()
	es := r.b.Entries(Internet)
	if len(es) != 2 || es[0].Addr != s1 || es[1].Addr != s2 || es[0].State != Pending {
		t.Fatalf("entries %+v", es)
	}
	if len(r.conn.sentTo(s1)) != 1 || len(r.conn.sentTo(s2)) != 1 {
		t.Errorf("pings: %v", r.conn.packets())
	}
	r.answer(s1.String(), 7*time.Millisecond, info(challengeOf(t, r.conn.sentTo(s1)[0]), "Far", "duel1", 2, 2, 4))
	r.clk.advance(5 * time.Second)
	r.frame()
	r.clk.advance(5 * time.Second)
	r.frame()
	es = r.b.Entries(Internet)
	if es[0].State != Answered || es[0].Ping != 7 || es[1].State != TimedOut {
		t.Errorf("entries %+v", es)
	}
	if r.b.Refreshing(Internet) {
		t.Error("still refreshing")
	}
}

func TestInternetNoMaster(t *testing.T) {
	tab := console.NewTable()
	var cv Cvars
	BindCvars(tab.Bind(nil), &cv)
	r := newRig(t, Config{Masters: []string{"10.1.1.1"}, Cvars: &cv})
	r.b.Refresh(Internet)
	r.frame()
	if st := r.b.Status(Internet); st.Refreshing || !strings.Contains(st.Note, "cl_master1") || r.conn.count() != 0 {
		t.Errorf("status %+v, %d sent: want a note and nothing sent (the empty cvars win)", st, r.conn.count())
	}
	tab.Set("cl_master2", "10.1.1.5:27999")
	tab.Set("cl_browserRate", "7")
	r.b.Refresh(Internet)
	r.frame()
	if got := r.conn.sentTo(netip.MustParseAddrPort("10.1.1.5:27999")); len(got) != 2 {
		t.Errorf("to cl_master2: %q", got)
	}
	if r.b.cfg.PacketsPerSecond != 7 {
		t.Errorf("rate %d, want cl_browserRate's 7", r.b.cfg.PacketsPerSecond)
	}
}

// Answers that fill a list stop at MaxEntries.
func TestMaxEntries(t *testing.T) {
	r := newRig(t, Config{LANPort: 27960, LANPorts: 1, MaxEntries: 3})
	r.b.Refresh(LAN)
	r.frame()
	ch := challengeOf(t, r.conn.sentTo(netip.MustParseAddrPort("192.168.1.255:27960"))[0])
	for i := range 10 {
		r.answer(fmt.Sprintf("192.168.1.%d:27960", 100+i), 0, info(ch, "s", "m", 0, 0, 8))
	}
	r.frame()
	if n := len(r.b.Entries(LAN)); n != 3 {
		t.Errorf("%d entries, want MaxEntries 3", n)
	}
}

func TestListSortFilter(t *testing.T) {
	mk := func(label, name, mapName string, humans, bots, maxc, ping int, st State, protocol int) Entry {
		return Entry{Label: label, HostName: name, Map: mapName, Humans: humans, Bots: bots, Max: maxc, Ping: ping,
			State: st, Protocol: protocol, Addr: netip.MustParseAddrPort(label)}
	}
	v := proto.Version
	es := []Entry{
		mk("10.0.0.1:1", "delta", "b", 1, 0, 8, 50, Answered, v),
		mk("10.0.0.2:1", "Alpha", "c", 8, 0, 8, 20, Answered, v),
		mk("10.0.0.3:1", "", "", 0, 0, 0, 0, Pending, 0),
		mk("10.0.0.4:1", "charlie", "a", 0, 4, 8, 10, Answered, v),
		mk("10.0.0.5:1", "bravo", "a", 2, 0, 4, 30, Answered, v+1),
		mk("10.0.0.6:1", "", "", 0, 0, 0, 0, TimedOut, 0),
	}
	tests := []struct {
		name string
		o    Order
		want string // labels' last digits
	}{
		{"name, ignoring case", Order{Sort: ColName}, "362541"}, // the nameless by label first
		{"name descending", Order{Sort: ColName, Descending: true}, "145263"},
		{"map, ties by label", Order{Sort: ColMap}, "364512"},
		{"players: humans, then bots", Order{Sort: ColPlayers}, "364152"},
		{"ping: answered first", Order{Sort: ColPing}, "425136"},
		{"ping descending: answered first still", Order{Sort: ColPing, Descending: true}, "152436"},
		{"hide full", Order{Sort: ColAddr, Filter: Filter{HideFull: true}}, "13456"},
		{"hide empty", Order{Sort: ColAddr, Filter: Filter{HideEmpty: true}}, "12356"},
		{"hide incompatible", Order{Sort: ColAddr, Filter: Filter{HideIncompatible: true}}, "124"},
		{"all filters", Order{Sort: ColAddr, Filter: Filter{HideFull: true, HideEmpty: true, HideIncompatible: true}}, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(es)
			got := List(nil, in, tt.o)
			var b strings.Builder
			for _, e := range got {
				b.WriteByte(e.Label[len("10.0.0.")])
			}
			if b.String() != tt.want {
				t.Errorf("order %s, want %s", b.String(), tt.want)
			}
			if !slices.Equal(in, es) {
				t.Error("List changed its input")
			}
		})
	}
}

func TestParseInfo(t *testing.T) {
	tests := []struct {
		info string
		want serverInfo
	}{
		{`\hostname\A\mapname\m\clients\5\g_humanplayers\2\sv_maxclients\8\gametype\1\protocol\3\challenge\x`,
			serverInfo{hostName: "A", mapName: "m", humans: 2, bots: 3, max: 8, gameType: 1, protocol: 3, challenge: "x"}},
		{`\clients\4`, serverInfo{humans: 4}},                           // no g_humanplayers: all human
		{`\clients\2\g_humanplayers\9`, serverInfo{humans: 2}},          // more humans than clients
		{`\clients\-3\sv_maxclients\x`, serverInfo{}},                   // nonsense reads 0
		{`\clients\99999999999999999999`, serverInfo{humans: maxCount}}, // huge: clamped
		{"\\hostname\\a\x01b\xffc", serverInfo{hostName: "a?b?c"}},      // unprintable bytes
		{`\hostname\` + strings.Repeat("n", 100), serverInfo{hostName: strings.Repeat("n", MaxTextLen)}},
		{`\hold\37`, serverInfo{hold: 37 * time.Millisecond}},        // the server held its answer 37 ms
		{`\hold\5000`, serverInfo{hold: MaxHold * time.Millisecond}}, // a claim past MaxHold: cut
		{`\hold\-20`, serverInfo{}},                                  // nonsense: none
	}
	for _, tt := range tests {
		if got := parseInfo(tt.info); got != tt.want {
			t.Errorf("parseInfo(%q) = %+v, want %+v", tt.info, got, tt.want)
		}
	}
}

func TestBroadcast(t *testing.T) {
	tests := []struct {
		ip, mask string
		want     string
	}{
		{"192.168.1.10", "255.255.255.0", "192.168.1.255"},
		{"10.1.2.3", "255.0.0.0", "10.255.255.255"},
		{"172.16.5.4", "255.255.240.0", "172.16.15.255"},
		{"10.0.0.1", "255.255.255.255", ""}, // /32: none
		{"10.0.0.1", "255.255.255.254", ""}, // /31: none
	}
	for _, tt := range tests {
		mask := net.IPMask(net.ParseIP(tt.mask).To4())
		got, ok := broadcast(net.ParseIP(tt.ip), mask)
		if (tt.want == "") != !ok || ok && got.String() != tt.want {
			t.Errorf("broadcast(%s/%s) = %v %v, want %q", tt.ip, tt.mask, got, ok, tt.want)
		}
		if ok {
			if p := prefixOf(got); !p.Contains(netip.MustParseAddr(tt.ip)) {
				t.Errorf("prefixOf(%v) = %v does not hold %s", got, p, tt.ip)
			}
		}
	}
}

// A Frame with nothing to do, as most frames are, allocates nothing.
func TestIdleFrameAllocs(t *testing.T) {
	r := newRig(t, Config{})
	r.b.AddFavorite("10.0.0.1")
	r.b.Refresh(LAN)
	r.frame()
	r.clk.advance(10 * time.Second)
	r.frame()
	if n := testing.AllocsPerRun(100, r.frame); n != 0 {
		t.Errorf("an idle Frame allocates %v times", n)
	}
}

// Removing a favourite while the others' pings wait for the pacer keeps
// them queued.
func TestRemoveFavoriteKeepsQueue(t *testing.T) {
	r := newRig(t, Config{PacketsPerSecond: 5})
	for i := range 8 {
		r.b.AddFavorite(fmt.Sprintf("10.0.0.%d", i+1))
	}
	r.frame() // 5 sent, 3 queued
	r.b.RemoveFavorite("10.0.0.1")
	for range 300 {
		r.clk.advance(10 * time.Millisecond)
		r.frame()
	}
	for _, e := range r.b.Entries(Favorites) {
		if e.State != TimedOut {
			t.Errorf("%s: %v, want timed out (pinged and unanswered)", e.Label, e.State)
		}
	}
	if r.b.Refreshing(Favorites) {
		t.Error("still refreshing")
	}
}
