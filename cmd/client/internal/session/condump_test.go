//go:build !js

package session

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
)

// TestCondumpPath checks the names condump takes: a plain name in the
// data directory, .txt added, nothing that leaves the directory or
// writes another kind of file.
func TestCondumpPath(t *testing.T) {
	dir := filepath.Join("data", "tremor")
	for _, tc := range []struct {
		name, want string // want "": refused
	}{
		{"miss", filepath.Join(dir, "miss.txt")},
		{"miss.txt", filepath.Join(dir, "miss.txt")},
		{"lesson 2", filepath.Join(dir, "lesson 2.txt")},
		{"", ""},
		{"../miss", ""},
		{"..", ""},
		{"logs/miss", ""},
		{`logs\miss`, ""},
		{"/tmp/miss", ""},
		{"c:miss", ""},
		{".hidden", ""},
		{"cvars.cfg", ""},
		{"autoexec.cfg", ""},
		{"x.tdm", ""},
		{"nul\x00.txt", ""},
		{strings.Repeat("m", 129), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CondumpPath(dir, tc.name)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("CondumpPath(%q) = %q, want refused", tc.name, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CondumpPath(%q) = %q, %v, want %q", tc.name, got, err, tc.want)
			}
		})
	}
}

// TestShowMissInTheConsole plays lesson 2's set-up without a window:
// cg_showmiss 1 under cl_packetloss 20 (no copies of earlier usercmds),
// the session printing to the console's scrollback as the window's
// does, a player who changes keys often. The miss lines and the
// embedded server's log reach the scrollback, among its notify lines,
// the server's lines prefixed once; condump saves them all to the data
// directory.
func TestShowMissInTheConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client for 20 s of game time")
	}
	dir := t.TempDir()
	sb := console.NewScrollback(console.DefaultScrollback)
	tbl := console.NewTable()
	tbl.SetOutput(sb)
	tbl.Register(Cvars...)
	for _, kv := range [][2]string{{"net_port", "-1"}, {"cl_packetloss", "20"}, {"cl_packetdup", "0"}, {"cg_showmiss", "1"}} {
		if err := tbl.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := New(tbl, sb, 5)
	s.SetDataDir(dir)
	s.AddCondump(tbl, sb)
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const frame = 16 * time.Millisecond
	notified := false
	var notify []string
	for i := range int(20 * time.Second / frame) {
		// Right and left in turns of 0.2 s, a jump every 0.8 s: lost
		// usercmds hold keys the server never hears of.
		var cmd bg.UserCmd
		cmd.RightMove = 127
		if (i/12)%2 == 1 {
			cmd.RightMove = -127
		}
		if i%50 < 6 {
			cmd.UpMove = 127
		}
		now := time.Duration(i) * frame
		sb.SetTime(now.Milliseconds())
		tbl.Execute()
		s.Frame(now, cmd, false)
		notify = sb.Notify(notify[:0], now.Milliseconds())
		for _, l := range notify {
			notified = notified || strings.Contains(l, "cgame: prediction miss")
		}
		// Let the loopback's and the client's goroutines carry the
		// packets.
		time.Sleep(200 * time.Microsecond)
	}
	if s.Active() == nil {
		t.Fatalf("not in the game: %s", s.Status())
	}

	tbl.ExecuteString("condump miss")
	b, err := os.ReadFile(filepath.Join(dir, "miss.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dump := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if held := sb.Lines(nil); len(held) != len(dump)+1 { // the condump line after it
		t.Errorf("condump wrote %d lines, the scrollback holds %d", len(dump), len(held))
	}
	var misses, server int
	for _, l := range dump {
		if strings.Contains(l, "server: server: ") {
			t.Errorf("doubled prefix: %q", l)
		}
		if strings.HasPrefix(l, "cgame: prediction miss") {
			misses++
		}
		if strings.HasPrefix(l, "server: ") {
			server++
		}
	}
	t.Logf("miss.txt: %d lines, %d misses, %d of the server", len(dump), misses, server)
	if misses == 0 {
		t.Errorf("no prediction miss in the console under 20%% loss:\n%s", b)
	}
	if server == 0 {
		t.Errorf("no line of the server's log in the console:\n%s", b)
	}
	if !notified {
		t.Error("no miss line among the notify lines")
	}
	var out strings.Builder
	tbl.SetOutput(io.MultiWriter(sb, &out))
	for _, bad := range []string{"condump ../miss", "condump cvars.cfg", "condump"} {
		out.Reset()
		tbl.ExecuteString(bad)
		if !strings.Contains(out.String(), "condump") {
			t.Errorf("%s: printed %q, want a refusal", bad, out.String())
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("the data directory holds %d files, want miss.txt only", len(files))
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "miss.txt")); err == nil {
		t.Error("condump ../miss wrote outside the data directory")
	}
}
