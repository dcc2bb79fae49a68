package session

import (
	"io"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cmd/client/internal/input"
	"tremor/common/console"
	"tremor/ui/keys"
)

// TestKeyPressPredicted starts a local match on the embedded server (no
// UDP port, no bots), injects a key press the way the window does — a
// key event to the default bindings, whose +moveright runs through the
// console into the input buttons, which build the usercmd — and checks
// that the predicted player moves in the very frame of the press, and
// that the server's snapshots later put the player where the prediction
// did.
func TestKeyPressPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server for a few seconds")
	}
	tbl, s := startDuel(t, "")
	var in input.State
	in.AddCommands(tbl)
	binds := keys.NewBinds(tbl)
	binds.SetDefaults()
	start := time.Now()
	now := func() int32 { return int32(time.Since(start).Milliseconds()) }
	// frame runs one client frame as cmd/client does: the key events
	// queued commands; Execute runs them; CreateCmd samples the buttons.
	frame := func() *cgame.CGame {
		time.Sleep(15 * time.Millisecond)
		tbl.Execute()
		var ps *bg.PlayerState
		if cg := s.Active(); cg != nil {
			ps = &cg.Predicted
		}
		s.Frame(time.Since(start), in.CreateCmd(now(), 0, 0, ps), false)
		return s.Active()
	}
	key := func(name string, down bool) {
		k, ok := keys.Lookup(name)
		if !ok {
			t.Fatalf("no key %q", name)
		}
		binds.KeyEvent(k, down, now())
	}

	// Join, then stand still until the player rests on the ground.
	var cg *cgame.CGame
	prev := bg.Vec{X: -1}
	for i := 0; ; i++ {
		if i == 600 {
			t.Fatalf("player never came to rest: %v", s.Status())
		}
		if cg = frame(); cg == nil {
			continue
		}
		ps := &cg.Predicted
		if ps.PmFlags&bg.PMFOnGround != 0 && ps.Origin == prev && cg.Predicting {
			break
		}
		prev = ps.Origin
	}

	// Press right (or left, if a wall is in the way): the prediction moves
	// the player in the frame of the press.
	startX := cg.Predicted.Origin.X
	pressed := ""
	for _, k := range []struct {
		name  string
		right bool
	}{{"d", true}, {"a", false}} {
		x0 := cg.Predicted.Origin.X
		key(k.name, true)
		cg = frame()
		if x := cg.Predicted.Origin.X; x != x0 {
			if (x > x0) != k.right {
				t.Fatalf("key %s moved the player from %d to %d", k.name, x0, x)
			}
			pressed = k.name
			break
		}
		key(k.name, false)
		frame()
	}
	if pressed == "" {
		t.Fatal("a key press did not move the predicted player in its frame")
	}
	for range 10 {
		cg = frame()
	}
	key(pressed, false)

	moveEnd := cg.Predicted.CommandTime

	// Release and wait for the server to agree with the prediction.
	for i := 0; ; i++ {
		if i == 300 {
			t.Fatalf("server's player state %v never matched the prediction %v",
				cg.Snap.PS.Origin, cg.Predicted.Origin)
		}
		cg = frame()
		c := s.Client()
		num, _ := c.CurrentSnapshotNumber()
		var snap cgame.Snapshot
		if !c.GetSnapshot(num, &snap) {
			continue
		}
		if snap.PS.CommandTime > moveEnd && snap.PS.Origin == cg.Predicted.Origin &&
			snap.PS.Velocity == (bg.Vec{}) && cg.Predicted.Velocity == (bg.Vec{}) {
			if snap.PS.Origin.X == startX {
				t.Errorf("the server never moved the player from x=%d", startX)
			}
			if cg.Stats.PredictionMisses != 0 {
				t.Errorf("%d prediction misses", cg.Stats.PredictionMisses)
			}
			return
		}
	}
}

// TestCGameCvars checks that prediction's cvars reach the cgame's config
// when they are set.
func TestCGameCvars(t *testing.T) {
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	s := New(tbl, io.Discard, 1)
	for _, tc := range []struct {
		name, value string
		check       func(*cgame.Config) bool
	}{
		{"cl_nopredict", "1", func(c *cgame.Config) bool { return c.NoPredict }},
		{"cg_errorDecay", "250", func(c *cgame.Config) bool { return c.ErrorDecay == 250 }},
		{"cg_showmiss", "2", func(c *cgame.Config) bool { return c.ShowMiss == 2 && c.Logf != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tbl.Set(tc.name, tc.value); err != nil {
				t.Fatal(err)
			}
			if !tc.check(&s.cfg.Client.CGame) || s.clientConfig().CGame != &s.cfg.Client.CGame {
				t.Errorf("%s %s: cgame config %+v", tc.name, tc.value, s.cfg.Client.CGame)
			}
		})
	}
}

// TestAutoRecordDemo: cl_autoRecordDemo, set while the game runs,
// reaches the engine, which records the level into the data directory's
// demos folder.
func TestAutoRecordDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server")
	}
	tbl, s := startDuel(t, t.TempDir())
	tbl.ExecuteString("cl_autoRecordDemo 1")
	if !s.Config().AutoRecordDemo {
		t.Fatal("cl_autoRecordDemo not in the session's config")
	}
	start := time.Now()
	for i := 0; i < 400; i++ {
		time.Sleep(5 * time.Millisecond)
		s.Frame(time.Since(start), bg.UserCmd{}, false)
		if _, ok := s.Client().Recording(); ok {
			return
		}
	}
	t.Errorf("no recording after cl_autoRecordDemo 1: %s", s.Status())
}

// startDuel starts a session on duel1 with no LAN port, its data
// directory dataDir, closed when the test ends.
func startDuel(t *testing.T, dataDir string) (*console.Table, *Session) {
	t.Helper()
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	if err := tbl.Set("net_port", "-1"); err != nil {
		t.Fatal(err)
	}
	s := New(tbl, io.Discard, 1)
	t.Cleanup(s.Close)
	s.SetDataDir(dataDir)
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	return tbl, s
}
