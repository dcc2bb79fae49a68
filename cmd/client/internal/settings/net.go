//go:build !js

package settings

import (
	"tremor/client/browser"
	"tremor/common/console"
)

// Net is the server browser's settings (browser.Cvars).
type Net = browser.Cvars

// bindNet binds the server browser's cvars; the browser reads them at
// each refresh.
func bindNet(v *console.Vars, n *Net) { browser.BindCvars(v, n) }
