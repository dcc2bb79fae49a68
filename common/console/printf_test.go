package console

import (
	"strings"
	"testing"
)

// Printf writes what it is given with its control characters escaped,
// newlines kept: a server's reason or a player's name printed through
// the console (both clients' stderr, the window's scrollback) is never a
// terminal command.
func TestPrintfEscapes(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		args         []any
		want         string
	}{
		{"plain", "%s joined\n", []any{"alice"}, "alice joined\n"},
		{"title", "server disconnected: %s\n", []any{"\x1b]0;TITLE\x07"}, "server disconnected: \\x1b]0;TITLE\\a\n"},
		{"clear and report", "%s%s", []any{"\x1b[2J", "\x1b[6n"}, `\x1b[2J\x1b[6n`},
		{"c1 and bidi", "%s\n", []any{"\u009b6n\u202e"}, "\\u009b6n\\u202e\n"},
		{"lines kept", "one\ntwo\r\n", nil, "one\ntwo\\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := NewTable()
			var out strings.Builder
			tab.SetOutput(&out)
			tab.Printf(tc.format, tc.args...)
			if out.String() != tc.want {
				t.Errorf("printed %q, want %q", out.String(), tc.want)
			}
		})
	}
}
