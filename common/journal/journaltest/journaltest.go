// Package journaltest checks a program that replays event journals
// (common/journal) against the one list of the cvars a replay leaves
// alone, as net/http/httptest and testing/fstest help test what uses
// their packages.
package journaltest

import (
	"fmt"
	"strings"

	"tremor/common/journal"
)

// machineCvar reports whether a cvar's name says it belongs to the
// machine a program runs on, which a replay must not take from the
// machine that recorded: the journal's own, a file or folder, a socket
// or port, a master server.
func machineCvar(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "journal"):
		return true
	case strings.HasSuffix(n, "dir"), strings.HasSuffix(n, "path"), strings.HasSuffix(n, "_file"), strings.HasSuffix(n, "profile"):
		return true
	case strings.HasSuffix(n, "_ip"), strings.HasSuffix(n, "port"), strings.HasSuffix(n, "ports"):
		return true
	case strings.Contains(n, "master"):
		return true
	}
	return false
}

// CheckNoReplay returns an error naming each cvar of names whose name
// says it belongs to the machine the program runs on — the journal's
// own (journal…), a file or folder (…dir, …path, …_file, …profile), a
// socket or port (…_ip, …port, …ports), a master server (…master…) —
// and which a replay would nevertheless set (journal.Replayed). A test
// of each program that replays passes it every cvar the program
// declares, so that a cvar added later cannot replay because nobody
// added it to the list.
func CheckNoReplay(names []string) error {
	var bad []string
	for _, n := range names {
		if machineCvar(n) && journal.Replayed(n) {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("journaltest: %s would replay the recording machine's value: add them to common/journal's noReplay", strings.Join(bad, ", "))
	}
	return nil
}
