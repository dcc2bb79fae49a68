package headless_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/client"
	"tremor/client/headless"
	"tremor/internal/testutil"
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
	saved, err := os.ReadFile(filepath.Join(cliDir, name+".map"))
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
	entries, err := os.ReadDir(cliDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the client's map directory holds %d files, want only %s.map", len(entries), name)
	}
}
