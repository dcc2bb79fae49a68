package menu

import (
	"slices"
	"testing"

	"tremor/net/cmdargs"
)

// TestClassroomEntry checks the main menu's Classroom: shown only when
// the program has the classroom command, and running it.
func TestClassroomEntry(t *testing.T) {
	labels := func(r *rig) []string {
		var l []string
		for _, it := range r.m.Layout(1280, 720).Items {
			l = append(l, it.Label)
		}
		return l
	}
	r := newRig(t)
	r.m.OpenMain()
	if slices.Contains(labels(r), "Classroom") {
		t.Errorf("Classroom shown without a classroom command: %q", labels(r))
	}
	r = newRig(t)
	r.t.AddCommand("classroom", "test", func(*cmdargs.Args) { r.ran = append(r.ran, "classroom") })
	r.m.OpenMain()
	if got := labels(r); len(got) < 2 || got[1] != "Classroom" {
		t.Fatalf("main menu %q, want Classroom second", got)
	}
	r.goTo(t, "Classroom")
	r.press(KeyEnter)
	if got := r.exec(); !slices.Equal(got, []string{"classroom"}) {
		t.Errorf("ran %q, want classroom", got)
	}
}
