package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{"empty", "", "", ""},
		{"plain", "Headless0: hi all", "Headless0: hi all", "Headless0: hi all"},
		{"letters", "Zoë 日本", "Zoë 日本", "Zoë 日本"},
		{"title", "\x1b]0;TITLE\x07", `\x1b]0;TITLE\a`, `\x1b]0;TITLE\a`},
		{"clear", "\x1b[2Jgone", `\x1b[2Jgone`, `\x1b[2Jgone`},
		{"report cursor", "\x1b[6n", `\x1b[6n`, `\x1b[6n`},
		{"newline", "one\ntwo\n", `one\ntwo\n`, "one\ntwo\n"},
		{"carriage return", "car\rriage", `car\rriage`, `car\rriage`},
		{"tab", "a\tb", `a\tb`, `a\tb`},
		{"nul and del", "a\x00b\x7fc", `a\x00b\x7fc`, `a\x00b\x7fc`},
		{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		{"bidi override", "bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"not utf-8", "bad\xffbyte\x9b", `bad\xffbyte\x9b`, `bad\xffbyte\x9b`},
		{"cut rune", "Zo\xc3", `Zo\xc3`, `Zo\xc3`},
		{"replacement character", "\ufffd", "\ufffd", "\ufffd"},
		{"no-break space", "a\u00a0b", `a\u00a0b`, `a\u00a0b`},
		{"tag character", "a\U000e0001", `a\U000e0001`, `a\U000e0001`},
		{"backslash kept", `C:\maps`, `C:\maps`, `C:\maps`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestCleanTextNotCopied(t *testing.T) {
	s := strings.Repeat("plain text, Zoë. ", 4)
	lines := s + "\n" + s
	if n := testing.AllocsPerRun(100, func() { _ = Line(s); _ = Text(lines) }); n != 0 {
		t.Errorf("%v allocations for text that needs no change", n)
	}
}

// check tests the properties Line (newlines false) and Text promise for
// any input.
func check(t *testing.T, in string, newlines bool) {
	f, name := Line, "Line"
	if newlines {
		f, name = Text, "Text"
	}
	out := f(in)
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not UTF-8", name, in, out)
	}
	for i, r := range out {
		if r == '\n' && newlines {
			continue
		}
		if !unicode.IsPrint(r) || r == 0x1b || r < 0x20 || r >= 0x7f && r < 0xa0 {
			t.Fatalf("%s(%q) = %q: %U at byte %d", name, in, out, r, i)
		}
	}
	if again := f(out); again != out {
		t.Fatalf("%s not idempotent: %q, then %q", name, out, again)
	}
	if len(out) > 4*len(in) {
		t.Fatalf("%s(%q) is %d bytes, more than 4 per input byte", name, in, len(out))
	}
	clean := utf8.ValidString(in) && !strings.ContainsFunc(in, func(r rune) bool {
		return !unicode.IsPrint(r) && !(newlines && r == '\n')
	})
	if clean != (out == in) {
		t.Fatalf("%s(%q) = %q: clean input %v, unchanged %v", name, in, out, clean, out == in)
	}
	if !newlines && strings.Count(Text(in), "\n") != strings.Count(in, "\n") {
		t.Fatalf("Text(%q) changed the number of lines", in)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b]0;TITLE\x07", "\x1b[2J", "\x1b[6n", "a\nb\r\n", "\u009b6n",
		"\u202e", "\xff\xfe", "Zo\xc3", "\U000e0041", `\x1b`, "\ufffd", "\x00\x7f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		check(t, in, false)
		check(t, in, true)
		if Line(Text(in)) != Line(in) {
			t.Fatalf("Line(Text(%q)) = %q, Line = %q", in, Line(Text(in)), Line(in))
		}
	})
}
