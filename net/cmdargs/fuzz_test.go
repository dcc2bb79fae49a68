package cmdargs

import (
	"slices"
	"strings"
	"testing"
)

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"",
		"getinfo 1234",
		`connect "\name\Player\rate\25000\snaps\20"`,
		`say "hello there" // comment`,
		"bind MOUSE1 +attack /* block */ ; echo done",
		`a"b c"d"unterminated`,
		"a/*b*/c//d",
		"map arena1\nquit",
		"\x00\x01\t\r\n\x7f\xff",
		`tell 3 "gg"`,
		strings.Repeat(`a""`, 400),
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, ignoreQuotes bool) {
		var a Args
		if ignoreQuotes {
			a.TokenizeIgnoreQuotes(text)
		} else {
			a.Tokenize(text)
		}
		raw := a.Raw()
		if !strings.HasPrefix(text, raw) || len(raw) > MaxStringChars || strings.IndexByte(raw, 0) >= 0 {
			t.Fatalf("Raw() = %q is not the capped input", raw)
		}
		if a.Argc() > MaxStringTokens {
			t.Fatalf("Argc() = %d over cap", a.Argc())
		}
		toks := tokens(a)
		for _, tok := range toks {
			if !strings.Contains(raw, tok) {
				t.Fatalf("token %q not in input", tok)
			}
			special := tok == "" || strings.ContainsFunc(tok, func(r rune) bool { return r >= 0 && r <= ' ' }) ||
				strings.Contains(tok, "//") || strings.Contains(tok, "/*")
			if ignoreQuotes {
				if special {
					t.Fatalf("ignore-quotes token %q is empty or holds whitespace or a comment", tok)
				}
				continue
			}
			if strings.Contains(tok, `"`) {
				t.Fatalf("token %q holds a quote", tok)
			}
			if special && !strings.Contains(raw, `"`+tok) {
				t.Fatalf("token %q needs quotes but is not quoted in the input", tok)
			}
		}

		var joined string
		var again Args
		if ignoreQuotes {
			joined = strings.Join(toks, " ")
			again.TokenizeIgnoreQuotes(joined)
		} else {
			joined = Join(toks)
			again.Tokenize(joined)
		}
		if len(joined) <= MaxStringChars {
			if got := tokens(again); !slices.Equal(got, toks) {
				t.Fatalf("re-tokenizing %q gave %q, want %q", joined, got, toks)
			}
		}
	})
}
