package menu

import (
	"strconv"

	"tremor/client/browser"
)

// Browser is what the server browser page needs of the program's
// *browser.Browser (which the program drives with Frame each frame).
type Browser interface {
	Refresh(src browser.Source)
	Refreshing(src browser.Source) bool
	Refreshed(src browser.Source) bool
	Status(src browser.Source) browser.Status
	List(dst []browser.Entry, src browser.Source, o browser.Order) []browser.Entry
	Version() uint64
	IsFavorite(addr string) bool
	AddFavorite(addr string) error
	RemoveFavorite(addr string)
}

var _ Browser = (*browser.Browser)(nil)

// Layout metrics of the browser page, in screen pixels.
const (
	// BrowserPanelWidth is the widest the browser page's panel gets.
	BrowserPanelWidth = 1000
	// TableScale is the text scale of tabs, header, rows and buttons.
	TableScale = 2
	// TableRowHeight is the height of a tab, the header, a row and a
	// button.
	TableRowHeight = 30

	cellPad   = 8  // text inside a cell
	buttonGap = 10 // between buttons
)

// BrowserView is the server browser page laid out: what the drawer
// paints over View's panel, title, message and hint. Every text is drawn
// at TableScale; every rectangle is in screen pixels.
type BrowserView struct {
	// Tabs are LAN, Internet, Favorites; the Active one is shown.
	// Clicking one shows it.
	Tabs []Tab
	// Columns are the table's header cells, left to right. Clicking one
	// sorts by it (again: the other way). Sorted marks the sort column;
	// Descending its direction (draw an arrow).
	Columns []Column
	// Rows are the visible servers, top to bottom, with one text per
	// column, drawn inside the column's X range (Column.Rect.X to
	// X+W), left-aligned at X+cellPad or, for a Right column,
	// right-aligned at X+W-cellPad, with its top at Row.TextY.
	Rows []Row
	// Table is the rectangle of the rows' area (under the header).
	Table Rect
	// Empty, when there are no rows, is the text to centre in Table
	// ("no servers found", "searching...").
	Empty string
	// MoreAbove and MoreBelow say rows are scrolled away (draw ^ and v
	// at the right of the first and last row).
	MoreAbove, MoreBelow bool
	// Buttons are the actions and filter toggles under the table.
	Buttons []Button
	// Status is the line under the buttons: "LAN: 2 servers, refreshing",
	// with StatusY its centre line, centred on the panel.
	Status  string
	StatusY int
}

// Tab is one tab of the browser page.
type Tab struct {
	Label  string
	Rect   Rect
	Active bool
}

// Column is one header cell of the server table.
type Column struct {
	Label      string
	Rect       Rect
	Right      bool // numbers: cells are right-aligned
	Sorted     bool
	Descending bool
}

// Row is one server of the table.
type Row struct {
	Rect     Rect     // the whole row: highlight and mouse target
	TextY    int      // top of the cells' text
	Cells    []string // one per Column
	Selected bool
	// Greyed is set for a server that cannot be joined: another
	// protocol, or no answer (timed out). Draw it dim.
	Greyed   bool
	Favorite bool // among the favourites (draw a mark)
}

// Button is one action or filter toggle of the browser page.
type Button struct {
	Label  string
	Rect   Rect
	Toggle bool // a filter: draw it lit when On
	On     bool
}

// Button actions, in the order laid out.
const (
	btnRefresh = iota
	btnJoin
	btnFavorite
	btnBack
	btnHideFull
	btnHideEmpty
	btnHideIncompatible
	numButtons
)

// columns of the table, with the browser column each sorts by, and its
// width in characters (0: the rest of the row).
var tableColumns = []struct {
	label string
	sort  browser.Column
	chars int
	right bool
}{
	{"Name", browser.ColName, 0, false},
	{"Map", browser.ColMap, 12, false},
	{"Players", browser.ColPlayers, 8, true},
	{"Type", browser.ColGameType, 5, true},
	{"Ping", browser.ColPing, 8, true},
}

// browserState is the browser page's state.
type browserState struct {
	tab   browser.Source
	order [browser.NumSources]browser.Order
	sel   [browser.NumSources]string // label of the selected entry
	idx   [browser.NumSources]int    // its row, kept when it goes away
	first [browser.NumSources]int    // first row shown

	list    []browser.Entry
	cells   [][]string // per list entry, per column
	version uint64     // of the browser when list was made
	listTab browser.Source
	listOrd browser.Order
	listed  bool

	view      BrowserView
	rowCount  int // rows that fit, at the last layout
	statusBuf []byte
	status    string
}

// BrowserTab returns the tab the browser page shows.
func (m *Model) BrowserTab() browser.Source { return m.br.tab }

// BrowserOrder returns the sort and filters of the tab shown.
func (m *Model) BrowserOrder() browser.Order { return m.br.order[m.br.tab] }

// SelectedServer returns the label (address) of the selected server of
// the tab shown, "" if none.
func (m *Model) SelectedServer() string {
	m.relist()
	if e := m.selectedEntry(); e != nil {
		return e.Label
	}
	return ""
}

// openBrowser shows the browser page, refreshing its tab if it never
// was, and the LAN tab each time (servers on a LAN come and go, and its
// refresh is a dozen packets).
func (m *Model) openBrowser() {
	m.push(PageBrowser)
	if b := m.cfg.Browser; b != nil && m.br.tab == browser.LAN && b.Refreshed(browser.LAN) {
		b.Refresh(browser.LAN)
	}
	m.showTab(m.br.tab)
}

func (m *Model) showTab(src browser.Source) {
	m.br.tab = src
	if b := m.cfg.Browser; b != nil && !b.Refreshed(src) {
		b.Refresh(src)
	}
	m.br.listed = false
}

// relist rebuilds the sorted, filtered list when the browser changed,
// and keeps the selection on the same server.
func (m *Model) relist() {
	s := &m.br
	b := m.cfg.Browser
	if b == nil {
		s.list = s.list[:0]
		return
	}
	o := s.order[s.tab]
	if s.listed && s.version == b.Version() && s.listTab == s.tab && s.listOrd == o {
		return
	}
	s.list = b.List(s.list, s.tab, o)
	s.version, s.listTab, s.listOrd, s.listed = b.Version(), s.tab, o, true
	for len(s.cells) < len(s.list) {
		s.cells = append(s.cells, make([]string, len(tableColumns)))
	}
	for i := range s.list {
		fillCells(s.cells[i], &s.list[i])
	}
	// Keep the selection on its server; if it went away, on the row
	// where it was.
	t := s.tab
	found := false
	for i := range s.list {
		if s.list[i].Label == s.sel[t] {
			s.idx[t], found = i, true
			break
		}
	}
	if !found {
		s.idx[t] = max(0, min(s.idx[t], len(s.list)-1))
		s.sel[t] = ""
		if len(s.list) > 0 {
			s.sel[t] = s.list[s.idx[t]].Label
		}
	}
}

// fillCells writes e's cells. It allocates; relist calls it only when
// the list changed.
func fillCells(c []string, e *browser.Entry) {
	c[0] = e.DisplayName()
	c[1] = e.Map
	c[2], c[3] = "", ""
	if e.HostName != "" || e.State == browser.Answered {
		p := strconv.Itoa(e.Humans)
		if e.Bots > 0 {
			p += "+" + strconv.Itoa(e.Bots)
		}
		c[2] = p + "/" + strconv.Itoa(e.Max)
		c[3] = gameTypeName(e.GameType)
	}
	switch e.State {
	case browser.Answered:
		c[4] = strconv.Itoa(e.Ping)
	case browser.Pending:
		c[4] = "..."
	case browser.Unresolved:
		c[4] = "no host"
	case browser.NotQueried:
		c[4] = "skipped"
	default:
		c[4] = "timeout"
	}
}

func (m *Model) selectedEntry() *browser.Entry {
	s := &m.br
	i := s.idx[s.tab]
	if i < 0 || i >= len(s.list) {
		return nil
	}
	return &s.list[i]
}

// selectRow selects row i of the list.
func (m *Model) selectRow(i int) {
	s := &m.br
	if len(s.list) == 0 {
		return
	}
	i = max(0, min(i, len(s.list)-1))
	s.idx[s.tab], s.sel[s.tab] = i, s.list[i].Label
}

// browserPress handles a key on the browser page.
func (m *Model) browserPress(k Key) {
	m.relist()
	s := &m.br
	switch k {
	case KeyUp:
		m.selectRow(s.idx[s.tab] - 1)
	case KeyDown:
		m.selectRow(s.idx[s.tab] + 1)
	case KeyLeft:
		m.showTab((s.tab + browser.NumSources - 1) % browser.NumSources)
	case KeyRight, KeyTab:
		m.showTab((s.tab + 1) % browser.NumSources)
	case KeyEnter:
		m.join()
	case KeyBackspace:
		if s.tab == browser.Favorites {
			m.toggleFavorite()
		}
	case KeyBack:
		m.back()
	}
}

// browserType handles a typed character on the browser page: its
// shortcuts.
func (m *Model) browserType(r rune) {
	m.relist()
	switch r | 0x20 { // ASCII lower case
	case 'r':
		m.refreshTab()
	case 'a':
		m.toggleFavorite()
	case 's':
		o := &m.br.order[m.br.tab]
		o.Sort = browserColumnAfter(o.Sort)
		o.Descending = false
	case 'o':
		o := &m.br.order[m.br.tab]
		o.Descending = !o.Descending
	case 'f':
		m.br.order[m.br.tab].Filter.HideFull = !m.br.order[m.br.tab].Filter.HideFull
	case 'e':
		m.br.order[m.br.tab].Filter.HideEmpty = !m.br.order[m.br.tab].Filter.HideEmpty
	case 'i':
		m.br.order[m.br.tab].Filter.HideIncompatible = !m.br.order[m.br.tab].Filter.HideIncompatible
	}
}

// browserColumnAfter returns the table column after c, for the sort key.
func browserColumnAfter(c browser.Column) browser.Column {
	for i, col := range tableColumns {
		if col.sort == c {
			return tableColumns[(i+1)%len(tableColumns)].sort
		}
	}
	return tableColumns[0].sort
}

// sortBy sorts by c; by the same column again, the other way.
func (m *Model) sortBy(c browser.Column) {
	o := &m.br.order[m.br.tab]
	if o.Sort == c {
		o.Descending = !o.Descending
		return
	}
	o.Sort, o.Descending = c, false
}

func (m *Model) refreshTab() {
	if b := m.cfg.Browser; b != nil {
		b.Refresh(m.br.tab)
	}
}

// join connects to the selected server, as the join page does.
func (m *Model) join() {
	e := m.selectedEntry()
	if e == nil {
		m.msg = "no server selected"
		return
	}
	if e.State == browser.Answered && !e.Compatible() {
		m.msg = "that server speaks another protocol (" + strconv.Itoa(e.Protocol) + ")"
		return
	}
	m.connectTo(e.Label)
}

// toggleFavorite adds the selected server to the favourites, or removes
// it if it is one.
func (m *Model) toggleFavorite() {
	b, e := m.cfg.Browser, m.selectedEntry()
	if b == nil || e == nil {
		m.msg = "no server selected"
		return
	}
	if b.IsFavorite(e.Label) {
		b.RemoveFavorite(e.Label)
		m.msg = "removed from favourites"
		return
	}
	if err := b.AddFavorite(e.Label); err != nil {
		m.msg = err.Error()
		return
	}
	m.msg = "added to favourites"
}

// browserClick handles a left click on the browser page.
func (m *Model) browserClick(x, y int) {
	m.relist()
	v := &m.br.view
	for i := range v.Tabs {
		if v.Tabs[i].Rect.Contains(x, y) {
			m.showTab(browser.Source(i))
			return
		}
	}
	for i := range v.Columns {
		if v.Columns[i].Rect.Contains(x, y) {
			m.sortBy(tableColumns[i].sort)
			return
		}
	}
	for i := range v.Rows {
		if v.Rows[i].Rect.Contains(x, y) {
			row := m.br.first[m.br.tab] + i
			if row == m.br.idx[m.br.tab] && v.Rows[i].Selected {
				m.join() // a click on the selected row joins it
				return
			}
			m.selectRow(row)
			return
		}
	}
	for i := range v.Buttons {
		if v.Buttons[i].Rect.Contains(x, y) {
			m.pressButton(i)
			return
		}
	}
}

func (m *Model) pressButton(i int) {
	f := &m.br.order[m.br.tab].Filter
	switch i {
	case btnRefresh:
		m.refreshTab()
	case btnJoin:
		m.join()
	case btnFavorite:
		m.toggleFavorite()
	case btnBack:
		m.back()
	case btnHideFull:
		f.HideFull = !f.HideFull
	case btnHideEmpty:
		f.HideEmpty = !f.HideEmpty
	case btnHideIncompatible:
		f.HideIncompatible = !f.HideIncompatible
	}
}

// Wheel scrolls the browser's list by dy notches (positive: up, as
// Ebitengine's wheel reports), moving the selection three rows a notch.
func (m *Model) Wheel(dy int) {
	if !m.open || m.Page() != PageBrowser || dy == 0 {
		return
	}
	m.relist()
	m.selectRow(m.br.idx[m.br.tab] - 3*dy)
}

const browserHint = "Enter: join  Left/Right: tab  R: refresh  A: favourite  S/O: sort  F/E/I: filters  Esc: back"

// layoutBrowser lays the browser page out on a w×h screen.
func (m *Model) layoutBrowser(w, h int) *View {
	m.relist()
	s := &m.br
	v := &m.view
	v.Items = v.Items[:0]
	v.MoreAbove, v.MoreBelow = false, false
	bv := &s.view
	v.Browser = bv

	pw := max(0, min(BrowserPanelWidth, w-2*screenMargin))
	ph := max(0, h-2*screenMargin)
	px, py := (w-pw)/2, (h-ph)/2
	v.Panel = Rect{px, py, pw, ph}
	v.Title = "FIND SERVERS"
	v.TitleY = py + titleHeight/2
	inner := Rect{px + rowInset, py, pw - 2*rowInset, ph}
	y := py + titleHeight
	textOff := (TableRowHeight - GlyphH*TableScale) / 2

	// Tabs.
	bv.Tabs = bv.Tabs[:0]
	x := inner.X
	for src := range browser.NumSources {
		label := src.String()
		tw := len(label)*GlyphW*TableScale + 2*pad
		bv.Tabs = append(bv.Tabs, Tab{Label: label, Rect: Rect{x, y, tw, TableRowHeight}, Active: src == s.tab})
		x += tw + buttonGap
	}
	y += TableRowHeight + buttonGap

	// Header.
	o := s.order[s.tab]
	bv.Columns = bv.Columns[:0]
	fixed := 0
	for _, c := range tableColumns {
		fixed += c.chars*GlyphW*TableScale + 2*cellPad
	}
	x = inner.X
	for _, c := range tableColumns {
		cw := c.chars*GlyphW*TableScale + 2*cellPad
		if c.chars == 0 {
			cw = max(0, inner.W-fixed)
		}
		bv.Columns = append(bv.Columns, Column{Label: c.label, Rect: Rect{x, y, cw, TableRowHeight}, Right: c.right,
			Sorted: o.Sort == c.sort, Descending: o.Sort == c.sort && o.Descending})
		x += cw
	}
	y += TableRowHeight

	// Buttons and status take the bottom: two rows of buttons, the
	// message, the status and the hint.
	bottom := py + ph - footHeight - TableRowHeight // hint and message, then status
	btnTop := bottom - 2*TableRowHeight - buttonGap
	bv.Table = Rect{inner.X, y, inner.W, max(0, btnTop-buttonGap-y)}
	rows := max(1, bv.Table.H/TableRowHeight)
	s.rowCount = rows

	// Rows.
	n := len(s.list)
	t := s.tab
	first := &s.first[t]
	if s.idx[t] < *first {
		*first = s.idx[t]
	}
	if s.idx[t] >= *first+rows {
		*first = s.idx[t] - rows + 1
	}
	*first = max(0, min(*first, n-rows))
	bv.MoreAbove, bv.MoreBelow = *first > 0, *first+rows < n
	bv.Rows = bv.Rows[:0]
	for k := 0; k < rows && *first+k < n; k++ {
		i := *first + k
		e := &s.list[i]
		r := Rect{inner.X, y + k*TableRowHeight, inner.W, TableRowHeight}
		fav := m.cfg.Browser != nil && m.cfg.Browser.IsFavorite(e.Label)
		bv.Rows = append(bv.Rows, Row{Rect: r, TextY: r.Y + textOff, Cells: s.cells[i], Selected: i == s.idx[t],
			Greyed: e.State == browser.TimedOut || e.State == browser.Unresolved || e.State == browser.NotQueried || e.State == browser.Answered && !e.Compatible(), Favorite: fav})
	}
	bv.Empty = ""
	if n == 0 {
		bv.Empty = m.emptyText()
	}

	// Buttons: actions on the first row, filters on the second.
	bv.Buttons = bv.Buttons[:0]
	f := o.Filter
	favLabel := "Add favourite"
	if e := m.selectedEntry(); e != nil && m.cfg.Browser != nil && m.cfg.Browser.IsFavorite(e.Label) {
		favLabel = "Remove favourite"
	}
	labels := [numButtons]string{"Refresh", "Join", favLabel, "Back", "Hide full", "Hide empty", "Hide incompatible"}
	on := [numButtons]bool{btnHideFull: f.HideFull, btnHideEmpty: f.HideEmpty, btnHideIncompatible: f.HideIncompatible}
	x, by := inner.X, btnTop
	for i := range numButtons {
		if i == btnHideFull {
			x, by = inner.X, btnTop+TableRowHeight+buttonGap
		}
		bw := len(labels[i])*GlyphW*TableScale + 2*pad
		bv.Buttons = append(bv.Buttons, Button{Label: labels[i], Rect: Rect{x, by, bw, TableRowHeight},
			Toggle: i >= btnHideFull, On: on[i]})
		x += bw + buttonGap
	}

	bv.Status = m.statusLine()
	bv.StatusY = bottom + TableRowHeight/2
	v.Message, v.MessageY = m.msg, bottom+TableRowHeight+footHeight/4
	v.Hint, v.HintY = browserHint, bottom+TableRowHeight+footHeight*3/4
	return v
}

// emptyText is what an empty table says.
func (m *Model) emptyText() string {
	b := m.cfg.Browser
	switch {
	case b == nil:
		return "no server browser"
	case b.Refreshing(m.br.tab):
		return "searching..."
	case len(m.br.list) == 0 && b.Status(m.br.tab).Entries > 0:
		return "every server is filtered out"
	case m.br.tab == browser.Favorites:
		return "no favourites: add servers from the other tabs"
	}
	return "no servers found"
}

// statusLine returns "LAN: 2 servers, refreshing", allocating only when
// it changes.
func (m *Model) statusLine() string {
	s := &m.br
	b := s.statusBuf[:0]
	b = append(b, s.tab.String()...)
	b = append(b, ": "...)
	if m.cfg.Browser != nil {
		st := m.cfg.Browser.Status(s.tab)
		b = strconv.AppendInt(b, int64(st.Entries), 10)
		if st.Entries == 1 {
			b = append(b, " server"...)
		} else {
			b = append(b, " servers"...)
		}
		if hidden := st.Entries - len(s.list); hidden > 0 {
			b = append(b, " ("...)
			b = strconv.AppendInt(b, int64(hidden), 10)
			b = append(b, " hidden)"...)
		}
		if st.Refreshing {
			b = append(b, ", refreshing..."...)
		}
		if st.Note != "" {
			b = append(b, " - "...)
			b = append(b, st.Note...)
		}
	}
	s.statusBuf = b
	if string(b) != s.status {
		s.status = string(b)
	}
	return s.status
}

// gameTypeNames are the short names of Quake III's game types
// (g_gametype), as browsers showed them; Tremor plays 0 and 3.
var gameTypeNames = [...]string{"FFA", "1v1", "SP", "TDM", "CTF"}

// gameTypeName returns the short name of game type n, or n itself.
func gameTypeName(n int) string {
	if n >= 0 && n < len(gameTypeNames) {
		return gameTypeNames[n]
	}
	return strconv.Itoa(n)
}
