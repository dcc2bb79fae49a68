//go:build !js

package session

import (
	"tremor/common/console"
)

// bindFileCvars binds the cvars of what the client writes to files:
// demos and the event journal (bindCvars' list).
func bindFileCvars(v *console.Vars, c *Config, s *Session) {
	v.OnChange(s.applyAutoRecord).BoolVar(&c.AutoRecordDemo, "cl_autoRecordDemo", false, console.Archive,
		"record a demo of every level, named by date and map")
	v.IntVar(&c.Journal, "journal", 0, 0, 2, console.Init,
		"event journal (docs/journal.md): 1 records the session with the local server to journals/ in the data directory, 2 replays journal_file; set on the command line")
	v.StringVar(&c.JournalFile, "journal_file", "", console.Init,
		"the journal journal 2 replays (a path, or NAME in the data directory's journals folder); with journal 1, the name to record to (empty: date and map)")
}
