package menu

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"tremor/common/console"
)

// Key is the navigation meaning of a key press.
type Key uint8

// Navigation keys. KeyNone is any other key: it matters only while a key
// is being captured for a bind.
const (
	KeyNone Key = iota
	KeyUp
	KeyDown
	KeyLeft
	KeyRight
	KeyEnter
	KeyBack // Escape
	KeyBackspace
	KeyTab // the browser page's next tab
)

// Kind is what an item does and how it is drawn.
type Kind uint8

// Item kinds.
const (
	KindAction Kind = iota // runs something or opens a page
	KindChoice             // cycles through named values
	KindSlider             // steps a number through a range
	KindText               // a text field
	KindKey                // the keys bound to a command
)

// PageID names a page.
type PageID uint8

// Pages.
const (
	PageMain PageID = iota
	PageInGame
	PagePlay
	PageJoin
	PageSettings
	PageKeys
	PageBrowser // the server browser ("Find servers")
	numPages
)

// Limits of the play page. DefaultSkill is g_spSkill's default.
const (
	MaxBots      = 15
	MinSkill     = 1
	MaxSkill     = 5
	DefaultBots  = 3
	DefaultSkill = 2
)

// MaxNameLen is the longest player name the name field takes (Quake III's
// MAX_NAME_LENGTH less its terminator).
const MaxNameLen = 31

// maxAddrLen is the longest address the join field takes.
const maxAddrLen = 64

// Action is one bindable command of the keys page.
type Action struct {
	Label   string // shown: "Jump"
	Command string // bound: "+moveup"
}

// DefaultActions are the keys page's commands under their Quake III
// names.
var DefaultActions = []Action{
	{"Move left", "+moveleft"},
	{"Move right", "+moveright"},
	{"Jump", "+moveup"},
	{"Drop", "+movedown"},
	{"Fire", "+attack"},
	{"Gauntlet", "weapon 1"},
	{"Machinegun", "weapon 2"},
	{"Grenade launcher", "weapon 3"},
	{"Rocket launcher", "weapon 4"},
	{"Railgun", "weapon 5"},
	{"Next weapon", "weapnext"},
	{"Previous weapon", "weapprev"},
	{"Scores", "+scores"},
	{"Chat", "messagemode"},
	{"Console", "toggleconsole"},
}

// DefaultBotNames name the bots the play page adds, one addbot line each.
var DefaultBotNames = []string{
	"Anvil", "Brick", "Cinder", "Dagger", "Ember", "Flint", "Garnet", "Hatchet",
	"Iron", "Jasper", "Kestrel", "Lynx", "Mortar", "Nettle", "Onyx", "Pike",
}

// Config is what the program gives the menu besides its console.
type Config struct {
	// Maps are the map names the play page cycles through
	// (arenas.Names()).
	Maps []string
	// KeysFor returns the names of the keys bound to a command, for the
	// keys page; nil shows none. It is called for each visible action at
	// every Layout.
	KeysFor func(command string) []string
	// Actions are the keys page's rows; nil means DefaultActions.
	Actions []Action
	// BotNames name the bots Start adds; nil means DefaultBotNames.
	BotNames []string
	// Browser is the server browser the "Find servers" page shows (a
	// *browser.Browser the program drives); nil hides that page.
	Browser Browser
	// LastServer is the field bound to cl_lastServer, the address last
	// joined from the menu: the Join page starts with it, and joining
	// sets the cvar. nil: the program has no such cvar.
	LastServer *string
	// Invite returns what the main and in-game pages tell the room, when
	// they have no message to show: how to join this program's server
	// ("students open http://192.168.1.20:27960/"), or "". nil: nothing.
	Invite func() string
}

// Model is the menu's state. The zero value is not usable: call New.
type Model struct {
	t   *console.Table
	cfg Config

	pages  [numPages]page
	stack  []PageID
	open   bool
	inGame bool

	capturing bool
	edit      editState
	msg       string

	mapIdx, bots, skill int
	addr                string

	view    View
	rows    []int // entry index of each View item
	laidOut bool
	scale   float64 // the UI scale of the next Layout; 0 is 1

	br browserState
}

// page is one screen of entries.
type page struct {
	title   string
	entries []entry
	sel     int   // selected entry
	first   int   // first visible position shown (scrolling)
	shown   []int // entries whose cvar exists, rebuilt by refresh
}

// choice is one named value of a choice entry.
type choice struct {
	label, value string
	num          float64
	isNum        bool
}

// entry is one row of a page.
type entry struct {
	label string
	kind  Kind
	unit  string

	cvar string        // bound cvar, or ""
	cv   *console.Cvar // cvar, once found
	num  *int          // bound local number (play page), or nil
	str  *string       // bound local text (join page), or nil

	choices        []choice // KindChoice over a cvar
	labels         []string // KindChoice over num
	min, max, step float64  // KindSlider; min == max == 0: the cvar's range
	refuse         string   // KindText: bytes not accepted
	maxLen         int      // KindText: most bytes
	command        string   // KindKey
	run            func(*Model)
	needsBrowser   bool   // shown only with a Config.Browser
	needsCommand   string // shown only when the table has this command

	keyBuf []byte // KindKey: the keys, joined
	keyStr string // keyBuf as last shown
}

// editState is an uncommitted text field edit.
type editState struct {
	e     *entry
	buf   []byte
	str   string
	dirty bool
}

var onOff = []choice{{label: "off", value: "0", isNum: true}, {label: "on", value: "1", num: 1, isNum: true}}
var prediction = []choice{{label: "on", value: "0", isNum: true}, {label: "off", value: "1", num: 1, isNum: true}}

// smallInts are the strings of 0 to MaxBots, shown without allocating.
var smallInts = func() (s [MaxBots + 1]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// New returns a closed menu acting on t.
func New(t *console.Table, cfg Config) *Model {
	if cfg.Actions == nil {
		cfg.Actions = DefaultActions
	}
	if cfg.BotNames == nil {
		cfg.BotNames = DefaultBotNames
	}
	m := &Model{t: t, cfg: cfg, bots: DefaultBots, skill: DefaultSkill}
	m.stack = make([]PageID, 1, 8)
	back := entry{label: "Back", run: (*Model).back}

	m.pages[PageMain] = page{title: "TREMOR", entries: []entry{
		{label: "Play locally", run: push(PagePlay)},
		{label: "Classroom", run: appender("classroom"), needsCommand: "classroom"},
		{label: "Find servers", run: (*Model).openBrowser, needsBrowser: true},
		{label: "Join", run: push(PageJoin), needsCommand: "connect"},
		{label: "Settings", run: push(PageSettings)},
		{label: "Quit", run: appender("quit")},
	}}
	m.pages[PageInGame] = page{title: "TREMOR", entries: []entry{
		{label: "Resume", run: (*Model).Close},
		{label: "Find servers", run: (*Model).openBrowser, needsBrowser: true},
		{label: "Settings", run: push(PageSettings)},
		{label: "Leave match", run: (*Model).leave},
		{label: "Quit", run: appender("quit")},
	}}
	m.pages[PagePlay] = page{title: "PLAY LOCALLY", entries: []entry{
		{label: "Map", kind: KindChoice, num: &m.mapIdx, labels: cfg.Maps},
		{label: "Bots", kind: KindSlider, num: &m.bots, min: 0, max: MaxBots, step: 1},
		{label: "Bot skill", kind: KindSlider, num: &m.skill, min: MinSkill, max: MaxSkill, step: 1},
		{label: "Start", run: (*Model).start},
		back,
	}}
	m.pages[PageJoin] = page{title: "JOIN", entries: []entry{
		{label: "Address", kind: KindText, str: &m.addr, maxLen: maxAddrLen, refuse: "\"\\; ", run: (*Model).connect},
		{label: "Connect", run: (*Model).connect},
		{label: "Add to favourites", run: (*Model).addTypedFavorite, needsBrowser: true},
		back,
	}}
	m.pages[PageSettings] = page{title: "SETTINGS", entries: []entry{
		{label: "Name", kind: KindText, cvar: "name", maxLen: MaxNameLen, refuse: "\"\\;"},
		{label: "Rate", kind: KindSlider, cvar: "rate", unit: "B/s", min: 1000, max: 90000, step: 1000},
		{label: "Snapshots", kind: KindSlider, cvar: "snaps", unit: "/s", min: 5, max: 125, step: 5},
		{label: "Max packets", kind: KindSlider, cvar: "cl_maxpackets", unit: "/s", min: 15, max: 125, step: 5},
		{label: "Packet dup", kind: KindSlider, cvar: "cl_packetdup", step: 1},
		{label: "Time nudge", kind: KindSlider, cvar: "cl_timeNudge", unit: "ms", step: 5},
		{label: "Prediction", kind: KindChoice, cvar: "cl_nopredict", choices: prediction},
		{label: "Error decay", kind: KindSlider, cvar: "cg_errorDecay", unit: "ms", min: 0, max: 1000, step: 50},
		{label: "Volume", kind: KindSlider, cvar: "s_volume", min: 0, max: 1, step: 0.1},
		{label: "Vertical sync", kind: KindChoice, cvar: "r_vsync", choices: onOff},
		{label: "Fullscreen", kind: KindChoice, cvar: "r_fullscreen", choices: onOff},
		{label: "Keys", run: push(PageKeys)},
		back,
	}}
	keys := make([]entry, 0, len(cfg.Actions)+1)
	for _, a := range cfg.Actions {
		keys = append(keys, entry{label: a.Label, kind: KindKey, command: a.Command})
	}
	m.pages[PageKeys] = page{title: "KEYS", entries: append(keys, back)}
	// The browser page lays itself out (browser.go); its one entry is
	// never shown.
	m.pages[PageBrowser] = page{title: "FIND SERVERS", entries: []entry{back}}
	m.stack[0] = PageMain
	return m
}

func push(id PageID) func(*Model) { return func(m *Model) { m.push(id) } }

func appender(line string) func(*Model) { return func(m *Model) { m.t.Append(line) } }

// Open opens the menu at its root: the in-game menu during a match, the
// main menu otherwise.
func (m *Model) Open() {
	if m.inGame {
		m.openAt(PageInGame)
	} else {
		m.openAt(PageMain)
	}
}

// OpenMain opens the menu at the main menu, even during a match (the
// client's first screen over a match running in the background).
func (m *Model) OpenMain() { m.openAt(PageMain) }

// OpenMainWithMessage opens the main menu showing text in its message
// line: why the player is back there (a disconnect, a failed connect, a
// kick). The message stays until the next key or click.
func (m *Model) OpenMainWithMessage(text string) {
	m.openAt(PageMain)
	m.msg = text
}

// SetMessage shows text in the message line of the page shown, until the
// next key or click.
func (m *Model) SetMessage(text string) { m.msg = text }

func (m *Model) openAt(id PageID) {
	m.commitEdit()
	m.stack = append(m.stack[:0], id)
	m.pages[id].sel, m.pages[id].first = 0, 0
	m.open, m.capturing, m.msg = true, false, ""
	m.refresh()
}

// Close closes the menu, keeping an edit in progress.
func (m *Model) Close() {
	m.commitEdit()
	m.open, m.capturing = false, false
}

// IsOpen reports whether the menu is shown and takes the input.
func (m *Model) IsOpen() bool { return m.open }

// Page returns the page shown.
func (m *Model) Page() PageID { return m.stack[len(m.stack)-1] }

// Capturing reports whether a key item waits for the key to bind: the
// program then forwards every key and mouse button as Press with its
// name.
func (m *Model) Capturing() bool { return m.open && m.capturing }

// Message returns the note or error of the last action, "" if none.
func (m *Model) Message() string { return m.msg }

// SetInGame tells the menu whether a match is being played. When the
// match ends while the in-game menu is the root, the main menu replaces
// it.
func (m *Model) SetInGame(in bool) {
	m.inGame = in
	if !in && m.stack[0] == PageInGame {
		m.stack[0] = PageMain
		if len(m.stack) == 1 {
			m.pages[PageMain].sel, m.pages[PageMain].first = 0, 0
		}
	}
}

// Press handles a key press: k is its navigation meaning, name its bind
// name, used when a key is being captured. It reports whether the menu
// took the key: always while open; while closed, only Back, which opens
// the menu.
func (m *Model) Press(k Key, name string) bool {
	if !m.open {
		if k == KeyBack {
			m.Open()
			return true
		}
		return false
	}
	if m.Page() == PageBrowser {
		m.msg = ""
		m.browserPress(k)
		return true
	}
	m.refresh()
	e := m.selected()
	if m.capturing {
		switch {
		case k == KeyBack:
			m.capturing = false
		case name != "":
			m.capturing = false
			m.bind(e, name)
		}
		return true
	}
	m.msg = ""
	switch k {
	case KeyUp:
		m.move(-1)
	case KeyDown:
		m.move(1)
	case KeyLeft:
		m.change(e, -1)
	case KeyRight:
		m.change(e, 1)
	case KeyEnter:
		m.activate(e)
	case KeyBack:
		m.back()
	case KeyBackspace:
		switch e.kind {
		case KindText:
			m.erase(e)
		case KindKey:
			m.unbind(e)
		}
	}
	return true
}

// Type handles a typed character: it goes to the selected text field.
// Only printable ASCII is taken (the font has no other glyphs), and never
// a byte the field refuses: a double quote, a backslash or a semicolon,
// which a command line or an info string could not carry.
func (m *Model) Type(r rune) {
	if !m.open || m.capturing {
		return
	}
	if m.Page() == PageBrowser {
		m.msg = ""
		m.browserType(r)
		return
	}
	m.refresh()
	e := m.selected()
	if e.kind != KindText {
		return
	}
	if r < ' ' || r > '~' || strings.ContainsRune(e.refuse, r) {
		m.msg = "that character is not allowed here"
		return
	}
	m.startEdit(e)
	if len(m.edit.buf) >= e.maxLen {
		return
	}
	m.edit.buf = append(m.edit.buf, byte(r))
	m.edit.str = string(m.edit.buf)
	m.msg = ""
}

// MouseMove selects the item under the cursor, if any.
func (m *Model) MouseMove(x, y int) {
	if !m.open || m.capturing || m.Page() == PageBrowser {
		return
	}
	if i := m.HitTest(x, y); i >= 0 {
		m.selectEntry(m.rows[i])
	}
}

// Click handles a left click: it selects the item under the cursor and
// runs it (an action), cycles it (a choice), sets the value under the
// cursor (on a slider's bar), or starts capturing a key (a key item). A
// click on a text field only selects it. Clicks during key capture are
// ignored: the program forwards them as Press(KeyNone, "MOUSE1").
func (m *Model) Click(x, y int) {
	if !m.open || m.capturing {
		return
	}
	if m.Page() == PageBrowser {
		if m.laidOut {
			m.msg = ""
			m.browserClick(x, y)
		}
		return
	}
	i := m.HitTest(x, y)
	if i < 0 {
		return
	}
	m.msg = ""
	m.selectEntry(m.rows[i])
	e := m.selected()
	switch e.kind {
	case KindSlider:
		bar := m.view.Items[i].Bar
		if bar.W > 0 && x >= bar.X-bar.H && x <= bar.X+bar.W+bar.H {
			f := float64(x-bar.X) / float64(bar.W)
			m.setFraction(e, max(0, min(1, f)))
		}
	case KindChoice:
		m.change(e, 1)
	case KindText:
	default:
		m.activate(e)
	}
}

// HitTest returns the index in the last layout's View.Items of the item
// at (x, y), or -1.
func (m *Model) HitTest(x, y int) int {
	if !m.laidOut {
		return -1
	}
	for i := range m.view.Items {
		if m.view.Items[i].Row.Contains(x, y) {
			return i
		}
	}
	return -1
}

func (m *Model) cur() *page { return &m.pages[m.stack[len(m.stack)-1]] }

func (m *Model) selected() *entry {
	p := m.cur()
	return &p.entries[p.sel]
}

// available reports whether e's cvar, if it has one, exists.
func (m *Model) available(e *entry) bool {
	if e.needsBrowser && m.cfg.Browser == nil {
		return false
	}
	if e.needsCommand != "" && !m.t.HasCommand(e.needsCommand) {
		return false // a program without connect has no Join page
	}
	if e.cvar == "" {
		return true
	}
	if e.cv == nil {
		e.cv = m.t.Get(e.cvar)
	}
	return e.cv != nil
}

// refresh rebuilds the shown entries of the current page and keeps the
// selection on one of them.
func (m *Model) refresh() {
	p := m.cur()
	p.shown = p.shown[:0]
	ok := false
	for i := range p.entries {
		if m.available(&p.entries[i]) {
			p.shown = append(p.shown, i)
			ok = ok || i == p.sel
		}
	}
	if !ok && len(p.shown) > 0 {
		next := p.shown[len(p.shown)-1]
		for _, i := range p.shown {
			if i > p.sel {
				next = i
				break
			}
		}
		p.sel = next
	}
}

// pos returns the selected entry's position among the shown ones.
func (p *page) pos() int {
	for k, i := range p.shown {
		if i == p.sel {
			return k
		}
	}
	return 0
}

func (m *Model) move(d int) {
	p := m.cur()
	n := len(p.shown)
	if n == 0 {
		return
	}
	m.selectEntry(p.shown[(p.pos()+d+n)%n])
}

func (m *Model) selectEntry(i int) {
	p := m.cur()
	if p.sel == i {
		return
	}
	m.commitEdit()
	p.sel = i
}

func (m *Model) push(id PageID) {
	m.commitEdit()
	if len(m.stack) == cap(m.stack) {
		return // deeper than any path through the pages
	}
	m.stack = append(m.stack, id)
	p := m.cur()
	p.sel, p.first = 0, 0
	if id == PageJoin && m.addr == "" && m.cfg.LastServer != nil {
		m.addr = *m.cfg.LastServer
	}
	m.refresh()
}

// back cancels an edit, or goes up a page, or closes the in-game menu.
// Back on the main menu outside a match does nothing.
func (m *Model) back() {
	switch {
	case m.edit.dirty:
		m.edit = editState{buf: m.edit.buf[:0]}
	case len(m.stack) > 1:
		m.stack = m.stack[:len(m.stack)-1]
		m.refresh()
	case m.inGame:
		m.Close()
	}
}

func (m *Model) activate(e *entry) {
	switch e.kind {
	case KindChoice:
		m.change(e, 1)
	case KindText:
		m.commitEdit()
		if e.run != nil && m.msg == "" {
			e.run(m)
		}
	case KindKey:
		m.capturing = true
	case KindAction:
		if e.run != nil {
			e.run(m)
		}
	}
}

// change steps a choice or a slider by dir.
func (m *Model) change(e *entry, dir int) {
	switch e.kind {
	case KindChoice:
		n := e.choiceCount()
		if n == 0 {
			return
		}
		i := m.choiceIndex(e)
		if i < 0 {
			i = 0
		} else {
			i = (i + dir + n) % n
		}
		if e.num != nil {
			*e.num = i
			return
		}
		m.set(e, e.choices[i].value)
	case KindSlider:
		lo, hi := m.bounds(e)
		v := step(m.number(e), e.step, lo, hi, dir)
		m.setNumber(e, v)
	}
}

func (e *entry) choiceCount() int {
	if e.num != nil {
		return len(e.labels)
	}
	return len(e.choices)
}

// choiceIndex returns the index of e's current value among its choices,
// or -1.
func (m *Model) choiceIndex(e *entry) int {
	if e.num != nil {
		if *e.num >= 0 && *e.num < len(e.labels) {
			return *e.num
		}
		return -1
	}
	v := e.cv.Value()
	for i := range e.choices {
		if e.choices[i].value == v {
			return i
		}
	}
	f := e.cv.Float()
	for i := range e.choices {
		if e.choices[i].isNum && e.choices[i].num == f {
			return i
		}
	}
	return -1
}

// bounds returns a slider's range: its own, narrowed to its cvar's.
func (m *Model) bounds(e *entry) (lo, hi float64) {
	lo, hi = e.min, e.max
	if e.cv != nil {
		if cmin, cmax, ok := e.cv.Range(); ok {
			if lo == 0 && hi == 0 {
				lo, hi = cmin, cmax
			} else {
				lo, hi = max(lo, cmin), min(hi, cmax)
			}
		}
	}
	return lo, hi
}

func (m *Model) number(e *entry) float64 {
	if e.num != nil {
		return float64(*e.num)
	}
	return e.cv.Float()
}

// step moves v by one step in direction dir onto the grid of multiples
// of s, and clamps the result to [lo, hi].
func step(v, s, lo, hi float64, dir int) float64 {
	if s <= 0 {
		s = 1
	}
	const eps = 1e-9
	k := v / s
	var n float64
	if dir > 0 {
		n = math.Floor(k+eps) + 1
	} else {
		n = math.Ceil(k-eps) - 1
	}
	r := max(lo, min(hi, n*s))
	if (dir > 0 && r < v) || (dir < 0 && r > v) {
		return v // outside the range already: never step the wrong way
	}
	return r
}

// setFraction sets a slider to the fraction f of its range, on its step
// grid.
func (m *Model) setFraction(e *entry, f float64) {
	lo, hi := m.bounds(e)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi <= lo {
		return
	}
	s := e.step
	if s <= 0 {
		s = 1
	}
	v := lo + math.Round(f*(hi-lo)/s)*s
	m.setNumber(e, max(lo, min(hi, v)))
}

func (m *Model) setNumber(e *entry, v float64) {
	if e.num != nil {
		*e.num = int(v)
		return
	}
	if d := decimals(e.step); d > 0 {
		p := math.Pow(10, float64(d))
		v = math.Round(v*p) / p
	}
	m.set(e, strconv.FormatFloat(v, 'f', -1, 64))
}

// decimals returns how many decimals a value on the grid of s needs.
func decimals(s float64) int {
	for d := 0; d < 6; d++ {
		if math.Abs(s-math.Round(s)) < 1e-9 {
			return d
		}
		s *= 10
	}
	return 6
}

// set sets e's cvar, keeping the refusal as the message.
func (m *Model) set(e *entry, v string) {
	if err := m.t.Set(e.cvar, v); err != nil {
		m.msg = err.Error()
	}
}

// startEdit begins editing e from its current value.
func (m *Model) startEdit(e *entry) {
	if m.edit.dirty && m.edit.e == e {
		return
	}
	m.commitEdit()
	m.edit.e, m.edit.dirty = e, true
	m.edit.buf = append(m.edit.buf[:0], m.textValue(e)...)
	m.edit.str = string(m.edit.buf)
}

func (m *Model) erase(e *entry) {
	m.startEdit(e)
	_, n := utf8.DecodeLastRune(m.edit.buf)
	m.edit.buf = m.edit.buf[:len(m.edit.buf)-n]
	m.edit.str = string(m.edit.buf)
}

// commitEdit stores an edit in progress in its cvar or local text.
func (m *Model) commitEdit() {
	if !m.edit.dirty {
		return
	}
	e, s := m.edit.e, m.edit.str
	m.edit = editState{buf: m.edit.buf[:0]}
	switch {
	case e.str != nil:
		*e.str = s
	case e.cvar != "":
		m.set(e, s)
	}
}

// textValue is the committed value of a text entry.
func (m *Model) textValue(e *entry) string {
	if e.str != nil {
		return *e.str
	}
	return e.cv.Value()
}

// start starts a local match: killserver (a local server still running
// would keep its old bots), map NAME, then one addbot NAME SKILL line a
// bot (the addbot command takes a skill only with a name).
func (m *Model) start() {
	if m.mapIdx < 0 || m.mapIdx >= len(m.cfg.Maps) {
		m.msg = "no map to play"
		return
	}
	mapName, ok := token(m.cfg.Maps[m.mapIdx])
	if !ok {
		m.msg = "bad map name"
		return
	}
	var b strings.Builder
	b.WriteString("killserver\nmap ")
	b.WriteString(mapName)
	skill := strconv.Itoa(max(MinSkill, min(m.skill, MaxSkill)))
	names := m.cfg.BotNames
	for i := range max(0, min(m.bots, MaxBots)) {
		b.WriteString("\naddbot ")
		name := "Bot" + strconv.Itoa(i+1)
		if i < len(names) {
			name = names[i]
		}
		tok, ok := token(name)
		if !ok {
			tok = "Bot" + strconv.Itoa(i+1)
		}
		b.WriteString(tok)
		b.WriteByte(' ')
		b.WriteString(skill)
	}
	m.t.Append(b.String())
	m.Close()
}

// connect joins the address typed on the join page.
func (m *Model) connect() {
	m.commitEdit()
	addr := strings.TrimSpace(m.addr)
	if addr == "" {
		m.msg = "type the server's address first"
		return
	}
	m.connectTo(addr)
}

// connectTo queues "connect ADDR", remembers ADDR in cl_lastServer and
// closes the menu.
func (m *Model) connectTo(addr string) {
	tok, ok := token(addr)
	if !ok {
		m.msg = "bad address"
		return
	}
	if m.cfg.LastServer != nil {
		_ = m.t.Set("cl_lastServer", addr)
	}
	m.t.Append("connect " + tok)
	m.Close()
}

// addTypedFavorite adds the address typed on the join page to the
// favourites.
func (m *Model) addTypedFavorite() {
	m.commitEdit()
	addr := strings.TrimSpace(m.addr)
	if addr == "" {
		m.msg = "type the server's address first"
		return
	}
	if err := m.cfg.Browser.AddFavorite(addr); err != nil {
		m.msg = err.Error()
		return
	}
	m.msg = "added to favourites"
}

// leave disconnects from the match and shows the main menu.
func (m *Model) leave() {
	m.t.Append("disconnect")
	m.inGame = false
	m.openAt(PageMain)
}

// bind binds the key called name to e's command.
func (m *Model) bind(e *entry, name string) {
	key, ok := token(name)
	if !ok || e.kind != KindKey {
		m.msg = "that key cannot be bound here"
		return
	}
	m.t.Append("bind " + key + " \"" + e.command + "\"")
}

// unbind unbinds every key bound to e's command.
func (m *Model) unbind(e *entry) {
	if m.cfg.KeysFor == nil {
		return
	}
	for _, k := range m.cfg.KeysFor(e.command) {
		if key, ok := token(k); ok {
			m.t.Append("unbind " + key)
		}
	}
}

// token returns s written as one argument of a command line that the
// command buffer and the tokenizer read back as s: bare when it can be,
// otherwise in double quotes. It returns false when no writing can: the
// tokenizer has no escapes, so s may not hold a double quote, and a line
// ends at a newline or a NUL byte.
func token(s string) (string, bool) {
	if strings.ContainsAny(s, "\"\x00\n\r") {
		return "", false
	}
	if s == "" {
		return `""`, true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == ';' || c == 0x7f || (c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*')) {
			return `"` + s + `"`, true
		}
	}
	return s, true
}
