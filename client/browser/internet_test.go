package browser

import (
	"context"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"tremor/internal/testutil"
	"tremor/maps/arenas"
	mastersrv "tremor/master"
	"tremor/net/netchan"
	"tremor/server"
)

// startMaster runs a master server on an ephemeral port of 127.0.0.1.
func startMaster(t *testing.T) netip.AddrPort {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := mastersrv.New(mastersrv.DefaultConfig(), func(to netip.AddrPort, p []byte) { _ = conn.WriteTo(p, to) }, &testutil.LockedBuffer{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = m.Serve(ctx, conn, nil); close(done) }()
	t.Cleanup(func() {
		cancel()
		conn.Close()
		<-done
	})
	return conn.LocalAddr()
}

// startListedServer runs a server that heartbeats to masterAddr.
func startListedServer(t *testing.T, masterAddr netip.AddrPort, host, mapName string, bots int) netip.AddrPort {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Hostname = host
	cfg.MaxClients = 10
	cfg.Masters[0] = masterAddr.String()
	srv, err := server.New(conn, cfg, &testutil.LockedBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Map(mapName); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot " + strconv.Itoa(bots))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
	})
	return conn.LocalAddr()
}

// TestInternetWithMaster runs a master and two servers that heartbeat to
// it, all on UDP: the Internet tab, set to that master, lists and pings
// both.
func TestInternetWithMaster(t *testing.T) {
	maps := arenas.Names()
	ma := startMaster(t)
	want := map[netip.AddrPort]Entry{
		startListedServer(t, ma, "North", maps[0], 1): {HostName: "North", Map: maps[0], Bots: 1, Max: 10},
		startListedServer(t, ma, "South", maps[1], 2): {HostName: "South", Map: maps[1], Bots: 2, Max: 10},
	}
	c4, err := listen("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := New(Config{Masters: []string{ma.String()}}, c4, nil)
	defer b.Close()

	// The master lists a server once it answered the master's challenge,
	// so a refresh may come too early: refresh until both are listed.
	start := time.Now()
	deadline := start.Add(20 * time.Second)
	var es []Entry
	for time.Now().Before(deadline) {
		b.Refresh(Internet)
		b.Frame(time.Now())
		for b.Refreshing(Internet) && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
			b.Frame(time.Now())
		}
		es = b.Entries(Internet)
		if len(es) == len(want) {
			break
		}
	}
	if len(es) != len(want) {
		t.Fatalf("Internet list %+v, want both servers", es)
	}
	for _, e := range es {
		w, ok := want[e.Addr]
		if !ok || e.State != Answered || e.HostName != w.HostName || e.Map != w.Map || e.Bots != w.Bots || e.Max != w.Max || !e.Compatible() {
			t.Errorf("entry %+v, want %+v answered", e, w)
		}
	}
	t.Logf("the master listed both servers and the browser pinged them %v after the first refresh", time.Since(start))
}
