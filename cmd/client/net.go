//go:build !js

package main

import (
	"fmt"
	"io"
	"io/fs"

	"tremor/client/browser"
	"tremor/net/cmdargs"
	"tremor/ui/menu"
)

// What the client does over sockets, which the browser build leaves out
// (net_js.go, docs/web.md): joining a server (connect, the menu's Join)
// and the server browser (Find servers, its cvars and favourites).

// openNetwork opens the server browser and gives it to the menu's
// config, unless it has no socket.
func (g *game) openNetwork(mcfg *menu.Config) {
	if g.br = openBrowser(&g.cv.Net, g.cfg, g.stderr); g.br != nil {
		mcfg.Browser = g.br // an interface: never a nil *browser.Browser
	}
}

// addNetCommands adds connect.
func (g *game) addNetCommands() {
	t := g.t
	t.AddCommand("connect", "join a server: connect HOST[:PORT]", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: connect HOST[:PORT]\n")
			return
		}
		if err := g.sess.Connect(a.Argv(1)); err != nil {
			t.Printf("%v\n", err)
		}
	})
}

// favoritesProp holds the server browser's favourites, an address a line.
const favoritesProp = "favorites.txt"

// favorites is the browser's browser.Store over favorites.txt.
type favorites struct{ c *config }

// Load implements browser.Store.
func (f favorites) Load() ([]byte, error) {
	b, err := f.c.m.Load(configObject, favoritesProp)
	if err == nil && b == nil {
		return nil, fs.ErrNotExist
	}
	return b, err
}

// Save implements browser.Store.
func (f favorites) Save(text []byte) error { return f.c.m.Save(configObject, favoritesProp, text) }

// openBrowser opens the server browser, its favourites saved with the
// settings (kept for this run only when cfg is nil). Without a socket it
// prints why and returns nil: the menu then has no Find servers page.
func openBrowser(cv *browser.Cvars, cfg *config, stderr io.Writer) *browser.Browser {
	bc := browser.Config{Cvars: cv}
	if cfg != nil {
		bc.Store = favorites{cfg}
	}
	b, err := browser.Open(bc)
	if err != nil {
		fmt.Fprintf(stderr, "client: no server browser: %v\n", err)
		return nil
	}
	return b
}
