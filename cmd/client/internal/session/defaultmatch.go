package session

import (
	"io"
	"io/fs"
	"strings"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// DefaultMatch is the command line of the window's default match: a
// local match against three bots (of skill g_spSkill) on arena1, which
// the window shows behind its main menu.
var DefaultMatch = []string{"+map", "arena1", "+addbot", "3"}

// ownGame names the commands that start or join a game, or play
// something in its place, so that a command line holding one has no
// default match: map, connect, demo, timedemo, classroom, playjournal.
var ownGame = map[string]bool{
	"map": true, "connect": true, "demo": true, "timedemo": true,
	"classroom": true, "playjournal": true,
}

// WithDefaultMatch returns the command line to run for the program's
// arguments args, and whether it is the default match. A command line
// that starts or joins a game, or plays a demo, a timedemo, the
// classroom or a journal (ownGame), runs as it is — also when a script it
// execs does, as the lessons do (+exec lessons/lesson7): scripts are read
// from fsys, the file system exec reads (nil: none). Any other — none at
// all, or only settings, binds, settings scripts and screenshots such as
// "+set name Ann" or "+wait 300 +screenshot a.png" — runs after
// DefaultMatch, so that it changes the default match instead of
// replacing it. Arguments before the first '+' stay one command of
// their own, as Quake III reads them.
func WithDefaultMatch(args []string, fsys fs.FS) (cmdline []string, isDefault bool) {
	if startsOwnGame(console.ParseCommandLine(args), fsys) {
		return args, false
	}
	cmdline = append([]string(nil), DefaultMatch...)
	if len(args) > 0 && !strings.HasPrefix(args[0], "+") {
		cmdline = append(cmdline, "+")
	}
	return append(cmdline, args...), true
}

// startsOwnGame reports whether lines run an ownGame command, directly or
// through the scripts they exec (and the cvars they vstr). It runs them
// dry on a table of its own, where only exec, vstr and the cvar commands
// do anything and the ownGame commands just say they were reached, all at
// once (a wait does not pause it).
func startsOwnGame(lines []string, fsys fs.FS) bool {
	t := console.NewTable()
	t.SetOutput(io.Discard)
	if fsys != nil {
		t.SetFS(fsys)
	}
	found := false
	for name := range ownGame {
		t.AddRemoteCommand(name, "", func(*cmdargs.Args) { found = true })
	}
	t.ExecuteRemote(strings.Join(lines, "\n"), io.Discard)
	return found
}
