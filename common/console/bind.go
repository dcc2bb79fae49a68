package console

import (
	"fmt"
	"strconv"
	"sync"
)

// Vars binds cvars to Go variables, as package flag's IntVar binds a
// flag: the variable holds the cvar's value from the moment it is bound,
// and every change, through any path (the console, a script, +set,
// ExecuteRemote, ApplyLatched, Set, ForceSet), is stored in it at once,
// on the goroutine that made the change, before the group's apply
// function and the cvar's OnChange callbacks run. So the owner of the
// variables must be the goroutine that executes the table (or make the
// changes itself).
//
// A cvar is bound to one variable at a time. [Vars.Unbind] releases the
// group's cvars, which stay declared with their values; binding one of
// them again (a server started again in the same process) adopts it.
type Vars struct {
	t          *Table
	apply      func(*Cvar)
	fromFields bool

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
// apply function. A nil binding does nothing.
func (b *binding) changed(c *Cvar) {
	if b == nil {
		return
	}
	b.store(c)
	if b.v.apply != nil {
		b.v.apply(c)
	}
}

// Bind returns a group of variable bindings whose changes run apply (nil:
// none) after the variable is stored. Each XxxVar call declares its cvar
// (or adopts one that exists, see [Vars]) and gives the variable the
// cvar's value.
func (t *Table) Bind(apply func(c *Cvar)) *Vars {
	return &Vars{t: t, apply: apply}
}

// BindFields is [Table.Bind] for variables that already hold the values
// wanted: each XxxVar call sets the cvar from its variable (as
// [Table.ForceSet], clamped into the range; a value the cvar refuses
// leaves it as it was) and then stores the result back. A server built
// from a Config by hand binds its fields this way.
func (t *Table) BindFields(apply func(c *Cvar)) *Vars {
	return &Vars{t: t, apply: apply, fromFields: true}
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
	v.mu.Lock()
	v.cvars = append(v.cvars, c)
	v.mu.Unlock()
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

// Cvars returns the group's cvars in the order they were bound.
func (v *Vars) Cvars() []*Cvar {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]*Cvar(nil), v.cvars...)
}

// Unbind releases the group's cvars: their variables are no longer
// written and the apply function no longer runs. The cvars stay in the
// table with their values.
func (v *Vars) Unbind() {
	v.mu.Lock()
	cs := v.cvars
	v.cvars = nil
	v.mu.Unlock()
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	for _, c := range cs {
		if c.bind != nil && c.bind.v == v {
			c.bind = nil
		}
	}
}
