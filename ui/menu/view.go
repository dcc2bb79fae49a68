package menu

import "math"

// Layout metrics, in pixels at UI scale 1 (SetScale multiplies them all).
// The layout assumes a font whose glyph cell is GlyphW×GlyphH at scale 1
// (basicfont's 7×13).
const (
	GlyphW, GlyphH = 7, 13
	TextScale      = 2 // items, message and hint
	TitleScale     = 3
	DetailScale    = 1 // the cvar or command after an item's label
	RowHeight      = 32
	MaxPanelWidth  = 800

	titleHeight  = 70
	footHeight   = 70 // message line and hint line
	screenMargin = 16
	rowInset     = 12 // row rectangle inside the panel
	pad          = 16 // text inside the row
	barWidth     = 220
	barHeight    = 12
)

// Rect is a screen rectangle.
type Rect struct{ X, Y, W, H int }

// Contains reports whether (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Item is one row of a laid-out page.
type Item struct {
	Label  string
	Detail string // the cvar or command behind the item, drawn small; may be ""
	Value  string // drawn right-aligned at ValueRight
	Unit   string // drawn small after the value; may be ""
	Kind   Kind

	Selected  bool
	Editing   bool    // a text field with the keyboard: draw a caret after Value
	Changed   bool    // a text field with an edit not yet set
	Capturing bool    // a key item waiting for a key: Value says so
	Fraction  float64 // a slider's position in [0, 1]

	Row        Rect // the whole row: highlight and mouse target
	Bar        Rect // a slider's bar; zero for other kinds
	LabelX     int  // left edge of the label
	TextY      int  // top of the row's text at TextScale
	ValueRight int  // right edge of the value
}

// View is a laid-out page: what the drawer paints. It belongs to the
// model and is rewritten by the next Layout.
type View struct {
	// Scale is the UI scale the view was laid out at (Model.SetScale).
	// Every rectangle and Y is in screen pixels already; the drawer
	// multiplies its text scales (TextScale, TitleScale, DetailScale,
	// TableScale) and its own offsets by Scale.
	Scale     float64
	Panel     Rect
	Title     string
	TitleY    int // centre line of the title, centred on the panel
	Items     []Item
	MoreAbove bool // rows scrolled away above the first item
	MoreBelow bool // and below the last
	Message   string
	MessageY  int // centre line of the message
	// Note is said on the message line when there is no message: the
	// invitation to join (Config.Invite), on the main and in-game pages.
	Note  string
	Hint  string
	HintY int // centre line of the hint
	// Browser is the server browser page's table, tabs and buttons, set
	// only on that page (PageBrowser), whose Items are empty; nil on
	// every other page. See BrowserView.
	Browser *BrowserView
}

// Hints by the selected item's kind, and while capturing.
const (
	escBack  = "    Esc: back"
	escClose = "    Esc: close"

	hintAction  = "Enter: select"
	hintChange  = "Left/Right: change"
	hintText    = "type, then Enter: set"
	hintKey     = "Enter: bind    Backspace: clear"
	hintCapture = "press a key to bind    Esc: cancel"
)

// hints[kind][esc]: esc 0 back, 1 close, 2 nothing (the main menu
// outside a match).
var hints = func() (h [KindKey + 1][3]string) {
	base := [...]string{KindAction: hintAction, KindChoice: hintChange, KindSlider: hintChange, KindText: hintText, KindKey: hintKey}
	for k, b := range base {
		h[k] = [3]string{b + escBack, b + escClose, b}
	}
	return h
}()

// Layout lays the open page out on a w×h screen, reading every value
// from its cvar, and returns the view; mouse hit tests use it until the
// next Layout. The view and its Items are reused: they are valid until
// the next call. Layout allocates nothing once the slices have grown,
// except when the keys bound to an action change.
//
// At a UI scale s other than 1 (SetScale), the page is laid out on a
// w/s × h/s screen and every rectangle and Y is then multiplied by s, so
// that the panel, its rows and its text grow together and the mouse hit
// tests, which use the scaled rectangles, hit what is drawn.
func (m *Model) Layout(w, h int) *View {
	s := m.Scale()
	var v *View
	if s == 1 {
		v = m.layout(w, h)
	} else {
		v = m.layout(int(float64(w)/s), int(float64(h)/s))
		v.scaleBy(s)
	}
	v.Scale = s
	return v
}

// SetScale sets the UI scale of the following Layouts (view.UIScale's:
// ui_scale, or picked from the window); s <= 0 is 1.
func (m *Model) SetScale(s float64) { m.scale = s }

// Scale returns the UI scale of the following Layouts.
func (m *Model) Scale() float64 {
	if m.scale <= 0 {
		return 1
	}
	return m.scale
}

// scaleBy multiplies every rectangle and Y of v, and of its browser
// table, by s. A rectangle's edges are scaled, not its width, so that
// rows laid edge to edge stay so.
func (v *View) scaleBy(s float64) {
	n := func(x int) int { return int(math.Round(float64(x) * s)) }
	r := func(rc *Rect) {
		x0, y0 := n(rc.X), n(rc.Y)
		rc.W, rc.H = n(rc.X+rc.W)-x0, n(rc.Y+rc.H)-y0
		rc.X, rc.Y = x0, y0
	}
	r(&v.Panel)
	v.TitleY, v.MessageY, v.HintY = n(v.TitleY), n(v.MessageY), n(v.HintY)
	for i := range v.Items {
		it := &v.Items[i]
		r(&it.Row)
		if it.Bar.W > 0 {
			r(&it.Bar)
		}
		it.LabelX, it.TextY, it.ValueRight = n(it.LabelX), n(it.TextY), n(it.ValueRight)
	}
	b := v.Browser
	if b == nil {
		return
	}
	for i := range b.Tabs {
		r(&b.Tabs[i].Rect)
	}
	for i := range b.Columns {
		r(&b.Columns[i].Rect)
	}
	for i := range b.Rows {
		r(&b.Rows[i].Rect)
		b.Rows[i].TextY = n(b.Rows[i].TextY)
	}
	for i := range b.Buttons {
		r(&b.Buttons[i].Rect)
	}
	r(&b.Table)
	b.StatusY = n(b.StatusY)
}

// layout is Layout at UI scale 1.
func (m *Model) layout(w, h int) *View {
	v := &m.view
	if m.Page() == PageBrowser {
		m.laidOut = true
		return m.layoutBrowser(w, h)
	}
	v.Browser = nil
	v.Items = v.Items[:0]
	m.rows = m.rows[:0]
	m.laidOut = true
	m.refresh()
	p := m.cur()
	n := len(p.shown)

	pw := max(0, min(MaxPanelWidth, w-2*screenMargin))
	fit := max(1, (h-2*screenMargin-titleHeight-footHeight)/RowHeight)
	rows := min(n, fit)
	ph := titleHeight + rows*RowHeight + footHeight
	px, py := (w-pw)/2, (h-ph)/2
	v.Panel = Rect{px, py, pw, ph}
	v.Title = p.title
	v.TitleY = py + titleHeight/2

	pos := p.pos()
	if pos < p.first {
		p.first = pos
	}
	if pos >= p.first+rows {
		p.first = pos - rows + 1
	}
	p.first = max(0, min(p.first, n-rows))
	v.MoreAbove, v.MoreBelow = p.first > 0, p.first+rows < n

	for k := range rows {
		i := p.shown[p.first+k]
		e := &p.entries[i]
		row := Rect{px + rowInset, py + titleHeight + k*RowHeight, pw - 2*rowInset, RowHeight}
		it := Item{
			Label: e.label, Detail: e.cvar, Unit: e.unit, Kind: e.kind,
			Selected:   i == p.sel,
			Row:        row,
			LabelX:     row.X + pad,
			TextY:      row.Y + (RowHeight-GlyphH*TextScale)/2,
			ValueRight: row.X + row.W - pad,
		}
		m.fill(&it, e)
		v.Items = append(v.Items, it)
		m.rows = append(m.rows, i)
	}

	foot := py + titleHeight + rows*RowHeight
	v.Message, v.MessageY, v.Note = m.msg, foot+footHeight/4, ""
	if id := m.stack[len(m.stack)-1]; m.msg == "" && m.cfg.Invite != nil && (id == PageMain || id == PageInGame) {
		v.Note = m.cfg.Invite()
	}
	v.HintY = foot + footHeight*3/4
	v.Hint = m.hint()
	return v
}

// fill sets the value of it from e.
func (m *Model) fill(it *Item, e *entry) {
	switch e.kind {
	case KindChoice:
		i := m.choiceIndex(e)
		switch {
		case e.num != nil && i >= 0:
			it.Value = e.labels[i]
		case e.num == nil && i >= 0:
			it.Value = e.choices[i].label
		case e.num == nil:
			it.Value = e.cv.Value()
		}
	case KindSlider:
		var x float64
		if e.num != nil {
			x = float64(*e.num)
			it.Value = itoa(*e.num)
		} else {
			x = e.cv.Float()
			it.Value = e.cv.Value()
		}
		if lo, hi := m.bounds(e); hi > lo && !math.IsInf(hi-lo, 0) {
			it.Fraction = max(0, min(1, (x-lo)/(hi-lo)))
		}
		r := it.Row
		it.Bar = Rect{r.X + r.W - pad - barWidth, r.Y + (RowHeight-barHeight)/2, barWidth, barHeight}
		it.ValueRight = it.Bar.X - pad
	case KindText:
		it.Editing = it.Selected
		if m.edit.dirty && m.edit.e == e {
			it.Value, it.Changed = m.edit.str, true
		} else {
			it.Value = m.textValue(e)
		}
	case KindKey:
		it.Detail = e.command
		if it.Selected && m.capturing {
			it.Value, it.Capturing = "press a key...", true
			return
		}
		it.Value = m.keys(e)
	}
}

// keys returns the keys bound to e's command, joined, allocating only
// when they changed since the last call.
func (m *Model) keys(e *entry) string {
	b := e.keyBuf[:0]
	if m.cfg.KeysFor != nil {
		for i, k := range m.cfg.KeysFor(e.command) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, k...)
		}
	}
	if len(b) == 0 {
		b = append(b, "---"...)
	}
	e.keyBuf = b
	if string(b) != e.keyStr {
		e.keyStr = string(b)
	}
	return e.keyStr
}

func (m *Model) hint() string {
	if m.capturing {
		return hintCapture
	}
	esc := 0
	if len(m.stack) == 1 {
		esc = 2
		if m.inGame {
			esc = 1
		}
	}
	return hints[m.selected().kind][esc]
}

func itoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return "?"
}
