package console

import (
	"fmt"
	"io/fs"
	"tremor/net/cmdargs"
)

type command struct {
	name, help string
	fn         func(args *cmdargs.Args)
	remote     bool // ExecuteRemote may run it
}

// AddCommand adds a console command (Cmd_AddCommand). fn receives the
// tokenized line, the command's name in Argv(0); it must not keep args
// after it returns. AddCommand panics if name is not a valid name or is
// already a command or cvar: a programming error.
func (t *Table) AddCommand(name, help string, fn func(args *cmdargs.Args)) {
	t.addCommand(name, help, fn, false)
}

// AddRemoteCommand adds a command that text from the network
// ([Table.ExecuteRemote], rcon) may run as well as the local console: the
// server's commands. Commands added with [Table.AddCommand] are refused
// to remote text.
func (t *Table) AddRemoteCommand(name, help string, fn func(args *cmdargs.Args)) {
	t.addCommand(name, help, fn, true)
}

// HasCommand reports whether name, compared ignoring ASCII case, is a
// command.
func (t *Table) HasCommand(name string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.cmds[lower(name)]
	return ok
}

func (t *Table) addCommand(name, help string, fn func(args *cmdargs.Args), remote bool) {
	if err := checkName(name); err != nil {
		panic(err)
	}
	if fn == nil {
		panic("console: command " + name + " has no function")
	}
	key := lower(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.cmds[key]; ok {
		panic("console: command " + name + " added twice")
	}
	if _, ok := t.cvars[key]; ok {
		panic("console: command " + name + " is a cvar")
	}
	t.cmds[key] = &command{name: name, help: help, fn: fn, remote: remote}
}

// RemoveCommand removes a command (Cmd_RemoveCommand); removing one that
// does not exist does nothing.
func (t *Table) RemoveCommand(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.cmds, lower(name))
}

// SetFallback sets a function that gets the lines whose first token names
// neither a command nor a cvar, before they are reported as unknown; it
// returns whether it handled the line. The client forwards such lines to
// the server with it (CL_ForwardCommandToServer).
func (t *Table) SetFallback(fn func(args *cmdargs.Args) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fallback = fn
}

// SetFS sets the file system the exec command reads config files from.
// Without one, exec reports that it has none.
func (t *Table) SetFS(fsys fs.FS) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fsys = fsys
}

// ExecuteString runs one command line at once, without the command
// buffer and without splitting it at ';' (Cmd_ExecuteString). The server
// runs rcon commands with it.
func (t *Table) ExecuteString(line string) {
	t.executeLine(line)
}

// ExecuteCommandLine runs the early lines of the command line at once, as
// [SplitCommandLine] returns them: set commands in them may set Init cvars
// and set Latch cvars without waiting for a map (Com_StartupVariable).
// The program calls it after registering its cvars (and after
// [Table.LoadArchived], so that the command line wins over the saved
// configuration) and before it initialises.
func (t *Table) ExecuteCommandLine(lines []string) {
	prev := t.source
	t.source = fromCommandLine
	defer func() { t.source = prev }()
	for _, l := range lines {
		t.executeLine(l)
	}
}

// executeLine tokenizes one line and runs it: a command, a cvar, the
// fallback, or an unknown-command message.
func (t *Table) executeLine(line string) {
	if t.observer != nil {
		defer t.observeLine(line)()
	}
	args := cmdargs.Tokenize(line)
	if args.Truncated() {
		t.Printf("console: line longer than %d bytes or %d tokens; cut short\n", cmdargs.MaxStringChars, cmdargs.MaxStringTokens)
	}
	if args.Argc() == 0 {
		return
	}
	name := args.Argv(0)
	key := lower(name)
	t.mu.RLock()
	cmd := t.cmds[key]
	c := t.cvars[key]
	fallback := t.fallback
	t.mu.RUnlock()

	remote := t.source == fromRemote
	switch {
	case cmd != nil && remote && !cmd.remote:
		t.Printf("%s cannot be run through rcon\n", cmd.name)
	case cmd != nil:
		cmd.fn(&args)
	case c != nil:
		if args.Argc() == 1 {
			t.printCvar(c)
			return
		}
		if err := t.set(c.name, args.ArgsFrom(1), t.source, 0); err != nil {
			t.Printf("%v\n", err)
		}
	case fallback != nil && !remote && fallback(&args):
	default:
		t.Printf("unknown command %q\n", name)
	}
}

// printCvar prints a cvar as a bare cvar name does (Cvar_Command).
func (t *Table) printCvar(c *Cvar) {
	def := c.Default()
	s := fmt.Sprintf("%s is %q", c.Name(), c.Value())
	if def != c.Value() {
		s += fmt.Sprintf(", default %q", def)
	}
	if l, ok := c.Latched(); ok {
		s += fmt.Sprintf(", %q at the next map", l)
	}
	t.Printf("%s\n", s)
}
