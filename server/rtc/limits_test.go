package rtc_test

import (
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"tremor/net/netchan"
	"tremor/server/rtc"
)

// startTransport starts a transport on 127.0.0.1 with its web port and
// no game server, for tests of the signalling alone.
func startTransport(t *testing.T, cfg rtc.Config) (*rtc.Transport, string) {
	t.Helper()
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SharedPort = true
	tr, err := rtc.Listen(udp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	web, err := tr.ListenHTTP("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	return tr, "http://" + web.String() + rtc.Path
}

// TestOfferFloodFromOneSource: offers from one address beyond the burst
// are refused 429 with a short line, whatever their body, and none of
// them leaves a peer behind.
func TestOfferFloodFromOneSource(t *testing.T) {
	tr, url := startTransport(t, rtc.Config{})
	api := browserAPI()
	var statuses []int
	for range 40 {
		b, sdp, err := newOffer(api, rtc.Label, false)
		if err != nil {
			t.Fatal(err)
		}
		status, body, err := post(url, sdp)
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, status)
		if status == http.StatusTooManyRequests && (len(body) > 64 || strings.Count(body, "\n") != 1) {
			t.Errorf("429 body %q: want one short line", body)
		}
	}
	ok, limited := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
		}
	}
	// The burst passes, one more a second after; 40 offers take well
	// under a few seconds here.
	if ok < rtc.OfferBurst || ok > rtc.OfferBurst+5 || ok+limited != len(statuses) {
		t.Errorf("statuses %v: want %d to %d answered and the rest 429", statuses, rtc.OfferBurst, rtc.OfferBurst+5)
	}
	st := tr.Stats()
	if st.RateLimited != uint64(limited) || st.Answered != uint64(ok) {
		t.Errorf("stats %+v: want %d answered and %d rate limited", st, ok, limited)
	}
}

// TestPendingPeerTimesOut: an answered peer that never connects holds
// its slot only for PendingTimeout, and the slots of pending peers are
// bounded (503 past MaxPending).
func TestPendingPeerTimesOut(t *testing.T) {
	const timeout = 300 * time.Millisecond
	tr, url := startTransport(t, rtc.Config{PendingTimeout: timeout, MaxPending: 2})
	api := browserAPI()
	var statuses []int
	for range 3 {
		b, sdp, err := newOffer(api, rtc.Label, false)
		if err != nil {
			t.Fatal(err)
		}
		b.Close() // the page goes away without ever connecting
		status, _, err := post(url, sdp)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, status)
	}
	if fmt.Sprint(statuses) != "[200 200 503]" {
		t.Errorf("three offers with MaxPending 2: statuses %v, want [200 200 503]", statuses)
	}
	if open, pending := tr.Peers(); open != 0 || pending != 2 {
		t.Errorf("after the offers: %d open, %d pending, want 0 and 2", open, pending)
	}
	deadline := time.Now().Add(timeout + 2*time.Second)
	for time.Now().Before(deadline) {
		if _, pending := tr.Peers(); pending == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if open, pending := tr.Peers(); open != 0 || pending != 0 {
		t.Errorf("%v after the timeout: %d open, %d pending, want none", timeout+2*time.Second, open, pending)
	}
	if st := tr.Stats(); st.Expired != 2 || st.Closed != 2 {
		t.Errorf("stats %+v: want 2 expired and closed", st)
	}
}

// TestVanishedPeerFreed: a browser that opens its channel and then
// vanishes without a word (its machine off the network) is freed by
// ICE's timeouts within a few seconds.
func TestVanishedPeerFreed(t *testing.T) {
	tr, url := startTransport(t, rtc.Config{})
	sock, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	api, mux := browserAPIOn(sock)
	b, err := dial(api, url, tr.Conn().LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { b.Close(); mux.Close() }()
	addr, ok := waitPeer(tr)
	if !ok {
		t.Fatal("the server did not open the peer")
	}
	// Vanish: stop the browser's ICE agent from answering by closing
	// its sockets abruptly, with no SCTP ABORT or DTLS close first.
	sock.Close()
	start := time.Now()
	limit := rtc.DefaultDisconnectedTimeout + rtc.DefaultFailedTimeout + 3*time.Second
	for time.Since(start) < limit {
		if open, _ := tr.Peers(); open == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if open, _ := tr.Peers(); open != 0 {
		t.Fatalf("vanished peer still open after %v", limit)
	}
	t.Logf("vanished peer freed after %v", time.Since(start).Round(10*time.Millisecond))
	// What the server still writes to the gone address is dropped, not
	// sent over UDP to the browser's ICE port.
	if err := tr.Conn().WriteTo([]byte("late snapshot"), addr); err != nil {
		t.Fatal(err)
	}
	if st := tr.Stats(); st.GoneDrops != 1 {
		t.Errorf("stats %+v: want the write to the gone peer dropped", st)
	}
}

// TestOfferFloodMemory sends thousands of offers from one source and
// checks that the heap stays bounded: refused offers keep nothing.
func TestOfferFloodMemory(t *testing.T) {
	_, url := startTransport(t, rtc.Config{})
	api := browserAPI()
	_, sdp, err := newOffer(api, rtc.Label, false)
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	client := &http.Client{}
	flood := func(n int) {
		for range n {
			resp, err := client.Post(url, rtc.ContentType, strings.NewReader(sdp))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	flood(200)
	before := heap()
	flood(2000)
	after := heap()
	t.Logf("heap in use %d KiB before 2000 more offers, %d KiB after", before>>10, after>>10)
	if after > before+4<<20 {
		t.Errorf("heap grew from %d to %d KiB over 2000 refused offers", before>>10, after>>10)
	}
}
