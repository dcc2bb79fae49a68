package console

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"tremor/net/cmdargs"
)

// lines returns the output split into lines, without the empty last one.
func lines(out *bytes.Buffer) []string {
	s := strings.TrimSuffix(out.String(), "\n")
	out.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestSplitLine(t *testing.T) {
	tests := []struct {
		in, line, rest string
		ended          bool
	}{
		{"", "", "", false},
		{"echo a", "echo a", "", false},
		{"echo a\necho b", "echo a", "echo b", true},
		{"echo a\r\necho b", "echo a", "\necho b", true},
		{"echo a;echo b", "echo a", "echo b", true},
		{`echo "a;b";echo c`, `echo "a;b"`, "echo c", true},
		{"echo \"a\nb", "echo \"a", "b", true},
		{"echo a // x;y\necho b", "echo a // x;y", "echo b", true},
		{"echo a /* x;\ny */;echo b", "echo a /* x;\ny */", "echo b", true},
		{"echo a/b;c", "echo a/b", "c", true},
		{"echo a /* open", "echo a /* open", "", false},
		{";", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			line, rest, ended := splitLine(tt.in)
			if line != tt.line || rest != tt.rest || ended != tt.ended {
				t.Errorf("splitLine(%q) = %q, %q, %v; want %q, %q, %v", tt.in, line, rest, ended, tt.line, tt.rest, tt.ended)
			}
		})
	}
}

func TestCommandBuffer(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"newlines", "echo a\necho b\n", []string{"a", "b"}},
		{"semicolons", "echo a;echo b; echo c", []string{"a", "b", "c"}},
		{"quotes keep semicolons", `echo "a;b" c; echo d`, []string{"a;b c", "d"}},
		{"line comment", "echo a // echo b; echo c\necho d", []string{"a", "d"}},
		{"block comment across lines", "echo a /* ;\necho b */ x\necho c", []string{"a x", "c"}},
		{"empty lines", "\n;;\n  \necho a", []string{"a"}},
		{"crlf", "echo a\r\necho b\r\n", []string{"a", "b"}},
		{"unknown command", "frobnicate 3", []string{`unknown command "frobnicate"`}},
		{"bare cvar prints", "sv_fps", []string{`sv_fps is "20"`}},
		{"bare cvar case-insensitive", "SV_FPS 30; sv_fps", []string{`sv_fps is "30", default "20"`}},
		{"cvar value with spaces", "sv_hostname My Server; echo $; sv_hostname", []string{"$", `sv_hostname is "My Server", default "noname"`}},
		{"set", `set sv_hostname "a b"; sv_hostname`, []string{`sv_hostname is "a b", default "noname"`}},
		{"set prints with one argument", "set sv_fps", []string{`sv_fps is "20"`}},
		{"set usage", "set", []string{"usage: set <name> <value>"}},
		{"set refused prints", "set version 2", []string{"console: version is read-only"}},
		{"set clamps with note", "sv_fps 999", []string{"sv_fps: 999 is above the maximum 125; set to 125"}},
		{"user cvar", "set greeting hi; greeting", []string{`greeting is "hi"`}},
		{"vstr", `set s "echo one; echo two"; vstr s; echo three`, []string{"one", "two", "three"}},
		{"vstr nested", `set a "echo a; vstr b; echo a2"; set b "echo b"; vstr a`, []string{"a", "b", "a2"}},
		{"vstr unknown", "vstr nope", []string{`vstr: no cvar "nope"`}},
		{"toggle", "toggle cl_nopredict; cl_nopredict; toggle cl_nopredict; cl_nopredict",
			[]string{`cl_nopredict is "1", default "0"`, `cl_nopredict is "0"`}},
		{"toggle values", "toggle sv_hostname a b c; echo; toggle sv_hostname a b c; toggle sv_hostname a b c; toggle sv_hostname a b c; sv_hostname",
			[]string{"", `sv_hostname is "a", default "noname"`}},
		{"reset", "sv_fps 50; reset sv_fps; sv_fps", []string{`sv_fps is "20"`}},
		{"echo joins", `echo  a   "b  c"`, []string{"a b  c"}},
		{"help command", "help vstr", []string{"vstr: vstr <name>: run the value of a cvar as commands"}},
		{"help cvar", "help cg_nopredict", []string{"cl_nopredict: turn off prediction", `  value "0", default "0"`, "  also called cg_nopredict"}},
		{"help unknown", "help nope", []string{`no command or cvar "nope"`}},
		{"cvarlist prefix", "cvarlist SV_", []string{
			`........N.. sv_fps               "20"`,
			`A.S........ sv_hostname          "noname"`,
			`..S..L..N.. sv_maxclients        "8"`,
			"3 cvars"}},
		{"cmdlist prefix", "cmdlist se", []string{
			"set              set <name> <value>: set a cvar, creating it if needed",
			"seta             seta <name> <value>: set a cvar and mark it Archive, saved between runs",
			"sets             sets <name> <value>: set a cvar and mark it ServerInfo",
			"setu             setu <name> <value>: set a cvar and mark it UserInfo",
			"4 commands"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, out := newTestTable(t)
			tab.Append(tt.text)
			tab.Execute()
			got := lines(out)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if tab.Pending() {
				t.Errorf("buffer not empty after Execute")
			}
		})
	}
}

func TestAppendEndsLines(t *testing.T) {
	tab, out := newTestTable(t)
	tab.Append("echo a")
	tab.Append("echo b")
	tab.Append(`echo "open quote`)
	tab.Append("echo c /* open comment")
	tab.Append("echo d")
	tab.Execute()
	want := "a\nb\nopen quote\nc\nd"
	if got := strings.Join(lines(out), "\n"); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func TestInsertRunsFirst(t *testing.T) {
	tab, out := newTestTable(t)
	tab.AddCommand("first", "", func(*cmdargs.Args) { tab.Insert("echo inserted") })
	tab.Append("first; echo appended")
	tab.Insert("echo front")
	tab.Execute()
	want := "front\ninserted\nappended"
	if got := strings.Join(lines(out), "\n"); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func TestWait(t *testing.T) {
	type frame struct {
		appendText string // appended before this frame's Execute
		want       []string
	}
	tests := []struct {
		name   string
		text   string
		frames []frame
	}{
		{"wait one frame", "echo a; wait; echo b", []frame{{"", []string{"a"}}, {"", []string{"b"}}, {"", nil}}},
		{"wait n frames", "echo a; wait 3; echo b; wait; echo c",
			[]frame{{"", []string{"a"}}, {"", nil}, {"", nil}, {"", []string{"b"}}, {"", []string{"c"}}}},
		{"wait 0 does not wait", "echo a; wait 0; echo b", []frame{{"", []string{"a", "b"}}}},
		{"bad count waits one", "echo a; wait x; echo b", []frame{{"", []string{"a", "usage: wait [frames]"}}, {"", []string{"b"}}}},
		{"huge count is capped, not negative", "wait 99999999999999999999999; echo b", []frame{{"", nil}, {"", nil}}},
		{"appended text waits too", "wait 2", []frame{{"", nil}, {"echo late", nil}, {"", []string{"late"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, out := newTestTable(t)
			tab.Append(tt.text)
			for i, f := range tt.frames {
				tab.Append(f.appendText)
				tab.Execute()
				if got := lines(out); strings.Join(got, "|") != strings.Join(f.want, "|") {
					t.Fatalf("frame %d: output %q, want %q", i, got, f.want)
				}
			}
		})
	}
}

func TestExec(t *testing.T) {
	fsys := fstest.MapFS{
		"server.cfg": {Data: []byte("sv_hostname \"Config Box\"\n// a comment\nsv_fps 40 ; echo done\n")},
		"nested.cfg": {Data: []byte("echo outer\nexec server\necho outer end\n")},
		"self.cfg":   {Data: []byte("exec self.cfg\necho after\n")},
		"tail.cfg":   {Data: []byte("echo tail\nexec tail.cfg\n")},
		"open.cfg":   {Data: []byte("echo \"unterminated\necho /* open comment\n")},
		"big.cfg":    {Data: bytes.Repeat([]byte("x"), MaxBufferSize+1)},
	}
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"runs a file", "exec server.cfg; sv_hostname; sv_fps", []string{
			"execing server.cfg", "done", `sv_hostname is "Config Box", default "noname"`, `sv_fps is "40", default "20"`}},
		{"adds .cfg", "exec server", []string{"execing server.cfg", "done"}},
		{"nested files", "exec nested", []string{"execing nested.cfg", "outer", "execing server.cfg", "done", "outer end"}},
		{"missing file", "exec nope", []string{"exec nope.cfg: open nope.cfg: file does not exist"}},
		{"bad path", "exec ../etc/passwd", []string{`exec ../etc/passwd.cfg: console: invalid file name "../etc/passwd.cfg"`}},
		{"too big", "exec big", []string{fmt.Sprintf("exec big.cfg: console: file larger than %d bytes", MaxBufferSize)}},
		{"open quote and comment end with the file", "exec open; echo next", []string{"execing open.cfg", "unterminated", "", "next"}},
		{"usage", "exec", []string{"usage: exec <file>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, out := newTestTable(t)
			tab.SetFS(fsys)
			tab.Append(tt.text)
			tab.Execute()
			if got := lines(out); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	t.Run("depth limit", func(t *testing.T) {
		tab, out := newTestTable(t)
		tab.SetFS(fsys)
		tab.Append("exec self")
		tab.Execute()
		got := lines(out)
		count := func(s string) (n int) {
			for _, l := range got {
				if strings.Contains(l, s) {
					n++
				}
			}
			return n
		}
		if count("execing self.cfg") != MaxNesting || count("after") != MaxNesting || count("nested more than") != 1 {
			t.Errorf("execing %d, after %d, nesting errors %d; want %d, %d, 1",
				count("execing self.cfg"), count("after"), count("nested more than"), MaxNesting, MaxNesting)
		}
	})
	t.Run("tail exec nests too", func(t *testing.T) {
		tab, out := newTestTable(t)
		tab.SetFS(fsys)
		tab.Append("exec tail")
		tab.Execute()
		if n := strings.Count(out.String(), "execing tail.cfg"); n != MaxNesting {
			t.Errorf("tail.cfg ran %d times, want %d", n, MaxNesting)
		}
	})
	t.Run("no file system", func(t *testing.T) {
		tab, out := newTestTable(t)
		tab.ExecuteString("exec x")
		if got := out.String(); got != "exec x.cfg: no file system to read config files from\n" {
			t.Errorf("output %q", got)
		}
	})
}

func TestRunawayScripts(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"vstr runs itself", `set a "vstr a"; vstr a; echo never`},
		{"vstr runs itself twice", `set a "vstr a; vstr a"; vstr a`},
		{"two vstrs run each other", `set a "vstr b"; set b "echo x; vstr a"; vstr a`},
		{"vstr nests itself", `set a "vstr a; echo x"; vstr a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, out := newTestTable(t)
			tab.Append(tt.text)
			tab.Execute()
			if tab.Pending() {
				t.Errorf("buffer left after a runaway script")
			}
			s := out.String()
			if !strings.Contains(s, "runaway") && !strings.Contains(s, "nested more than") {
				t.Errorf("no message about the runaway script; output ends %q", s[max(0, len(s)-200):])
			}
			if strings.Contains(s, "never") {
				t.Errorf("the rest of the buffer ran")
			}
			// The table still works.
			out.Reset()
			tab.Append("echo ok")
			tab.Execute()
			if out.String() != "ok\n" {
				t.Errorf("after the runaway: %q", out.String())
			}
		})
	}
}

func TestScriptLoopWithWait(t *testing.T) {
	tab, out := newTestTable(t)
	tab.Append(`set loop "echo tick; wait; vstr loop"; vstr loop`)
	const frames = 3 * MaxNesting
	for range frames {
		tab.Execute()
	}
	if got := strings.Count(out.String(), "tick\n"); got != frames || strings.Count(out.String(), "\n") != frames {
		t.Errorf("%d ticks in %d frames; output %q", got, frames, out.String()[:min(200, out.Len())])
	}
}

func TestExecuteReentry(t *testing.T) {
	tab, out := newTestTable(t)
	tab.AddCommand("again", "", func(*cmdargs.Args) { tab.Execute() })
	tab.Append("again; echo a; echo b")
	tab.Execute()
	if got := out.String(); got != "a\nb\n" {
		t.Errorf("output %q", got)
	}
}

func TestFallback(t *testing.T) {
	tab, out := newTestTable(t)
	var forwarded []string
	tab.SetFallback(func(a *cmdargs.Args) bool {
		if a.Argv(0) == "say" {
			forwarded = append(forwarded, a.Raw())
			return true
		}
		return false
	})
	tab.Append(`say "hi there"; bogus`)
	tab.Execute()
	if len(forwarded) != 1 || forwarded[0] != `say "hi there"` {
		t.Errorf("forwarded %q", forwarded)
	}
	if got := out.String(); got != "unknown command \"bogus\"\n" {
		t.Errorf("output %q", got)
	}
}

func TestBufferOverflow(t *testing.T) {
	tab, out := newTestTable(t)
	big := strings.Repeat("echo x\n", MaxBufferSize/7)
	tab.Append(big)
	tab.Append(big)
	if !strings.Contains(out.String(), "command buffer full") {
		t.Errorf("no overflow note: %q", out.String())
	}
	tab.ClearBuffer()
	if tab.Pending() {
		t.Errorf("Pending after ClearBuffer")
	}
}

func TestLongLine(t *testing.T) {
	tab, out := newTestTable(t)
	tab.Append("echo " + strings.Repeat("y", 2000))
	tab.Execute()
	got := lines(out)
	if len(got) != 2 || !strings.Contains(got[0], "cut short") || len(got[1]) != cmdargs.MaxStringChars-len("echo ") {
		t.Errorf("output %d lines, first %.60q", len(got), got)
	}
}
