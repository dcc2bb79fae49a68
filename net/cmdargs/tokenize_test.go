package cmdargs

import (
	"slices"
	"strings"
	"testing"
)

func tokens(a Args) []string {
	out := make([]string, a.Argc())
	for i := range out {
		out[i] = a.Argv(i)
	}
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only whitespace", " \t\r\n ", nil},
		{"control characters are whitespace", "a\x01b\x1fc\x7fd", []string{"a", "b", "c\x7fd"}},
		{"simple", "getinfo 1234", []string{"getinfo", "1234"}},
		{"runs of whitespace", "  set   name \t Player  ", []string{"set", "name", "Player"}},
		{"quoted", `say "hello there"`, []string{"say", "hello there"}},
		{"empty quotes", `set name ""`, []string{"set", "name", ""}},
		{"unterminated quote", `say "hello there`, []string{"say", "hello there"}},
		{"quote splits token", `a"b c"d`, []string{"a", "b c", "d"}},
		{"no escapes", `say "a\"b"`, []string{"say", `a\`, "b", ""}},
		{"line comment", "map arena1 // the best map", []string{"map", "arena1"}},
		{"line comment ends text", "a // b\nc", []string{"a"}},
		{"line comment ends token", "a//b", []string{"a"}},
		{"only comment", "// nothing", nil},
		{"block comment", "a /* b */ c", []string{"a", "c"}},
		{"block comment ends token", "a/*b*/c", []string{"a", "c"}},
		{"block comment spans lines", "a /* b\nc */ d", []string{"a", "d"}},
		{"block comment not closed by its own star", "a /*/ b */ c", []string{"a", "c"}},
		{"unterminated block comment", "a /* b c", []string{"a"}},
		{"comment markers inside quotes", `say "//not /*a*/ comment"`, []string{"say", "//not /*a*/ comment"}},
		{"single slashes", "a/b / c/", []string{"a/b", "/", "c/"}},
		{"url", "connect http://host", []string{"connect", "http:"}},
		{"star slash alone", "a */ b", []string{"a", "*/", "b"}},
		{"utf8 stays whole", "name Jérôme", []string{"name", "Jérôme"}},
		{"nul ends text", "a b\x00c d", []string{"a", "b"}},
		{"info string", `connect "\name\Player\rate\25000"`, []string{"connect", `\name\Player\rate\25000`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Tokenize(tt.in)
			if got := tokens(a); !slices.Equal(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if a.Truncated() {
				t.Errorf("Truncated() = true for %q", tt.in)
			}
		})
	}
}

func TestTokenizeIgnoreQuotes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"quotes are bytes", `say "hello there"`, []string{"say", `"hello`, `there"`}},
		{"lone quote", `"`, []string{`"`}},
		{"comments still apply", `say "a // b"`, []string{"say", `"a`}},
		{"block comment", `a/*"*/b`, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokens(TokenizeIgnoreQuotes(tt.in)); !slices.Equal(got, tt.want) {
				t.Errorf("TokenizeIgnoreQuotes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenizeCaps(t *testing.T) {
	t.Run("chars", func(t *testing.T) {
		in := strings.Repeat("x", MaxStringChars-2) + " abcdef"
		a := Tokenize(in)
		if !a.Truncated() {
			t.Error("Truncated() = false")
		}
		if got, want := a.Argv(1), "a"; got != want {
			t.Errorf("Argv(1) = %q, want %q (token cut at the cap)", got, want)
		}
		if len(a.Raw()) != MaxStringChars {
			t.Errorf("len(Raw()) = %d, want %d", len(a.Raw()), MaxStringChars)
		}
	})
	t.Run("chars exactly at cap", func(t *testing.T) {
		a := Tokenize(strings.Repeat("x", MaxStringChars))
		if a.Truncated() || a.Argc() != 1 {
			t.Errorf("Truncated() = %v, Argc() = %d; want false, 1", a.Truncated(), a.Argc())
		}
	})
	t.Run("densest tokens", func(t *testing.T) {
		// `a""` is two tokens in three bytes, the densest packing: the
		// char cap keeps the token count under MaxStringTokens.
		in := strings.Repeat(`a""`, MaxStringChars/3+1)
		a := Tokenize(in)
		if got, want := a.Argc(), 2*(MaxStringChars/3)+1; got != want {
			t.Errorf("Argc() = %d, want %d", got, want)
		}
		if !a.Truncated() {
			t.Error("Truncated() = false")
		}
	})
	t.Run("ignore quotes", func(t *testing.T) {
		in := strings.Repeat("a ", MaxStringChars)
		a := TokenizeIgnoreQuotes(in)
		if a.Argc() != MaxStringChars/2 || !a.Truncated() {
			t.Errorf("Argc() = %d, Truncated() = %v", a.Argc(), a.Truncated())
		}
	})
}

func TestArgs(t *testing.T) {
	a := Tokenize(`say  "hello  world" /* x */ again`)
	tests := []struct {
		name, got, want string
	}{
		{"Argv(0)", a.Argv(0), "say"},
		{"Argv(-1)", a.Argv(-1), ""},
		{"Argv(3)", a.Argv(3), ""},
		{"ArgsFrom(1)", a.ArgsFrom(1), "hello  world again"},
		{"ArgsFrom(-5)", a.ArgsFrom(-5), "say hello  world again"},
		{"ArgsFrom(3)", a.ArgsFrom(3), ""},
		{"Raw", a.Raw(), `say  "hello  world" /* x */ again`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	var zero Args
	if zero.Argc() != 0 || zero.Argv(0) != "" || zero.ArgsFrom(0) != "" {
		t.Error("zero Args not empty")
	}
}

func TestArgsReuse(t *testing.T) {
	var a Args
	a.Tokenize("one two three")
	a.Tokenize("four")
	if got := tokens(a); !slices.Equal(got, []string{"four"}) {
		t.Errorf("after reuse got %q", got)
	}
}

func TestQuoteJoin(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"plain", "plain"},
		{"", `""`},
		{"two words", `"two words"`},
		{"a//b", `"a//b"`},
		{"a/*b", `"a/*b"`},
		{"a/b", "a/b"},
		{"tab\there", "\"tab\there\""},
		{`\name\x`, `\name\x`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	toks := []string{"set", "sv_hostname", "Tremor // LAN", "", "x/"}
	if got := tokens(Tokenize(Join(toks))); !slices.Equal(got, toks) {
		t.Errorf("Tokenize(Join(%q)) = %q", toks, got)
	}
}

func TestTokenizeAllocs(t *testing.T) {
	var a Args
	line := `say "hello there" /* c */ everyone // comment`
	a.Tokenize(line)
	allocs := testing.AllocsPerRun(100, func() {
		a.Tokenize(line)
		_, _, _ = NextToken(Cut(line), 0)
	})
	if allocs != 0 {
		t.Errorf("Tokenize with reused Args: %v allocs, want 0", allocs)
	}
}

func BenchmarkTokenize(b *testing.B) {
	var a Args
	line := `connect "\name\Player\rate\25000\snaps\20\cl_maxpackets\30" // go`
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		a.Tokenize(line)
	}
}

func TestQuoteText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello", `"hello"`},
		{`say "hi"`, `"say 'hi'"`},
		{"two\nlines\r", `"two lines "`},
		{"", `""`},
		{`a\nb`, `"a\nb"`},
	} {
		got := QuoteText(tc.in)
		if got != tc.want {
			t.Errorf("QuoteText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if a := Tokenize("cmd " + got); a.Argc() != 2 {
			t.Errorf("QuoteText(%q) read back as %d tokens", tc.in, a.Argc())
		}
	}
	if got := Quote("a;b"); got != `"a;b"` {
		t.Errorf(`Quote("a;b") = %q: a ';' would split a command buffer`, got)
	}
}
