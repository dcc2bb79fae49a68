package hostile

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rtcOffers is what hostile rtcoffers prints.
type rtcOffers struct {
	Sent       int            `json:"sent"`
	ByStatus   map[string]int `json:"by_status"`
	Errors     int            `json:"errors"`
	AchievedHz float64        `json:"achieved_rate"`
	P50Ms      float64        `json:"p50_ms"`
}

// procMemKiB returns VmRSS and VmHWM of process pid, in KiB.
func procMemKiB(t *testing.T, pid int) (rss, hwm int) {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(val), " kB"))
		switch name {
		case "VmRSS":
			rss = n
		case "VmHWM":
			hwm = n
		}
	}
	return rss, hwm
}

// maxFloodGrowthKiB bounds how much the server's peak RSS may grow over
// an offer flood: the pending peers it holds are bounded (16), so the
// growth is too (about 11 MB from one address, 22 MB from 249, measured
// in PERFORMANCE.md); an unbounded server would grow with every one of
// the thousands of offers.
const maxFloodGrowthKiB = 64 << 10

// testRTCOfferFlood posts WebRTC offers at 1000 a second for 12 s from
// addrs to the real server's web port while a page (headless -webrtc,
// pion as the page, from 127.0.0.1) joins and plays: the page must get
// in and receive snapshots, the flood must be refused (429 per source,
// 503 for the pending bound), and the server's memory stay bounded.
func testRTCOfferFlood(t *testing.T, bins binaries, addrs string) {
	srv := startServer(t, bins.server)
	pid := srv.proc.cmd.Process.Pid
	web := "http://" + srv.addr.String() + "/"
	rss0, _ := procMemKiB(t, pid)
	flood := start(t, t.TempDir(), bins.hostile, "rtcoffers", "-url", web, "-rate", "1000", "-duration", "12s", "-addrs", addrs)
	time.Sleep(2 * time.Second)
	hl := startHeadless(t, bins.headless, srv, 1, "-duration", "5s", "-chat-every", "0", "-webrtc", web)
	rep := headlessReport(t, hl, 60*time.Second)
	res := hostileResult[rtcOffers](t, flood, 30*time.Second)
	rss1, hwm := procMemKiB(t, pid)

	t.Logf("offers from %s: %d sent (%.0f a second), statuses %v, %d unanswered; server RSS %d KiB before, %d after, peak %d",
		addrs, res.Sent, res.AchievedHz, res.ByStatus, res.Errors, rss0, rss1, hwm)
	if res.ByStatus["429"] == 0 || res.Sent < 5000 {
		t.Errorf("the flood sent %d offers, %d refused 429: not the scenario", res.Sent, res.ByStatus["429"])
	}
	if hwm-rss0 > maxFloodGrowthKiB {
		t.Errorf("the server's peak RSS grew by %d KiB over the flood, want at most %d", hwm-rss0, maxFloodGrowthKiB)
	}
	checkClients(t, rep, 1, 1, false)
	if c := rep.Clients; len(c) == 1 && c[0].Snapshots == 0 {
		t.Error("the page received no snapshot")
	}
}
