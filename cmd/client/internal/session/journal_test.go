package session

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
	"tremor/common/journal"
	"tremor/net/cmdargs"
)

// journalFrames is the length of the recorded session: 30 s of 16 ms
// frames.
const (
	journalFrame  = 16 * time.Millisecond
	journalFrames = int(30 * time.Second / journalFrame)
)

// newJournalSession returns a session on a fresh table with the cvars
// the journal test sets, its data in dir.
func newJournalSession(t *testing.T, dir string, mode string, seed uint64) (*Session, *console.Table) {
	t.Helper()
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	s := New(tbl, io.Discard, seed)
	s.SetDataDir(dir)
	// As the window does, the engine takes a changed cvar at once, and
	// a command leaves the game.
	tbl.Get("cl_maxpackets").OnChange(func(*console.Cvar) { s.ApplyConfig() })
	tbl.AddCommand("leave", "", func(*cmdargs.Args) { s.Disconnect() })
	for _, kv := range [][2]string{
		{"net_port", "-1"}, {"journal", mode}, {"journal_file", "live"},
		{"cl_packetloss", "10"}, {"bot_minplayers", "3"},
	} {
		if err := tbl.SetFromCommandLine(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s, tbl
}

// scriptCmd is the test's player: it runs right and left, jumps, turns
// and fires in bursts.
func scriptCmd(i int) bg.UserCmd {
	var c bg.UserCmd
	switch (i / 90) % 4 {
	case 0:
		c.RightMove = 127
	case 2:
		c.RightMove = -127
	}
	if i%70 < 10 {
		c.UpMove = 127
	}
	c.Aim = int32(i*37) % 4096
	if (i/60)%3 == 0 {
		c.Buttons = bg.ButtonAttack
	}
	return c
}

// TestJournalReplay records 30 s of a session with an embedded server,
// bots, 10% simulated loss on the client's packets and a console line,
// a cvar set by code, replays the journal and checks that every frame's server and client
// hashes and predicted player state are as recorded; then it flips the
// attack button of one recorded usercmd and checks that the replay stops
// at that frame, on the client, naming the field.
func TestJournalReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client for 30 s of game time")
	}
	dir := t.TempDir()
	s, tbl := newJournalSession(t, dir, "1", 7)
	if err := s.StartMap("arena1"); err != nil {
		t.Fatal(err)
	}
	path := s.Recording()
	if path != filepath.Join(dir, "journals", "live.jnl") {
		t.Fatalf("recording to %q", path)
	}
	active := 0
	for i := range journalFrames {
		switch i {
		case journalFrames / 4:
			// A cvar set by code between frames, as the menu does.
			if err := tbl.Set("cl_maxpackets", "60"); err != nil {
				t.Fatal(err)
			}
		case journalFrames / 2:
			tbl.ExecuteString("addbot Visitor") // a console line between frames
		}
		s.Frame(time.Duration(i)*journalFrame, scriptCmd(i), i%100 == 0)
		if s.Active() != nil {
			active++
		}
		// Let the loopback's and the client's reader goroutines carry
		// the packets: the journal records whenever they arrive, this
		// only keeps the game playable.
		time.Sleep(200 * time.Microsecond)
	}
	if active < journalFrames/2 {
		t.Fatalf("the client was in the game %d frames of %d", active, journalFrames)
	}
	s.Close()
	if s.Recording() != "" {
		t.Fatal("still recording after Close")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := readJournal(t, data)
	counts := make(map[journal.Kind]int)
	for _, r := range recs {
		counts[r.Kind]++
	}
	t.Logf("journal: %d bytes, %v", len(data), counts)
	if counts[journal.KindFrame] != journalFrames || counts[journal.KindUserCmd] != journalFrames {
		t.Fatalf("%d frames and %d usercmds recorded, want %d", counts[journal.KindFrame], counts[journal.KindUserCmd], journalFrames)
	}
	var hashed [2]int // frames with a hash other than 0, by side
	for _, r := range recs {
		if r.Kind == journal.KindHash && r.Hash != 0 {
			hashed[r.Side]++
		}
	}
	if hashed[journal.Server] < journalFrames/2 || hashed[journal.Client] < journalFrames/2 {
		t.Errorf("frames hashed: %d on the server, %d on the client, of %d", hashed[journal.Server], hashed[journal.Client], journalFrames)
	}
	set := false // cl_maxpackets's change recorded before a frame
	for i, r := range recs {
		set = set || r.Kind == journal.KindCvar && r.Name == "cl_maxpackets" && r.Value == "60" &&
			i > 0 && recs[i-1].Kind != journal.KindStart && recs[i-1].Kind != journal.KindCvar
	}
	if !set {
		t.Error("cl_maxpackets 60, set between frames, is not in the journal")
	}
	if counts[journal.KindConsole] != 1 || counts[journal.KindChallenge] == 0 {
		t.Errorf("%d console lines, %d challenges recorded", counts[journal.KindConsole], counts[journal.KindChallenge])
	}

	// The replay: every frame as recorded.
	r, _ := newJournalSession(t, dir, "2", 99)
	var mu sync.Mutex
	sent := make(map[netip.AddrPort][][]byte) // by sender
	r.jn.sent = func(from, _ netip.AddrPort, p []byte) {
		mu.Lock()
		sent[from] = append(sent[from], bytes.Clone(p))
		mu.Unlock()
	}
	if err := r.PlayJournal("live"); err != nil {
		t.Fatal(err)
	}
	n, err := r.ReplayAll()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if n != journalFrames {
		t.Fatalf("replayed %d frames, want %d", n, journalFrames)
	}
	if r.Active() == nil {
		t.Fatal("no game at the end of the replay")
	}
	upReplayed := r.Client().Stats().PacketsUp // counted before the simulated loss

	// A map after the replay ended plays a game of its own, on a server
	// that talks to its client.
	replayServer := r.Server()
	if err := r.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	if r.Server() == replayServer {
		t.Fatal("the map was loaded on the replay's server")
	}
	for i := 0; r.Active() == nil; i++ {
		if i == 600 {
			t.Fatalf("no game after the replay: %s", r.Status())
		}
		r.Frame(time.Duration(i)*journalFrame, bg.UserCmd{}, false)
		time.Sleep(time.Millisecond)
	}
	r.Close()

	// The replayed engines sent what the live ones did: the packets each
	// engine read in the live session are, in order, the first packets
	// the other one sent in the replay (those sent after were still on
	// their way at the end). The client's side shows that its simulated
	// loss dropped the same packets: its generator is seeded.
	st := recs[0].Start
	mu.Lock()
	defer mu.Unlock()
	for _, side := range []struct {
		reader journal.Side
		sender netip.AddrPort
	}{{journal.Server, st.ClientAddr}, {journal.Client, st.ServerAddr}} {
		var read [][]byte
		for _, rec := range recs {
			if rec.Kind == journal.KindPacket && rec.Side == side.reader && rec.From == side.sender {
				read = append(read, rec.Data)
			}
		}
		out := sent[side.sender]
		if len(read) == 0 || len(out) < len(read) {
			t.Fatalf("%v read %d packets live; the replay's other side sent %d", side.reader, len(read), len(out))
		}
		for i := range read {
			if !bytes.Equal(read[i], out[i]) {
				t.Fatalf("%v's packet %d of %d: the replay sent %d bytes other than the %d read live", side.reader, i, len(read), len(out[i]), len(read[i]))
			}
		}
		t.Logf("%v read %d packets live; the replay sent them, and %d more", side.reader, len(read), len(out)-len(read))
	}
	lost := upReplayed - uint64(len(sent[st.ClientAddr]))
	t.Logf("cl_packetloss 10: the replayed client lost %d of its %d packets, as the live one did", lost, upReplayed)
	if lost == 0 || lost > upReplayed/4 {
		t.Errorf("the client's simulated loss took %d of %d packets", lost, upReplayed)
	}

	// One usercmd changed: the replay stops at its frame.
	k, edited := flipAttack(t, data, recs, journalFrames/3)
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
	t.Logf("edited frame %d: %v", k, d)
	if d.Frame != k || d.Side != journal.Client || n != k {
		t.Errorf("divergence at frame %d on the %v after %d frames, want frame %d on the client", d.Frame, d.Side, n, k)
	}
	// The shot sets the weapon's repeat time: the first field, in hash
	// order, that differs.
	if !strings.Contains(d.Detail, "field WeaponTime") {
		t.Errorf("divergence %q does not name WeaponTime", d)
	}
	// The window's banner says where it stopped.
	if st, ok := r2.Replay(); !ok || !st.Done || st.Frames != k || !errors.Is(st.Err, err) {
		t.Errorf("status after the divergence: %+v %v", st, ok)
	}

	// One frame's server time moved 100 ms on: the server runs frames
	// the recording did not, and the replay stops there, on the server.
	k = 2 * journalFrames / 3
	frame := -1
	edited = rewrite(t, data, func(_ int, rec *journal.Record) {
		if rec.Kind == journal.KindFrame {
			if frame++; frame == k {
				rec.Frame.ServerTime += 100
			}
		}
	})
	if err := os.WriteFile(bad, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	r3, _ := newJournalSession(t, dir, "2", 99)
	if err := r3.PlayJournal(bad); err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	n, err = r3.ReplayAll()
	if !errors.As(err, &d) {
		t.Fatalf("journal with a server time moved replayed %d frames without divergence: %v", n, err)
	}
	t.Logf("server time moved at frame %d: %v", k, d)
	if d.Frame != k || d.Side != journal.Server || !strings.Contains(d.Detail, "game state hash") {
		t.Errorf("divergence %v, want frame %d on the server, its game state hash", d, k)
	}
	// The bots moved in the frames the recording did not run: the
	// replay names a player or an entity and its field.
	if !regexp.MustCompile(`(client \d+'s player state|entity \d+): field \S+ is -?\d+, journal has -?\d+`).MatchString(d.Detail) {
		t.Errorf("divergence %q names no player or entity field", d.Detail)
	}
}

// rewrite returns the journal data with each record passed to edit,
// with its index, on its way from a Reader to a Writer.
func rewrite(t *testing.T, data []byte, edit func(i int, rec *journal.Record)) []byte {
	t.Helper()
	r, err := journal.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := journal.NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		var rec journal.Record
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		edit(i, &rec)
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readJournal returns every record of a journal, without the server
// states.
func readJournal(t *testing.T, data []byte) []journal.Record {
	t.Helper()
	r, err := journal.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []journal.Record
	for {
		var rec journal.Record
		err := r.Next(&rec)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rec.Data = bytes.Clone(rec.Data)
		rec.Server = nil // the reader's own, changed by the next record: rewrite streams them
		out = append(out, rec)
	}
}

// flipAttack finds the first frame from 'from' on whose usercmd does
// not fire while the client predicted and the predicted player, before
// and after it, is alive with a weapon ready to fire; it presses attack
// in that usercmd and returns the frame and the edited journal.
func flipAttack(t *testing.T, data []byte, recs []journal.Record, from int) (int, []byte) {
	t.Helper()
	canFire := func(ps *bg.PlayerState) bool {
		return ps.PmType == bg.PMNormal && ps.Weapon != bg.WPNone && ps.PmFlags&bg.PMFRespawned == 0
	}
	frame, cmdAt := -1, -1
	var prev *bg.PlayerState
	var predicted bool // the client's hash of this frame is not 0
	k, flip := -1, -1
	for i := range recs {
		switch r := &recs[i]; r.Kind {
		case journal.KindFrame:
			frame++
		case journal.KindUserCmd:
			cmdAt = i
		case journal.KindHash:
			predicted = r.Side == journal.Client && r.Hash != 0
		case journal.KindPlayerState:
			if k < 0 && frame >= from && predicted && prev != nil && canFire(prev) && prev.WeaponTime <= 0 &&
				canFire(&r.PS) && recs[cmdAt].Cmd.Buttons&bg.ButtonAttack == 0 {
				k, flip = frame, cmdAt
			}
			prev = &r.PS
		}
	}
	if k < 0 {
		t.Fatal("no frame where the player could have fired and did not")
	}
	return k, rewrite(t, data, func(i int, rec *journal.Record) {
		if i == flip {
			rec.Cmd.Buttons |= bg.ButtonAttack
		}
	})
}

// TestPlayJournalCommand records a short session that a command ends,
// and replays it with the playjournal command, up to that command; a
// replay refuses to connect elsewhere.
func TestPlayJournalCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client")
	}
	dir := t.TempDir()
	s, tbl := newJournalSession(t, dir, "1", 3)
	defer s.Close()
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	const frames = 120
	for i := range frames {
		s.Frame(time.Duration(i)*journalFrame, scriptCmd(i), false)
		time.Sleep(200 * time.Microsecond)
	}
	tbl.ExecuteString("leave") // ends the recording, and will end the replay
	if s.Recording() != "" {
		t.Fatal("still recording after leaving the game")
	}

	// A journal that is not there leaves the game being played.
	r, tbl := newJournalSession(t, dir, "0", 5)
	defer r.Close()
	if err := r.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	r.AddJournalCommands(tbl)
	var out bytes.Buffer
	tbl.SetOutput(&out)
	tbl.ExecuteString("playjournal nosuch")
	if !strings.Contains(out.String(), "playjournal: open") || r.Replaying() || r.Server() == nil {
		t.Fatalf("playjournal of a missing journal: %q", out.String())
	}
	// A dedicated server's journal (no client address) is refused, and
	// the game goes on.
	f, err := os.Create(filepath.Join(dir, "journals", "server.jnl"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := journal.NewWriter(f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(journal.Start{ServerSeed: 7, ServerAddr: netip.MustParseAddrPort("127.0.0.1:27960")}); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	tbl.ExecuteString("playjournal server")
	if !strings.Contains(out.String(), "dedicated server's journal") || r.Replaying() || r.Server() == nil {
		t.Fatalf("playjournal of a server's journal: %q", out.String())
	}
	tbl.ExecuteString("playjournal live")
	if !r.Replaying() || !r.PlayedJournal() {
		t.Fatalf("playjournal live did not start a replay: %q", out.String())
	}
	if st, ok := r.Replay(); !ok || st.Done || st.Frames != 0 || !strings.HasSuffix(st.Path, "live.jnl") {
		t.Errorf("status at the start: %+v %v", st, ok)
	}
	if err := connect(r, "127.0.0.1:27960"); err == nil {
		t.Error("a replay connected to a server")
	}
	n, err := r.ReplayAll()
	if err != nil || n != frames || r.Replaying() {
		t.Fatalf("replayed %d frames of %d, replaying %v: %v", n, frames, r.Replaying(), err)
	}
	// The journal ends as the recording did, leaving the game: the
	// replay is forgotten with it.
	if st, ok := r.Replay(); ok {
		t.Errorf("status after the journal left the game: %+v", st)
	}
}
