//go:build !js

package session

import (
	"tremor/client"
	"tremor/common/console"
)

// fileCvars are the cvars of what the client writes to files: demos
// (client.DemoCvars) and the event journal.
var fileCvars = append(client.DemoCvars(), []console.Decl{
	{Name: "journal", Default: "0", Flags: console.Init | console.Integral, Min: 0, Max: 2,
		Help: "event journal (docs/journal.md): 1 records the session with the local server to journals/ in the data directory, 2 replays journal_file; set on the command line"},
	{Name: "journal_file", Default: "", Flags: console.Init,
		Help: "the journal journal 2 replays (a path, or NAME in the data directory's journals folder); with journal 1, the name to record to (empty: date and map)"},
}...)
