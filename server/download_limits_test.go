package server

import (
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tremor/common/proto"
)

// clientAt adds a memNet client at addr (host:port), so that several can
// share an address.
func (h *harness) clientAt(name, addr string) *testClient {
	c := newTestClient(h.t, h.net.conn(addr), netip.MustParseAddrPort(serverAddr), name)
	c.auto = true
	h.cls = append(h.cls, c)
	return c
}

// downloadAll runs the clock until c has acknowledged every block of
// the map, asking again after each "dlwait" as the client does, or until
// limit milliseconds pass. It reports whether the download ended.
func downloadAll(h *harness, c *testClient, size int, limit int32) bool {
	acked, waits, retryAt := int32(-1), 0, int32(0)
	last := proto.DownloadBlocks(int32(size))
	for end := h.now + limit; h.now < end && !c.disconnected; {
		h.step(50)
		if w := len(c.commandsMatching("dlwait")); w > waits {
			waits, retryAt = w, h.now+DownloadRetryMsec
		}
		if retryAt != 0 && h.now >= retryAt {
			retryAt = 0
			c.command("download " + dlMap)
		}
		if acked < 0 && len(c.blocks) > 0 && c.blocks[0].Block == 0 {
			acked = 0
			c.command("nextdl 0")
		}
		if acked >= 0 {
			ackBlocks(c, &acked)
		}
		if acked == last {
			return true
		}
	}
	return false
}

// TestDownloadSlotHog: four clients take every download place and keep
// it by acknowledging one block in 25 s (under the stall limit), starting
// over with stopdl and download. An honest client that comes after them
// waits, still connected, and gets the map once the hogs' time
// (downloadMsec) is up and they are dropped.
func TestDownloadSlotHog(t *testing.T) {
	h, file := dlHarness(t, nil)
	var hogs []*testClient
	for i := range MaxDownloads {
		hogs = append(hogs, dlClient(t, h, "hog"+strconv.Itoa(i)))
		h.run(200)
	}
	honest := dlClient(t, h, "honest")
	h.run(200)
	if got := honest.commandsMatching("dlwait"); len(got) == 0 || honest.disconnected {
		t.Fatalf("honest client with every place taken: commands %q, disconnected %v (%q)",
			got, honest.disconnected, honest.disconnectReason)
	}
	// The hogs go on in the background: an acknowledgement every 25 s,
	// and every other time a stopdl and a download again.
	step := 0
	hogging := func() {
		for _, c := range hogs {
			if c.disconnected {
				continue
			}
			if step%2 == 1 {
				c.command("stopdl")
				c.command("download " + dlMap)
			}
			c.command("nextdl " + strconv.Itoa(step/2))
		}
		step++
	}
	done := false
	for i := 0; i < 40 && !done && !honest.disconnected; i++ {
		hogging()
		done = downloadAll(h, honest, len(file), 25_000)
	}
	if !done {
		t.Fatalf("honest client: download not done after %d s (disconnected %v: %q, %d blocks)",
			(h.now)/1000, honest.disconnected, honest.disconnectReason, len(honest.blocks))
	}
	limit := downloadMsec(len(file))
	for i, c := range hogs {
		if !c.disconnected || !strings.Contains(c.disconnectReason, "map download too slow") {
			t.Errorf("hog %d: disconnected %v: %q, want too slow", i, c.disconnected, c.disconnectReason)
		}
	}
	if n := h.srv.svs.clients[honest.num].stats.downloadsDeferred; n == 0 {
		t.Errorf("the honest client was never told to wait")
	}
	t.Logf("download limit %d ms; honest client done at %d s", limit, h.now/1000)
}

// TestDownloadOnePerSource: a second client of the same address (another
// port) waits while the first downloads, and gets its turn once the
// first is done.
func TestDownloadOnePerSource(t *testing.T) {
	h, file := dlHarness(t, nil)
	first := dlStart(t, h, h.clientAt("a", "10.0.9.1:40000"))
	h.run(200)
	second := dlStart(t, h, h.clientAt("bb", "10.0.9.1:40001"))
	h.run(500)
	if len(second.blocks) != 0 || len(second.commandsMatching("dlwait")) == 0 || second.disconnected {
		t.Fatalf("second client of the address: %d blocks, commands %q, disconnected %v",
			len(second.blocks), second.received, second.disconnected)
	}
	if h.srv.downloads() != 1 {
		t.Fatalf("%d downloads in progress, want 1", h.srv.downloads())
	}
	if !downloadAll(h, first, len(file), 60_000) {
		t.Fatalf("first client's download did not end")
	}
	if !downloadAll(h, second, len(file), 60_000) {
		t.Fatalf("second client's download did not end after the first's (disconnected %v: %q)",
			second.disconnected, second.disconnectReason)
	}
}

// TestDownloadDeadlineKept: starting over (stopdl, download) keeps the
// time limit of the first start; the limit drops the client, and a
// connection cannot start more than MaxDownloadStarts downloads.
func TestDownloadDeadlineKept(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		h, file := dlHarness(t, nil)
		c := dlClient(t, h, "dl")
		h.step(50)
		start := h.now
		deadline := start + downloadMsec(len(file))
		// Start over MaxDownloadStarts-1 times, spread over the limit,
		// acknowledging the header each time (progress, and a fresh
		// download, for a server that forgot the first start).
		every := downloadMsec(len(file)) / MaxDownloadStarts
		for i := 1; i < MaxDownloadStarts; i++ {
			h.run(every)
			c.command("stopdl")
			c.command("download " + dlMap)
			c.command("nextdl 0")
		}
		h.run(deadline - h.now - 100)
		if c.disconnected {
			t.Fatalf("dropped %d ms after the first start, before the limit %d: %q",
				h.now-start, deadline-start, c.disconnectReason)
		}
		h.run(200)
		t.Logf("reason: %s", c.disconnectReason)
		if !c.disconnected || !strings.Contains(c.disconnectReason, "map download too slow") {
			t.Fatalf("%d ms after the first start (limit %d): disconnected %v: %q",
				h.now-start, deadline-start, c.disconnected, c.disconnectReason)
		}
	})
	t.Run("starts", func(t *testing.T) {
		h, _ := dlHarness(t, nil)
		c := dlClient(t, h, "dl")
		for i := 0; i < MaxDownloadStarts+1 && !c.disconnected; i++ {
			h.run(200)
			c.command("stopdl")
			c.command("download " + dlMap)
		}
		h.run(200)
		t.Logf("reason: %s", c.disconnectReason)
		if n := h.srv.svs.clients[c.num].stats.downloads; n != MaxDownloadStarts {
			t.Errorf("%d downloads started, want %d", n, MaxDownloadStarts)
		}
		if !c.disconnected || !strings.Contains(c.disconnectReason, "too many download requests") {
			t.Errorf("disconnected %v: %q", c.disconnected, c.disconnectReason)
		}
	})
}

// TestDownloadSendsLoadedFile: a download sends the bytes the level was
// loaded from, kept with it: removing the file from sv_mapdir, or
// replacing it with another map, changes nothing, and a client starting
// over (stopdl, download) reads nothing from disk.
func TestDownloadSendsLoadedFile(t *testing.T) {
	h, file := dlHarness(t, nil)
	other := append([]byte("# another version\n"), file...)
	path := filepath.Join(h.srv.cfg.MapDir, dlMap+".map")
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	c := dlClient(t, h, "dl")
	h.run(200)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	c.command("stopdl")
	c.command("download " + dlMap)
	if !downloadAll(h, c, len(file), 60_000) {
		t.Fatalf("download did not end: disconnected %v: %q", c.disconnected, c.disconnectReason)
	}
	var got []byte
	next := int32(1)
	for _, b := range c.blocks {
		if b.Block == 0 && b.Size != int32(len(file)) {
			t.Fatalf("header announces %d bytes, want the loaded file's %d", b.Size, len(file))
		}
		if b.Block == next {
			got = append(got, b.Data...)
			next++
		}
	}
	if string(got) != string(file) {
		t.Fatalf("sent %d bytes, not the %d-byte file the level was loaded from", len(got), len(file))
	}
}
