package settings

import "tremor/common/console"

// Net: none. The browser build has no server browser (docs/web.md).
type Net struct{}

// bindNet binds nothing.
func bindNet(*console.Vars, *Net) {}
