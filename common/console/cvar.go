package console

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Decl declares one cvar. A program keeps its cvars in one []Decl and
// passes it to [Table.Register], as DDNet keeps config_variables.h.
type Decl struct {
	// Name is the cvar's name, compared ignoring ASCII case. It may not
	// be empty or hold whitespace, control bytes, '"', '\' or ';'.
	Name string

	// Default is the value the cvar starts with and [Table.Reset]
	// returns to.
	Default string

	// Flags says how the cvar may be set and where its value goes.
	Flags Flags

	// Min and Max bound a numeric cvar. Both zero means no range. A bound
	// may be an infinity, for a range open on one side. A cvar with a
	// range refuses non-numbers and clamps numbers into [Min, Max].
	Min, Max float64

	// Help is the one-line description that help and docs show.
	Help string

	// Aliases are further names of the same cvar (cg_nopredict for
	// cl_nopredict). They set and read the one value.
	Aliases []string

	plain bool // a StringVar: refuses \ ; " and control bytes like an info cvar
}

func (d Decl) ranged() bool { return d.Min != 0 || d.Max != 0 }

// value is one immutable parsed value of a cvar, swapped in atomically.
type value struct {
	s   string
	f   float64
	i   int
	num bool // s parsed as a number
}

// Cvar is one console variable (Quake III's cvar_t). Its reads are single
// atomic loads and safe from any goroutine; it is changed only through its
// [Table].
type Cvar struct {
	t     *Table
	name  string
	v     atomic.Pointer[value]
	flags atomic.Uint32
	mods  atomic.Uint64

	// Guarded by t.mu.
	def      string
	min, max float64
	ranged   bool
	help     string
	aliases  []string
	latched  string
	hasLatch bool
	onChange []func(*Cvar)
	src      setSource // how the value was last set, for Register to judge a user cvar
	plain    bool      // refuses the bytes an info string cannot carry (StringVar)
	bind     *binding  // the Go variable it is bound to, if any
}

// Name returns the cvar's name as it was declared (or first set).
func (c *Cvar) Name() string { return c.name }

// Value returns the cvar's current value (cvar->string).
func (c *Cvar) Value() string { return c.v.Load().s }

// Float returns the value as a number (cvar->value), or 0 if it is not
// one.
func (c *Cvar) Float() float64 { return c.v.Load().f }

// Int returns the value as an integer (cvar->integer): a fractional value
// is truncated toward zero, a value beyond the int range is clamped, and a
// value that is not a number gives 0.
func (c *Cvar) Int() int { return c.v.Load().i }

// Bool reports whether [Cvar.Int] is not zero, as Quake III tested
// cvar->integer.
func (c *Cvar) Bool() bool { return c.v.Load().i != 0 }

// Flags returns the cvar's flags.
func (c *Cvar) Flags() Flags { return Flags(c.flags.Load()) }

// ModificationCount returns how many times the value has changed
// (cvar->modificationCount). A consumer remembers the count it has seen
// and reacts when it differs.
func (c *Cvar) ModificationCount() uint64 { return c.mods.Load() }

// Default returns the value the cvar was declared with.
func (c *Cvar) Default() string {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return c.def
}

// Help returns the cvar's help text.
func (c *Cvar) Help() string {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return c.help
}

// Range returns the cvar's bounds, and false if it has none.
func (c *Cvar) Range() (min, max float64, ok bool) {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return c.min, c.max, c.ranged
}

// Aliases returns the cvar's other names.
func (c *Cvar) Aliases() []string {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return append([]string(nil), c.aliases...)
}

// Latched returns the value waiting for [Table.ApplyLatched], and false
// if none is.
func (c *Cvar) Latched() (string, bool) {
	c.t.mu.RLock()
	defer c.t.mu.RUnlock()
	return c.latched, c.hasLatch
}

// OnChange adds fn to the functions called after the value changes. They
// run on the goroutine that changed it, after the table's locks are
// released, so fn may read and set cvars. Recording a latched value is not
// a change; applying it is.
func (c *Cvar) OnChange(fn func(c *Cvar)) {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	c.onChange = append(c.onChange, fn)
}

func newValue(s string) *value {
	f, i, ok := parseNumber(s)
	return &value{s: s, f: f, i: i, num: ok}
}

// parseNumber parses s as a finite decimal number: an optional sign,
// digits with an optional '.', an optional exponent, with surrounding
// spaces. It returns the float, the integer (truncated toward zero and
// clamped to the int range) and whether s was a number.
func parseNumber(s string) (f float64, i int, ok bool) {
	s = strings.TrimSpace(s)
	integer, valid := decimalSyntax(s)
	if !valid {
		return 0, 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, 0, false
	}
	if integer {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= math.MinInt && n <= math.MaxInt {
			return f, int(n), true
		}
	}
	return f, floatToInt(f), true
}

// decimalSyntax reports whether s is [+-]digits[.digits][(e|E)[+-]digits]
// with at least one digit in the mantissa, and whether it has no fraction
// or exponent.
func decimalSyntax(s string) (integer, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	integer = true
	if i < len(s) && s[i] == '.' {
		integer = false
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		integer = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false, false
		}
	}
	return integer, i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func floatToInt(f float64) int {
	f = math.Trunc(f)
	switch {
	case f >= math.MaxInt:
		return math.MaxInt
	case f <= math.MinInt:
		return math.MinInt
	}
	return int(f)
}

// formatNumber writes f as a cvar value: without a fraction when it is a
// whole number, in the shortest form that reads back exactly otherwise.
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
