package route

import (
	"fmt"

	"tremor/common/console"
	"tremor/ui/keys"
)

// Console is the drop-down console as a Layer (Quake III's Console_Key
// and the console's half of CL_CharEvent): it edits the input line and
// runs it on Enter, scrolls the text, and takes every key while open.
type Console struct {
	// Prompt is the input line, with its history and completion.
	Prompt console.Prompt

	t  *console.Table
	sb *console.Scrollback
	on bool
}

// NewConsole returns a closed console that runs its lines on t and
// echoes them to sb.
func NewConsole(t *console.Table, sb *console.Scrollback) *Console {
	return &Console{t: t, sb: sb}
}

// Active reports whether the console is open.
func (c *Console) Active() bool { return c.on }

// Toggle opens or closes the console; the notify lines start afresh.
func (c *Console) Toggle() {
	c.on = !c.on
	c.sb.ClearNotify()
}

// Char types r into the input line.
func (c *Console) Char(r rune) { c.Prompt.InsertRune(r) }

// Key edits the input line (see docs/client-window.md, "The console").
// It takes every key: nothing typed at the console fires or moves.
func (c *Console) Key(e Event) bool {
	p, sb := &c.Prompt, c.sb
	switch e.Key {
	case keys.KeyConsole, keys.KeyTilde, keys.KeyEscape:
		if !e.Repeat {
			c.Toggle()
		}
	case keys.KeyEnter, keys.KeyKPEnter:
		if !e.Repeat {
			c.run()
		}
	case keys.KeyTab:
		if !e.Repeat {
			c.complete()
		}
	case keys.KeyBackspace:
		if e.Ctrl {
			p.DeleteWord()
		} else {
			p.Backspace()
		}
	case keys.KeyDel:
		p.Delete()
	case keys.KeyLeftArrow:
		if e.Ctrl {
			p.WordLeft()
		} else {
			p.Left()
		}
	case keys.KeyRightArrow:
		if e.Ctrl {
			p.WordRight()
		} else {
			p.Right()
		}
	case keys.KeyUpArrow:
		p.Up()
	case keys.KeyDownArrow:
		p.Down()
	case keys.KeyPgUp:
		sb.ScrollUp(4)
	case keys.KeyPgDn:
		sb.ScrollDown(4)
	case keys.KeyMWheelUp:
		sb.ScrollUp(2)
	case keys.KeyMWheelDown:
		sb.ScrollDown(2)
	case keys.KeyHome:
		if e.Ctrl {
			sb.Top()
		} else {
			p.Home()
		}
	case keys.KeyEnd:
		if e.Ctrl {
			sb.Bottom()
		} else {
			p.End()
		}
	case 'l':
		if e.Ctrl && !e.Repeat {
			sb.Clear()
		}
	case 'w':
		if e.Ctrl {
			p.DeleteWord()
		}
	}
	return true
}

// run echoes the input line and queues it on the command buffer.
func (c *Console) run() {
	line := c.Prompt.Submit()
	fmt.Fprintf(c.sb, "]%s\n", line)
	c.sb.Bottom()
	if cmd, _ := console.TrimSlash(line); cmd != "" {
		c.t.Append(cmd + "\n")
	}
}

// complete completes the word under the cursor, listing the matches
// when there are several.
func (c *Console) complete() {
	before := c.Prompt.Text()
	if matches := c.Prompt.Complete(c.t); len(matches) > 1 {
		fmt.Fprintf(c.sb, "]%s\n", before)
		for _, m := range matches {
			fmt.Fprintf(c.sb, "    %s\n", console.DescribeMatch(c.t, m))
		}
	}
}
