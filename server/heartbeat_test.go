package server

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"tremor/net/infostr"
	"tremor/net/oob"
)

// heartbeatsTo steps the server until at least n packets wait for addr
// (the lookup runs on its own goroutine, so this polls, for at most 5 s
// of real time) and returns their texts.
func heartbeatsTo(h *harness, addr netip.AddrPort, n int) []string {
	h.t.Helper()
	var got []string
	for end := time.Now().Add(5 * time.Second); len(got) < n && time.Now().Before(end); {
		h.srv.Frame(h.now)
		for _, p := range h.net.pending(addr) {
			text, err := oob.Parse(p.data)
			if err != nil {
				h.t.Fatal(err)
			}
			got = append(got, text)
		}
		time.Sleep(time.Millisecond)
	}
	return got
}

func TestHeartbeats(t *testing.T) {
	master1 := netip.MustParseAddrPort("10.0.0.9:27950") // named without a port
	master2 := netip.MustParseAddrPort("10.0.0.8:1234")
	cfg := testConfig()
	cfg.Masters[0] = "10.0.0.9"
	cfg.Masters[2] = master2.String()
	h := newHarness(t, cfg)
	want := oob.FormatHeartbeat(oob.HeartbeatDarkPlaces)

	// At start (the map loaded): one heartbeat to each master.
	for _, m := range []netip.AddrPort{master1, master2} {
		if got := heartbeatsTo(h, m, 1); len(got) != 1 || got[0] != want {
			t.Fatalf("at start, %v got %q, want one %q", m, got, want)
		}
	}

	// The master's getinfo is answered with the challenge and the game
	// name.
	m := newTestClient(t, h.net.conn(master1.String()), netip.MustParseAddrPort(serverAddr), "master")
	m.sendOOB(oob.FormatGetInfo("Chal-lenge_1"))
	h.deliver()
	var info string
	for _, p := range h.net.pending(master1) {
		text, _ := oob.Parse(p.data)
		if i, err := oob.ParseInfoResponse(text); err == nil {
			info = i
		}
	}
	if infostr.ValueForKey(info, "challenge") != "Chal-lenge_1" || infostr.ValueForKey(info, "gamename") != oob.GameName ||
		infostr.ValueForKey(info, "sv_maxclients") == "" || infostr.ValueForKey(info, "clients") == "" {
		t.Fatalf("infoResponse to the master: %q", info)
	}

	// Nothing more until HeartbeatInterval has passed.
	for h.now < HeartbeatInterval-1000 {
		h.now = min(h.now+10_000, HeartbeatInterval-1000)
		h.srv.Frame(h.now)
	}
	// A lookup started too early would be done by now.
	time.Sleep(100 * time.Millisecond)
	h.srv.Frame(h.now)
	if got, got2 := h.net.pending(master1), h.net.pending(master2); len(got) != 0 || len(got2) != 0 {
		t.Fatalf("packets before the interval: %d to the first master, %d to the second\n%s", len(got), len(got2), h.log.String())
	}
	h.now = HeartbeatInterval
	if got := heartbeatsTo(h, master1, 1); len(got) != 1 {
		t.Fatalf("after the interval: %q", got)
	}
	heartbeatsTo(h, master2, 1)

	// A map change sends one at once.
	if err := h.srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	if got := heartbeatsTo(h, master1, 1); len(got) != 1 {
		t.Fatalf("after a map change: %q", got)
	}
	heartbeatsTo(h, master2, 1)

	// Shutdown sends the final heartbeat, twice, at once.
	h.srv.Shutdown("bye")
	for _, m := range []netip.AddrPort{master1, master2} {
		got := h.net.pending(m)
		if len(got) != 2 {
			t.Fatalf("at shutdown, %v got %d packets, want 2 heartbeats", m, len(got))
		}
		if text, _ := oob.Parse(got[0].data); text != want {
			t.Fatalf("final heartbeat %q", text)
		}
	}
	if !strings.Contains(h.log.String(), "Sending final heartbeat to 10.0.0.9 (10.0.0.9:27950)") {
		t.Errorf("log:\n%s", h.log.String())
	}
}

func TestNoMasterNoHeartbeat(t *testing.T) {
	h := newHarness(t, testConfig())
	h.run(1000)
	h.srv.Shutdown("bye")
	h.net.mu.Lock()
	defer h.net.mu.Unlock()
	for addr, q := range h.net.queues {
		if addr.String() != serverAddr && len(q.pkts) > q.head {
			t.Errorf("%d packets sent to %v with no master set", len(q.pkts)-q.head, addr)
		}
	}
}

func TestMasterCvarChange(t *testing.T) {
	h := newHarness(t, testConfig())
	h.run(1000)
	h.srv.Exec("set sv_master1 10.0.0.7:27950")
	if got := heartbeatsTo(h, netip.MustParseAddrPort("10.0.0.7:27950"), 1); len(got) != 1 {
		t.Fatalf("after setting sv_master1: %q", got)
	}
}

// infoResponsesTo counts the infoResponses waiting for addr.
func infoResponsesTo(h *harness, addr netip.AddrPort) int {
	n := 0
	for _, p := range h.net.pending(addr) {
		if text, err := oob.Parse(p.data); err == nil && oob.Command(text) == oob.CmdInfoResponse {
			n++
		}
	}
	return n
}

// Forged getinfos from the master's address on another port use up that
// address's per-source query allowance; the master's own getinfo, from
// the address and port the server heartbeats, is answered all the same.
func TestMasterGetInfoNotStarved(t *testing.T) {
	master := netip.MustParseAddrPort("10.0.0.9:27950")
	cfg := testConfig()
	cfg.Masters[0] = master.String()
	h := newHarness(t, cfg)
	heartbeatsTo(h, master, 1) // resolved: the server knows its address

	srv := netip.MustParseAddrPort(serverAddr)
	forger := h.net.conn("10.0.0.9:1")
	mconn := h.net.conn(master.String())
	for round := range 10 {
		for range QueryBurst + 2 {
			forger.WriteTo(oob.Packet(oob.FormatGetInfo("forged")), srv)
		}
		h.deliver()
		mconn.WriteTo(oob.Packet(oob.FormatGetInfo("Chal-lenge_1")), srv)
		h.deliver()
		if n := infoResponsesTo(h, master); n != 1 {
			t.Fatalf("round %d: %d infoResponses to the master's getinfo, want 1", round, n)
		}
		h.net.pending(netip.MustParseAddrPort("10.0.0.9:1"))
		h.now += 1000 // a few forged getinfos a second: no flood
		h.srv.Frame(h.now)
	}
	// Another port of the master's address is still limited.
	if got := h.srv.Stats().QueriesLimited; got == 0 {
		t.Error("forged getinfos from the master's address on another port were not limited")
	}
}
