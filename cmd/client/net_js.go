package main

import (
	"tremor/ui/menu"
)

// The browser build opens no sockets (docs/web.md): it has no connect
// command, no Join page and no server browser; it plays on the local
// server over the loopback netchan. net.go has the rest.

// openNetwork leaves the menu without a server browser.
func (g *game) openNetwork(*menu.Config) {}

// addNetCommands adds nothing: there is no connect.
func (g *game) addNetCommands() {}
