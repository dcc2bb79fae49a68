package session

import (
	"slices"
	"testing"
	"testing/fstest"

	"tremor/common/console"
	"tremor/lessons"
)

// TestWithDefaultMatch checks which command lines keep the default
// match (run after it) and which replace it (run as they are).
func TestWithDefaultMatch(t *testing.T) {
	scripts := fstest.MapFS{
		"settings.cfg": {Data: []byte("seta name Ann\nbind f +attack // a map later\n")},
		"lesson.cfg":   {Data: []byte("// Lesson: a match\nkillserver\nset cl_packetdelay 75; map duel1\naddbot Rook 1\n")},
		"nested.cfg":   {Data: []byte("exec lesson\n")},
		"later.cfg":    {Data: []byte("wait 300\nmap arena2\n")},
	}
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
		{"exec of settings", []string{"+exec", "settings"}, true},
		{"exec of a lesson that starts a match", []string{"+exec", "lesson"}, false},
		{"exec of a script that execs the lesson", []string{"+exec", "nested.cfg"}, false},
		{"a map after a wait in a script", []string{"+exec", "later"}, false},
		{"exec of a missing file", []string{"+exec", "missing"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, isDefault := WithDefaultMatch(tc.args, scripts)
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
	got, _ := WithDefaultMatch([]string{"echo", "hi"}, scripts)
	lines := console.ParseCommandLine(got)
	if want := []string{"map arena1", "addbot 3", "echo hi"}; !slices.Equal(lines, want) {
		t.Errorf("leading arguments: lines %q, want %q", lines, want)
	}
}

// TestLessonsReplaceDefaultMatch: every shipped lesson that starts a
// match or the classroom runs without the default match before it.
func TestLessonsReplaceDefaultMatch(t *testing.T) {
	for _, tc := range []struct {
		lesson string
		own    bool
	}{
		{"lessons/lesson1", true},
		{"lessons/lesson7", true},
		{"lessons/classroom1", true},
		{"lessons/reset", false},
	} {
		t.Run(tc.lesson, func(t *testing.T) {
			if _, isDefault := WithDefaultMatch([]string{"+exec", tc.lesson}, lessons.FS()); isDefault == tc.own {
				t.Errorf("+exec %s: default match %v, want %v", tc.lesson, isDefault, !tc.own)
			}
		})
	}
}
