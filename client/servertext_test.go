package client

import (
	"path/filepath"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/net/cmdargs"
)

// hostileText carries the sequences of issue 23: set the terminal's
// title, clear the screen, make the terminal type the cursor position
// into its own input, and the same through the C1 CSI and a
// right-to-left override.
const hostileText = "A\x1b]0;TITLE\x07B\x1b[2JC\x1b[6nD\u009b6nE\u202eF"

// hostileShown is hostileText as every output must show it.
const hostileShown = `A\x1b]0;TITLE\aB\x1b[2JC\x1b[6nD\u009b6nE\u202eF`

// checkShown fails unless out is free of control characters and shows
// want.
func checkShown(t *testing.T, what, out, want string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool { return r < ' ' || r >= 0x7f && r < 0xa0 || r == 0x202e }); i >= 0 {
		t.Errorf("%s holds control character %q at byte %d: %q", what, out[i], i, out)
	}
	if !strings.Contains(out, want) {
		t.Errorf("%s = %q, want it to show %q", what, out, want)
	}
}

// TestServerTextShownEscaped: what a server says reaches the client's
// outputs (the drop reason every front end prints, the Print hook, the
// log) with its control characters escaped.
func TestServerTextShownEscaped(t *testing.T) {
	t.Run("connectionless print", func(t *testing.T) {
		var log lineLog
		c, s := newPair(t, Config{ConnectTries: 1, Logf: log.logf})
		var printed []string
		c.Hooks.Print = func(text string) { printed = append(printed, text) }
		s.refuse = hostileText + "\n"
		c.Connect(s.addr())
		for now := int32(0); now <= 60000 && c.State() != Disconnected; now += 100 {
			step(t, c, s, now, bg.UserCmd{})
		}
		kind, reason := c.Dropped()
		if kind != DropError {
			t.Fatalf("dropped %v: %q", kind, reason)
		}
		checkShown(t, "drop reason", reason, hostileShown)
		if len(printed) == 0 {
			t.Fatal("the Print hook was not called")
		}
		for _, p := range printed {
			checkShown(t, "Print hook", strings.TrimSuffix(p, "\n"), hostileShown)
		}
		for _, l := range log.lines {
			checkShown(t, "log line", l, "")
		}
	})
	t.Run("disconnect command", func(t *testing.T) {
		c, s := newPair(t, Config{})
		now := int32(0)
		connect(t, c, s, &now)
		s.command("disconnect " + cmdargs.QuoteText(hostileText))
		s.sendCommands()
		step(t, c, s, now, bg.UserCmd{})
		kind, reason := c.Dropped()
		if c.State() != Disconnected || kind != DropByServer {
			t.Fatalf("state %v, dropped %v: %q", c.State(), kind, reason)
		}
		checkShown(t, "drop reason", reason, "server disconnected: "+hostileShown)
	})
	t.Run("map name in the log and the download status", func(t *testing.T) {
		// arenas.CheckName refuses C0 controls, not C1 ones nor format
		// characters: the name is downloadable, and shown escaped.
		var log lineLog
		c, s := newPair(t, Config{MapDir: filepath.Join(t.TempDir(), "maps"), Logf: log.logf})
		s.gs.Configstrings[bg.CSServerInfo] = `\sv_hostname\fake\mapname\x` + "\u009b6n\u202e"
		now := int32(0)
		handshake(t, c, s, &now)
		s.sendGamestate()
		step(t, c, s, now, bg.UserCmd{})
		st, ok := c.Download()
		if !ok {
			t.Fatalf("no download started: %v, %q", c.State(), c.conn.dropReason)
		}
		checkShown(t, "download name", st.Name, `x\u009b6n\u202e`)
		if len(log.lines) == 0 {
			t.Fatal("nothing logged")
		}
		for _, l := range log.lines {
			checkShown(t, "log line", l, `x\u009b6n\u202e`)
		}
	})
}
