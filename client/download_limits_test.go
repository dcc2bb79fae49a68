package client

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
)

// TestDownloadWaitsForSlot: a server with no download place free says
// "dlwait MSEC"; the client stays connected, reports that it waits, asks
// again after that long (not sooner), and is not dropped for a lack of
// progress while it waits, even longer than DownloadStallTimeout.
func TestDownloadWaitsForSlot(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, _ := tilemap.Parse("x.map", file)
	c, s, root, now := downloadPair(t, Config{}, "skyline2", file)
	wait := int32(MaxDownloadRetry.Milliseconds())
	if wait <= int32(DownloadStallTimeout.Milliseconds()) {
		t.Fatalf("MaxDownloadRetry %v must exceed DownloadStallTimeout %v for this test", MaxDownloadRetry, DownloadStallTimeout)
	}
	requests := func() int {
		return len(slices.DeleteFunc(slices.Clone(s.executed), func(cmd string) bool { return cmd != "download skyline2" }))
	}
	if n := requests(); n != 1 {
		t.Fatalf("%d download requests, want 1", n)
	}
	s.command("dlwait 3600000") // more than MaxDownloadRetry: bounded
	s.sendCommands()
	asked := now
	for ; now-asked < wait-100; now += 100 {
		step(t, c, s, now, bg.UserCmd{})
		if c.State() != Connected {
			k, r := c.Dropped()
			t.Fatalf("dropped while waiting for a place, after %d ms: %v %q", now-asked, k, r)
		}
	}
	st, ok := c.Download()
	if !ok || !st.Waiting || st.Name != "skyline2" {
		t.Fatalf("status %+v, %v while waiting, want Waiting", st, ok)
	}
	if n := requests(); n != 1 {
		t.Fatalf("%d download requests before the wait was over, want 1", n)
	}
	for i := 0; i < 4; i++ {
		step(t, c, s, now, bg.UserCmd{})
		now += 100
	}
	if n := requests(); n != 2 {
		t.Fatalf("%d download requests after the wait, want 2", n)
	}
	if st, _ := c.Download(); st.Waiting {
		t.Fatalf("still waiting after asking again: %+v", st)
	}
	s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
	for _, b := range blocks(file) {
		s.sendBlock(b)
	}
	step(t, c, s, now, bg.UserCmd{})
	if st, ok := c.Download(); !ok || !st.Done {
		k, r := c.Dropped()
		t.Fatalf("download not done: %+v (%v %q)", st, k, r)
	}
	onlyMaps(t, root, "skyline2")
}

// TestDownloadWaitIgnored: "dlwait" once the blocks flow changes
// nothing (a server cannot stop the no-progress limit with it).
func TestDownloadWaitIgnored(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, _ := tilemap.Parse("x.map", file)
	c, s, _, now := downloadPair(t, Config{}, "skyline2", file)
	s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
	step(t, c, s, now, bg.UserCmd{})
	start := now
	for c.State() == Connected && now-start < int32(DownloadStallTimeout.Milliseconds())+5000 {
		s.command("dlwait 30000")
		s.sendCommands()
		now += 1000
		step(t, c, s, now, bg.UserCmd{})
	}
	if k, r := c.Dropped(); k != DropError || !strings.Contains(r, "no progress") {
		t.Fatalf("dropped %v: %q, want no progress", k, r)
	}
}

// gamestateFor makes s's gamestate name map name with file's checksum.
func (s *fakeServer) gamestateFor(t *testing.T, name string, file []byte) {
	t.Helper()
	m, err := tilemap.Parse(name+".map", file)
	if err != nil {
		t.Fatal(err)
	}
	s.gs.Configstrings[bg.CSServerInfo] = `\sv_hostname\fake\mapname\` + name
	s.gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(m.Checksum), 10)
}

// TestDownloadMaxTimePerConnection: a server that keeps sending new
// gamestates, alternating the map's name and its checksum, each time
// with a little progress, gets the connection dropped once its downloads
// together have taken DownloadMaxTime, not sooner.
func TestDownloadMaxTimePerConnection(t *testing.T) {
	files := [][]byte{
		readMapFile(t, "maps", "arenas", "arena2.map"),
		append([]byte("# another version\n"), readMapFile(t, "maps", "arenas", "arena2.map")...),
	}
	names := []string{"skyline2", "skyline3"}
	c, s, root, now := downloadPair(t, Config{}, names[0], files[0])
	start := now
	limit := int32(DownloadMaxTime.Milliseconds())
	for i := 1; c.State() == Connected; i++ {
		if now-start > limit+20_000 {
			t.Fatalf("still downloading after %d s", (now-start)/1000)
		}
		name, file := names[i%2], files[i/2%2]
		s.gamestateFor(t, name, file)
		s.sendGamestate()
		m, _ := tilemap.Parse("x.map", file)
		s.sendBlock(proto.Download{Name: name, Size: int32(len(file)), Checksum: m.Checksum})
		s.sendBlock(blocks(file)[0])
		step(t, c, s, now, bg.UserCmd{})
		now += 5000
	}
	kind, reason := c.Dropped()
	t.Logf("reason: %s", reason)
	if kind != DropError || !strings.Contains(reason, "not finished after") {
		t.Fatalf("dropped %v: %q", kind, reason)
	}
	if took := now - start; took < limit {
		t.Errorf("ended after %d ms, before DownloadMaxTime", took)
	}
	onlyMaps(t, root)
}

// downloadWhole has the fake server send c the whole of file as map name
// after a gamestate naming it, and runs the client until it has said
// donedl (or is dropped).
func downloadWhole(t *testing.T, c *Client, s *fakeServer, now int32, name string, file []byte) int32 {
	t.Helper()
	s.gamestateFor(t, name, file)
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	now += ConnectedPacketMsec
	m, _ := tilemap.Parse("x.map", file)
	s.sendBlock(proto.Download{Name: name, Size: int32(len(file)), Checksum: m.Checksum})
	for _, b := range blocks(file) {
		s.sendBlock(b)
	}
	step(t, c, s, now, bg.UserCmd{})
	return now + 10
}

// TestDownloadDiskBounded: a server that names map after map gets at
// most MaxConnectionDownloads of them saved; the next ends the
// connection with the reason.
func TestDownloadDiskBounded(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	c, s, root, now := downloadPair(t, Config{}, "fill0", file)
	var saved []string
	for i := 0; i < 20 && c.State() == Connected; i++ {
		name := "fill" + strconv.Itoa(i)
		now = downloadWhole(t, c, s, now, name, file)
		if c.State() == Connected {
			saved = append(saved, name)
		}
	}
	if len(saved) != MaxConnectionDownloads {
		t.Errorf("%d maps downloaded, want %d", len(saved), MaxConnectionDownloads)
	}
	kind, reason := c.Dropped()
	t.Logf("reason: %s", reason)
	if kind != DropError || !strings.Contains(reason, "maps downloaded on this connection") {
		t.Fatalf("dropped %v: %q", kind, reason)
	}
	onlyMaps(t, root, saved...)
}

// TestDownloadBytesBounded: a server that restarts a download again and
// again, never finishing it, is cut off once the connection has received
// MaxConnectionDownloadBytes × cl_maxDownloadSize; nothing is saved.
func TestDownloadBytesBounded(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, _ := tilemap.Parse("x.map", file)
	bs := blocks(file)
	if len(bs) < 2 {
		t.Fatalf("%d blocks: the test needs 2", len(bs))
	}
	c, s, root, now := downloadPair(t, Config{MaxDownloadSize: len(file)}, "skyline2", file)
	got := 0 // bytes the server sent that the client took
	for i := 0; c.State() == Connected; i++ {
		if i > 100 {
			t.Fatal("the restarts never ended")
		}
		if i > 0 {
			s.sendGamestate()
		}
		s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
		for _, b := range bs[:len(bs)-1] { // all but the last
			s.sendBlock(b)
		}
		step(t, c, s, now, bg.UserCmd{})
		now += 100
		if c.State() == Connected {
			got += len(file) - len(bs[len(bs)-1].Data)
		}
	}
	kind, reason := c.Dropped()
	t.Logf("reason: %s", reason)
	if kind != DropError || !strings.Contains(reason, "cl_maxDownloadSize") {
		t.Fatalf("dropped %v: %q", kind, reason)
	}
	if cap := MaxConnectionDownloadBytes * len(file); got > cap || got+len(file) <= cap {
		t.Errorf("cut off after %d bytes, want the download that would pass %d refused", got, cap)
	}
	onlyMaps(t, root)
}

// TestDownloadTimeBetweenDownloads: the time a connection spends out of
// downloads (here primed on a map it downloaded, for longer than
// DownloadMaxTime) does not count against the next download.
func TestDownloadTimeBetweenDownloads(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	c, s, _, now := downloadPair(t, Config{}, "first", file)
	now = downloadWhole(t, c, s, now, "first", file)
	s.sendGamestate() // after donedl: the client now has the map
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Primed {
		k, r := c.Dropped()
		t.Fatalf("state %v after the first download (%v %q), want primed", c.State(), k, r)
	}
	for end := now + int32(DownloadMaxTime.Milliseconds()) + 60_000; now < end; now += 1000 {
		s.sendCommands()
		step(t, c, s, now, bg.UserCmd{})
	}
	downloadWhole(t, c, s, now, "second", append([]byte("# second\n"), file...))
	if st, ok := c.Download(); c.State() != Connected || !ok || !st.Done || st.Name != "second" {
		k, r := c.Dropped()
		t.Fatalf("second download: state %v, status %+v %v (%v %q)", c.State(), st, ok, k, r)
	}
}

// TestLoadMapFallsBack: the one loader of the server's map (loadMap)
// takes the map directory's copy when its checksum is the announced one,
// and the embedded arena of that name when only that one matches: a
// stale copy in the folder neither blocks the game nor starts a download.
func TestLoadMapFallsBack(t *testing.T) {
	embedded := readMapFile(t, "maps", "arenas", "arena2.map")
	other := append([]byte("# a changed copy\n"), embedded...)
	for _, tt := range []struct {
		name      string
		announced []byte
	}{
		{"embedded matches", embedded},
		{"folder copy matches", other},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "arena2.map"), other, 0o644); err != nil {
				t.Fatal(err)
			}
			c, s := newPair(t, Config{MapDir: dir})
			s.gamestateFor(t, "arena2", tt.announced)
			want, _ := tilemap.Parse("x.map", tt.announced)
			now := int32(1000)
			handshake(t, c, s, &now)
			s.sendGamestate()
			step(t, c, s, now, bg.UserCmd{})
			if c.State() != Primed || c.conn.dl != nil {
				k, r := c.Dropped()
				t.Fatalf("state %v, downloading %v (%v %q), want primed on the map found", c.State(), c.conn.dl != nil, k, r)
			}
			if got := c.active.world.Checksum; got != want.Checksum {
				t.Errorf("loaded the map with checksum %d, want the announced %d", got, want.Checksum)
			}
		})
	}
}
