package session

import (
	"slices"
	"testing"

	"tremor/common/console"
)

// TestWithDefaultMatch checks which command lines keep the default
// match (run after it) and which replace it (run as they are).
func TestWithDefaultMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		keep bool
	}{
		{"no arguments", nil, true},
		{"a name", []string{"+set", "name", "Ann"}, true},
		{"settings and a bind", []string{"+seta", "cl_maxpackets", "60", "+bind", "f", "+attack"}, true},
		{"an exec", []string{"+exec", "my.cfg"}, true},
		{"a screenshot", []string{"+wait", "300", "+screenshot", "a.png", "+quit"}, true},
		{"a menu page", []string{"+menu", "settings"}, true},
		{"map", []string{"+map", "duel1"}, false},
		{"map after a setting", []string{"+set", "name", "Ann", "+map", "duel1", "+addbot", "1"}, false},
		{"MAP in capitals", []string{"+MAP", "duel1"}, false},
		{"connect", []string{"+set", "name", "Ann", "+connect", "192.168.1.20"}, false},
		{"demo", []string{"+demo", "a.dm"}, false},
		{"timedemo", []string{"+timedemo", "a.dm"}, false},
		{"classroom", []string{"+classroom"}, false},
		{"playjournal", []string{"+playjournal", "j.tjl"}, false},
		{"a map name as an argument only", []string{"+set", "ui_lastmap", "map"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, isDefault := WithDefaultMatch(tc.args)
			if isDefault != tc.keep {
				t.Fatalf("WithDefaultMatch(%q) default = %v, want %v", tc.args, isDefault, tc.keep)
			}
			want := tc.args
			if tc.keep {
				want = append(slices.Clone(DefaultMatch), tc.args...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("WithDefaultMatch(%q) = %q, want %q", tc.args, got, want)
			}
		})
	}
	// Arguments before the first '+' stay a command of their own, not
	// arguments of the default match's last command.
	got, _ := WithDefaultMatch([]string{"echo", "hi"})
	lines := console.ParseCommandLine(got)
	if want := []string{"map arena1", "addbot 3", "echo hi"}; !slices.Equal(lines, want) {
		t.Errorf("leading arguments: lines %q, want %q", lines, want)
	}
}
