package session

import "tremor/common/console"

// bindFileCvars binds nothing. The browser build has no files
// (docs/web.md), so it records no demos and keeps no journal; its
// settings are kept in the browser's local storage (package userdata).
func bindFileCvars(*console.Vars, *Config, *Session) {}
