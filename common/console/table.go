package console

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"tremor/common/safetext"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// Limits of a table.
const (
	// MaxUserCvars is the most cvars that set commands may create without
	// a declaration (Quake III capped all cvars at MAX_CVARS).
	MaxUserCvars = 1024

	// MaxNameLen is the longest cvar or command name.
	MaxNameLen = 64
)

// Table is a set of cvars and commands with its command buffer: the state
// of Quake III's cvar.c and cmd.c, without the globals. The server, the
// headless client and the windowed client each own one.
type Table struct {
	mu        sync.RWMutex
	cvars     map[string]*Cvar // by lower-case name and alias
	all       []*Cvar          // each cvar once
	cmds      map[string]*command
	userCvars int
	cheats    bool
	modified  Flags
	fsys      fs.FS
	fallback  func(args *cmdargs.Args) bool

	outMu sync.Mutex
	out   io.Writer

	bufMu sync.Mutex
	main  cbuf  // Append's buffer, run by Execute
	sub   *cbuf // the buffer of the ExecuteRemote running, if any

	executing atomic.Bool
	source    setSource // how the line being executed sets cvars

	observer func(line string) // SetLineObserver's (observe.go)
	running  int               // lines executing, nested (observe.go)
}

type setSource int

const (
	fromConsole     setSource = iota // typed, scripted, or Set
	fromCommandLine                  // +set, SetFromCommandLine
	fromArchive                      // LoadArchived
	fromCode                         // ForceSet
	fromRemote                       // ExecuteRemote (rcon)
)

// NewTable returns a table holding the built-in commands and no cvars.
// Its output goes to os.Stdout until [Table.SetOutput].
func NewTable() *Table {
	t := &Table{
		cvars: make(map[string]*Cvar),
		cmds:  make(map[string]*command),
		out:   os.Stdout,
	}
	t.addBuiltins()
	return t
}

// SetOutput sets where the table prints: command output, notes about
// clamped and latched values, errors of typed commands.
func (t *Table) SetOutput(w io.Writer) {
	t.outMu.Lock()
	defer t.outMu.Unlock()
	t.out = w
}

// Printf prints through the table's output (Com_Printf). What it prints
// often quotes text from elsewhere (a server's reason, a player's name, a
// file): every control character but newline is written as an escape
// (safetext.Text), so that nothing printed is a terminal command.
func (t *Table) Printf(format string, args ...any) {
	s := safetext.Text(fmt.Sprintf(format, args...))
	t.outMu.Lock()
	defer t.outMu.Unlock()
	_, _ = io.WriteString(t.out, s)
}

// lower returns s in ASCII lower case, without allocating when it is
// already.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// checkName reports whether name can name a cvar or command: one token
// that the command buffer and info strings keep whole.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("console: empty name")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("console: name %.16q... longer than %d bytes", name, MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c <= ' ', c == 0x7f, c == '"', c == '\\', c == ';':
			return fmt.Errorf("console: name %q contains %q", name, c)
		case c == '/' && i+1 < len(name) && (name[i+1] == '/' || name[i+1] == '*'):
			return fmt.Errorf("console: name %q contains a comment marker", name)
		}
	}
	return nil
}

// badInfoByte returns the index of the first byte of s that an info
// string cannot carry, or -1.
func badInfoByte(s string) int {
	return strings.IndexAny(s, "\\;\"\x00\r\n")
}

// Register declares cvars. It panics on a declaration that is wrong in
// itself (a bad name, a default outside the range) or that collides with a
// declared cvar or a command: these are programming errors, found at
// start-up. A name that was already set without a declaration (by +set or
// a config file) is adopted: the cvar keeps the value it was given, after
// the declaration's checks, unless it is ReadOnly.
func (t *Table) Register(decls ...Decl) {
	var notes []string
	t.mu.Lock()
	func() {
		defer t.mu.Unlock()
		for _, d := range decls {
			if n := t.register(d); n != "" {
				notes = append(notes, n)
			}
		}
	}()
	for _, n := range notes {
		t.Printf("%s\n", n)
	}
}

func (t *Table) register(d Decl) (note string) {
	if err := checkDecl(d); err != nil {
		panic(err)
	}
	names := append([]string{d.Name}, d.Aliases...)
	var adopted []*Cvar
	seen := map[string]bool{}
	for _, n := range names {
		key := lower(n)
		if seen[key] {
			panic(fmt.Sprintf("console: cvar %s: name %s given twice", d.Name, n))
		}
		seen[key] = true
		if _, ok := t.cmds[key]; ok {
			panic(fmt.Sprintf("console: cvar %s: %s is a command", d.Name, n))
		}
		if c := t.cvars[key]; c != nil {
			if c.Flags()&UserCreated == 0 {
				panic(fmt.Sprintf("console: cvar %s: %s declared twice", d.Name, n))
			}
			adopted = append(adopted, c)
		}
	}

	c := &Cvar{t: t, name: d.Name}
	if len(adopted) > 0 && lower(adopted[0].name) == lower(d.Name) {
		c = adopted[0] // keep the pointer a caller may hold
		c.name = d.Name
	}
	c.def = d.Default
	c.min, c.max, c.ranged = d.Min, d.Max, d.ranged()
	c.help = d.Help
	c.plain = d.plain
	c.aliases = append([]string(nil), d.Aliases...)
	c.hasLatch, c.latched = false, ""

	flags := d.Flags
	val := d.Default
	if len(adopted) > 0 {
		u := adopted[0]
		flags |= u.Flags() &^ UserCreated
		// The user's value passes the checks it would have met had the
		// cvar been declared when it was set.
		err := t.allowed(c, flags, u.src, u.Value())
		v, n := "", ""
		if err == nil {
			v, n, err = c.check(u.Value(), flags)
		}
		switch {
		case err != nil:
			note = fmt.Sprintf("%v; %s set to its default %q", err, d.Name, d.Default)
		default:
			val, note = v, n
		}
		for _, u := range adopted {
			t.userCvars--
			if u != c {
				t.all = slices.DeleteFunc(t.all, func(x *Cvar) bool { return x == u })
			}
			// Drop the user cvar's own names; the declared names follow.
			for k, x := range t.cvars {
				if x == u {
					delete(t.cvars, k)
				}
			}
		}
	}
	c.flags.Store(uint32(flags))
	if old := c.v.Load(); old == nil || old.s != val {
		c.v.Store(newValue(val))
		if old != nil {
			c.mods.Add(1)
		}
	}
	if !slices.Contains(t.all, c) {
		t.all = append(t.all, c)
	}
	for _, n := range names {
		t.cvars[lower(n)] = c
	}
	t.modified |= flags
	return note
}

func checkDecl(d Decl) error {
	if err := checkName(d.Name); err != nil {
		return err
	}
	for _, a := range d.Aliases {
		if err := checkName(a); err != nil {
			return fmt.Errorf("console: cvar %s alias: %w", d.Name, err)
		}
	}
	if d.Flags&^declFlags != 0 {
		return fmt.Errorf("console: cvar %s: flags %v cannot be declared", d.Name, d.Flags&^declFlags)
	}
	if d.Flags&infoFlags != 0 {
		if i := badInfoByte(d.Default); i >= 0 {
			return fmt.Errorf("console: cvar %s: default %q holds %q, which an info string cannot carry", d.Name, d.Default, d.Default[i])
		}
	}
	if d.ranged() || d.Flags&Integral != 0 {
		if math.IsNaN(d.Min) || math.IsNaN(d.Max) || d.Min > d.Max {
			return fmt.Errorf("console: cvar %s: bad range [%v, %v]", d.Name, d.Min, d.Max)
		}
		f, _, ok := parseNumber(d.Default)
		switch {
		case !ok:
			return fmt.Errorf("console: cvar %s: default %q is not a number", d.Name, d.Default)
		case d.ranged() && (f < d.Min || f > d.Max):
			return fmt.Errorf("console: cvar %s: default %s outside [%v, %v]", d.Name, d.Default, d.Min, d.Max)
		case d.Flags&Integral != 0 && f != math.Trunc(f):
			return fmt.Errorf("console: cvar %s: default %s is not an integer", d.Name, d.Default)
		}
	}
	return nil
}

// allowed reports whether src may set c, with flags f, to value. Called
// with t.mu held.
func (t *Table) allowed(c *Cvar, f Flags, src setSource, value string) error {
	switch {
	case f&ReadOnly != 0 && src != fromCode:
		return fmt.Errorf("console: %s is read-only", c.name)
	case f&Init != 0 && src != fromCode && src != fromCommandLine:
		return fmt.Errorf("console: %s can be set only on the command line", c.name)
	case f&Cheat != 0 && !t.cheats && src != fromCode && value != c.def:
		return fmt.Errorf("console: %s is cheat-protected", c.name)
	case src == fromRemote && f&(Remote|UserCreated) == 0:
		return fmt.Errorf("console: %s cannot be set through rcon", c.name)
	}
	return nil
}

// check validates value for c as if c had flags f. It returns the value
// to store, which clamping or truncation may have changed, and a note
// saying so. Called with t.mu held.
func (c *Cvar) check(value string, f Flags) (string, string, error) {
	if f&infoFlags != 0 || c.plain {
		if i := badInfoByte(value); i >= 0 {
			what := "an info string"
			if f&infoFlags == 0 {
				what = "a command line"
			}
			return "", "", fmt.Errorf("console: %s: value %q holds %q, which %s cannot carry", c.name, value, value[i], what)
		}
	}
	if !c.ranged && f&Integral == 0 {
		return value, "", nil
	}
	n, _, ok := parseNumber(value)
	if !ok {
		return "", "", fmt.Errorf("console: %s: %q is not a number", c.name, value)
	}
	var notes []string
	if f&Integral != 0 && n != math.Trunc(n) {
		n = math.Trunc(n)
		notes = append(notes, "not an integer")
	}
	if c.ranged {
		switch {
		case n < c.min:
			n = c.min
			notes = append(notes, fmt.Sprintf("below the minimum %s", formatNumber(c.min)))
		case n > c.max:
			n = c.max
			notes = append(notes, fmt.Sprintf("above the maximum %s", formatNumber(c.max)))
		}
	}
	if len(notes) == 0 {
		return value, "", nil
	}
	s := formatNumber(n)
	return s, fmt.Sprintf("%s: %s is %s; set to %s", c.name, value, strings.Join(notes, " and "), s), nil
}

// Get returns the cvar with the given name or alias, compared ignoring
// ASCII case, or nil if there is none (Cvar_FindVar).
func (t *Table) Get(name string) *Cvar {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cvars[lower(name)]
}

// Set sets a cvar as the console does (Cvar_Set2 without force): it
// refuses ReadOnly and Init cvars, and Cheat cvars away from their default
// while cheats are off; it keeps the value of a Latch cvar aside until
// [Table.ApplyLatched]; it clamps numbers into the declared range and
// prints a note when it does. Setting a name that was never declared
// creates a user cvar.
func (t *Table) Set(name, value string) error {
	return t.set(name, value, fromConsole, 0)
}

// SetFromCommandLine sets a cvar as a +set on the command line does: like
// [Table.Set], but Init cvars accept it and Latch cvars take the value at
// once, since no map is running yet (Com_StartupVariable).
func (t *Table) SetFromCommandLine(name, value string) error {
	return t.set(name, value, fromCommandLine, 0)
}

// ForceSet sets a cvar as the program itself does (Cvar_Set with force):
// ReadOnly, Init, Cheat and Latch do not stop it; the range and the info
// string checks still apply.
func (t *Table) ForceSet(name, value string) error {
	return t.set(name, value, fromCode, 0)
}

// Reset sets a cvar back to its default, as the console would set it
// (Cvar_Reset). Resetting a Cheat cvar is always allowed.
func (t *Table) Reset(name string) error {
	c := t.Get(name)
	if c == nil {
		return fmt.Errorf("console: unknown cvar %q", name)
	}
	return t.set(name, c.Default(), fromConsole, 0)
}

func (t *Table) set(name, value string, src setSource, add Flags) error {
	t.mu.Lock()
	c, note, changed, err := t.setLocked(name, value, src, add)
	var fns []func(*Cvar)
	var b *binding
	if changed {
		fns = slices.Clone(c.onChange)
		b = c.bind
	}
	t.mu.Unlock()
	if note != "" {
		t.Printf("%s\n", note)
	}
	b.changed(c)
	for _, fn := range fns {
		fn(c)
	}
	return err
}

// setLocked does the work of set with t.mu held. It returns the cvar, a
// note to print, and whether the value changed.
func (t *Table) setLocked(name, value string, src setSource, add Flags) (c *Cvar, note string, changed bool, err error) {
	key := lower(name)
	c = t.cvars[key]
	if c == nil {
		if _, ok := t.cmds[key]; ok {
			return nil, "", false, fmt.Errorf("console: %s is a command, not a cvar", name)
		}
		if err := checkName(name); err != nil {
			return nil, "", false, err
		}
		if t.userCvars >= MaxUserCvars {
			return nil, "", false, fmt.Errorf("console: cannot create %s: already %d user cvars", name, MaxUserCvars)
		}
		c = &Cvar{t: t, name: name, def: value, help: "user-created", src: src}
		if add&infoFlags != 0 {
			if _, _, err := c.check(value, add); err != nil {
				return nil, "", false, err
			}
		}
		c.flags.Store(uint32(UserCreated | add))
		c.v.Store(newValue(value))
		t.cvars[key] = c
		t.all = append(t.all, c)
		t.userCvars++
		t.modified |= UserCreated | add
		return c, "", true, nil
	}

	f := c.Flags()
	if err := t.allowed(c, f, src, value); err != nil {
		return c, "", false, err
	}
	v, note, err := c.check(value, f|add)
	if err != nil {
		return c, "", false, err
	}
	if add&^f != 0 {
		c.flags.Store(uint32(f | add))
		t.modified |= add &^ f
		f |= add
	}

	if f&Latch != 0 && (src == fromConsole || src == fromRemote) {
		switch {
		case v == c.Value():
			c.hasLatch, c.latched = false, ""
		case !c.hasLatch || c.latched != v:
			c.hasLatch, c.latched = true, v
			note = joinNotes(note, fmt.Sprintf("%s will be changed to %q at the next map", c.name, v))
		}
		return c, note, false, nil
	}
	c.hasLatch, c.latched = false, ""
	if v == c.Value() {
		return c, note, false, nil
	}
	c.src = src
	t.store(c, v)
	return c, note, true, nil
}

// store swaps in a new value. Called with t.mu held.
func (t *Table) store(c *Cvar, v string) {
	c.v.Store(newValue(v))
	c.mods.Add(1)
	t.modified |= c.Flags()
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// ApplyLatched gives every Latch cvar the value kept aside for it; the
// server calls it when it loads a map.
func (t *Table) ApplyLatched() {
	type change struct {
		c   *Cvar
		b   *binding
		fns []func(*Cvar)
	}
	var changes []change
	t.mu.Lock()
	for _, c := range t.all {
		if !c.hasLatch {
			continue
		}
		v := c.latched
		c.hasLatch, c.latched = false, ""
		if v != c.Value() {
			t.store(c, v)
			changes = append(changes, change{c, c.bind, slices.Clone(c.onChange)})
		}
	}
	t.mu.Unlock()
	for _, ch := range changes {
		ch.b.changed(ch.c)
		for _, fn := range ch.fns {
			fn(ch.c)
		}
	}
}

// SetCheats turns cheats on or off (the server binds it to sv_cheats).
// Turning them off resets every Cheat cvar to its default
// (Cvar_SetCheatState).
func (t *Table) SetCheats(on bool) {
	t.mu.Lock()
	t.cheats = on
	var reset []*Cvar
	if !on {
		for _, c := range t.all {
			if c.Flags()&Cheat != 0 && c.Value() != c.def {
				reset = append(reset, c)
			}
		}
	}
	t.mu.Unlock()
	for _, c := range reset {
		// Cannot fail: the default passed the declaration's checks.
		_ = t.set(c.name, c.Default(), fromCode, 0)
	}
}

// Cheats reports whether cheats are on.
func (t *Table) Cheats() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cheats
}

// TakeModifiedFlags returns which of the flags in mask belong to a cvar
// that was created or changed since the last call, and clears them
// (Quake III's cvar_modifiedFlags). The server asks for ServerInfo and
// SystemInfo each frame and rebuilds those info strings when set; the
// client asks for UserInfo. Registering a cvar counts as a change.
func (t *Table) TakeModifiedFlags(mask Flags) Flags {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.modified & mask
	t.modified &^= mask
	return m
}

// InfoString returns the \key\value string of the cvars that have any of
// the flags in flag, in name order (Cvar_InfoString): ServerInfo for the
// serverinfo string, UserInfo for the userinfo, SystemInfo for the
// systeminfo. Cvars with an empty value are left out, as info strings
// cannot hold them. The string is kept under [infostr.MaxInfoString] bytes, or
// [infostr.BigInfoString] when flag includes SystemInfo; a cvar that does not
// fit is left out with a printed note.
func (t *Table) InfoString(flag Flags) string { return t.AppendInfo("", flag) }

// AppendInfo is InfoString starting from info instead of the empty
// string: a cvar whose key info already holds is left out (the caller's
// value wins), and so is one that no longer fits. A caller puts first
// what must not be left out.
func (t *Table) AppendInfo(info string, flag Flags) string {
	var dropped []string
	t.mu.RLock()
	cs := t.sortedLocked()
	for _, c := range cs {
		if c.Flags()&flag == 0 || c.Value() == "" {
			continue
		}
		if infostr.ValueForKey(info, c.name) != "" { // an info string holds no empty value
			continue
		}
		var next string
		var err error
		if flag&SystemInfo != 0 {
			next, err = infostr.SetValueForKeyBig(info, c.name, c.Value())
		} else {
			next, err = infostr.SetValueForKey(info, c.name, c.Value())
		}
		if err != nil {
			dropped = append(dropped, c.name)
			continue
		}
		info = next
	}
	t.mu.RUnlock()
	if len(dropped) > 0 {
		t.Printf("console: info string too long or invalid; left out %s\n", strings.Join(dropped, ", "))
	}
	return info
}

// sortedLocked returns the cvars in name order. Called with t.mu held.
func (t *Table) sortedLocked() []*Cvar {
	cs := slices.Clone(t.all)
	slices.SortFunc(cs, func(a, b *Cvar) int { return cmp.Compare(lower(a.name), lower(b.name)) })
	return cs
}

// CvarNames returns the names and aliases of all cvars, sorted ignoring
// case, for completion.
func (t *Table) CvarNames() []string {
	t.mu.RLock()
	names := make([]string, 0, len(t.cvars))
	for _, c := range t.all {
		names = append(names, c.name)
		names = append(names, c.aliases...)
	}
	t.mu.RUnlock()
	sortNames(names)
	return names
}

// CommandNames returns the names of all commands, sorted ignoring case.
func (t *Table) CommandNames() []string {
	t.mu.RLock()
	names := make([]string, 0, len(t.cmds))
	for _, c := range t.cmds {
		names = append(names, c.name)
	}
	t.mu.RUnlock()
	sortNames(names)
	return names
}

// Complete returns the command and cvar names that start with prefix,
// compared ignoring ASCII case, sorted (Field_CompleteCommand's first
// step).
func (t *Table) Complete(prefix string) []string {
	p := lower(prefix)
	var out []string
	for _, n := range append(t.CommandNames(), t.CvarNames()...) {
		if strings.HasPrefix(lower(n), p) {
			out = append(out, n)
		}
	}
	sortNames(out)
	return out
}

func sortNames(names []string) {
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(lower(a), lower(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}
