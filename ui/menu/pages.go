package menu

import (
	"fmt"
	"strings"

	"tremor/client/browser"
)

// PageNames are the names OpenPage takes, in PageID order.
var PageNames = [numPages]string{"main", "ingame", "play", "join", "settings", "keys", "servers"}

// OpenPage opens the menu at the page called name (one of PageNames),
// over its root page (the main or in-game menu) so that Back leads there,
// as if the player had chosen it: the console's and scripts' way to any
// page ("menu servers"). For "servers", tab picks the browser's tab
// ("lan", "internet", "favorites"; "" keeps the last one).
func (m *Model) OpenPage(name, tab string) error {
	id := PageID(numPages)
	for i, n := range PageNames {
		if strings.EqualFold(n, name) {
			id = PageID(i)
		}
	}
	if id == numPages {
		return fmt.Errorf("menu: no page %q (pages: %s)", name, strings.Join(PageNames[:], ", "))
	}
	if id == PageBrowser && m.cfg.Browser == nil {
		return fmt.Errorf("menu: no server browser")
	}
	if id == PageJoin && !m.t.HasCommand("connect") {
		return fmt.Errorf("menu: no join page: this client cannot connect to servers")
	}
	src := browser.NumSources
	if tab != "" {
		for s := range browser.NumSources {
			if strings.EqualFold(s.String(), tab) {
				src = s
			}
		}
		if src == browser.NumSources {
			return fmt.Errorf("menu: no browser tab %q (lan, internet, favorites)", tab)
		}
	}
	switch id {
	case PageMain, PageInGame:
		m.openAt(id)
		return nil
	}
	m.Open()
	if id == PageBrowser {
		if src != browser.NumSources {
			m.br.tab = src
		}
		m.openBrowser()
		return nil
	}
	m.push(id)
	return nil
}
