package browser

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"tremor/common/proto"
	"tremor/internal/testutil"
	"tremor/maps/arenas"
	"tremor/net/netchan"
	"tremor/server"
)

// listenRange finds n consecutive free UDP ports on 127.0.0.1 and
// returns the first and a Conn on each.
func listenRange(t *testing.T, n int) (int, []netchan.Conn) {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(40000)
		var conns []netchan.Conn
		for p := base; p < base+n; p++ {
			c, err := netchan.ListenUDP(fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		if len(conns) == n {
			return base, conns
		}
		for _, c := range conns {
			c.Close()
		}
	}
	t.Fatal("no free range of UDP ports")
	return 0, nil
}

// startServer runs a dedicated server engine on conn with mapName and
// bots bots.
func startServer(t *testing.T, conn netchan.Conn, host, mapName string, maxClients, bots int) {
	t.Helper()
	cfg := server.DefaultConfig()
	cfg.Hostname = host
	cfg.MaxClients = maxClients
	srv, err := server.New(conn, cfg, &testutil.LockedBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Map(mapName); err != nil {
		t.Fatal(err)
	}
	if bots > 0 {
		srv.Exec(fmt.Sprintf("addbot %d", bots))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	// Do runs after the queued addbot: the bots are in when it returns.
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !srv.Do(wait, func() {}) {
		t.Fatal("server did not run its queue")
	}
}

// TestLANFindsTwoServers is the "Must show": two dedicated
// servers on two ports of the LAN range, and the browser's LAN refresh
// lists both, with their maps, player counts and pings, within a second.
func TestLANFindsTwoServers(t *testing.T) {
	maps := arenas.Names()
	if len(maps) < 2 {
		t.Fatalf("need two maps, have %v", maps)
	}
	base, conns := listenRange(t, 4)
	conns[1].Close() // the range has ports with no server
	conns[3].Close()
	startServer(t, conns[0], "First", maps[0], 8, 2)
	startServer(t, conns[2], "Second", maps[1], 12, 3)

	c4, err := listen("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := New(Config{LANPort: base, LANPorts: 4, Interfaces: func() []netip.Addr { return nil }}, c4, nil)
	defer b.Close()

	want := map[uint16]Entry{
		uint16(base):     {HostName: "First", Map: maps[0], Bots: 2, Max: 8},
		uint16(base + 2): {HostName: "Second", Map: maps[1], Bots: 3, Max: 12},
	}
	// One refresh must list both while it collects answers: within
	// LANWait (1 s) of its last query. The deadline only stops a broken
	// test; the time measured is logged.
	start := time.Now()
	b.Refresh(LAN)
	var found time.Duration
	deadline := start.Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b.Frame(time.Now())
		if matchAll(b.Entries(LAN), want) {
			found = time.Since(start)
			break
		}
		if !b.Refreshing(LAN) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if found == 0 {
		t.Fatalf("after one LAN refresh (%v): list %+v, want %+v", time.Since(start), b.Entries(LAN), want)
	}
	t.Logf("the LAN refresh listed both servers %v after it started (it collects for %v)", found, DefaultLANWait)
	for _, e := range b.Entries(LAN) {
		if e.State != Answered || !e.Compatible() || e.Protocol != proto.Version || e.Ping < 0 || e.Ping > 1000 {
			t.Errorf("entry %+v: want answered, compatible, a ping", e)
		}
		t.Logf("%s: %q on %s, %d humans %d bots of %d, ping %d ms", e.Addr, e.HostName, e.Map, e.Humans, e.Bots, e.Max, e.Ping)
	}
	// The refresh ends about LANWait after its last query.
	for time.Now().Before(deadline) && b.Refreshing(LAN) {
		b.Frame(time.Now())
		time.Sleep(5 * time.Millisecond)
	}
	if b.Refreshing(LAN) {
		t.Error("LAN refresh never ended")
	}
	if st := b.Status(LAN); st.Entries != 2 || st.Answered != 2 {
		t.Errorf("status %+v, want 2 entries answered", st)
	}
}

// matchAll reports whether es holds exactly one answered entry per port
// of want, each with want's fields.
func matchAll(es []Entry, want map[uint16]Entry) bool {
	if len(es) != len(want) {
		return false
	}
	for _, e := range es {
		w, ok := want[e.Addr.Port()]
		if !ok || e.State != Answered || e.HostName != w.HostName || e.Map != w.Map ||
			e.Humans != 0 || e.Bots != w.Bots || e.Max != w.Max {
			return false
		}
	}
	return true
}

// multicastInterface returns the machine's one up, multicast-capable,
// non-loopback interface with an IPv6 address, or nil.
func multicastInterface() *net.Interface {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var found []net.Interface
	for _, ifi := range ifs {
		if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagMulticast == 0 || ifi.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifi.Addrs()
		for _, a := range addrs {
			if in, ok := a.(*net.IPNet); ok && in.IP.To4() == nil {
				found = append(found, ifi)
				break
			}
		}
	}
	if len(found) != 1 {
		return nil
	}
	return &found[0]
}

// TestLANMulticast6 runs a server on an IPv6 socket that joined ioquake3's
// group, as ioquake3's servers do, and finds it with the browser's IPv6
// query alone (no IPv4 socket, so no broadcast and no 127.0.0.1).
func TestLANMulticast6(t *testing.T) {
	ifi := multicastInterface()
	if ifi == nil {
		t.Skip("no single multicast interface with IPv6 to test on")
	}
	var sc *net.UDPConn
	var port int
	for range 20 {
		port = 20000 + rand.IntN(40000)
		c, err := net.ListenMulticastUDP("udp6", ifi, &net.UDPAddr{IP: net.IP(Multicast6.AsSlice()), Port: port})
		if err == nil {
			sc = c
			break
		}
	}
	if sc == nil {
		t.Skip("cannot join the IPv6 group here")
	}
	startServer(t, &udpConn{c: sc}, "Six", arenas.Names()[0], 6, 1)
	c6, err := listen("udp6", "[::]:0")
	if err != nil {
		t.Skip("no IPv6 socket:", err)
	}
	b := New(Config{LANPort: port, LANPorts: 1}, nil, c6)
	defer b.Close()
	b.Refresh(LAN)
	start := time.Now()
	for time.Since(start) < 10*time.Second && len(b.Entries(LAN)) == 0 {
		b.Frame(time.Now())
		if !b.Refreshing(LAN) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	es := b.Entries(LAN)
	if len(es) != 1 || es[0].HostName != "Six" || !es[0].Addr.Addr().Is6() || es[0].Bots != 1 || es[0].Max != 6 {
		t.Fatalf("LAN list %+v, want the server found over IPv6", es)
	}
	t.Logf("found %s (%q) over IPv6 multicast after %v, ping %d ms", es[0].Addr, es[0].HostName, time.Since(start), es[0].Ping)
}

// TestLANBroadcast finds a server listening on every address through
// the broadcast query alone (no 127.0.0.1 query, no IPv6 socket): its
// answer comes from this machine's address on the broadcast's network.
func TestLANBroadcast(t *testing.T) {
	bcs := BroadcastAddrs()
	if len(bcs) == 0 {
		t.Skip("no interface with a broadcast address")
	}
	var sc netchan.Conn
	var port int
	for range 20 {
		port = 20000 + rand.IntN(40000)
		if c, err := netchan.ListenUDP(fmt.Sprintf(":%d", port)); err == nil {
			sc = c
			break
		}
	}
	if sc == nil {
		t.Fatal("no free port")
	}
	startServer(t, sc, "Broad", arenas.Names()[0], 4, 2)
	c4, err := listen("udp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	b := New(Config{LANPort: port, LANPorts: 1}, c4, nil)
	b.noLoopback = true
	defer b.Close()
	b.Refresh(LAN)
	start := time.Now()
	for time.Since(start) < 10*time.Second && len(b.Entries(LAN)) == 0 {
		b.Frame(time.Now())
		if !b.Refreshing(LAN) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	es := b.Entries(LAN)
	if len(es) != 1 || es[0].HostName != "Broad" || es[0].Bots != 2 || es[0].Max != 4 || es[0].Addr.Addr().IsLoopback() {
		t.Fatalf("LAN list %+v (broadcast to %v), want the server found by broadcast", es, bcs)
	}
	t.Logf("found %s (%q) by broadcast to %v after %v, ping %d ms", es[0].Addr, es[0].HostName, bcs, time.Since(start), es[0].Ping)
}
