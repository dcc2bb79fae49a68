package route

import (
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/ui/keys"
)

// Chat is the chat field (messagemode, Quake III's Message_Key) as a
// Layer: Enter says the line, Escape drops it.
type Chat struct {
	// Prompt is the line being typed.
	Prompt console.Prompt

	t  *console.Table
	on bool
}

// NewChat returns a closed chat field that says its lines through t.
func NewChat(t *console.Table) *Chat { return &Chat{t: t} }

// Active reports whether the chat field is open.
func (c *Chat) Active() bool { return c.on }

// Open opens the chat field with an empty line.
func (c *Chat) Open() {
	c.Prompt.Clear()
	c.on = true
}

// Close closes the chat field.
func (c *Chat) Close() { c.on = false }

// Char types r into the line.
func (c *Chat) Char(r rune) { c.Prompt.InsertRune(r) }

// Key edits the line. It takes every key but the console's, whose
// binding opens the console over the field.
func (c *Chat) Key(e Event) bool {
	p := &c.Prompt
	switch e.Key {
	case keys.KeyConsole, keys.KeyTilde:
		return false
	case keys.KeyEscape:
		c.on = false
	case keys.KeyEnter, keys.KeyKPEnter:
		if e.Repeat {
			break
		}
		if line := p.Submit(); line != "" {
			c.t.Append("say " + cmdargs.QuoteText(line) + "\n")
		}
		c.on = false
	case keys.KeyBackspace:
		p.Backspace()
	case keys.KeyLeftArrow:
		p.Left()
	case keys.KeyRightArrow:
		p.Right()
	}
	return true
}
