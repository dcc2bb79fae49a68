// Package safetext makes text that came from somewhere else safe to show
// on a terminal, in a log file or on screen: every character that is not
// printable is written as a Go escape, so that a player name, a chat
// line, a server's disconnect reason or a print is shown as the text it
// is and is never read by a terminal as a command (an ESC [ 2 J that
// clears the screen, an ESC ] 0 ; … BEL that sets the window title, an
// ESC [ 6 n that makes the terminal type its answer into its own input).
// The server's log and both clients' outputs go through it
// (docs/security.md).
//
// The visible form is the one Go's strconv.QuoteToASCII uses inside its
// quotes: ESC is \x1b, BEL \a, carriage return \r, tab \t, a C1 control
// such as CSI \u009b, a format character such as the right-to-left
// override \u202e, a byte that is not UTF-8 \xff. Printable characters,
// non-ASCII letters included ("Zoë"), stay as they are; so do
// backslashes, so a name typed as `\x1b` and a name holding an ESC look
// the same: the purpose is that nothing arrives as a control, not that
// the original can be rebuilt. The output holds no C0 or C1 control, no
// DEL, no format or other non-printable character and no invalid UTF-8
// (Line), or none but newlines (Text). Both are idempotent, and return
// their argument without allocating when it needs no change.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of visible text: every non-printable
// character, newline included, written as a Go escape (see the package
// comment). Use it for what is printed on one line: a disconnect reason,
// a name, a map name, a log line.
func Line(s string) string { return escape(s, false) }

// Text returns s with every non-printable character but newline written
// as a Go escape: multi-line text (a server's print of several lines)
// keeps its lines, each of which is then safe to print.
func Text(s string) string { return escape(s, true) }

// keep reports whether the rune r, read as size bytes, is written as it
// is.
func keep(r rune, size int, newlines bool) bool {
	if r == utf8.RuneError && size == 1 {
		return false // a byte that is not UTF-8
	}
	return unicode.IsPrint(r) || newlines && r == '\n'
}

// escape is Line (newlines false) and Text (newlines true).
func escape(s string, newlines bool) string {
	clean := 0 // bytes of s that need no change
	for clean < len(s) {
		r, size := utf8.DecodeRuneInString(s[clean:])
		if !keep(r, size, newlines) {
			break
		}
		clean += size
	}
	if clean == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:clean])
	var buf [16]byte
	for i := clean; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case keep(r, size, newlines):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[s[i]>>4])
			b.WriteByte(hexDigits[s[i]&0xf])
		default:
			q := strconv.AppendQuoteRuneToASCII(buf[:0], r)
			b.Write(q[1 : len(q)-1]) // without the quotes
		}
		i += size
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"
