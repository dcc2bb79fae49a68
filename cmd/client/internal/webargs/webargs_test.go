package webargs

import (
	"slices"
	"strings"
	"testing"

	"tremor/common/console"
)

func TestFromQuery(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", nil},
		{"?", nil},
		{"?+classroom", []string{"+classroom"}},
		// As a browser sends a typed address: spaces as %20.
		{"?+set%20name%20Alice&+classroom", []string{"+set", "name", "Alice", "+classroom"}},
		{"?+set name Alice&+classroom", []string{"+set", "name", "Alice", "+classroom"}},
		{"?+map%20arena1&+addbot%203", []string{"+map", "arena1", "+addbot", "3"}},
		// The '+' may be left out; %2B is a '+' too.
		{"?map arena1&%2Baddbot 3", []string{"+map", "arena1", "+addbot", "3"}},
		// NAME=VALUE is a set.
		{"?name=Alice&cl_nopredict=1&classroom", []string{"+set", "name", "Alice", "+set", "cl_nopredict", "1", "+classroom"}},
		// A quoted value stays one argument, with its spaces.
		{`?+set name "Alice Smith"`, []string{"+set", "name", "Alice Smith"}},
		{"?+set%20name%20%22Alice%20Smith%22", []string{"+set", "name", "Alice Smith"}},
		// An '=' inside a command's words is not a set.
		{"?+say a=b", []string{"+say", "a=b"}},
		// Empty parts are skipped; broken escapes are read as typed.
		{"?&&+classroom&", []string{"+classroom"}},
		{"?+set name 100%", []string{"+set", "name", "100%"}},
		// Several words after one '+', as on a command line.
		{"?+set sv_fps 10 +classroom", []string{"+set", "sv_fps", "10", "+classroom"}},
		// ioquake3's web client's args=, decoded as a form value.
		{"?args=%2Bset+name+Alice+%2Bclassroom", []string{"+set", "name", "Alice", "+classroom"}},
		{"?args=%2bset%20name%20%22Alice%20Smith%22", []string{"+set", "name", "Alice Smith"}},
		{"?args=set+sv_fps+10&+classroom", []string{"+set", "sv_fps", "10", "+classroom"}},
		{"?args=", nil},
	} {
		if got := FromQuery(c.query); !slices.Equal(got, c.want) {
			t.Errorf("FromQuery(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// The command lines a query gives are the ones the same words typed on a
// real command line give.
func TestFromQueryAsCommandLine(t *testing.T) {
	got := console.ParseCommandLine(FromQuery("?+set%20name%20%22Alice%20Smith%22&+map arena1&addbot=3"))
	want := []string{`set name "Alice Smith"`, "map arena1", "set addbot 3"}
	if !slices.Equal(got, want) {
		t.Errorf("command lines %q, want %q", got, want)
	}
}

// FuzzFromQuery: any page address gives a command line whose every
// command starts with '+' and whose commands, parsed as Quake III's
// command line, each start with a command name (a query cannot slip a
// second command into an argument).
func FuzzFromQuery(f *testing.F) {
	for _, s := range []string{"", "?+set name Alice&+classroom", "?name=Alice", "?args=%2Bset+a+b", "?args=+", "?ARGS=%zz", `?+set name "A B"`, "?%zz&%2B", "?+;quit", "?+set a \"b;quit\"", "?a=b;quit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		args := FromQuery(q)
		if len(args) > 0 && !strings.HasPrefix(args[0], "+") {
			t.Fatalf("FromQuery(%q) = %q: the first argument is not a command", q, args)
		}
		_ = console.ParseCommandLine(args)
	})
}
