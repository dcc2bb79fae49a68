package server

import (
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"

	"tremor/net/netsim"
)

// sv_showloss prints a "client N: M dropped" line for every message that
// arrives after lost ones; the lines add up to the channel's losses, and
// turning the cvar off (live) stops them.
func TestShowLoss(t *testing.T) {
	cfg := testConfig()
	cfg.ShowLoss = true
	h := newHarness(t, cfg)
	c := h.client("Ana")
	h.connect(c)
	// From now on a lossy link (20 %, in bursts too) carries what the
	// client sends to the server.
	link := netsim.NewLink(netsim.Config{Loss: 0.2, BurstLoss: 0.02}, 9)
	from := c.conn.LocalAddr()
	server := netip.MustParseAddrPort(serverAddr)
	h.net.drop = func(src, dst netip.AddrPort, p []byte) bool {
		return src == from && dst == server && len(link.Send(time.Duration(h.now)*time.Millisecond, len(p))) == 0
	}
	before := h.srv.Client(c.num).Netchan.PacketsDropped
	logStart := len(h.log.String())
	h.run(10000)
	lost := h.srv.Client(c.num).Netchan.PacketsDropped - before
	if lost == 0 || link.Stats().Dropped == 0 {
		t.Fatalf("no loss: netchan %d, link %+v", lost, link.Stats())
	}
	re := regexp.MustCompile(`(?m)^client (\d+): (\d+) dropped$`)
	sum := uint64(0)
	lines := re.FindAllStringSubmatch(h.log.String()[logStart:], -1)
	for _, m := range lines {
		if m[1] != strconv.Itoa(c.num) {
			t.Fatalf("line for client %s, want %d: %q", m[1], c.num, m[0])
		}
		n, _ := strconv.Atoi(m[2])
		sum += uint64(n)
	}
	if sum != lost {
		t.Fatalf("sv_showloss lines add up to %d dropped, the channel lost %d (%d lines)", sum, lost, len(lines))
	}
	if !c.active() {
		t.Fatal("client left the game")
	}

	h.srv.Exec("sv_showloss 0")
	h.step(50)
	logStart = len(h.log.String())
	before = h.srv.Client(c.num).Netchan.PacketsDropped
	h.run(5000)
	if h.srv.Client(c.num).Netchan.PacketsDropped == before {
		t.Fatal("no loss with sv_showloss 0")
	}
	if l := re.FindAllString(h.log.String()[logStart:], -1); len(l) != 0 {
		t.Fatalf("sv_showloss 0 printed %q", l)
	}
}
