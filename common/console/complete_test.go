package console

import (
	"slices"
	"strings"
	"testing"
	"tremor/net/cmdargs"
)

// newCompleteTable returns the test table with a few more commands and
// cvars for completion.
func newCompleteTable(t testing.TB) *Table {
	tab, _ := newTestTable(t)
	nop := func(*cmdargs.Args) {}
	tab.AddCommand("map", "map <name>: load a map", nop)
	tab.AddCommand("map_restart", "restart the map", nop)
	tab.AddCommand("bind", "bind <key> <command>", nop)
	tab.AddCommand("connect", "connect <host>", nop)
	tab.Register(
		Decl{Name: "cl_timeout", Default: "200", Help: "timeout"},
		Decl{Name: "cl_motd", Default: "Welcome to Tremor", Help: "message of the day"},
		Decl{Name: "cl_quote", Default: `say "hi"`, Help: "holds a quote"},
		Decl{Name: "cl_empty", Default: "", Help: "empty"},
	)
	return tab
}

func TestComplete(t *testing.T) {
	maps := func(string) []string { return []string{"arena1", "arena2", "Arena3", "dm_castle", "arena1"} }
	keys := func(prefix string) []string {
		// A completer may filter itself; Complete filters again.
		var out []string
		for _, k := range []string{"MOUSE1", "MOUSE2", "SPACE", "a", "b"} {
			if strings.HasPrefix(strings.ToLower(k), strings.ToLower(prefix)) {
				out = append(out, k)
			}
		}
		return out
	}
	tests := []struct {
		name  string
		line  string // '|' marks the cursor; at the end if absent
		want  string // line after, '|' at the cursor
		cands []string
	}{
		// The first word: commands and cvars.
		{"unique command", "conn", "connect |", nil},
		{"unique cvar", "sv_hos", "sv_hostname |", nil},
		{"complete word gets space", "connect", "connect |", nil},
		{"no match", "zzz", "zzz|", nil},
		{"ambiguous with lcp", "cl_t", "cl_time|", []string{"cl_timeNudge", "cl_timeout"}},
		{"ambiguous without progress", "cl_time", "cl_time|", []string{"cl_timeNudge", "cl_timeout"}},
		{"ambiguous command and cvar", "map", "map|", []string{"map", "map_restart"}},
		{"case-insensitive unique", "CL_TIMEN", "cl_timeNudge |", nil},
		{"case-insensitive ambiguous keeps typing", "CL_TIME", "CL_TIME|", []string{"cl_timeNudge", "cl_timeout"}},
		{"case-insensitive unique cvar", "SV_MAX", "sv_maxclients |", nil},
		{"ambiguous lcp takes candidate case", "CL_T", "cl_time|", []string{"cl_timeNudge", "cl_timeout"}},
		{"aliases", "cg_nop", "cg_nopredict |", nil},
		{"leading slash", "/conn", "/connect |", nil},
		{"leading backslash", "\\sv_ho", "\\sv_hostname |", nil},
		{"spaces and slash", "  /conn", "  /connect |", nil},
		{"after semicolon", "set a 1; conn", "set a 1; connect |", nil},
		{"after semicolon no space", "echo a;conn", "echo a;connect |", nil},
		{"semicolon in quotes", `echo "a;conn`, `echo "a;conn|`, nil},
		{"cursor in middle", "conn| host", "connect |host", nil},
		{"cursor in middle, no space", "conn|host", "connect |host", nil},

		// The second word.
		{"set cvar", "set sv_f", "set sv_fps |", nil},
		{"seta cvar", "seta cl_ti", "seta cl_time|", []string{"cl_timeNudge", "cl_timeout"}},
		{"SETU case", "SETU NA", "SETU name |", nil},
		{"toggle cvar", "toggle cl_nop", "toggle cl_nopredict |", nil},
		{"reset cvar", "reset time", "reset timescale |", nil},
		{"vstr cvar", "vstr cl_mo", "vstr cl_motd |", nil},
		{"set does not take commands", "set conn", "set conn|", nil},
		{"help takes both", "help conn", "help connect |", nil},
		{"cmdlist takes commands", "cmdlist map_", "cmdlist map_restart |", nil},
		{"slash set", "/set sv_f", "/set sv_fps |", nil},
		{"set third word", "set sv_fps 2", "set sv_fps 2|", nil},
		{"second word lcp", "vstr cl_t", "vstr cl_time|", []string{"cl_timeNudge", "cl_timeout"}},
		{"bare cvar value", "sv_fps ", "sv_fps 20|", nil},
		{"bare cvar value prefix", "sv_fps 2", "sv_fps 20|", nil},
		{"bare cvar value mismatch", "sv_fps 3", "sv_fps 3|", nil},
		{"bare cvar value quoted", "cl_motd ", `cl_motd "Welcome to Tremor"|`, nil},
		{"bare cvar value with quote", "cl_quote ", "cl_quote |", nil},
		{"bare cvar empty value", "cl_empty ", "cl_empty |", nil},
		{"unknown command argument", "connect lo", "connect lo|", nil},

		// Argument completers.
		{"map completer", "map ar", "map arena|", []string{"arena1", "arena2", "Arena3"}},
		{"map completer unique", "map dm", "map dm_castle |", nil},
		{"map completer case", "MAP ARENA2", "MAP arena2 |", nil},
		{"map completer all", "map ", "map |", []string{"arena1", "arena2", "Arena3", "dm_castle"}},
		{"bind key", "bind mou", "bind MOUSE|", []string{"MOUSE1", "MOUSE2"}},
		{"bind key unique", "bind sp", "bind SPACE |", nil},
		{"bind command", "bind SPACE conn", "bind SPACE connect |", nil},
		{"bind command argument", "bind SPACE set sv_f", "bind SPACE set sv_fps |", nil},
		{"bind command in quotes", `bind SPACE "conn`, `bind SPACE "conn|`, nil},
		{"completer not on second argument", "map arena1 ar", "map arena1 ar|", nil},
		{"completer for a forwarded command", "team r", "team red |", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newCompleteTable(t)
			var p Prompt
			p.SetArgCompleter("map", maps)
			p.SetArgCompleter("BIND", keys)
			p.SetArgCompleter("team", func(string) []string { return []string{"red", "blue", "spectator"} })
			before, after, _ := strings.Cut(tt.line, "|")
			p.Insert(before + after)
			for range len(after) {
				p.Left()
			}
			got := p.Complete(tab)
			if s := show(&p); s != tt.want {
				t.Errorf("line %q, want %q", s, tt.want)
			}
			if !slices.Equal(got, tt.cands) {
				t.Errorf("candidates %q, want %q", got, tt.cands)
			}
		})
	}
}

func TestCompleteEmptySecondWord(t *testing.T) {
	tab := newCompleteTable(t)
	var p Prompt
	p.Insert("set ")
	got := p.Complete(tab)
	if want := tab.CvarNames(); !slices.Equal(got, want) {
		t.Errorf("candidates %q, want every cvar %q", got, want)
	}
	if p.Text() != "set " {
		t.Errorf("line %q", p.Text())
	}
}

func TestCompleteNoTable(t *testing.T) {
	var p Prompt
	p.SetArgCompleter("map", func(string) []string { return []string{"arena1"} })
	p.Insert("ma")
	if got := p.Complete(nil); got != nil || p.Text() != "ma" {
		t.Errorf("first word without a table: %q, %q", p.Text(), got)
	}
	p.SetText("map a")
	p.Complete(nil)
	if p.Text() != "map arena1 " {
		t.Errorf("got %q", p.Text())
	}
	p.SetArgCompleter("map", nil)
	p.SetText("map a")
	p.Complete(nil)
	if p.Text() != "map a" {
		t.Errorf("removed completer still used: %q", p.Text())
	}
}

func TestCompleteFirstWordAll(t *testing.T) {
	tab := newCompleteTable(t)
	var p Prompt
	got := p.Complete(tab)
	want := tab.Complete("")
	if !slices.Equal(got, want) {
		t.Errorf("empty line lists %d names, want %d", len(got), len(want))
	}
	if p.Text() != "" {
		t.Errorf("line %q", p.Text())
	}
}

func TestCompleteLongLine(t *testing.T) {
	tab := newCompleteTable(t)
	var p Prompt
	p.Insert(strings.Repeat("x", MaxPromptLen-6) + ";conn")
	p.Complete(tab)
	if len(p.Text()) > MaxPromptLen {
		t.Fatalf("completion grew the line to %d bytes", len(p.Text()))
	}
	if !strings.HasSuffix(p.Text(), ";conn") {
		t.Errorf("line changed to %q", p.Text()[len(p.Text())-10:])
	}
}

func TestCompleteEditsEndHistoryWalk(t *testing.T) {
	tab := newCompleteTable(t)
	var p Prompt
	typeLine(&p, "conn")
	p.Up()
	p.Complete(tab)
	if got := p.History(); !slices.Equal(got, []string{"conn"}) {
		t.Errorf("history %q", got)
	}
	p.Up()
	p.Down()
	if p.Text() != "connect " {
		t.Errorf("completed line lost: %q", p.Text())
	}
}

func TestCommonPrefixLen(t *testing.T) {
	tests := []struct {
		names []string
		want  int
	}{
		{[]string{"abc"}, 3},
		{[]string{"abc", "abd"}, 2},
		{[]string{"ABC", "abd"}, 2},
		{[]string{"abc", "ab"}, 2},
		{[]string{"abc", "xyz"}, 0},
		{[]string{"aé", "aè"}, 1}, // é and è share their first byte
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.names, ","), func(t *testing.T) {
			if got := commonPrefixLen(tt.names); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDescribeMatch(t *testing.T) {
	tab := newCompleteTable(t)
	tests := []struct{ name, want string }{
		{"sv_fps", `sv_fps = "20"`},
		{"connect", "connect"},
		{"arena1", "arena1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DescribeMatch(tab, tt.name); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := DescribeMatch(nil, "sv_fps"); got != "sv_fps" {
		t.Errorf("nil table: %q", got)
	}
}
