package console

import (
	"fmt"
	"io"
)

// Command buffer limits.
const (
	// MaxBufferSize is the most bytes the command buffer holds; text that
	// would overflow it is dropped with a printed note (MAX_CMD_BUFFER).
	MaxBufferSize = 128 << 10

	// MaxNesting is how deep exec and vstr may nest: a config file that
	// execs itself stops there. A vstr that is the last command of the
	// text that ran it does not nest deeper, so a script loop that waits
	// between rounds runs for as long as it likes.
	MaxNesting = 16

	// MaxCommandsPerExecute is the most lines one call of
	// [Table.Execute] runs. Past it the buffer is taken for a runaway
	// script (a vstr that runs itself without a wait) and discarded.
	MaxCommandsPerExecute = 10000
)

// cbuf is a command buffer: the table's main one, or the private one of
// an [Table.ExecuteRemote] call. Guarded by the table's bufMu.
type cbuf struct {
	segs     []segment
	bufLen   int
	wait     int
	curDepth int  // nesting depth of the line being executed
	curTail  bool // that line was the last of its segment
}

// cur returns the buffer the line being executed came from: text a
// command inserts goes there. Called with bufMu held.
func (t *Table) cur() *cbuf {
	if t.sub != nil {
		return t.sub
	}
	return &t.main
}

// segment is text queued by one Append or Insert. Lines never span
// segments, so a quote or comment left open in one piece of text (a config
// file) ends with it.
type segment struct {
	text  string
	depth int // nesting depth of exec and vstr
}

// Append adds text at the end of the command buffer (Cbuf_AddText). The
// text ends a line: Append("a") then Append("b") queues two lines.
func (t *Table) Append(text string) {
	if text == "" {
		return
	}
	t.bufMu.Lock()
	b := &t.main
	ok := b.bufLen+len(text) <= MaxBufferSize
	if ok {
		// segs holds the front of the buffer at its end.
		b.segs = append(b.segs, segment{})
		copy(b.segs[1:], b.segs)
		b.segs[0] = segment{text: text}
		b.bufLen += len(text)
	}
	t.bufMu.Unlock()
	if !ok {
		t.Printf("console: command buffer full; dropped %d bytes\n", len(text))
	}
}

// Insert adds text at the front of the command buffer, to run before
// what is queued (Cbuf_InsertText). A command that inserts text runs it
// next, as vstr does.
func (t *Table) Insert(text string) {
	if err := t.insert(text, false); err != nil {
		t.Printf("%v\n", err)
	}
}

// insert queues text at the front. If nest, the text counts one level
// deeper than the line being executed; otherwise it does too, unless that
// line was the last of its text (a tail call). It refuses text past
// MaxNesting levels.
func (t *Table) insert(text string, nest bool) error {
	if text == "" {
		return nil
	}
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	b := t.cur()
	depth := 0
	if t.executing.Load() {
		depth = b.curDepth
		if nest || !b.curTail {
			depth++
		}
	}
	if depth > MaxNesting {
		return fmt.Errorf("console: scripts nested more than %d deep; ignored", MaxNesting)
	}
	if b.bufLen+len(text) > MaxBufferSize {
		return fmt.Errorf("console: command buffer full; dropped %d bytes", len(text))
	}
	b.segs = append(b.segs, segment{text: text, depth: depth})
	b.bufLen += len(text)
	return nil
}

// Execute runs the command buffer (Cbuf_Execute); the owner calls it once
// per frame. It runs line after line until the buffer is empty or a wait
// command pauses it; a paused buffer resumes after as many calls as the
// wait asked for. Lines end at a newline, or at a ';' outside double
// quotes and comments. A call made from inside a command returns at once.
func (t *Table) Execute() {
	if !t.executing.CompareAndSwap(false, true) {
		return
	}
	defer func() {
		t.bufMu.Lock()
		t.main.curDepth, t.main.curTail = 0, false
		t.bufMu.Unlock()
		t.executing.Store(false)
	}()

	t.bufMu.Lock()
	if t.main.wait > 0 {
		t.main.wait--
	}
	t.bufMu.Unlock()
	t.run(&t.main, true)
}

// run executes the lines of b until it is empty, or, if honourWait, a
// wait pauses it.
func (t *Table) run(b *cbuf, honourWait bool) {
	for n := 0; ; n++ {
		t.bufMu.Lock()
		if honourWait && b.wait > 0 {
			t.bufMu.Unlock()
			return
		}
		if n == MaxCommandsPerExecute && len(b.segs) > 0 {
			dropped := b.bufLen
			b.segs, b.bufLen = nil, 0
			t.bufMu.Unlock()
			t.Printf("console: more than %d commands in one frame, a runaway script? Dropped the %d bytes left in the command buffer\n", MaxCommandsPerExecute, dropped)
			return
		}
		line, ok := b.nextLine()
		t.bufMu.Unlock()
		if !ok {
			return
		}
		t.executeLine(line)
	}
}

// ExecuteRemote runs text that came from the network (the server's rcon)
// at once and to its end, with everything it prints going to w instead
// of the table's output. The text gets a command buffer of its own, so
// what its exec and vstr commands insert runs inside the call too, and
// wait does not pause it. It is marked remote: commands not added with
// [Table.AddRemoteCommand] (or built in) are refused, and so is setting a
// declared cvar without the [Remote] flag. Call it on the goroutine that
// executes the table. Lines printed by other goroutines meanwhile go to w
// as well.
func (t *Table) ExecuteRemote(text string, w io.Writer) {
	if len(text) > MaxBufferSize {
		fmt.Fprintf(w, "console: remote text longer than %d bytes; ignored\n", MaxBufferSize)
		return
	}
	sub := &cbuf{}
	if text != "" {
		sub.segs = []segment{{text: text}}
		sub.bufLen = len(text)
	}
	t.bufMu.Lock()
	prevSub := t.sub
	t.sub = sub
	t.bufMu.Unlock()
	prevSrc := t.source
	t.source = fromRemote
	prevExec := t.executing.Swap(true)
	t.outMu.Lock()
	prevOut := t.out
	t.out = w
	t.outMu.Unlock()
	defer func() {
		t.outMu.Lock()
		t.out = prevOut
		t.outMu.Unlock()
		t.executing.Store(prevExec)
		t.source = prevSrc
		t.bufMu.Lock()
		t.sub = prevSub
		t.bufMu.Unlock()
	}()
	t.run(sub, false)
}

// nextLine takes the first line off the buffer and records its depth.
// Called with the table's bufMu held.
func (b *cbuf) nextLine() (string, bool) {
	if len(b.segs) == 0 {
		return "", false
	}
	s := &b.segs[len(b.segs)-1]
	line, rest, ended := splitLine(s.text)
	b.bufLen -= len(s.text) - len(rest)
	b.curDepth = s.depth
	b.curTail = !ended || rest == ""
	if b.curTail {
		b.segs[len(b.segs)-1] = segment{}
		b.segs = b.segs[:len(b.segs)-1]
	} else {
		s.text = rest
	}
	return line, true
}

// splitLine returns the first line of text and the text after its
// separator, and whether a separator ended it. A line ends at '\n' or
// '\r' (unless inside a /* */ comment) and at ';' outside double quotes
// and comments. A "//" comment runs to the end of the line.
func splitLine(text string) (line, rest string, ended bool) {
	const (
		normal = iota
		quoted
		lineComment
		blockComment
	)
	state := normal
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch state {
		case normal:
			switch {
			case c == '"':
				state = quoted
			case c == '/' && i+1 < len(text) && text[i+1] == '/':
				state = lineComment
				i++
			case c == '/' && i+1 < len(text) && text[i+1] == '*':
				state = blockComment
				i++
			case c == ';', c == '\n', c == '\r':
				return text[:i], text[i+1:], true
			}
		case quoted:
			switch c {
			case '"':
				state = normal
			case '\n', '\r':
				return text[:i], text[i+1:], true
			}
		case lineComment:
			if c == '\n' || c == '\r' {
				return text[:i], text[i+1:], true
			}
		case blockComment:
			if c == '*' && i+1 < len(text) && text[i+1] == '/' {
				state = normal
				i++
			}
		}
	}
	return text, "", false
}

// Wait pauses the command buffer: the rest of it runs frames calls of
// [Table.Execute] later. The wait command calls it.
func (t *Table) Wait(frames int) {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	t.cur().wait = max(frames, 0)
}

// Pending reports whether the command buffer holds text.
func (t *Table) Pending() bool {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	return len(t.main.segs) > 0
}

// ClearBuffer discards the command buffer and any wait.
func (t *Table) ClearBuffer() {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	t.main.segs, t.main.bufLen, t.main.wait = nil, 0, 0
}
