package console

import (
	"slices"
	"strings"
	"tremor/net/cmdargs"
	"unicode/utf8"
)

// SetArgCompleter sets the function that lists the candidates for the
// first argument of the command cmd (compared ignoring ASCII case), for
// Tab completion: map names for map, key names for bind, a team for team.
// fn gets the word typed so far; it may return every candidate, as
// [Prompt.Complete] keeps those that start with the word ignoring case.
// Candidates should be single tokens. The command need not be in the
// table (it may be forwarded to the server). A nil fn removes the
// completer. A completer replaces the built-in completion of a command.
func (p *Prompt) SetArgCompleter(cmd string, fn func(prefix string) []string) {
	key := lower(cmd)
	if fn == nil {
		delete(p.args, key)
		return
	}
	if p.args == nil {
		p.args = make(map[string]func(string) []string)
	}
	p.args[key] = fn
}

// Complete completes the word before the cursor (Tab; Quake III's
// Field_AutoComplete). A unique candidate replaces the word, followed by
// a space; when several match, the word is extended to their longest
// common prefix and they are returned, sorted, for the console to list.
// It returns nil otherwise. Names are compared ignoring ASCII case and
// take the candidate's case.
//
// What a word completes to depends on where it is:
//   - The first word of a command completes to command and cvar names
//     of t. A leading '/' or '\' is skipped, and so is everything up to
//     the last ';' outside quotes: the last command of the line is
//     completed.
//   - The first argument of a command with a completer set by
//     [Prompt.SetArgCompleter] completes to that completer's candidates.
//   - The first argument of set, seta, sets, setu, toggle, reset, vstr
//     and cvarlist completes to cvar names; of cmdlist, to command names;
//     of help, to both.
//   - The first argument of a bare cvar name completes to the cvar's
//     current value (in quotes if it needs them, with no space after it),
//     so that it can be edited.
//   - From the second argument of bind on, the rest of the line is a
//     command of its own and completes as one.
//
// Nothing inside an unclosed double quote is completed. t may be nil:
// then only the completers set on the prompt are used.
func (p *Prompt) Complete(t *Table) []string {
	before := p.text[:p.cursor]
	start, cands, space := p.completeCommand(t, before, commandStart(before))
	if start < 0 || len(cands) == 0 {
		return nil
	}
	prefix := before[start:]
	slices.SortFunc(cands, compareNames)
	cands = slices.Compact(cands)
	if len(cands) == 1 {
		repl := cands[0]
		if space {
			if p.cursor < len(p.buf) && p.buf[p.cursor] == ' ' {
				p.replace(start, p.cursor+1, repl+" ")
			} else {
				p.replace(start, p.cursor, repl+" ")
			}
		} else {
			p.replace(start, p.cursor, repl)
		}
		return nil
	}
	if l := commonPrefixLen(cands); l > len(prefix) {
		p.replace(start, p.cursor, cands[0][:l])
	}
	return cands
}

// replace replaces buf[i:j] with s and puts the cursor after it, unless
// the line would grow past MaxPromptLen.
func (p *Prompt) replace(i, j int, s string) {
	if len(p.buf)-(j-i)+len(s) > MaxPromptLen {
		return
	}
	p.buf = slices.Replace(p.buf, i, j, []byte(s)...)
	p.cursor = i + len(s)
	p.edited()
}

// commandStart returns where the command to complete starts in s: after
// the last ';' outside double quotes, or after a leading '/' or '\'.
func commandStart(s string) int {
	start := 0
	for start < len(s) && s[start] <= ' ' {
		start++
	}
	if start < len(s) && (s[start] == '/' || s[start] == '\\') {
		start++
	}
	quoted := false
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ';':
			if !quoted {
				start = i + 1
			}
		}
	}
	return start
}

// completeCommand finds the word being completed in the command that
// starts at off in s (the text before the cursor) and the candidates for
// it. It returns the word's start, or -1 if there is nothing to complete,
// the candidates and whether a unique one is followed by a space.
func (p *Prompt) completeCommand(t *Table, s string, off int) (start int, cands []string, space bool) {
	var first string // the command's name
	argStart := -1   // where its second argument starts
	arg := 0         // the index of the word being completed
	i := off
	for {
		for i < len(s) && s[i] <= ' ' {
			i++
		}
		if i == len(s) {
			start = i
			break
		}
		ws := i
		if s[i] == '"' {
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return -1, nil, false // inside an open quote
			}
			i += j + 2
		} else {
			for i < len(s) && s[i] > ' ' && s[i] != '"' {
				i++
			}
		}
		if i == len(s) {
			if s[ws] == '"' {
				return -1, nil, false // just after a closing quote
			}
			start = ws
			break
		}
		switch arg {
		case 0:
			first = s[ws:i]
		case 2:
			argStart = ws
		}
		arg++
	}
	prefix := s[start:]

	if arg == 0 {
		if t == nil {
			return start, nil, true
		}
		return start, t.Complete(prefix), true
	}
	cmd := lower(first)
	if cmd == "bind" && arg >= 2 {
		if arg == 2 {
			argStart = start
		}
		return p.completeCommand(t, s, argStart)
	}
	if arg != 1 {
		return -1, nil, false
	}
	if fn := p.args[cmd]; fn != nil {
		return start, filterPrefix(fn(prefix), prefix), true
	}
	if t == nil {
		return -1, nil, false
	}
	switch cmd {
	case "set", "seta", "sets", "setu", "toggle", "reset", "vstr", "cvarlist":
		return start, filterPrefix(t.CvarNames(), prefix), true
	case "cmdlist":
		return start, filterPrefix(t.CommandNames(), prefix), true
	case "help":
		return start, t.Complete(prefix), true
	}
	if c := t.Get(first); c != nil {
		// The value as one token; one holding a double quote cannot be.
		if v := c.Value(); v != "" && !strings.Contains(v, `"`) {
			if q := cmdargs.Quote(v); hasPrefixFold(q, prefix) {
				return start, []string{q}, false
			}
		}
	}
	return -1, nil, false
}

// filterPrefix returns the names in names that start with prefix,
// ignoring ASCII case, in a new slice.
func filterPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if n != "" && hasPrefixFold(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII
// case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerByte(s[i]) != lowerByte(prefix[i]) {
			return false
		}
	}
	return true
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// compareNames orders names ignoring ASCII case, then by bytes, as the
// table lists them.
func compareNames(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if x, y := lowerByte(a[i]), lowerByte(b[i]); x != y {
			return int(x) - int(y)
		}
	}
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// commonPrefixLen returns the length of the longest prefix that all of
// names share, ignoring ASCII case, cut back to a rune boundary of
// names[0].
func commonPrefixLen(names []string) int {
	first := names[0]
	l := len(first)
	for _, n := range names[1:] {
		l = min(l, len(n))
		for k := 0; k < l; k++ {
			if lowerByte(first[k]) != lowerByte(n[k]) {
				l = k
				break
			}
		}
	}
	for l > 0 && l < len(first) && !utf8.RuneStart(first[l]) {
		l--
	}
	return l
}

// DescribeMatch returns how the console lists a completion candidate: a
// cvar's name with its value, or the name alone.
func DescribeMatch(t *Table, name string) string {
	if t != nil {
		if c := t.Get(name); c != nil {
			return name + ` = "` + c.Value() + `"`
		}
	}
	return name
}
