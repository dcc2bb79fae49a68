package cmdargs

import "strings"

// Tokenizer limits (Quake III's MAX_STRING_TOKENS and MAX_STRING_CHARS).
const (
	// MaxStringTokens is the most tokens one command line yields; tokens
	// past it are dropped.
	MaxStringTokens = 1024

	// MaxStringChars is the most bytes of a command line the tokenizer
	// reads; bytes past it are dropped.
	MaxStringChars = 1024
)

// Args is a tokenized command line: Quake III's cmd_argc/cmd_argv.
// The zero value holds no tokens. Tokens are substrings of the text given
// to Tokenize, so an Args reused through its Tokenize method allocates
// nothing once its token slice has grown.
//
// The rules, those of Quake III's Cmd_TokenizeString:
//   - Whitespace is any byte <= ' ' (control characters included). Bytes
//     >= 0x80 are ordinary token bytes, so UTF-8 names stay whole. (Quake
//     III compared signed chars, so on x86 it treated them as whitespace.)
//   - A NUL byte ends the text, as it ended a C string.
//   - "//" outside a quoted string starts a comment that runs to the end of
//     the text. Quake III tokenized one line at a time, so this was also
//     the end of the line; Tremor's callers pass one line too.
//   - "/*" outside a quoted string starts a comment that runs to the next
//     "*/"; an unterminated one runs to the end of the text.
//   - A double quote starts a token that runs to the next double quote,
//     whitespace and comment markers included; there are no escapes. An
//     unterminated quote runs to the end of the text. `""` is an empty
//     token.
//   - Any other token runs to whitespace, a double quote, or the start of
//     "//" or "/*". So `a"b c"` is two tokens, a and "b c".
//   - In ignore-quotes mode (TokenizeIgnoreQuotes, Quake III's
//     Cmd_TokenizeStringIgnoreQuotes, used for chat text) a double quote
//     is an ordinary byte.
//
// Like Quake III, the tokenizer silently truncates: it reads at most
// [MaxStringChars] bytes of text and keeps at most [MaxStringTokens]
// tokens. Unlike Quake III it tells: [Args.Truncated] reports whether
// either cap cut something off. (With both caps at 1024 the token cap is a
// safeguard only: a token takes at least one and a half bytes on average,
// `a""` being the densest packing, so 1024 bytes hold at most 683 tokens.)
type Args struct {
	raw       string
	argv      []string
	truncated bool
}

// Tokenize splits text into tokens following the rules documented on
// [Args]. It corresponds to Cmd_TokenizeString.
func Tokenize(text string) Args {
	var a Args
	a.Tokenize(text)
	return a
}

// TokenizeIgnoreQuotes splits text like [Tokenize] but treats double
// quotes as ordinary bytes. It corresponds to
// Cmd_TokenizeStringIgnoreQuotes.
func TokenizeIgnoreQuotes(text string) Args {
	var a Args
	a.TokenizeIgnoreQuotes(text)
	return a
}

// Tokenize replaces a's tokens with those of text, reusing a's storage.
func (a *Args) Tokenize(text string) { a.tokenize(text, false) }

// TokenizeIgnoreQuotes replaces a's tokens with those of text, treating
// double quotes as ordinary bytes and reusing a's storage.
func (a *Args) TokenizeIgnoreQuotes(text string) { a.tokenize(text, true) }

func (a *Args) tokenize(text string, ignoreQuotes bool) {
	clear(a.argv) // drop references to the previous text
	a.argv = a.argv[:0]
	a.truncated = false
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	if len(text) > MaxStringChars {
		text = text[:MaxStringChars]
		a.truncated = true
	}
	a.raw = text
	for i := 0; ; {
		tok, next, ok := nextToken(text, i, ignoreQuotes)
		if !ok {
			return
		}
		if len(a.argv) == MaxStringTokens {
			a.truncated = true
			return
		}
		a.argv = append(a.argv, tok)
		i = next
	}
}

// capChars cuts text as the tokenizer does: at a NUL byte and at
// MaxStringChars bytes.
// Cut returns text as the tokenizer sees it: up to its first NUL byte and
// at most [MaxStringChars] bytes (on a character boundary as the
// tokenizer cuts). Use it before [NextToken].
func Cut(text string) string { return capChars(text) }

// NextToken returns the token of s that starts at or after byte i, and
// the index just past it; ok is false when no token is left. It reads
// tokens one at a time without allocating, as [Tokenize] would read them
// from s (after [Cut]).
func NextToken(s string, i int) (tok string, next int, ok bool) { return nextToken(s, i, false) }

func capChars(text string) string {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	if len(text) > MaxStringChars {
		text = text[:MaxStringChars]
	}
	return text
}

// nextToken scans the token that starts at or after s[i]. It returns the
// token, the offset just past it, and false when s holds no more tokens.
// Every call that returns true advances past at least one byte.
func nextToken(s string, i int, ignoreQuotes bool) (tok string, next int, ok bool) {
	// Skip whitespace and comments.
	for {
		for i < len(s) && s[i] <= ' ' {
			i++
		}
		if i >= len(s) {
			return "", len(s), false
		}
		if s[i] != '/' || i+1 >= len(s) {
			break
		}
		if s[i+1] == '/' {
			return "", len(s), false
		}
		if s[i+1] != '*' {
			break
		}
		end := strings.Index(s[i+2:], "*/")
		if end < 0 {
			return "", len(s), false
		}
		i += 2 + end + 2
	}

	if !ignoreQuotes && s[i] == '"' {
		i++
		end := strings.IndexByte(s[i:], '"')
		if end < 0 {
			return s[i:], len(s), true
		}
		return s[i : i+end], i + end + 1, true
	}

	start := i
	for i < len(s) && s[i] > ' ' {
		if !ignoreQuotes && s[i] == '"' {
			break
		}
		if s[i] == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*') {
			break
		}
		i++
	}
	return s[start:i], i, true
}

// Argc returns the number of tokens (Cmd_Argc).
func (a Args) Argc() int { return len(a.argv) }

// Argv returns token i, or "" if i is out of range (Cmd_Argv).
func (a Args) Argv(i int) string {
	if i < 0 || i >= len(a.argv) {
		return ""
	}
	return a.argv[i]
}

// ArgsFrom returns tokens i and after joined by single spaces, or "" if
// there are none; a negative i counts as 0 (Cmd_ArgsFrom). Quotes and
// comments of the original text are gone: use [Args.Raw] to see them.
func (a Args) ArgsFrom(i int) string {
	if i < 0 {
		i = 0
	}
	if i >= len(a.argv) {
		return ""
	}
	return strings.Join(a.argv[i:], " ")
}

// Raw returns the text the tokens came from, after the cut at a NUL byte
// and at MaxStringChars (Cmd_Cmd).
func (a Args) Raw() string { return a.raw }

// Truncated reports whether the text was longer than [MaxStringChars] or
// held more than [MaxStringTokens] tokens, so that tokens were lost or cut
// short. Quake III dropped them silently.
func (a Args) Truncated() bool { return a.truncated }

// Quote returns s written as one token: unchanged if [Tokenize] reads it
// back as it is, otherwise inside double quotes. The tokenizer has no
// escapes, so a double quote or a NUL byte in s cannot be represented:
// the token read back ends there.
func Quote(s string) string {
	if !needsQuotes(s) {
		return s
	}
	return `"` + s + `"`
}

// QuoteText returns any text as one quoted command argument whose
// content is the text: a double quote, which a quoted argument cannot
// hold, becomes a single quote, and a line break, which would end the
// command, a space. It is for text that people wrote (chat, names,
// reasons) going into a command such as `chat "..."` or `say "..."`.
func QuoteText(s string) string {
	return `"` + strings.Map(func(r rune) rune {
		switch r {
		case '"':
			return '\''
		case '\n', '\r':
			return ' '
		}
		return r
	}, s) + `"`
}

func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		// ';' separates commands in a command buffer (Cbuf), so a token
		// holding one is quoted too.
		if c <= ' ' || c == '"' || c == ';' {
			return true
		}
		if c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*') {
			return true
		}
	}
	return false
}

// Join returns tokens written as one command line, each passed through
// [Quote] and separated by single spaces, so that [Tokenize] gives the
// same tokens back when none holds a double quote or a NUL byte and the
// line fits in [MaxStringChars].
func Join(tokens []string) string {
	var b strings.Builder
	for i, t := range tokens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(t))
	}
	return b.String()
}
