package classroom

import (
	"testing"
	"time"

	"tremor/internal/testutil"
)

// TestSwitchesFollowTheConsole checks that the switches the window
// draws are the model's, kept in step with the cvars and the clock
// whoever changed them, and that running a switch's lines (a click)
// moves it to its next setting.
func TestSwitchesFollowTheConsole(t *testing.T) {
	m, err := New(Config{Map: "duel1", Seed: 7, Keys: [2]string{"WASD", "arrows"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	find := func(pane int, prefix string) Switch {
		t.Helper()
		for _, s := range m.Switches(pane) {
			if len(s.Label) >= len(prefix) && s.Label[:len(prefix)] == prefix {
				return s
			}
		}
		t.Fatalf("pane %d has no switch %q: %+v", pane, prefix, m.Switches(pane))
		return Switch{}
	}
	tests := []struct {
		name      string
		line      string // typed at the console first; "" for none
		click     string // then the switch with this label clicked, if not ""
		pane      int
		label     string
		on        bool
		lines     []string
		title     string // P1's title after, if not ""
		predicted bool   // P1 predicts after
	}{
		{"defaults", "", "", PaneP1, "prediction on", true, []string{"p1 toggle cl_nopredict"}, "P1: prediction", true},
		{"typed cl_nopredict", "p1 cl_nopredict 1", "", PaneP1, "prediction off", false, []string{"p1 toggle cl_nopredict"}, "P1: no prediction", false},
		{"clicked back", "", "prediction", PaneP1, "prediction on", true, []string{"p1 toggle cl_nopredict"}, "P1: prediction", true},
		{"typed lag", "p1 lag 200", "", PaneP1, "lag 200 ms", true, []string{"p1 lag 300"}, "P1: prediction, 200 ms each way", true},
		{"clicked lag", "", "lag", PaneP1, "lag 300 ms", true, []string{"p1 lag 0"}, "P1: prediction, 300 ms each way", true},
		{"one way only", "p1 sv_packetdelay 50", "", PaneP1, "lag 300/50 ms", true, []string{"p1 lag 0"}, "P1: prediction, 300/50 ms", true},
		{"keys from the config", "", "", PaneP2, "keys arrows", false, []string{"p2 toggle cl_bot"}, "", true},
		{"a bot", "p2 cl_bot 1", "", PaneP2, "played by a bot", true, []string{"p2 toggle cl_bot"}, "", true},
		{"the rings", "", "", PaneP2, "reliable: q3 rings", false, []string{"p2 cl_reliable acks"}, "", true},
		{"clicked acks", "", "reliable", PaneP2, "reliable: acks", true, []string{"p2 cl_reliable q3"}, "", true},
		{"server rate", "sv sv_fps 10", "", PaneServer, "sv_fps 10", true, []string{"sv sv_fps 40"}, "", true},
		{"snaps for both", "", "snaps", PaneServer, "snaps 10", true, []string{"p1 snaps 40", "p2 snaps 40"}, "", true},
		{"slow motion", "slowmo 0.25", "", PaneClock, "speed 0.25x", true, []string{"slowmo 0.1"}, "", true},
		{"paused", "pause", "", PaneClock, "resume", true, []string{"pause"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.line != "" {
				con.ExecuteString(tt.line)
			}
			if tt.click != "" {
				for _, l := range find(tt.pane, tt.click).Lines {
					con.ExecuteString(l)
				}
			}
			got := find(tt.pane, tt.label)
			if got.On != tt.on || len(got.Lines) != len(tt.lines) {
				t.Fatalf("%+v, want lit %v, lines %q", got, tt.on, tt.lines)
			}
			for i := range tt.lines {
				if got.Lines[i] != tt.lines[i] {
					t.Fatalf("lines %q, want %q", got.Lines, tt.lines)
				}
			}
			if tt.title != "" && m.Title(PaneP1) != tt.title {
				t.Errorf("P1's title %q, want %q", m.Title(PaneP1), tt.title)
			}
			if m.Predicting(0) != tt.predicted {
				t.Errorf("Predicting(0) = %v, want %v", m.Predicting(0), tt.predicted)
			}
		})
	}
}

// TestPanelScroll checks that the decoded packet's panel starts at its
// first line for every packet selected and scrolls by inspect scroll.
func TestPanelScroll(t *testing.T) {
	m := newModel(t, 0)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	m.Run(200 * time.Millisecond)
	tests := []struct {
		name string
		line string
		want int
	}{
		{"a packet selected", "inspect last p1 down", 0},
		{"scrolled", "inspect scroll 12", 12},
		{"not before the first line", "inspect scroll -5", 0},
		{"scrolled again", "inspect scroll 30", 30},
		{"another packet: its first line", "inspect last p2 up", 0},
		{"bad line: kept", "inspect scroll x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			con.ExecuteString(tt.line)
			if got := m.PanelLine(); got != tt.want {
				t.Fatalf("PanelLine() = %d, want %d\n%s", got, tt.want, out.String())
			}
		})
	}
}
