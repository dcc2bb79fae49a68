package server

import (
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/oob"
)

// dlMap is the map the download tests serve: arena2's file under a name
// no client has, with comment lines ahead of it to make it 24 blocks
// long.
const dlMap = "skyline2"

// dlHarness returns a harness whose server runs dlMap from a temporary
// sv_mapdir, and the map file.
func dlHarness(t testing.TB, edit func(*Config)) (*harness, []byte) {
	t.Helper()
	arena2, err := os.ReadFile(filepath.Join("..", "maps", "arenas", "arena2.map"))
	if err != nil {
		t.Fatal(err)
	}
	var file []byte
	for i := 0; len(file)+len(arena2) < 24*proto.DownloadBlockSize; i++ {
		file = append(file, "# padding line "+strconv.Itoa(i)+" of the download tests' map\n"...)
	}
	file = append(file, arena2...)
	cfg := testConfig()
	cfg.MapDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg.MapDir, dlMap+".map"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&cfg)
	}
	h := newHarness(t, cfg)
	if err := h.srv.Map(dlMap); err != nil {
		t.Fatal(err)
	}
	return h, file
}

// dlClient connects a client that lacks the map: it takes the gamestate,
// then speaks with the downloading server id and asks for the map.
func dlClient(t testing.TB, h *harness, name string) *testClient {
	t.Helper()
	return dlStart(t, h, h.client(name))
}

// dlStart has c, a client not yet connected, connect and ask for the
// map, as dlClient does.
func dlStart(t testing.TB, h *harness, c *testClient) *testClient {
	t.Helper()
	c.sendMoves = false
	c.downloading = true
	c.start()
	for i := 0; i < 40 && !c.haveGamestate; i++ {
		h.step(50)
	}
	if !c.haveGamestate {
		t.Fatalf("%s got no gamestate", c.name)
	}
	c.command("download " + dlMap)
	return c
}

// ackBlocks has c acknowledge the blocks it has in order, as the client
// does: "nextdl N" for the last block N it holds with every one before.
func ackBlocks(c *testClient, acked *int32) {
	have := map[int32]bool{}
	for _, b := range c.blocks {
		have[b.Block] = true
	}
	n := *acked
	for have[n+1] {
		n++
	}
	if n > *acked {
		*acked = n
		c.command("nextdl " + strconv.Itoa(int(n)))
	}
}

// TestDownloadFlow: a client that lacks the map gets it block by block,
// acknowledging them; donedl brings the gamestate again, and the client,
// now with the map, enters the game.
func TestDownloadFlow(t *testing.T) {
	h, file := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	acked := int32(-1)
	for i := 0; i < 400 && acked < proto.DownloadBlocks(int32(len(file))); i++ {
		h.step(50)
		if len(c.blocks) > 0 && acked < 0 && c.blocks[0].Block == 0 {
			acked = 0
			c.command("nextdl 0")
		}
		ackBlocks(c, &acked)
	}
	if c.blocks[0].Block != 0 || c.blocks[0].Name != dlMap || c.blocks[0].Size != int32(len(file)) ||
		strconv.FormatUint(uint64(c.blocks[0].Checksum), 10) != h.srv.MapChecksum() {
		t.Fatalf("header %+v, want %s, %d bytes, checksum %s", c.blocks[0], dlMap, len(file), h.srv.MapChecksum())
	}
	var got []byte
	next := int32(1)
	for _, b := range c.blocks {
		if b.Block == next {
			got = append(got, b.Data...)
			next++
		}
	}
	if string(got) != string(file) {
		t.Fatalf("reassembled %d bytes, want the file's %d", len(got), len(file))
	}
	if st := h.srv.Client(c.num).State; st != StatePrimed {
		t.Fatalf("state %v while downloading, want primed (not in the game)", st)
	}
	gamestates := c.gamestates
	c.command("donedl")
	for i := 0; i < 20 && c.gamestates == gamestates; i++ {
		h.step(50)
	}
	if c.gamestates != gamestates+1 {
		t.Fatalf("no gamestate after donedl (%d before, %d after)", gamestates, c.gamestates)
	}
	c.downloading = false
	c.sendMoves = true
	for i := 0; i < 20 && !c.active(); i++ {
		h.step(50)
	}
	if !c.active() {
		t.Fatalf("not in the game after the download: %v", h.srv.Client(c.num).State)
	}
	if n := len(c.errs); n > 0 {
		t.Errorf("%d errors reading the server's messages: %v", n, c.errs[0])
	}
}

// TestDownloadRefused: sv_allowDownload 0, a request for another map,
// and a fifth download at once each drop the client with a reason that
// says why.
func TestDownloadRefused(t *testing.T) {
	t.Run("disabled", func(t *testing.T) {
		h, _ := dlHarness(t, func(c *Config) { c.AllowDownload = false })
		c := dlClient(t, h, "dl")
		h.run(500)
		want := "server has map " + dlMap + " which you lack; downloads disabled"
		if !c.disconnected || c.disconnectReason != want {
			t.Fatalf("disconnected %v: %q, want %q", c.disconnected, c.disconnectReason, want)
		}
		if len(c.blocks) != 0 {
			t.Errorf("%d blocks sent with downloads disabled", len(c.blocks))
		}
	})
	t.Run("another map", func(t *testing.T) {
		h, _ := dlHarness(t, nil)
		c := dlClient(t, h, "dl")
		c.clientCmds[c.clientSeq&(proto.MaxReliableCommands-1)] = "download ../../etc/passwd"
		h.run(500)
		if !c.disconnected || !strings.Contains(c.disconnectReason, "the server runs "+dlMap) {
			t.Fatalf("disconnected %v: %q", c.disconnected, c.disconnectReason)
		}
		if len(c.blocks) != 0 {
			t.Errorf("%d blocks sent for another map", len(c.blocks))
		}
	})
	t.Run("too many", func(t *testing.T) {
		h, _ := dlHarness(t, nil)
		var cls []*testClient
		for i := range MaxDownloads + 1 {
			cls = append(cls, dlClient(t, h, "dl"+strconv.Itoa(i)))
			h.run(200)
		}
		for i, c := range cls[:MaxDownloads] {
			if c.disconnected || len(c.blocks) == 0 {
				t.Errorf("client %d: disconnected %v (%q), %d blocks", i, c.disconnected, c.disconnectReason, len(c.blocks))
			}
		}
		// The fifth is not dropped: it is told to ask again later.
		last := cls[MaxDownloads]
		want := "dlwait " + strconv.Itoa(DownloadRetryMsec)
		if last.disconnected || len(last.blocks) != 0 {
			t.Errorf("client %d: disconnected %v (%q), %d blocks", MaxDownloads, last.disconnected, last.disconnectReason, len(last.blocks))
		}
		if got := last.commandsMatching("dlwait"); len(got) != 1 || got[0] != want {
			t.Errorf("client %d got %q, want [%q]", MaxDownloads, got, want)
		}
	})
}

// TestDownloadRate: the bytes a download sends in any second of the
// frame clock stay under its cap, min(sv_dlRate, the client's rate),
// plus the burst the credit allows; and over the four seconds they come
// to at least half the cap (the rate is used, not just bounded).
func TestDownloadRate(t *testing.T) {
	tests := []struct {
		name       string
		dlRate     int    // sv_dlRate, KB/s
		clientRate string // userinfo rate
		limit      int    // bytes/s
	}{
		{"sv_dlRate", 2, "25000", 2048},
		{"client rate", 100, "1000", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := dlHarness(t, func(c *Config) { c.DownloadRate = tt.dlRate })
			c := h.client("dl")
			c.editUserinfo = func(ui string) string { return strings.Replace(ui, `\rate\25000`, `\rate\`+tt.clientRate, 1) }
			c.sendMoves, c.downloading = false, true
			c.start()
			for i := 0; i < 40 && !c.haveGamestate; i++ {
				h.step(50)
			}
			c.command("download " + dlMap)
			h.step(50)
			acked := int32(-1)
			var perSecond []int
			for sec := 0; sec < 4; sec++ {
				before := c.bytesIn
				for range 20 {
					h.step(50)
					if acked < 0 && len(c.blocks) > 0 {
						acked = 0
						c.command("nextdl 0")
					}
					ackBlocks(c, &acked)
				}
				perSecond = append(perSecond, c.bytesIn-before)
			}
			burst := tt.limit/10 + proto.DownloadBlockSize + HeaderRateBytes
			t.Logf("bytes per second %v, cap %d, burst %d", perSecond, tt.limit, burst)
			total := 0
			for i, n := range perSecond {
				// Each packet carries its netchan header too (at most
				// 10 bytes, at most 20 packets a second of 20 frames),
				// which the server's count leaves out.
				if n > tt.limit+burst+10*20 {
					t.Errorf("second %d: %d bytes, over the cap %d + burst %d", i, n, tt.limit, burst)
				}
				total += n
			}
			if total < tt.limit*len(perSecond)/2 {
				t.Errorf("%d bytes in %d s, under half the cap %d", total, len(perSecond), tt.limit)
			}
		})
	}
}

// TestDownloadOnePerClient: a request repeated while a download runs
// starts nothing new.
func TestDownloadOnePerClient(t *testing.T) {
	h, _ := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	h.run(300)
	c.command("download " + dlMap)
	c.command("download " + dlMap)
	h.run(300)
	sc := &h.srv.svs.clients[c.num]
	if sc.stats.downloads != 1 || sc.dl == nil {
		t.Fatalf("%d downloads started, download %v", sc.stats.downloads, sc.dl != nil)
	}
	if h.srv.downloads() != 1 {
		t.Errorf("%d downloads in progress, want 1", h.srv.downloads())
	}
}

// TestDownloadGoBack: blocks go up to the window; with no
// acknowledgement, the first unacknowledged one goes again after
// DownloadResendMsec, not before.
func TestDownloadGoBack(t *testing.T) {
	h, _ := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	for i := 0; i < 40 && len(c.blocks) < DownloadWindow; i++ {
		h.step(50)
	}
	// The window is used up: the last block went at this step.
	h.run(DownloadResendMsec - 100)
	if len(c.blocks) != DownloadWindow {
		t.Fatalf("%d blocks before the resend time, want the window of %d", len(c.blocks), DownloadWindow)
	}
	for i, b := range c.blocks {
		if b.Block != int32(i) {
			t.Fatalf("block %d is number %d", i, b.Block)
		}
	}
	h.run(200)
	if len(c.blocks) <= DownloadWindow || c.blocks[DownloadWindow].Block != 0 {
		t.Fatalf("after the resend time: %d blocks, the one after the window is %+v", len(c.blocks), c.blocks[min(DownloadWindow, len(c.blocks)-1)].Block)
	}
}

// TestDownloadCommandsOutsideDownload: download commands from a client in
// the game, or in a message without the downloading server id, are
// ignored.
func TestDownloadCommandsOutsideDownload(t *testing.T) {
	h, _ := dlHarness(t, nil)
	c := h.client("active")
	h.connect(c)
	c.command("download " + dlMap)
	c.command("nextdl 3")
	c.command("donedl")
	h.run(300)
	sc := &h.srv.svs.clients[c.num]
	if sc.dl != nil || len(c.blocks) != 0 || sc.stats.downloadCommandsIgnored != 3 {
		t.Fatalf("download %v, %d blocks, %d commands ignored (want 3)", sc.dl != nil, len(c.blocks), sc.stats.downloadCommandsIgnored)
	}
	if !c.active() {
		t.Error("the client left the game")
	}
}

// FuzzDownloadCommand feeds any text as a download command of a client
// that is downloading: nothing panics, and the download's counters stay
// in their bounds.
func FuzzDownloadCommand(f *testing.F) {
	for _, s := range []string{"nextdl 0", "nextdl 3", "nextdl -1", "nextdl 99999999999", "nextdl 2 3", "nextdl x",
		"download " + dlMap, "download ../x", "download", "donedl", "stopdl", `nextdl "1"`} {
		f.Add(s)
	}
	h, _ := dlHarness(f, nil)
	c := dlClient(f, h, "dl")
	h.run(300)
	sc := &h.srv.svs.clients[c.num]
	if sc.dl == nil {
		f.Fatal("no download to fuzz")
	}
	saved := *sc.dl
	f.Fuzz(func(t *testing.T, text string) {
		dl := saved
		sc.dl, sc.dlHeader, sc.state = &dl, true, StatePrimed
		args := cmdargs.Tokenize(text)
		h.srv.args.Tokenize(text)
		name := strings.ToLower(args.Argv(0))
		switch name {
		case "download", "nextdl", "donedl", "stopdl":
			h.srv.downloadCommand(sc, name)
		}
		if d := sc.dl; d != nil && (d.acked < 0 || d.acked > d.sent || d.xmit < d.acked || d.sent > d.blocks+1) {
			t.Fatalf("after %q: acked %d, xmit %d, sent %d of %d blocks", text, d.acked, d.xmit, d.sent, d.blocks)
		}
	})
}

// TestDownloadFastResend: an acknowledgement that repeats the last one
// while later blocks are out (the client saw a block past a lost one)
// brings the first unacknowledged block again at once, not after
// DownloadResendMsec; a second repeat within DownloadFastResendMsec does
// not.
func TestDownloadFastResend(t *testing.T) {
	h, _ := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	for i := 0; i < 40 && len(c.blocks) < DownloadWindow; i++ {
		h.step(50)
	}
	c.command("nextdl 0")
	h.run(100)
	n := len(c.blocks)
	c.command("nextdl 0") // block 1 was lost
	c.command("nextdl 0") // and the next blocks seen: one go-back only
	h.run(200)
	var again []int32
	for _, b := range c.blocks[n:] {
		again = append(again, b.Block)
	}
	if len(again) == 0 || again[0] != 1 {
		t.Fatalf("blocks after the repeated acknowledgement: %v, want 1 first", again)
	}
	ones := 0
	for _, b := range again {
		if b == 1 {
			ones++
		}
	}
	if ones != 1 {
		t.Errorf("block 1 sent %d times after two repeats in a row: %v", ones, again)
	}
}

// TestMapDirNotByRcon: rcon cannot point sv_mapdir, the directory
// downloads send from, elsewhere.
func TestMapDirNotByRcon(t *testing.T) {
	h, _ := dlHarness(t, func(c *Config) { c.RconPassword = "pw" })
	dir := h.srv.Config().MapDir
	admin := h.net.conn("10.0.0.77:27960")
	_ = admin.WriteTo(oob.Packet(`rcon pw set sv_mapdir /etc`), netip.MustParseAddrPort(serverAddr))
	h.step(50)
	var b strings.Builder
	for _, r := range h.net.pending(admin.addr) {
		b.Write(r.data)
	}
	if out := b.String(); !strings.Contains(out, "cannot be set through rcon") || h.srv.Config().MapDir != dir {
		t.Fatalf("set sv_mapdir through rcon: %q, dir now %q", out, h.srv.Config().MapDir)
	}
}

// TestDownloadLostGamestate: when the gamestate sent after donedl is
// lost, the client, still speaking with the downloading id, acknowledges
// later messages, and the server sends it again.
func TestDownloadLostGamestate(t *testing.T) {
	h, file := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	acked := int32(-1)
	for i := 0; i < 400 && acked < proto.DownloadBlocks(int32(len(file))); i++ {
		h.step(50)
		if acked < 0 && len(c.blocks) > 0 {
			acked = 0
			c.command("nextdl 0")
		}
		ackBlocks(c, &acked)
	}
	gamestates := c.gamestates
	c.command("donedl")
	c.tick()
	h.now += 50
	h.deliver()
	h.srv.Frame(h.now)
	if lost := h.net.pending(c.conn.LocalAddr()); len(lost) == 0 {
		t.Fatal("the server sent nothing after donedl")
	}
	if sc := &h.srv.svs.clients[c.num]; sc.dl != nil || sc.stats.gamestates < 2 {
		t.Fatalf("after donedl: download %v, %d gamestates sent", sc.dl != nil, sc.stats.gamestates)
	}
	for i := 0; i < 20 && c.gamestates == gamestates; i++ {
		h.step(50)
	}
	if c.gamestates != gamestates+1 {
		t.Fatalf("the lost gamestate never came again (%d received)", c.gamestates)
	}
	if st := h.srv.Client(c.num).State; st != StatePrimed {
		t.Errorf("state %v, want primed until the client speaks with the real id", st)
	}
}

// TestDownloadAcrossMapChange: a map change during a download ends it;
// the client's request for the new level's map starts a new one.
func TestDownloadAcrossMapChange(t *testing.T) {
	h, _ := dlHarness(t, nil)
	c := dlClient(t, h, "dl")
	h.run(200)
	if len(c.blocks) == 0 {
		t.Fatal("no block before the map change")
	}
	gamestates := c.gamestates
	h.srv.Exec("map_restart")
	for i := 0; i < 20 && c.gamestates == gamestates; i++ {
		h.step(50)
	}
	if c.gamestates == gamestates {
		t.Fatal("no gamestate after map_restart")
	}
	// The client asks again before a server frame has looked at the old
	// download (as when its request arrives between the map change and
	// the next frame): the old one is still there.
	sc := &h.srv.svs.clients[c.num]
	sc.dl = &download{serverID: h.srv.sv.serverID - 1}
	n := len(c.blocks)
	c.command("download " + dlMap)
	h.run(300)
	if sc.dl == nil || sc.dl.serverID != h.srv.sv.serverID || sc.stats.downloads != 2 || len(c.blocks) == n {
		t.Fatalf("after the new request: download %v, %d started, %d new blocks", sc.dl != nil, sc.stats.downloads, len(c.blocks)-n)
	}
	if c.blocks[n].Block != 0 {
		t.Errorf("the new download starts with block %d, want the header", c.blocks[n].Block)
	}
}
