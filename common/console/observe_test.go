package console

import (
	"io"
	"slices"
	"testing"
	"testing/fstest"

	"tremor/net/cmdargs"
)

// TestLineObserver records a session of lines (an exec'd script, a
// command that runs another, rcon) and replays what the observer saw
// with ExecuteIsolated on a fresh table: the commands run the same
// number of times, in the same order.
func TestLineObserver(t *testing.T) {
	fsys := fstest.MapFS{"s.cfg": {Data: []byte("hit a\nhit b\n")}}
	setup := func(ran *[]string) *Table {
		tab := NewTable()
		tab.SetOutput(io.Discard)
		tab.SetFS(fsys)
		tab.AddCommand("hit", "", func(a *cmdargs.Args) { *ran = append(*ran, a.Argv(1)) })
		tab.AddCommand("twice", "", func(a *cmdargs.Args) {
			tab.ExecuteString("hit " + a.Argv(1))
			tab.ExecuteString("hit " + a.Argv(1))
		})
		tab.AddRemoteCommand("rhit", "", func(a *cmdargs.Args) { *ran = append(*ran, "r"+a.Argv(1)) })
		return tab
	}
	var live, seen []string
	tab := setup(&live)
	tab.SetLineObserver(func(l string) { seen = append(seen, l) })
	tab.Append("exec s.cfg;hit c")
	tab.Append("twice d")
	tab.Execute()
	tab.ExecuteRemote("rhit e", io.Discard)
	tab.ExecuteString("hit f")

	wantSeen := []string{"exec s.cfg", "hit a", "hit b", "hit c", "twice d", "hit f"}
	if !slices.Equal(seen, wantSeen) {
		t.Fatalf("observed %q, want %q", seen, wantSeen)
	}
	var replayed []string
	tab2 := setup(&replayed)
	for _, l := range seen {
		tab2.ExecuteIsolated(l)
	}
	tab2.Execute() // nothing was left queued
	wantLive := []string{"a", "b", "c", "d", "d", "re", "f"}
	if !slices.Equal(live, wantLive) {
		t.Fatalf("ran %q, want %q", live, wantLive)
	}
	// rcon's line is not the table's to replay: it comes again with the
	// packet that carried it.
	if want := slices.DeleteFunc(slices.Clone(wantLive), func(s string) bool { return s == "re" }); !slices.Equal(replayed, want) {
		t.Errorf("replay ran %q, want %q", replayed, want)
	}
}
