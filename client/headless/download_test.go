package headless_test

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/client"
	"tremor/client/headless"
	"tremor/internal/testutil"
	"tremor/net/netchan"
	"tremor/server"
)

// TestDownloadUnderLoss: a server runs a map that is not built in from
// its sv_mapdir: the example map (one block), and a copy of arena2 under
// another name (several blocks, so the window and its resends work); a
// client with an empty map directory joins through 20 % loss both ways,
// downloads the map, saves it with the server's checksum, enters the game
// and moves on it.
func TestDownloadUnderLoss(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "maps", "examples", "courtyard.map"))
	if err != nil {
		t.Fatal(err)
	}
	big, err := os.ReadFile(filepath.Join("..", "..", "maps", "arenas", "arena2.map"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("courtyard", func(t *testing.T) { downloadUnderLoss(t, "courtyard", example) })
	t.Run("skyline2", func(t *testing.T) { downloadUnderLoss(t, "skyline2", big) })
}

func downloadUnderLoss(t *testing.T, name string, file []byte) {
	want, err := tilemap.Parse(name+".map", file)
	if err != nil {
		t.Fatal(err)
	}
	srvDir, cliDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(srvDir, name+".map"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 5
	cfg.MapDir = srvDir
	cfg.PacketLoss = 20
	ts := startServer(t, cfg, name, 0)

	var mu sync.Mutex
	origins := map[[2]int32]bool{}
	console := &testutil.LockedBuffer{}
	r := headless.New(headless.Config{
		Server:  ts.srv.Addr(),
		Clients: 1,
		Client: client.Config{
			MapDir:       cliDir,
			PacketLoss:   20,
			ConnectTries: 30,
		},
		Seed:    3,
		Console: console,
		OnSnapshot: func(_ int, info client.SnapshotInfo, ps *bg.PlayerState, _ []bg.EntityState) {
			if info.Valid && info.Flags&0x2 == 0 { // proto.SnapNotActive
				mu.Lock()
				origins[[2]int32{ps.Origin.X, ps.Origin.Y}] = true
				mu.Unlock()
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Run until the client has moved in the game for a while.
	go func() {
		for ctx.Err() == nil {
			mu.Lock()
			n := len(origins)
			mu.Unlock()
			if n >= 20 {
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	rep, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client console:\n%s", console.String())
	c := rep.Clients[0]
	if !c.Connected {
		t.Fatalf("client never entered the game: %s (%s)", c.DisconnectReason, c.DroppedBy)
	}
	if c.LossPct <= 0 {
		t.Errorf("no loss seen on the way down (%.1f %%): the network was not lossy", c.LossPct)
	}
	mu.Lock()
	moved := len(origins)
	mu.Unlock()
	if moved < 20 {
		t.Errorf("the client was at %d places in the game, want at least 20", moved)
	}
	path, err := client.DownloadPath(cliDir, name, want.Checksum)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tilemap.Parse(name+".map", saved)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checksum != want.Checksum || string(saved) != string(file) {
		t.Errorf("saved map: checksum %d, %d bytes; the server's: %d, %d bytes", got.Checksum, len(saved), want.Checksum, len(file))
	}
	for _, dir := range []struct{ path, only string }{
		{cliDir, client.DownloadDir}, {filepath.Dir(path), filepath.Base(path)},
	} {
		entries, err := os.ReadDir(dir.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != dir.only {
			t.Errorf("%s holds %v, want only %s", dir.path, entries, dir.only)
		}
	}
}

// arena1Checksum is the built-in arena1's checksum (issue 23).
const arena1Checksum = 310906643

// joinOnce connects a client with map directory mapDir to addr, plays
// until it is in the game, and returns its counters and the checksum
// of the map it plays.
func joinOnce(t *testing.T, addr netip.AddrPort, mapDir string) (client.Stats, uint32) {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(conn, client.Config{MapDir: mapDir, Logf: t.Logf})
	defer c.Close()
	c.Connect(addr)
	start := time.Now()
	for c.State() != client.Active {
		if c.State() == client.Disconnected || time.Since(start) > 20*time.Second {
			_, reason := c.Dropped()
			t.Fatalf("client in %v after %v: %s", c.State(), time.Since(start).Round(time.Millisecond), reason)
		}
		c.Frame(time.Since(start), bg.UserCmd{})
		time.Sleep(5 * time.Millisecond)
	}
	return c.Stats(), c.Map().Checksum
}

// TestDownloadNeverShadows (issue 23): a server runs its own arena1. A
// player joins it and downloads that map; afterwards the player's local
// game (a server whose sv_mapdir is the player's map directory, as the
// window's is) still plays the built-in arena1, and joining the stranger
// again uses the downloaded copy without downloading it again.
func TestDownloadNeverShadows(t *testing.T) {
	builtin, err := os.ReadFile(filepath.Join("..", "..", "maps", "arenas", "arena1.map"))
	if err != nil {
		t.Fatal(err)
	}
	strangers := append([]byte("# a stranger's arena1\n"), builtin...)
	theirs, err := tilemap.Parse("arena1.map", strangers)
	if err != nil {
		t.Fatal(err)
	}
	srvDir, cliDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(srvDir, "arena1.map"), strangers, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 6
	cfg.MapDir = srvDir
	stranger := startServer(t, cfg, "arena1", 0)
	if got := stranger.srv.MapChecksum(); got != strconv.FormatUint(uint64(theirs.Checksum), 10) || theirs.Checksum == arena1Checksum {
		t.Fatalf("the stranger's arena1 has checksum %s (file %d)", got, theirs.Checksum)
	}

	st, sum := joinOnce(t, stranger.srv.Addr(), cliDir)
	if st.DownloadBlocks == 0 || sum != theirs.Checksum {
		t.Fatalf("first join: %d blocks downloaded, playing checksum %d, want the stranger's %d", st.DownloadBlocks, sum, theirs.Checksum)
	}
	if _, err := os.Stat(filepath.Join(cliDir, "arena1.map")); !os.IsNotExist(err) {
		t.Errorf("the download wrote arena1.map in the player's map directory (%v)", err)
	}
	path, err := client.DownloadPath(cliDir, "arena1", theirs.Checksum)
	if err != nil {
		t.Fatal(err)
	}
	if saved, err := os.ReadFile(path); err != nil || string(saved) != string(strangers) {
		t.Errorf("downloaded copy %s: %d bytes (%v), want the stranger's %d", path, len(saved), err, len(strangers))
	}

	// The local game: +map arena1 on a server reading the player's maps.
	a, _ := netchan.NewLoopback()
	local := server.DefaultConfig()
	local.MapDir = cliDir
	srv, err := server.New(a, local, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	if got := srv.MapChecksum(); got != strconv.Itoa(arena1Checksum) {
		t.Errorf("the local game's arena1 has checksum %s, want the built-in %d", got, arena1Checksum)
	}

	// Back to the stranger: the copy is used, nothing downloaded.
	st, sum = joinOnce(t, stranger.srv.Addr(), cliDir)
	if st.DownloadBlocks != 0 || sum != theirs.Checksum {
		t.Errorf("rejoining: %d blocks downloaded, playing checksum %d, want 0 and %d", st.DownloadBlocks, sum, theirs.Checksum)
	}
}
