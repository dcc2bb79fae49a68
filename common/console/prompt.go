package console

import (
	"strings"
	"tremor/net/cmdargs"
	"unicode/utf8"
)

// Prompt limits.
const (
	// MaxPromptLen is the longest line the prompt holds, in bytes: the
	// most the command tokenizer reads.
	MaxPromptLen = cmdargs.MaxStringChars

	// HistorySize is how many submitted lines the prompt remembers
	// (Quake III's COMMAND_HISTORY was 32).
	HistorySize = 64
)

// Prompt is the console's input line: a one-line editor with a history of
// submitted lines and Tab completion (Quake III's field_t, g_consoleField
// and historyEditLines). The client maps keys to its methods; it never
// executes anything itself. The zero value is an empty prompt ready to
// use. Not safe for concurrent use.
//
// Text is kept as UTF-8; the cursor is a byte offset into [Prompt.Text]
// and always falls between runes.
type Prompt struct {
	buf    []byte
	text   string // string(buf), kept so that drawing does not allocate
	cursor int

	hist  []string // oldest first
	hpos  int      // index in hist of the line shown; len(hist): the draft
	draft string   // the line being typed when the walk began

	args map[string]func(prefix string) []string // by lower-case command
}

// Text returns the line.
func (p *Prompt) Text() string { return p.text }

// Cursor returns the cursor's byte offset in [Prompt.Text].
func (p *Prompt) Cursor() int { return p.cursor }

// edited records that the user changed the line: it is now the line being
// typed, whatever history entry it came from.
func (p *Prompt) edited() {
	p.text = string(p.buf)
	p.hpos = len(p.hist)
	p.draft = ""
}

// load shows s with the cursor at its end, without ending a history walk.
func (p *Prompt) load(s string) {
	p.buf = append(p.buf[:0], s...)
	p.text = s
	p.cursor = len(s)
}

// SetText replaces the line with s, cleaned as [Prompt.Insert] cleans
// text, and puts the cursor at its end.
func (p *Prompt) SetText(s string) {
	p.buf, p.cursor = p.buf[:0], 0
	p.edited()
	p.Insert(s)
}

// Clear empties the line (Ctrl+C, Ctrl+U).
func (p *Prompt) Clear() {
	p.buf, p.cursor = p.buf[:0], 0
	p.edited()
}

// InsertRune inserts a typed rune at the cursor; see [Prompt.Insert].
func (p *Prompt) InsertRune(r rune) {
	var b [utf8.UTFMax]byte
	p.insert(utf8.AppendRune(b[:0], r))
}

// Insert inserts text at the cursor, typed or pasted, and moves the
// cursor past it. Line breaks become ';', so that a pasted block of
// commands runs line by line; line breaks at its end are dropped. Tabs
// become spaces; other control characters and invalid UTF-8 are dropped.
// Text that would make the line longer than [MaxPromptLen] is dropped.
func (p *Prompt) Insert(s string) {
	p.insert([]byte(strings.TrimRight(s, "\r\n")))
}

func (p *Prompt) insert(b []byte) {
	var ins []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == '\r' && i+1 < len(b) && b[i+1] == '\n':
			// The '\n' makes the ';'.
		case r == '\r', r == '\n':
			ins = append(ins, ';')
		case r == '\t':
			ins = append(ins, ' ')
		case r == utf8.RuneError && size <= 1,
			r < ' ', r == 0x7f, 0x80 <= r && r < 0xa0:
		default:
			ins = append(ins, b[i:i+size]...)
		}
		i += size
	}
	if room := MaxPromptLen - len(p.buf); len(ins) > room {
		for room > 0 && !utf8.RuneStart(ins[room]) {
			room--
		}
		ins = ins[:room]
	}
	if len(ins) == 0 {
		return
	}
	p.buf = append(p.buf, ins...) // grow
	copy(p.buf[p.cursor+len(ins):], p.buf[p.cursor:len(p.buf)-len(ins)])
	copy(p.buf[p.cursor:], ins)
	p.cursor += len(ins)
	p.edited()
}

// remove deletes buf[i:j] and puts the cursor at i.
func (p *Prompt) remove(i, j int) {
	if i >= j {
		return
	}
	p.buf = append(p.buf[:i], p.buf[j:]...)
	p.cursor = i
	p.edited()
}

// prevRune returns the offset of the rune before offset i.
func (p *Prompt) prevRune(i int) int {
	if i <= 0 {
		return 0
	}
	_, size := utf8.DecodeLastRune(p.buf[:i])
	return i - size
}

// nextRune returns the offset of the rune after offset i.
func (p *Prompt) nextRune(i int) int {
	if i >= len(p.buf) {
		return len(p.buf)
	}
	_, size := utf8.DecodeRune(p.buf[i:])
	return i + size
}

// Backspace deletes the rune before the cursor.
func (p *Prompt) Backspace() { p.remove(p.prevRune(p.cursor), p.cursor) }

// Delete deletes the rune at the cursor.
func (p *Prompt) Delete() { p.remove(p.cursor, p.nextRune(p.cursor)) }

// Left moves the cursor one rune left.
func (p *Prompt) Left() { p.cursor = p.prevRune(p.cursor) }

// Right moves the cursor one rune right.
func (p *Prompt) Right() { p.cursor = p.nextRune(p.cursor) }

// Home moves the cursor to the start of the line.
func (p *Prompt) Home() { p.cursor = 0 }

// End moves the cursor to the end of the line.
func (p *Prompt) End() { p.cursor = len(p.buf) }

// wordStart returns the start of the word before offset i: words are runs
// of bytes other than spaces.
func (p *Prompt) wordStart(i int) int {
	for i > 0 && p.buf[i-1] == ' ' {
		i--
	}
	for i > 0 && p.buf[i-1] != ' ' {
		i--
	}
	return i
}

// WordLeft moves the cursor to the start of the word before it
// (Ctrl+Left).
func (p *Prompt) WordLeft() { p.cursor = p.wordStart(p.cursor) }

// WordRight moves the cursor past the end of the word after it
// (Ctrl+Right).
func (p *Prompt) WordRight() {
	i := p.cursor
	for i < len(p.buf) && p.buf[i] == ' ' {
		i++
	}
	for i < len(p.buf) && p.buf[i] != ' ' {
		i++
	}
	p.cursor = i
}

// DeleteWord deletes from the start of the word before the cursor to the
// cursor (Ctrl+W, Ctrl+Backspace).
func (p *Prompt) DeleteWord() { p.remove(p.wordStart(p.cursor), p.cursor) }

// Up shows the previous line of the history (Up arrow). The line being
// typed is kept and comes back when [Prompt.Down] walks past the newest
// entry. Editing a line taken from the history makes it the line being
// typed; the history entry stays as it was.
func (p *Prompt) Up() {
	if p.hpos == 0 {
		return
	}
	if p.hpos == len(p.hist) {
		p.draft = p.text
	}
	p.hpos--
	p.load(p.hist[p.hpos])
}

// Down shows the next line of the history, or the line being typed after
// the newest entry (Down arrow).
func (p *Prompt) Down() {
	if p.hpos >= len(p.hist) {
		return
	}
	p.hpos++
	if p.hpos == len(p.hist) {
		p.load(p.draft)
		p.draft = ""
		return
	}
	p.load(p.hist[p.hpos])
}

// Submit returns the line and empties the prompt (Enter). A line that is
// not blank is added to the history unless it repeats the newest entry;
// the oldest entry goes when there are more than [HistorySize]. The line
// is returned as typed, a leading '/' or '\' included: see [TrimSlash].
func (p *Prompt) Submit() string {
	line := p.text
	p.record(line)
	p.buf, p.cursor = p.buf[:0], 0
	p.edited()
	return line
}

// record adds line to the history.
func (p *Prompt) record(line string) {
	if strings.TrimSpace(line) == "" || len(p.hist) > 0 && p.hist[len(p.hist)-1] == line {
		return
	}
	if len(p.hist) == HistorySize {
		copy(p.hist, p.hist[1:])
		p.hist = p.hist[:len(p.hist)-1]
	}
	p.hist = append(p.hist, line)
}

// History returns a copy of the history, oldest first, for the program
// to save between runs.
func (p *Prompt) History() []string {
	return append([]string(nil), p.hist...)
}

// SetHistory replaces the history with h, oldest first, as if each entry
// had been submitted: blank entries and consecutive repeats are left out
// and only the newest [HistorySize] kept. Entries longer than
// [MaxPromptLen] or holding control characters, which the prompt could
// not have made, are left out too. The line being typed stays.
func (p *Prompt) SetHistory(h []string) {
	p.hist = p.hist[:0]
	for _, l := range h {
		if len(l) > MaxPromptLen || !printable(l) {
			continue
		}
		p.record(l)
	}
	p.hpos = len(p.hist)
	p.draft = ""
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return false
		}
	}
	return true
}

// TrimSlash returns line without the spaces before it and a leading '/'
// or '\', and whether it had one. Quake III's console took both as
// "this is a command"; a client that sends other lines as chat tells
// them apart with it.
func TrimSlash(line string) (string, bool) {
	s := strings.TrimLeft(line, " ")
	if s != "" && (s[0] == '/' || s[0] == '\\') {
		return s[1:], true
	}
	return line, false
}
