package settings

import "tremor/common/console"

// Net: none. The browser build's server browser lists the page's own
// server and has no cvars: no LAN ports to search, masters or rate
// (docs/web.md).
type Net struct{}

// bindNet binds nothing.
func bindNet(*console.Vars, *Net) {}
