package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/journal"
	"tremor/common/proto"
)

// TestJournalReplayFrameSync records a session whose embedded server
// runs in frame sync (sv_netmodel framesync: the client runs the game
// itself from the frames, predicting and rolling back) under the
// client's 10 % simulated loss, and replays it: every frame's server
// hash and the client's — its own game's state hash, and its player's
// state in that game — replay as recorded, and the client's Sync ends
// with the same counters (frames run, rollbacks, hashes checked). Then
// four usercmds in a row changed to fire make the replay stop on the
// client within them: the frame its game first ran the changed input.
func TestJournalReplayFrameSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client for 12 s of game time")
	}
	const frames = int(12 * time.Second / journalFrame)
	dir := t.TempDir()
	s, tbl := newJournalSession(t, dir, "1", 13)
	if err := tbl.SetFromCommandLine("sv_netmodel", proto.NetModelFrameSync); err != nil {
		t.Fatal(err)
	}
	if err := s.StartMap("arena1"); err != nil {
		t.Fatal(err)
	}
	path := s.Recording()
	for i := range frames {
		s.Frame(time.Duration(i)*journalFrame, scriptCmd(i), false)
		time.Sleep(200 * time.Microsecond)
	}
	c := s.Client()
	if c == nil || !c.FrameSync() {
		t.Fatal("the client is not in frame sync")
	}
	live, _ := c.FrameSyncStats()
	if live.HashChecks == 0 || live.Rollbacks == 0 || live.Mismatches != 0 {
		t.Fatalf("live frame sync: %s", live)
	}
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := readJournal(t, data)
	var gameHashes int // client hashes other than 0: its game's
	for _, r := range recs {
		if r.Kind == journal.KindHash && r.Side == journal.Client && r.Hash != 0 {
			gameHashes++
		}
	}
	if gameHashes < frames/2 {
		t.Errorf("%d of %d frames recorded a client hash", gameHashes, frames)
	}

	r, _ := newJournalSession(t, dir, "2", 99)
	if err := r.PlayJournal("live"); err != nil {
		t.Fatal(err)
	}
	n, err := r.ReplayAll()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if n != frames {
		t.Fatalf("replayed %d frames, want %d", n, frames)
	}
	rc := r.Client()
	if rc == nil || !rc.FrameSync() {
		t.Fatal("the replayed client is not in frame sync")
	}
	got, _ := rc.FrameSyncStats()
	if got.SyncStats != live.SyncStats || got.Requests != live.Requests || got.FrameMessages != live.FrameMessages {
		t.Errorf("replayed frame sync:\n%s\n%+v\nlive:\n%s\n%+v", got, got, live, live)
	}
	t.Logf("%d frames replayed; the client's game: %s", n, got)
	r.Close()

	// Four usercmds in a row (64 ms: a server frame is 50) changed to
	// fire, where the player could and did not.
	k, edited := fireFor(t, data, recs, frames/3, 4)
	bad := filepath.Join(dir, "edited.jnl")
	if err := os.WriteFile(bad, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	r2, _ := newJournalSession(t, dir, "2", 99)
	if err := r2.PlayJournal(bad); err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	n, err = r2.ReplayAll()
	var d *journal.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("edited journal replayed %d frames without divergence: %v", n, err)
	}
	t.Logf("fire from frame %d: %v", k, d)
	if d.Frame < k || d.Frame >= k+4 || d.Side != journal.Client {
		t.Errorf("divergence at frame %d on the %v, want frames %d to %d on the client", d.Frame, d.Side, k, k+3)
	}
}

// fireFor returns the first frame k at or after from where the player
// could fire and the usercmds of frames k to k+count-1 do not, and the
// journal with those usercmds firing.
func fireFor(t *testing.T, data []byte, recs []journal.Record, from, count int) (int, []byte) {
	t.Helper()
	var cmdAt []int // record of each frame's usercmd
	var ps []*bg.PlayerState
	frame := -1
	for i := range recs {
		switch r := &recs[i]; r.Kind {
		case journal.KindFrame:
			frame++
			ps = append(ps, nil)
		case journal.KindUserCmd:
			cmdAt = append(cmdAt, i)
		case journal.KindPlayerState:
			ps[frame] = &r.PS
		}
	}
	for k := from; k+count <= len(cmdAt); k++ {
		p := ps[k-1]
		if p == nil || p.PmType != bg.PMNormal || p.Weapon == bg.WPNone || p.WeaponTime > 0 {
			continue
		}
		quiet := true
		for j := k; j < k+count; j++ {
			quiet = quiet && recs[cmdAt[j]].Cmd.Buttons&bg.ButtonAttack == 0
		}
		if !quiet {
			continue
		}
		return k, rewrite(t, data, func(i int, rec *journal.Record) {
			for j := k; j < k+count; j++ {
				if i == cmdAt[j] {
					rec.Cmd.Buttons |= bg.ButtonAttack
				}
			}
		})
	}
	t.Fatal("no frames where the player could have fired and did not")
	return 0, nil
}
