package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tremor/client"
	"tremor/client/headless"
	"tremor/common/journal"
	"tremor/common/journal/journaltest"
	"tremor/internal/testutil"
)

// journalSeconds is how long recordJournal's clients play; a longer run
// measures a journal's size (docs/journal.md).
var journalSeconds = flag.Int("journal.seconds", 3, "seconds the journal test's clients play")

// recordJournal runs the dedicated server with journal 1 over a real UDP
// socket, with two bots and three headless clients under simulated loss
// on both sides for a few seconds, quits it, and returns the journal's
// path.
func recordJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.jnl")
	stdin, typed := io.Pipe()
	defer typed.Close()
	var out testutil.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0",
			"+set", "journal", "1", "+set", "journal_file", path, "+set", "sv_packetloss", "5",
			"+map", "arena1", "+addbot", "2"}, stdin, &out)
	}()
	var srv netip.AddrPort
	for end := time.Now().Add(10 * time.Second); !srv.IsValid(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("server did not start:\n%s", out.String())
		}
		if _, rest, ok := strings.Cut(out.String(), "listening on "); ok {
			srv, _ = netip.ParseAddrPort(strings.Fields(rest)[0])
		}
	}
	r := headless.New(headless.Config{
		Server:   srv,
		Clients:  3,
		Duration: time.Duration(*journalSeconds) * time.Second,
		Seed:     5,
		Client:   client.Config{PacketLoss: 10},
		Console:  io.Discard,
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil {
		t.Fatal("no report")
	}
	if _, err := io.WriteString(typed, "status\nquit\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("server exit %d:\n%s", code, out.String())
	}
	log := out.String()
	for _, want := range []string{"journal: recording to " + path, "journal: " + path + ": "} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	return path
}

// journalCounts counts a journal's frames, hashes, packets and console
// lines.
func journalCounts(t *testing.T, path string) (frames, hashes, packets int, lines []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jr, err := journal.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rec journal.Record
	for {
		err := jr.Next(&rec)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case journal.KindFrame:
			frames++
		case journal.KindHash:
			hashes++
		case journal.KindPacket:
			packets++
		case journal.KindConsole:
			lines = append(lines, rec.Value)
		}
	}
}

// rewrite copies the journal at path to a new file, passing every
// record through edit (its index among the records of its kind).
func rewrite(t *testing.T, path string, edit func(rec *journal.Record, i int)) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	jr, err := journal.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	jw, err := journal.NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[journal.Kind]int{}
	var rec journal.Record
	for {
		err := jr.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		edit(&rec, count[rec.Kind])
		count[rec.Kind]++
		if err := jw.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := jw.Flush(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edited.jnl")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// A dedicated server's journal replays with every server frame's game
// hash as recorded; a frame whose time is changed makes the replay stop
// at that frame and name the player or entity and field that differ; a
// damaged file gives an error that names its offset.
func TestJournalRecordReplay(t *testing.T) {
	path := recordJournal(t)
	frames, hashes, packets, lines := journalCounts(t, path)
	if hashes == 0 || packets == 0 {
		t.Fatalf("journal of %d frames has %d hashes and %d packets", frames, hashes, packets)
	}
	if len(lines) < 3 || lines[0] != "map arena1" || lines[1] != "addbot 2" || lines[len(lines)-1] != "quit" {
		t.Errorf("console lines recorded: %q, want map arena1, addbot 2, ..., quit", lines)
	}

	res, err := replayJournal(path, nil)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if res.Frames() != frames || res.Hashes() != hashes {
		t.Fatalf("replay checked %d frames and %d hashes, journal has %d and %d", res.Frames(), res.Hashes(), frames, hashes)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames, %d server frames, %d packets replayed; %d bytes", frames, hashes, packets, st.Size())

	t.Run("command line", func(t *testing.T) {
		var out testutil.LockedBuffer
		if code := run([]string{"+set", "journal", "2", "+set", "journal_file", path}, strings.NewReader(""), &out); code != 0 {
			t.Errorf("journal 2: exit %d, want 0:\n%s", code, out.String())
		}
		if want := "every hash as recorded"; !strings.Contains(out.String(), want) {
			t.Errorf("journal 2: output lacks %q:\n%s", want, out.String())
		}
		out = testutil.LockedBuffer{}
		cut := filepath.Join(t.TempDir(), "empty.jnl")
		if err := os.WriteFile(cut, []byte("TJNL"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code := run([]string{"+set", "journal", "2", "+set", "journal_file", cut}, strings.NewReader(""), &out); code != 1 {
			t.Errorf("journal 2 of a damaged file: exit %d, want 1:\n%s", code, out.String())
		}
		if want := "header cut short"; !strings.Contains(out.String(), want) {
			t.Errorf("journal 2 of a damaged file: output lacks %q:\n%s", want, out.String())
		}
	})

	t.Run("time changed", func(t *testing.T) {
		// The frame record followed by the hash record number hashes/2:
		// give it 150 ms more, three server frames at sv_fps 20.
		target := -1
		{
			f, _ := os.Open(path)
			jr, err := journal.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			var rec journal.Record
			frame, hash := -1, 0
			for target < 0 {
				if err := jr.Next(&rec); err != nil {
					t.Fatal(err)
				}
				switch rec.Kind {
				case journal.KindFrame:
					frame++
				case journal.KindHash:
					if hash == hashes/2 {
						target = frame
					}
					hash++
				}
			}
			f.Close()
		}
		var at int32
		edited := rewrite(t, path, func(rec *journal.Record, i int) {
			if rec.Kind == journal.KindFrame && i == target {
				rec.Frame.ServerTime += 150
				at = rec.Frame.ServerTime
			}
		})
		res, err := replayJournal(edited, nil)
		var d *journal.Divergence
		if !errors.As(err, &d) {
			t.Fatalf("replay of the edited journal: %v, want a divergence", err)
		}
		if want := time.Duration(at) * time.Millisecond; d.Frame != target || d.Time != want || res.Frames() != target || d.Side != journal.Server {
			t.Errorf("diverged at frame %d (time %v) on the %v after %d frames, want frame %d (time %v) on the server: %v", d.Frame, d.Time, d.Side, res.Frames(), target, want, err)
		}
		if !strings.Contains(d.Detail, "game state hash") || !strings.Contains(d.Detail, ": field ") || d.Field == "" || d.Player < 0 && d.Entity < 0 {
			t.Errorf("divergence does not name a player or entity and its field (player %d, entity %d, field %q): %v", d.Player, d.Entity, d.Field, err)
		}
		t.Log(err)
	})

	t.Run("console line changed", func(t *testing.T) {
		// addbot 2 becomes addbot 3: a third bot plays from the first
		// server frame on.
		edited := rewrite(t, path, func(rec *journal.Record, i int) {
			if rec.Kind == journal.KindConsole && rec.Value == "addbot 2" {
				rec.Value = "addbot 3"
			}
		})
		_, err := replayJournal(edited, nil)
		var d *journal.Divergence
		if !errors.As(err, &d) || !strings.Contains(d.Detail, "game state hash") {
			t.Fatalf("replay with a bot more: %v, want a divergence", err)
		}
		if first := hashFrames(t, path)[0]; d.Frame != first {
			t.Errorf("diverged at frame %d, want the first server frame's, %d: %v", d.Frame, first, err)
		}
		if !strings.Contains(d.Detail, ": field ") && !strings.Contains(d.Detail, "is in the replay only") {
			t.Errorf("divergence names no player or entity: %v", err)
		}
		t.Log(err)
	})

	t.Run("packet changed", func(t *testing.T) {
		// The first client's connect packet comes from another port: in
		// the replay the challenge, bound to the address, does not match
		// and the client is refused, where the recording's entered the
		// game at once.
		first := firstConnect(t, path)
		frame, packetFrame := -1, -1
		edited := rewrite(t, path, func(rec *journal.Record, i int) {
			if rec.Kind == journal.KindFrame {
				frame++
			}
			if rec.Kind == journal.KindPacket && i == first {
				rec.From = netip.AddrPortFrom(rec.From.Addr(), rec.From.Port()^1)
				packetFrame = frame
			}
		})
		_, err := replayJournal(edited, nil)
		var d *journal.Divergence
		if !errors.As(err, &d) || !strings.Contains(d.Detail, "game state hash") {
			t.Fatalf("replay with a connect from another port: %v, want a divergence", err)
		}
		want := -1
		for _, f := range hashFrames(t, path) {
			if f >= packetFrame {
				want = f
				break
			}
		}
		if d.Frame != want {
			t.Errorf("diverged at frame %d, want %d, the first server frame after the changed packet's frame %d", d.Frame, want, packetFrame)
		}
		if !strings.Contains(d.Detail, ": field ") && !strings.Contains(d.Detail, " only") {
			t.Errorf("divergence names no player or entity: %v", err)
		}
		t.Logf("connect packet %d in frame %d changed: %v", first, packetFrame, err)
	})

	t.Run("damaged", func(t *testing.T) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		cut := filepath.Join(dir, "cut.jnl")
		if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := replayJournal(cut, nil)
		var je *journal.Error
		if !errors.As(err, &je) && (err == nil || !strings.Contains(err.Error(), "ends inside frame")) {
			t.Errorf("replay of a cut journal: %v, want an offset or the frame it ends in", err)
		}
		if res == nil || res.Frames() == 0 {
			t.Errorf("cut journal replayed no frame before its error: %v", err)
		}
		t.Log(err)
		bad := filepath.Join(dir, "bad.jnl")
		if err := os.WriteFile(bad, append([]byte("XJNL"), data[4:]...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := replayJournal(bad, nil); err == nil || !strings.Contains(err.Error(), "not a journal") {
			t.Errorf("replay of a file with another magic: %v", err)
		}
	})
}

// hashFrames returns, for each hash record of the journal, the index of
// the frame it belongs to.
func hashFrames(t *testing.T, path string) []int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jr, err := journal.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rec journal.Record
	var frames []int
	frame := -1
	for {
		err := jr.Next(&rec)
		if err == io.EOF {
			return frames
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case journal.KindFrame:
			frame++
		case journal.KindHash:
			frames = append(frames, frame)
		}
	}
}

// firstConnect returns the index of the journal's first connect packet.
func firstConnect(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jr, err := journal.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rec journal.Record
	for i := 0; ; {
		err := jr.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == journal.KindPacket {
			if bytes.HasPrefix(rec.Data, []byte("\xff\xff\xff\xffconnect ")) {
				return i
			}
			i++
		}
	}
	t.Fatal("the journal has no connect packet")
	return -1
}

// TestJournalNoReplay: every cvar of the program that belongs to the
// machine it runs on (its socket, its folders, its masters, its
// profile, the journal's own) is one a replay leaves alone, by the one
// list both programs that replay use.
func TestJournalNoReplay(t *testing.T) {
	tbl := newTable(io.Discard)
	if err := journaltest.CheckNoReplay(tbl.CvarNames()); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"net_port", "sv_mapdir", "sv_master1", "journal_file", "cpuprofile"} {
		if tbl.Get(name) == nil {
			t.Errorf("the server declares no %s: the check above saw no such cvar", name)
		}
	}
}
