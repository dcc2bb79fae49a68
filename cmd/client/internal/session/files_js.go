package session

import "tremor/common/console"

// fileCvars: none. The browser build has no files (docs/web.md), so it
// records no demos and keeps no journal; its settings are kept in the
// browser's local storage (package userdata).
var fileCvars []console.Decl
