package console

import (
	"io"
	"testing"
	"testing/fstest"
)

// FuzzCommandBuffer feeds arbitrary text through Append and Execute: the
// table must not panic, Execute must return, and the buffer's bookkeeping
// must stay within its limits.
func FuzzCommandBuffer(f *testing.F) {
	seeds := []string{
		"echo a; echo b\n",
		`set a "vstr a"; vstr a`,
		`set a "vstr a; vstr a"; vstr a`,
		`set loop "echo t; wait; vstr loop"; vstr loop`,
		"exec self; exec tail; exec nested",
		`echo "a;b" // c; d` + "\n/* e;\nf */ g",
		"wait 3; sv_fps 999; toggle cl_nopredict; reset sv_fps",
		"seta x 1; sets y 2; setu z 3; cvarlist; cmdlist; help sv_fps",
		"sv_maxclients 3; sv_hostname \"a\\b\"; timescale 5",
		"\x00\xff\"\r;;\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	fsys := fstest.MapFS{
		"self.cfg":   {Data: []byte("exec self\necho after\n")},
		"tail.cfg":   {Data: []byte("echo tail\nexec tail\n")},
		"nested.cfg": {Data: []byte("vstr a\nexec self\n")},
	}
	f.Fuzz(func(t *testing.T, text string) {
		tab := NewTable()
		tab.SetOutput(io.Discard)
		tab.SetFS(fsys)
		tab.Register(testDecls...)
		tab.Append(text)
		for range 4 {
			tab.Execute()
			tab.ApplyLatched()
			_ = tab.InfoString(ServerInfo | UserInfo)
			checkBuffer(t, tab)
		}
		tab.Append(text)
		tab.Insert(text)
		tab.Execute()
		checkBuffer(t, tab)
	})
}

func checkBuffer(t *testing.T, tab *Table) {
	t.Helper()
	tab.bufMu.Lock()
	defer tab.bufMu.Unlock()
	n := 0
	for _, s := range tab.main.segs {
		n += len(s.text)
		if s.depth < 0 || s.depth > MaxNesting {
			t.Fatalf("segment depth %d", s.depth)
		}
	}
	if n != tab.main.bufLen || n > MaxBufferSize {
		t.Fatalf("buffer holds %d bytes, bookkeeping says %d", n, tab.main.bufLen)
	}
	if tab.main.wait < 0 || tab.main.wait > MaxWait {
		t.Fatalf("wait %d", tab.main.wait)
	}
}
