package client

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
)

// readMapFile reads a map file of the repository.
func readMapFile(t *testing.T, path ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{".."}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// downloadPair connects a client whose map directory is empty to a fake
// server whose gamestate names map name with file's checksum, up to the
// client's download request. It returns the client, the server, the map
// directory and the time.
func downloadPair(t *testing.T, cfg Config, name string, file []byte) (*Client, *fakeServer, string, int32) {
	t.Helper()
	m, err := tilemap.Parse(name+".map", file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cfg.MapDir = filepath.Join(root, "maps")
	c, s := newPair(t, cfg)
	s.gs.Configstrings[bg.CSServerInfo] = `\sv_hostname\fake\mapname\` + name
	s.gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(m.Checksum), 10)
	now := int32(1000)
	handshake(t, c, s, &now)
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	now += ConnectedPacketMsec // the request goes with the next packet
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	return c, s, root, now
}

// sendBlock sends one download block.
func (s *fakeServer) sendBlock(d proto.Download) {
	w := s.begin()
	proto.WriteDownload(w, &d)
	s.end(w)
}

// blocks cuts file into its data blocks.
func blocks(file []byte) []proto.Download {
	var out []proto.Download
	for i := 0; i < len(file); i += proto.DownloadBlockSize {
		out = append(out, proto.Download{Block: int32(len(out) + 1), Data: file[i:min(i+proto.DownloadBlockSize, len(file))]})
	}
	return out
}

// onlyMaps checks that root holds nothing but the maps directory, that
// holds nothing but the downloads folder (or nothing), and that holds
// exactly the maps named want, each under its name and a checksum.
func onlyMaps(t *testing.T, root string, want ...string) {
	t.Helper()
	for _, dir := range []struct{ path, only string }{{root, "maps"}, {filepath.Join(root, "maps"), DownloadDir}} {
		entries, err := os.ReadDir(dir.path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != dir.only {
				t.Errorf("%s written in %s, outside %s", e.Name(), dir.path, dir.only)
			}
		}
	}
	var got []string
	if entries, err := os.ReadDir(filepath.Join(root, "maps", DownloadDir)); err == nil {
		for _, e := range entries {
			name, _, ok := parseDownloadFile(e.Name())
			if !ok {
				name = e.Name() + " (not a download's name)"
			}
			got = append(got, name)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("downloads folder holds %v, want %v", got, want)
	}
}

// TestDownload: a client that lacks the gamestate's map asks for it with
// the downloading server id, takes blocks in order (ignoring one out of
// order and a duplicate, acknowledging as it goes), checks and saves the
// file, says donedl, and enters the map on the gamestate sent again.
func TestDownload(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	c, s, root, now := downloadPair(t, Config{}, "skyline2", file)
	if c.State() != Connected {
		t.Fatalf("state %v after a gamestate with a map to download (%s)", c.State(), c.conn.dropReason)
	}
	if got := s.executed[len(s.executed)-1]; got != "download skyline2" {
		t.Fatalf("last command %q, want the download request", got)
	}
	if id := s.lastMsg().header.ServerID; id != -s.serverID() {
		t.Fatalf("header server id %d while downloading, want %d", id, -s.serverID())
	}
	m, _ := tilemap.Parse("x.map", file)
	s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	bs := blocks(file)
	if len(bs) < 3 {
		t.Fatalf("%d blocks: the test needs 3", len(bs))
	}
	s.sendBlock(bs[1]) // out of order: ignored
	s.sendBlock(bs[0])
	s.sendBlock(bs[0]) // duplicate: ignored
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	if st, ok := c.Download(); !ok || st.Got != proto.DownloadBlockSize || st.Total != len(file) {
		t.Fatalf("progress %+v %v after the first block", st, ok)
	}
	if c.Stats().DownloadBlocksIgnored != 2 {
		t.Errorf("%d blocks ignored, want 2 (one out of order, one duplicate)", c.Stats().DownloadBlocksIgnored)
	}
	for _, b := range bs[1:] {
		s.sendBlock(b)
		step(t, c, s, now, bg.UserCmd{})
		now += 10
	}
	step(t, c, s, now, bg.UserCmd{})
	now += 10
	want := []string{"nextdl 0", "nextdl 1", "nextdl " + strconv.Itoa(len(bs)), "donedl"}
	for _, w := range want {
		found := false
		for _, e := range s.executed {
			found = found || e == w
		}
		if !found {
			t.Errorf("the client never sent %q (sent %v)", w, s.executed)
		}
	}
	if st, ok := c.Download(); !ok || !st.Done || st.Got != len(file) {
		t.Fatalf("progress %+v %v at the end", st, ok)
	}
	onlyMaps(t, root, "skyline2")
	path, err := DownloadPath(filepath.Join(root, "maps"), "skyline2", m.Checksum)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil || string(saved) != string(file) {
		t.Fatalf("saved %d bytes (%v), want the server's %d", len(saved), err, len(file))
	}
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Primed || c.Map() == nil || c.Map().Checksum != m.Checksum {
		t.Fatalf("after the gamestate sent again: %v (%s)", c.State(), c.conn.dropReason)
	}
	now += 10
	step(t, c, s, now, bg.UserCmd{})
	if id := s.lastMsg().header.ServerID; id != s.serverID() {
		t.Errorf("header server id %d in the map, want %d", id, s.serverID())
	}
	if _, ok := c.Download(); ok {
		t.Error("a download still shows once in the map")
	}
}

// TestDownloadHostileServer: a server that breaks the download's rules
// ends the connection with a clear reason, and nothing is written outside
// the maps directory (nor, for a file that is not the one announced,
// inside it).
func TestDownloadHostileServer(t *testing.T) {
	file := readMapFile(t, "maps", "examples", "courtyard.map")
	m, _ := tilemap.Parse("courtyard.map", file)
	header := proto.Download{Name: "courtyard", Size: int32(len(file)), Checksum: m.Checksum}
	// The same length, another author: another checksum.
	bad := bytes.Replace(file, []byte(`author "Tremor"`), []byte(`author "Tremar"`), 1)
	if string(bad) == string(file) {
		t.Fatal("the example map has no author line to change")
	}
	tests := []struct {
		name    string
		mapName string // the gamestate's; "" for courtyard
		cfg     Config
		send    func(s *fakeServer)
		reason  string
	}{
		{"traversal in the map name", "../evil", Config{}, nil, "invalid map name"},
		{"absolute map name", "/etc/evil", Config{}, nil, "invalid map name"},
		{"another name in the header", "", Config{}, func(s *fakeServer) {
			h := header
			h.Name = "../../evil"
			s.sendBlock(h)
		}, "asked for map courtyard"},
		{"oversize", "", Config{MaxDownloadSize: 512}, func(s *fakeServer) { s.sendBlock(header) }, "more than cl_maxDownloadSize"},
		{"header checksum", "", Config{}, func(s *fakeServer) {
			h := header
			h.Checksum++
			s.sendBlock(h)
		}, "gamestate announced"},
		{"wrong content", "", Config{}, func(s *fakeServer) {
			s.sendBlock(header)
			s.sendBlock(proto.Download{Block: 1, Data: bad})
		}, "not the"},
		{"block past the last", "", Config{}, func(s *fakeServer) {
			s.sendBlock(header)
			s.sendBlock(proto.Download{Block: 2, Data: []byte("x")})
		}, "block 2 of map courtyard, which has 1"},
		{"short block", "", Config{}, func(s *fakeServer) {
			s.sendBlock(header)
			s.sendBlock(proto.Download{Block: 1, Data: file[:100]})
		}, "holds 100 bytes"},
		{"oversize header read", "", Config{}, func(s *fakeServer) {
			w := s.begin()
			w.WriteUint8(proto.SvcDownload)
			w.WriteLong(0)
			w.WriteString("courtyard")
			w.WriteLong(proto.MaxDownloadSize + 1)
			w.WriteLong(int32(m.Checksum))
			s.end(w)
		}, "download size out of range"},
		{"header changed", "", Config{}, func(s *fakeServer) {
			s.sendBlock(header)
			h := header
			h.Size--
			s.sendBlock(h)
		}, "changed the header"},
		{"downloads off", "", Config{NoDownload: true}, nil, "cl_allowDownload 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.mapName
			if name == "" {
				name = "courtyard"
			}
			c, s, root, now := downloadPair(t, tt.cfg, name, file)
			if tt.send != nil {
				if c.State() != Connected {
					t.Fatalf("state %v before the blocks (%s)", c.State(), c.conn.dropReason)
				}
				tt.send(s)
				step(t, c, s, now, bg.UserCmd{})
			}
			kind, reason := c.Dropped()
			if c.State() != Disconnected || kind != DropError || !strings.Contains(reason, tt.reason) {
				t.Fatalf("state %v, dropped %v: %q; want an error with %q", c.State(), kind, reason, tt.reason)
			}
			t.Logf("reason: %s", reason)
			onlyMaps(t, root)
		})
	}
}

// TestDownloadNeverEnds: a server that keeps the connection alive but
// sends no block gets the connection dropped after DownloadStallTimeout,
// however long it sends duplicates.
func TestDownloadNeverEnds(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, _ := tilemap.Parse("x.map", file)
	c, s, root, now := downloadPair(t, Config{}, "skyline2", file)
	s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
	first := blocks(file)[0]
	start := now
	for c.State() == Connected {
		if now-start > int32(DownloadStallTimeout.Milliseconds())+5000 {
			t.Fatal("the download never ended")
		}
		s.sendBlock(first) // the same block again and again: no progress after the first
		step(t, c, s, now, bg.UserCmd{})
		now += 100
	}
	kind, reason := c.Dropped()
	if kind != DropError || !strings.Contains(reason, "no progress") {
		t.Fatalf("dropped %v: %q", kind, reason)
	}
	if took := now - start; took < int32(DownloadStallTimeout.Milliseconds()) {
		t.Errorf("ended after %d ms, before the %v timeout", took, DownloadStallTimeout)
	}
	onlyMaps(t, root)
}

// TestDownloadRestartsBounded: a server that sends the gamestate again
// and again, each time making a little progress, cannot keep the client
// downloading for ever: DownloadMaxTime counts from the first request.
func TestDownloadRestartsBounded(t *testing.T) {
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, _ := tilemap.Parse("x.map", file)
	c, s, root, now := downloadPair(t, Config{}, "skyline2", file)
	start := now
	limit := int32(DownloadMaxTime.Milliseconds())
	for c.State() == Connected {
		if now-start > limit+20_000 {
			t.Fatal("the download never ended")
		}
		s.sendGamestate()
		s.sendBlock(proto.Download{Name: "skyline2", Size: int32(len(file)), Checksum: m.Checksum})
		s.sendBlock(blocks(file)[0])
		step(t, c, s, now, bg.UserCmd{})
		now += 5000
	}
	kind, reason := c.Dropped()
	if kind != DropError || !strings.Contains(reason, "not finished after") {
		t.Fatalf("dropped %v: %q", kind, reason)
	}
	if took := now - start; took < limit {
		t.Errorf("ended after %d ms, before DownloadMaxTime", took)
	}
	onlyMaps(t, root)
}
