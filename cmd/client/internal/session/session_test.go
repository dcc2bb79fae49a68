package session

import (
	"io"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/internal/console"
)

// TestKeyPressPredicted starts a local match on the embedded server (no
// UDP port, no bots), injects a key press as a usercmd, and checks that
// the predicted player moves in the very frame of the press, and that the
// server's snapshots later put the player where the prediction did.
func TestKeyPressPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real server for a few seconds")
	}
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	if err := tbl.Set("net_port", "-1"); err != nil {
		t.Fatal(err)
	}
	s := New(tbl, io.Discard, 1)
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	frame := func(cmd bg.UserCmd) *cgame.CGame {
		time.Sleep(15 * time.Millisecond)
		s.Frame(time.Since(start), cmd, false)
		return s.Active()
	}
	idle := bg.UserCmd{}

	// Join, then stand still until the player rests on the ground.
	var cg *cgame.CGame
	prev := bg.Vec{X: -1}
	for i := 0; ; i++ {
		if i == 600 {
			t.Fatalf("player never came to rest: %v", s.Status())
		}
		if cg = frame(idle); cg == nil {
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
	moved := 0
	for _, move := range []int32{127, -127} {
		x0 := cg.Predicted.Origin.X
		cg = frame(bg.UserCmd{RightMove: move})
		if x := cg.Predicted.Origin.X; x != x0 {
			if (x > x0) != (move > 0) {
				t.Fatalf("RightMove %d moved the player from %d to %d", move, x0, x)
			}
			moved = int(move)
			break
		}
	}
	if moved == 0 {
		t.Fatal("a key press did not move the predicted player in its frame")
	}
	for range 10 {
		cg = frame(bg.UserCmd{RightMove: int32(moved)})
	}

	moveEnd := cg.Predicted.CommandTime

	// Release and wait for the server to agree with the prediction.
	for i := 0; ; i++ {
		if i == 300 {
			t.Fatalf("server's player state %v never matched the prediction %v",
				cg.Snap.PS.Origin, cg.Predicted.Origin)
		}
		cg = frame(idle)
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
