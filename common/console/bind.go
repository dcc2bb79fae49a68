package console

import (
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Vars binds cvars to Go variables, as package flag's IntVar binds a
// flag: the variable holds the cvar's value from the moment it is bound,
// and every change, through any path (the console, a script, +set,
// ExecuteRemote, ApplyLatched, Set, ForceSet), is stored in it at once,
// on the goroutine that made the change, before the group's apply
// function, the functions given to [Vars.OnChange] and the cvar's own
// [Cvar.OnChange] callbacks run. So the owner of the variables must be
// the goroutine that executes the table (or make the changes itself).
//
// A cvar is bound to one variable at a time. [Vars.Unbind] releases the
// group's cvars, which stay declared with their values; binding one of
// them again (a server started again in the same process) adopts it.
type Vars struct {
	t          *Table
	apply      func(*Cvar)
	fromFields bool
	then       []func() // OnChange's, run after apply
	aliases    []string // Aliases'
	set        *varSet  // shared with the groups OnChange and Aliases derive
}

// varSet is the cvars one Bind's groups bound.
type varSet struct {
	mu    sync.Mutex
	cvars []*Cvar
}

// binding ties a cvar to a variable.
type binding struct {
	v     *Vars
	store func(c *Cvar) // copies the cvar's value into the variable
	load  func() string // the variable's value as text
}

// changed stores c's new value in the variable and runs the group's
// apply function, then its OnChange functions. A nil binding does
// nothing.
func (b *binding) changed(c *Cvar) {
	if b == nil {
		return
	}
	b.store(c)
	if b.v.apply != nil {
		b.v.apply(c)
	}
	for _, fn := range b.v.then {
		fn()
	}
}

// Bind returns a group of variable bindings whose changes run apply (nil:
// none) after the variable is stored. Each XxxVar call declares its cvar
// (or adopts one that exists, see [Vars]) and gives the variable the
// cvar's value.
func (t *Table) Bind(apply func(c *Cvar)) *Vars {
	return &Vars{t: t, apply: apply, set: &varSet{}}
}

// BindFields is [Table.Bind] for variables that already hold the values
// wanted: each XxxVar call sets the cvar from its variable (as
// [Table.ForceSet], clamped into the range; a value the cvar refuses
// leaves it as it was) and then stores the result back. A server built
// from a Config by hand binds its fields this way.
func (t *Table) BindFields(apply func(c *Cvar)) *Vars {
	return &Vars{t: t, apply: apply, fromFields: true, set: &varSet{}}
}

// OnChange returns a group that binds into v and, when one of the cvars
// bound through it changes, runs fn after v's apply function and v's own
// OnChange functions: the cvar's variable already holds the new value. A
// program declares what a change does beside the binding, in its one
// table:
//
//	eng := v.OnChange(s.applyEngine)
//	eng.IntVar(&c.Rate, "rate", 25000, 1000, 90000, console.Archive, "bytes per second")
//
// The cvars bound through the derived group are v's: [Vars.Cvars] lists
// them and [Vars.Unbind] of either group releases them all. A nil fn
// adds nothing. Binding runs nothing (the variable takes the cvar's
// value), except under [Table.BindFields] when the cvar is set from its
// variable.
func (v *Vars) OnChange(fn func()) *Vars {
	d := v.derive()
	if fn != nil {
		d.then = append(d.then, fn)
	}
	return d
}

// Aliases returns a group that binds into v (as [Vars.OnChange]'s does)
// and gives the cvar bound through it the further names aliases, which
// set and read the one value (cg_nopredict for cl_nopredict):
//
//	v.Aliases("cg_nopredict").BoolVar(&c.NoPredict, "cl_nopredict", false, 0, "turn off prediction")
//
// It names one cvar: binding a second through the same group panics, as
// declaring a name twice does.
func (v *Vars) Aliases(aliases ...string) *Vars {
	d := v.derive()
	d.aliases = append(d.aliases, aliases...)
	return d
}

// derive returns a copy of v that binds into the same set of cvars.
func (v *Vars) derive() *Vars {
	d := *v
	d.then = append([]func(){}, v.then...)
	d.aliases = append([]string(nil), v.aliases...)
	return &d
}

// IntVar binds an integer cvar with the range [min, max] to *p.
func (v *Vars) IntVar(p *int, name string, def, min, max int, flags Flags, help string) *Cvar {
	return v.bind(Decl{Name: name, Default: strconv.Itoa(def), Flags: flags | Integral,
		Min: float64(min), Max: float64(max), Help: help},
		func(c *Cvar) { *p = c.Int() }, func() string { return strconv.Itoa(*p) })
}

// Int32Var is [Vars.IntVar] for an int32.
func (v *Vars) Int32Var(p *int32, name string, def, min, max int32, flags Flags, help string) *Cvar {
	return v.bind(Decl{Name: name, Default: strconv.Itoa(int(def)), Flags: flags | Integral,
		Min: float64(min), Max: float64(max), Help: help},
		func(c *Cvar) { *p = int32(c.Int()) }, func() string { return strconv.Itoa(int(*p)) })
}

// BoolVar binds a cvar that is 0 or 1 to *p.
func (v *Vars) BoolVar(p *bool, name string, def bool, flags Flags, help string) *Cvar {
	return v.bind(Decl{Name: name, Default: boolText(def), Flags: flags | Integral, Min: 0, Max: 1, Help: help},
		func(c *Cvar) { *p = c.Bool() }, func() string { return boolText(*p) })
}

// StringVar binds a string cvar to *p. Like an info cvar it refuses
// values holding \ ; " NUL CR or LF, so that a value can always be
// written back into a command line or an info string.
func (v *Vars) StringVar(p *string, name, def string, flags Flags, help string) *Cvar {
	return v.bind(Decl{Name: name, Default: def, Flags: flags, Help: help, plain: true},
		func(c *Cvar) { *p = c.Value() }, func() string { return *p })
}

// Float64Var binds a numeric cvar with the range [min, max] to *p;
// min == max == 0 means no range.
func (v *Vars) Float64Var(p *float64, name string, def, min, max float64, flags Flags, help string) *Cvar {
	return v.bind(Decl{Name: name, Default: formatNumber(def), Flags: flags, Min: min, Max: max, Help: help},
		func(c *Cvar) { *p = c.Float() }, func() string { return formatNumber(*p) })
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// bind declares d, or adopts the declared cvar of that name that no
// variable holds, and binds it. It panics as [Table.Register] does, and
// when the cvar is bound already.
func (v *Vars) bind(d Decl, store func(*Cvar), load func() string) *Cvar {
	t := v.t
	d.Aliases = v.aliases
	t.mu.RLock()
	c := t.cvars[lower(d.Name)]
	t.mu.RUnlock()
	if c == nil || c.Flags()&UserCreated != 0 {
		t.Register(d)
		c = t.Get(d.Name)
	}
	b := &binding{v: v, store: store, load: load}
	t.mu.Lock()
	if c.bind != nil {
		t.mu.Unlock()
		panic(fmt.Sprintf("console: cvar %s bound twice", c.name))
	}
	c.bind = b
	t.mu.Unlock()
	v.set.mu.Lock()
	v.set.cvars = append(v.set.cvars, c)
	v.set.mu.Unlock()
	if v.fromFields {
		if want := load(); want != c.Value() {
			if err := t.ForceSet(c.name, want); err != nil {
				t.Printf("%v\n", err)
			}
		}
	}
	store(c)
	return c
}

// Cvars returns the group's cvars in the order they were bound, those
// bound through the groups derived from it (or from which it was
// derived) included.
func (v *Vars) Cvars() []*Cvar {
	v.set.mu.Lock()
	defer v.set.mu.Unlock()
	return append([]*Cvar(nil), v.set.cvars...)
}

// Unbind releases the group's cvars, those of the groups derived from
// it included: their variables are no longer written and the apply and
// OnChange functions no longer run. The cvars stay in the table with
// their values.
func (v *Vars) Unbind() {
	v.set.mu.Lock()
	cs := v.set.cvars
	v.set.cvars = nil
	v.set.mu.Unlock()
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	for _, c := range cs {
		if c.bind != nil && c.bind.v.set == v.set {
			c.bind = nil
		}
	}
}

// Bound reports whether the cvar is bound to a variable ([Vars]). A
// program's test checks with it that every cvar it declares is bound.
func (c *Cvar) Bound() bool {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return c.bind != nil
}

// Declarations returns the declarations of the cvars bind binds, with
// their defaults, ranges, flags, help and aliases, for a program that
// declares them before it binds them: a binding adopts a declared cvar
// with its value, so a window declares its session's cvars before its
// command line and its saved settings set them, and the session binds
// them when it is made. bind runs on a table of its own.
func Declarations(bind func(v *Vars)) []Decl {
	t := NewTable()
	t.SetOutput(io.Discard)
	v := t.Bind(nil)
	bind(v)
	var ds []Decl
	for _, c := range v.Cvars() {
		ds = append(ds, Decl{Name: c.name, Default: c.def, Flags: c.Flags() & declFlags,
			Min: c.min, Max: c.max, Help: c.help, Aliases: c.aliases, plain: c.plain})
	}
	return ds
}
