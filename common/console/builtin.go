package console

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"tremor/net/cmdargs"
)

// builtins are the commands every table has. Their help is the table
// docs/cvars.md shows. Remote text may run them all: what they change is
// judged by the cvars' flags, and exec reads only the table's fs.FS.
func (t *Table) addBuiltins() {
	t.AddRemoteCommand("set", "set <name> <value>: set a cvar, creating it if needed", t.setCommand(0))
	t.AddRemoteCommand("seta", "seta <name> <value>: set a cvar and mark it Archive, saved between runs", t.setCommand(Archive))
	t.AddRemoteCommand("sets", "sets <name> <value>: set a cvar and mark it ServerInfo", t.setCommand(ServerInfo))
	t.AddRemoteCommand("setu", "setu <name> <value>: set a cvar and mark it UserInfo", t.setCommand(UserInfo))
	t.AddRemoteCommand("toggle", "toggle <name> [value...]: flip a cvar between 0 and 1, or step it through the values", t.toggle)
	t.AddRemoteCommand("reset", "reset <name>: set a cvar back to its default", t.reset)
	t.AddRemoteCommand("cvarlist", "cvarlist [prefix]: list cvars with their flags and values", t.cvarlist)
	t.AddRemoteCommand("cmdlist", "cmdlist [prefix]: list commands", t.cmdlist)
	t.AddRemoteCommand("echo", "echo <text>: print the text", func(a *cmdargs.Args) { t.Printf("%s\n", a.ArgsFrom(1)) })
	t.AddRemoteCommand("vstr", "vstr <name>: run the value of a cvar as commands", t.vstr)
	t.AddRemoteCommand("exec", "exec <file>: run a config file (.cfg added when the name has no extension)", t.exec)
	t.AddRemoteCommand("wait", "wait [frames]: run the rest of the command buffer that many frames later (1 if omitted)", t.waitCommand)
	t.AddRemoteCommand("help", "help <name>: describe a command or cvar", t.help)
}

func (t *Table) setCommand(flags Flags) func(a *cmdargs.Args) {
	return func(a *cmdargs.Args) {
		switch a.Argc() {
		case 1:
			t.Printf("usage: %s <name> <value>\n", a.Argv(0))
		case 2:
			if c := t.Get(a.Argv(1)); c != nil {
				t.printCvar(c)
			} else {
				t.Printf("no cvar %q\n", a.Argv(1))
			}
		default:
			if err := t.set(a.Argv(1), a.ArgsFrom(2), t.source, flags); err != nil {
				t.Printf("%v\n", err)
			}
		}
	}
}

func (t *Table) toggle(a *cmdargs.Args) {
	if a.Argc() < 2 {
		t.Printf("usage: toggle <name> [value...]\n")
		return
	}
	c := t.Get(a.Argv(1))
	if c == nil {
		t.Printf("no cvar %q\n", a.Argv(1))
		return
	}
	var next string
	switch {
	case a.Argc() == 2 && c.Int() != 0:
		next = "0"
	case a.Argc() == 2:
		next = "1"
	default:
		next = a.Argv(2)
		for i := 2; i < a.Argc(); i++ {
			if strings.EqualFold(a.Argv(i), c.Value()) {
				next = a.Argv(2 + (i-2+1)%(a.Argc()-2))
				break
			}
		}
	}
	if err := t.set(c.Name(), next, t.source, 0); err != nil {
		t.Printf("%v\n", err)
	}
}

func (t *Table) reset(a *cmdargs.Args) {
	if a.Argc() != 2 {
		t.Printf("usage: reset <name>\n")
		return
	}
	c := t.Get(a.Argv(1))
	if c == nil {
		t.Printf("no cvar %q\n", a.Argv(1))
		return
	}
	if err := t.set(c.Name(), c.Default(), t.source, 0); err != nil {
		t.Printf("%v\n", err)
	}
}

func (t *Table) cvarlist(a *cmdargs.Args) {
	prefix := lower(a.Argv(1))
	t.mu.RLock()
	cs := t.sortedLocked()
	t.mu.RUnlock()
	var b strings.Builder
	n := 0
	for _, c := range cs {
		if !strings.HasPrefix(lower(c.name), prefix) {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s %-20s %q", c.Flags().letters(), c.name, c.Value())
		if al := c.Aliases(); len(al) > 0 {
			fmt.Fprintf(&b, " (also %s)", strings.Join(al, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d cvars\n", n)
	t.Printf("%s", b.String())
}

func (t *Table) cmdlist(a *cmdargs.Args) {
	prefix := lower(a.Argv(1))
	t.mu.RLock()
	cmds := make(map[string]*command, len(t.cmds))
	for k, c := range t.cmds {
		cmds[k] = c
	}
	t.mu.RUnlock()
	var b strings.Builder
	n := 0
	for _, name := range t.CommandNames() {
		if !strings.HasPrefix(lower(name), prefix) {
			continue
		}
		c := cmds[lower(name)]
		if c == nil {
			continue // removed meanwhile
		}
		n++
		fmt.Fprintf(&b, "%-16s %s\n", c.name, c.help)
	}
	fmt.Fprintf(&b, "%d commands\n", n)
	t.Printf("%s", b.String())
}

func (t *Table) vstr(a *cmdargs.Args) {
	if a.Argc() != 2 {
		t.Printf("usage: vstr <name>\n")
		return
	}
	c := t.Get(a.Argv(1))
	if c == nil {
		t.Printf("vstr: no cvar %q\n", a.Argv(1))
		return
	}
	if err := t.insert(c.Value(), false); err != nil {
		t.Printf("vstr %s: %v\n", c.Name(), err)
	}
}

func (t *Table) exec(a *cmdargs.Args) {
	if a.Argc() != 2 {
		t.Printf("usage: exec <file>\n")
		return
	}
	name := a.Argv(1)
	if path.Ext(name) == "" {
		name += ".cfg"
	}
	t.mu.RLock()
	fsys := t.fsys
	t.mu.RUnlock()
	if fsys == nil {
		t.Printf("exec %s: no file system to read config files from\n", name)
		return
	}
	text, err := readConfig(fsys, name)
	if err != nil {
		t.Printf("exec %s: %v\n", name, err)
		return
	}
	if err := t.insert(text, true); err != nil {
		t.Printf("exec %s: %v\n", name, err)
		return
	}
	t.Printf("execing %s\n", name)
}

// readConfig reads a config file of at most MaxBufferSize bytes.
func readConfig(fsys fs.FS, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", fmt.Errorf("console: invalid file name %q", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBufferSize+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxBufferSize {
		return "", fmt.Errorf("console: file larger than %d bytes", MaxBufferSize)
	}
	return string(b), nil
}

func (t *Table) waitCommand(a *cmdargs.Args) {
	n := 1
	if a.Argc() > 1 {
		v, err := strconv.Atoi(a.Argv(1))
		switch {
		case errors.Is(err, strconv.ErrRange) && v > 0:
			n = MaxWait
		case err != nil || v < 0:
			t.Printf("usage: wait [frames]\n")
		default:
			n = min(v, MaxWait)
		}
	}
	t.Wait(n)
}

// MaxWait is the longest wait, in frames.
const MaxWait = 1 << 20

func (t *Table) help(a *cmdargs.Args) {
	if a.Argc() != 2 {
		t.Printf("usage: help <command or cvar>; cmdlist and cvarlist list them\n")
		return
	}
	key := lower(a.Argv(1))
	t.mu.RLock()
	cmd := t.cmds[key]
	t.mu.RUnlock()
	if cmd != nil {
		t.Printf("%s: %s\n", cmd.name, cmd.help)
		return
	}
	c := t.Get(key)
	if c == nil {
		t.Printf("no command or cvar %q\n", a.Argv(1))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", c.Name(), c.Help())
	fmt.Fprintf(&b, "  value %q, default %q\n", c.Value(), c.Default())
	if mn, mx, ok := c.Range(); ok {
		fmt.Fprintf(&b, "  range [%s, %s]\n", formatNumber(mn), formatNumber(mx))
	}
	if f := c.Flags(); f != 0 {
		fmt.Fprintf(&b, "  flags %v\n", f)
	}
	if al := c.Aliases(); len(al) > 0 {
		fmt.Fprintf(&b, "  also called %s\n", strings.Join(al, ", "))
	}
	if l, ok := c.Latched(); ok {
		fmt.Fprintf(&b, "  %q at the next map\n", l)
	}
	t.Printf("%s", b.String())
}
