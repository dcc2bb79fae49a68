package menu

import (
	"testing"

	"tremor/client/browser"
)

func TestOpenPage(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		name, tab string
		want      PageID
	}{
		{"main", "", PageMain},
		{"Settings", "", PageSettings},
		{"keys", "", PageKeys},
		{"join", "", PageJoin},
		{"play", "", PagePlay},
	} {
		if err := r.m.OpenPage(tc.name, tc.tab); err != nil {
			t.Fatalf("OpenPage(%q): %v", tc.name, err)
		}
		if !r.m.IsOpen() || r.m.Page() != tc.want {
			t.Fatalf("OpenPage(%q): open %v, page %v; want %v", tc.name, r.m.IsOpen(), r.m.Page(), tc.want)
		}
		if tc.want != PageMain {
			// Back leads to the root page.
			r.m.Press(KeyBack, "ESCAPE")
			if r.m.Page() != PageMain {
				t.Errorf("OpenPage(%q) then Back: page %v, want the main menu", tc.name, r.m.Page())
			}
		}
	}
	for _, bad := range []string{"", "nope", "../main"} {
		if err := r.m.OpenPage(bad, ""); err == nil {
			t.Errorf("OpenPage(%q) accepted", bad)
		}
	}
	// No browser: no servers page.
	if err := r.m.OpenPage("servers", ""); err == nil {
		t.Error("OpenPage(servers) without a browser accepted")
	}
}

func TestOpenPageServersTab(t *testing.T) {
	r, _ := newBrowserRig(t)
	if err := r.m.OpenPage("servers", "internet"); err != nil {
		t.Fatal(err)
	}
	if r.m.Page() != PageBrowser {
		t.Fatalf("page %v, want the browser", r.m.Page())
	}
	v := r.m.Layout(1280, 720)
	if v.Browser == nil {
		t.Fatal("no browser view")
	}
	for _, tab := range v.Browser.Tabs {
		if tab.Active != (tab.Label == browser.Internet.String()) {
			t.Errorf("tab %s active %v; want only Internet active", tab.Label, tab.Active)
		}
	}
	if err := r.m.OpenPage("servers", "moon"); err == nil {
		t.Error("tab moon accepted")
	}
}
