package session

import (
	"io"

	"tremor/cgame"
	"tremor/internal/client"
	"tremor/internal/console"
)

// Cvars are the window client's cvars: the client engine's and
// prediction's (client.Cvars, shared with the headless clients) and the
// local server's LAN port and the display's. All take effect at once.
var Cvars = append(client.Cvars("Player"),
	console.Decl{Name: "net_ip", Default: "",
		Help: "address the local server's LAN port listens on (empty: every address)"},
	console.Decl{Name: "net_port", Default: "27960", Flags: console.Integral, Min: -1, Max: 65535,
		Help: "UDP port of the local server for LAN players (0: any free port, -1: none)"},
	console.Decl{Name: "r_vsync", Default: "1", Flags: console.Integral, Min: 0, Max: 1,
		Help: "wait for the display's vertical sync"},
)

// clientConfig reads the engine's settings from the cvars.
func clientConfig(t *console.Table, seed uint64) client.Config {
	c := client.ConfigFromCvars(t)
	c.Seed = seed
	return c
}

// updateCGameConfig copies prediction's cvars into c; cgame reads c at
// every frame.
func updateCGameConfig(c *cgame.Config, t *console.Table, stderr io.Writer) {
	client.CGameConfigFromCvars(c, t, func(format string, args ...any) { fmtLine(stderr, format, args...) })
}
