package menu

import "testing"

// A client without the connect command (a program that cannot join servers)
// shows no Join entry and has no join page: nothing on the menu leads to
// a command that is not there.
func TestNoJoinWithoutConnect(t *testing.T) {
	r := newRig(t)
	r.t.RemoveCommand("connect")
	r.m.OpenMain()
	var labels []string
	for _, it := range r.m.Layout(1280, 720).Items {
		labels = append(labels, it.Label)
		if it.Label == "Join" {
			t.Errorf("main page shows Join without a connect command: %q", labels)
		}
	}
	if err := r.m.OpenPage("join", ""); err == nil {
		t.Errorf("OpenPage(join) without a connect command: no error")
	}
	// With the command, both are there.
	r = newRig(t)
	r.m.OpenMain()
	r.item(t, "Join")
	if err := r.m.OpenPage("join", ""); err != nil {
		t.Errorf("OpenPage(join): %v", err)
	}
}
