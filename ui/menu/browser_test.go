package menu

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"tremor/client/browser"
	"tremor/common/console"
	"tremor/common/proto"
)

// fakeBrowser is a Browser with lists set by the test.
type fakeBrowser struct {
	entries   [browser.NumSources][]browser.Entry
	refreshed [browser.NumSources]bool
	refreshes []browser.Source
	favs      []string
	version   uint64
}

func (f *fakeBrowser) Refresh(src browser.Source) {
	f.refreshed[src] = true
	f.refreshes = append(f.refreshes, src)
}
func (f *fakeBrowser) Refreshing(browser.Source) bool    { return false }
func (f *fakeBrowser) Refreshed(src browser.Source) bool { return f.refreshed[src] }
func (f *fakeBrowser) Version() uint64                   { return f.version }
func (f *fakeBrowser) IsFavorite(addr string) bool       { return slices.Contains(f.favs, addr) }
func (f *fakeBrowser) Status(src browser.Source) browser.Status {
	return browser.Status{Entries: len(f.entries[src])}
}
func (f *fakeBrowser) List(dst []browser.Entry, src browser.Source, o browser.Order) []browser.Entry {
	return browser.List(dst, f.entries[src], o)
}
func (f *fakeBrowser) AddFavorite(addr string) error {
	if addr == "refused" {
		return errors.New("browser: refused")
	}
	f.favs = append(f.favs, addr)
	f.version++
	return nil
}
func (f *fakeBrowser) RemoveFavorite(addr string) {
	f.favs = slices.DeleteFunc(f.favs, func(s string) bool { return s == addr })
	f.version++
}

// set replaces src's entries.
func (f *fakeBrowser) set(src browser.Source, es ...browser.Entry) {
	f.entries[src] = es
	f.version++
}

// server returns an answered entry of this protocol.
func server(addr, name, mapName string, humans, bots, maxc, ping int) browser.Entry {
	return browser.Entry{Label: addr, Addr: netip.MustParseAddrPort(addr), State: browser.Answered,
		HostName: name, Map: mapName, Humans: humans, Bots: bots, Max: maxc, Ping: ping, Protocol: proto.Version}
}

var lanServers = []browser.Entry{
	server("10.0.0.1:27960", "Bravo", "arena2", 2, 0, 8, 5),
	server("10.0.0.2:27960", "alpha", "duel1", 0, 3, 8, 10),
	server("10.0.0.3:27961", "Charlie", "arena1", 1, 0, 1, 25),
}

func newBrowserRig(tb testing.TB) (*rig, *fakeBrowser) {
	tb.Helper()
	r := newRig(tb, console.Decl{Name: "cl_lastServer"})
	f := &fakeBrowser{}
	f.set(browser.LAN, lanServers...)
	r.m = New(r.t, Config{Maps: testMaps, Browser: f, LastServer: r.last})
	return r, f
}

// rowNames returns the name cell of every row laid out.
func rowNames(m *Model) []string {
	var names []string
	for _, row := range m.Layout(1280, 720).Browser.Rows {
		names = append(names, row.Cells[0])
	}
	return names
}

func selectedRow(m *Model) string {
	for _, row := range m.Layout(1280, 720).Browser.Rows {
		if row.Selected {
			return row.Cells[0]
		}
	}
	return ""
}

func TestFindServersEntry(t *testing.T) {
	r := newRig(t)
	for _, it := range r.m.Layout(1280, 720).Items {
		if it.Label == "Find servers" {
			t.Fatal("Find servers shown without a browser")
		}
	}
	r, f := newBrowserRig(t)
	r.open(t, "Find servers")
	if r.m.Page() != PageBrowser {
		t.Fatalf("page %d, want the browser", r.m.Page())
	}
	if !slices.Equal(f.refreshes, []browser.Source{browser.LAN}) {
		t.Errorf("refreshes %v, want the LAN tab once", f.refreshes)
	}
	v := r.m.Layout(1280, 720)
	if v.Browser == nil || len(v.Items) != 0 {
		t.Fatalf("browser view %v, items %d", v.Browser, len(v.Items))
	}
	r.press(KeyBack)
	if r.m.Page() != PageMain || r.m.Layout(1280, 720).Browser != nil {
		t.Errorf("Back: page %d, want the main menu without a browser view", r.m.Page())
	}
	// The in-game menu has it too.
	r.m.SetInGame(true)
	r.m.Open()
	r.goTo(t, "Find servers")
	r.press(KeyEnter)
	if r.m.Page() != PageBrowser {
		t.Errorf("in-game Find servers: page %d", r.m.Page())
	}
}

func TestBrowserKeys(t *testing.T) {
	tests := []struct {
		name     string
		keys     []Key
		typed    string
		wantSel  string
		wantRows []string
		wantTab  browser.Source
	}{
		{"starts on first by name", nil, "", "alpha", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
		{"down", []Key{KeyDown}, "", "Bravo", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
		{"down stops at end", []Key{KeyDown, KeyDown, KeyDown, KeyDown}, "", "Charlie", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
		{"up stops at top", []Key{KeyUp}, "", "alpha", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
		{"sort by map", nil, "s", "alpha", []string{"Charlie", "Bravo", "alpha"}, browser.LAN},
		{"sort by players", nil, "ss", "alpha", []string{"alpha", "Charlie", "Bravo"}, browser.LAN},
		{"sort by ping", nil, "ssss", "alpha", []string{"Bravo", "alpha", "Charlie"}, browser.LAN},
		{"ping descending", nil, "sssso", "alpha", []string{"Charlie", "alpha", "Bravo"}, browser.LAN},
		{"name descending", nil, "o", "alpha", []string{"Charlie", "Bravo", "alpha"}, browser.LAN},
		{"hide full", nil, "f", "alpha", []string{"alpha", "Bravo"}, browser.LAN},
		{"hide empty", nil, "e", "Bravo", []string{"Bravo", "Charlie"}, browser.LAN},
		{"hide full and empty", nil, "fe", "Bravo", []string{"Bravo"}, browser.LAN},
		{"filter toggles back", nil, "ff", "alpha", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
		{"right: internet", []Key{KeyRight}, "", "", nil, browser.Internet},
		{"tab: internet", []Key{KeyTab}, "", "", nil, browser.Internet},
		{"left wraps: favourites", []Key{KeyLeft}, "", "", nil, browser.Favorites},
		{"tab wraps", []Key{KeyTab, KeyTab, KeyTab}, "", "alpha", []string{"alpha", "Bravo", "Charlie"}, browser.LAN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newBrowserRig(t)
			r.open(t, "Find servers")
			r.press(tt.keys...)
			r.typeText(tt.typed)
			if got := r.m.BrowserTab(); got != tt.wantTab {
				t.Errorf("tab %v, want %v", got, tt.wantTab)
			}
			if got := rowNames(r.m); !slices.Equal(got, tt.wantRows) {
				t.Errorf("rows %q, want %q", got, tt.wantRows)
			}
			if got := selectedRow(r.m); got != tt.wantSel {
				t.Errorf("selected %q, want %q", got, tt.wantSel)
			}
		})
	}
}

func TestBrowserTabRefreshesOnce(t *testing.T) {
	r, f := newBrowserRig(t)
	r.open(t, "Find servers")
	r.press(KeyRight, KeyLeft, KeyRight)
	if want := []browser.Source{browser.LAN, browser.Internet}; !slices.Equal(f.refreshes, want) {
		t.Errorf("refreshes %v, want %v (each tab once when first shown)", f.refreshes, want)
	}
	r.typeText("r")
	if last := f.refreshes[len(f.refreshes)-1]; last != browser.Internet || len(f.refreshes) != 3 {
		t.Errorf("R: refreshes %v, want the Internet tab again", f.refreshes)
	}
}

func TestBrowserJoin(t *testing.T) {
	r, _ := newBrowserRig(t)
	r.open(t, "Find servers")
	r.press(KeyDown, KeyEnter)
	if got := r.exec(); !slices.Equal(got, []string{"connect|10.0.0.1:27960"}) {
		t.Errorf("ran %q, want connect to Bravo", got)
	}
	if got := r.cvar("cl_lastServer"); got != "10.0.0.1:27960" {
		t.Errorf("cl_lastServer %q", got)
	}
	if r.m.IsOpen() {
		t.Error("menu still open after joining")
	}
}

func TestBrowserIncompatibleGreyed(t *testing.T) {
	r, f := newBrowserRig(t)
	old := server("10.0.0.9:27960", "Old", "arena1", 1, 0, 8, 5)
	old.Protocol = proto.Version - 1
	gone := browser.Entry{Label: "10.0.0.8:27960", Addr: netip.MustParseAddrPort("10.0.0.8:27960"), State: browser.TimedOut}
	nohost := browser.Entry{Label: "nowhere.invalid", State: browser.Unresolved}
	skipped := browser.Entry{Label: "10.0.0.7:27961", Addr: netip.MustParseAddrPort("10.0.0.7:27961"), State: browser.NotQueried}
	f.set(browser.LAN, old, gone, nohost, skipped, lanServers[0])
	r.open(t, "Find servers")
	rows := r.m.Layout(1280, 720).Browser.Rows
	want := map[string]bool{"Old": true, "10.0.0.8:27960": true, "nowhere.invalid": true, "10.0.0.7:27961": true, "Bravo": false}
	ping := map[string]string{"10.0.0.8:27960": "timeout", "nowhere.invalid": "no host", "10.0.0.7:27961": "skipped"}
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d", len(rows), len(want))
	}
	for _, row := range rows {
		if g, ok := want[row.Cells[0]]; !ok || row.Greyed != g {
			t.Errorf("row %q greyed %v, want %v", row.Cells[0], row.Greyed, g)
		}
		if p, ok := ping[row.Cells[0]]; ok && row.Cells[4] != p {
			t.Errorf("row %q's ping %q, want %q", row.Cells[0], row.Cells[4], p)
		}
	}
	r.goTo2(t, "Old")
	r.press(KeyEnter)
	if got := r.exec(); len(got) != 0 || r.m.Message() == "" || !r.m.IsOpen() {
		t.Errorf("join of another protocol ran %q, message %q", got, r.m.Message())
	}
	r.typeText("i")
	if got := rowNames(r.m); !slices.Equal(got, []string{"Bravo"}) {
		t.Errorf("hide incompatible: rows %q", got)
	}
}

// goTo2 selects the browser row named name with Up/Down.
func (r *rig) goTo2(tb testing.TB, name string) {
	tb.Helper()
	r.press(KeyUp, KeyUp, KeyUp, KeyUp, KeyUp, KeyUp)
	for range 20 {
		if selectedRow(r.m) == name {
			return
		}
		r.press(KeyDown)
	}
	tb.Fatalf("no row %q", name)
}

func TestBrowserSelectionStable(t *testing.T) {
	r, f := newBrowserRig(t)
	r.open(t, "Find servers")
	r.press(KeyDown) // Bravo
	// New servers arrive, sorting before Bravo: the selection stays on it.
	f.set(browser.LAN, append([]browser.Entry{server("10.0.0.4:27960", "Aardvark", "arena1", 1, 0, 8, 5),
		server("10.0.0.5:27960", "Able", "arena1", 1, 0, 8, 5)}, lanServers...)...)
	if got := selectedRow(r.m); got != "Bravo" {
		t.Errorf("selected %q after new servers, want Bravo", got)
	}
	// Re-sorting keeps it too.
	r.typeText("ssss")
	if got := selectedRow(r.m); got != "Bravo" || r.m.SelectedServer() != "10.0.0.1:27960" {
		t.Errorf("selected %q (%q) after sorting by ping, want Bravo", got, r.m.SelectedServer())
	}
	// When it goes away the selection stays on its row.
	f.set(browser.LAN, lanServers[1], lanServers[2])
	if got := selectedRow(r.m); got == "" {
		t.Error("no selection after the selected server went away")
	}
}

func TestBrowserFavorites(t *testing.T) {
	r, f := newBrowserRig(t)
	r.open(t, "Find servers")
	r.typeText("a") // alpha
	if !slices.Equal(f.favs, []string{"10.0.0.2:27960"}) || r.m.Message() != "added to favourites" {
		t.Fatalf("favourites %q, message %q", f.favs, r.m.Message())
	}
	rows := r.m.Layout(1280, 720).Browser.Rows
	if !rows[0].Favorite || rows[1].Favorite {
		t.Errorf("favourite marks %v %v, want the first row only", rows[0].Favorite, rows[1].Favorite)
	}
	if b := r.m.Layout(1280, 720).Browser.Buttons[btnFavorite]; b.Label != "Remove favourite" {
		t.Errorf("favourite button %q on a favourite", b.Label)
	}
	// On the Favorites tab, Backspace removes the selected one.
	f.set(browser.Favorites, lanServers[1])
	r.press(KeyLeft, KeyBackspace)
	if len(f.favs) != 0 {
		t.Errorf("favourites %q after Backspace on the Favorites tab", f.favs)
	}
	// The join page adds a typed address.
	r.press(KeyBack)
	r.goTo(t, "Join")
	r.press(KeyEnter)
	r.typeText("example.org:27961")
	r.goTo(t, "Add to favourites")
	r.press(KeyEnter)
	if !slices.Equal(f.favs, []string{"example.org:27961"}) {
		t.Errorf("favourites %q after the join page's add", f.favs)
	}
}

func TestBrowserMouse(t *testing.T) {
	r, f := newBrowserRig(t)
	r.open(t, "Find servers")
	v := r.m.Layout(1280, 720).Browser
	click := func(rc Rect) {
		r.m.Click(rc.X+rc.W/2, rc.Y+rc.H/2)
	}
	// Header: Ping ascending, then descending.
	click(v.Columns[4].Rect)
	if got := rowNames(r.m); !slices.Equal(got, []string{"Bravo", "alpha", "Charlie"}) {
		t.Errorf("ping sort rows %q", got)
	}
	v = r.m.Layout(1280, 720).Browser
	if !v.Columns[4].Sorted || v.Columns[4].Descending {
		t.Errorf("ping column %+v, want sorted ascending", v.Columns[4])
	}
	click(v.Columns[4].Rect)
	if got := rowNames(r.m); !slices.Equal(got, []string{"Charlie", "alpha", "Bravo"}) {
		t.Errorf("second click: rows %q", got)
	}
	// A filter button.
	v = r.m.Layout(1280, 720).Browser
	click(v.Buttons[btnHideFull].Rect)
	v = r.m.Layout(1280, 720).Browser
	if !v.Buttons[btnHideFull].On || len(v.Rows) != 2 {
		t.Errorf("hide full: button %+v, %d rows", v.Buttons[btnHideFull], len(v.Rows))
	}
	// A row selects; a click on the selected row joins.
	click(v.Rows[1].Rect)
	if got := selectedRow(r.m); got != "Bravo" {
		t.Errorf("clicked row 1: selected %q", got)
	}
	v = r.m.Layout(1280, 720).Browser
	click(v.Rows[1].Rect)
	if got := r.exec(); !slices.Equal(got, []string{"connect|10.0.0.1:27960"}) {
		t.Errorf("click on the selected row ran %q", got)
	}
	// A tab.
	r.open(t, "Find servers")
	v = r.m.Layout(1280, 720).Browser
	click(v.Tabs[2].Rect)
	if r.m.BrowserTab() != browser.Favorites || !f.refreshed[browser.Favorites] {
		t.Errorf("tab click: tab %v", r.m.BrowserTab())
	}
}

func TestBrowserLayout(t *testing.T) {
	r, f := newBrowserRig(t)
	var many []browser.Entry
	for i := range 60 {
		many = append(many, server(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, 0, byte(i)}), 27960).String(), "s", "m", 0, 0, 8, i))
	}
	f.set(browser.LAN, many...)
	r.open(t, "Find servers")
	for _, size := range [][2]int{{1280, 720}, {800, 600}, {1920, 1080}} {
		v := r.m.Layout(size[0], size[1])
		bv := v.Browser
		inside := func(what string, rc Rect) {
			if rc.X < v.Panel.X || rc.Y < v.Panel.Y || rc.X+rc.W > v.Panel.X+v.Panel.W || rc.Y+rc.H > v.Panel.Y+v.Panel.H {
				t.Errorf("%v: %s %+v outside the panel %+v", size, what, rc, v.Panel)
			}
		}
		for _, tb := range bv.Tabs {
			inside("tab", tb.Rect)
		}
		for _, c := range bv.Columns {
			inside("column", c.Rect)
		}
		for _, b := range bv.Buttons {
			inside("button "+b.Label, b.Rect)
		}
		last := bv.Rows[len(bv.Rows)-1].Rect
		if last.Y+last.H > bv.Buttons[0].Rect.Y || last.Y+last.H > bv.Table.Y+bv.Table.H {
			t.Errorf("%v: last row %+v reaches the buttons %+v", size, last, bv.Buttons[0].Rect)
		}
		if !bv.MoreBelow || bv.MoreAbove {
			t.Errorf("%v: more above %v below %v, want below only", size, bv.MoreAbove, bv.MoreBelow)
		}
		if bv.StatusY <= bv.Buttons[len(bv.Buttons)-1].Rect.Y || v.HintY <= bv.StatusY {
			t.Errorf("%v: status at %d, hint at %d, buttons end %d", size, bv.StatusY, v.HintY, bv.Buttons[len(bv.Buttons)-1].Rect.Y)
		}
	}
	if got, want := r.m.Layout(1280, 720).Browser.Status, "LAN: 60 servers"; got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	// Scrolling: the wheel and the keys keep the selection shown.
	r.m.Wheel(-10)
	bv := r.m.Layout(1280, 720).Browser
	if !bv.MoreAbove || !slices.ContainsFunc(bv.Rows, func(row Row) bool { return row.Selected }) {
		t.Errorf("after the wheel: more above %v, selection shown %v", bv.MoreAbove, bv.Rows)
	}
	// An empty tab says so.
	r.press(KeyRight)
	if bv := r.m.Layout(1280, 720).Browser; len(bv.Rows) != 0 || bv.Empty != "no servers found" {
		t.Errorf("empty tab: %d rows, %q", len(bv.Rows), bv.Empty)
	}
}

func TestOpenMainWithMessage(t *testing.T) {
	r := newRig(t)
	r.m.OpenMainWithMessage("kicked: too many teamkills")
	v := r.m.Layout(1280, 720)
	if !r.m.IsOpen() || r.m.Page() != PageMain || v.Message != "kicked: too many teamkills" {
		t.Errorf("open %v page %d message %q", r.m.IsOpen(), r.m.Page(), v.Message)
	}
	r.press(KeyDown)
	if m := r.m.Layout(1280, 720).Message; m != "" {
		t.Errorf("message %q after a key, want it gone", m)
	}
	r.m.SetMessage("connection refused")
	if m := r.m.Message(); m != "connection refused" {
		t.Errorf("SetMessage: %q", m)
	}
}

func TestBrowserLayoutAllocs(t *testing.T) {
	r, _ := newBrowserRig(t)
	r.open(t, "Find servers")
	r.m.Layout(1280, 720)
	if n := testing.AllocsPerRun(100, func() { r.m.Layout(1280, 720) }); n != 0 {
		t.Errorf("Layout of an unchanged browser page allocates %v times", n)
	}
}
