package server

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"tremor/common/console"
)

// exec reads sv_configdir first, then the fallback the program built in
// (WithExecFallback), and nothing else.
func TestExecFallback(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "both.cfg"), []byte("set from dir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(console.Decl{Name: "sv_configdir", Default: dir})
	f := configFS{dir: tbl.Get("sv_configdir"), fallback: fstest.MapFS{
		"both.cfg":         {Data: []byte("set from fallback\n")},
		"lessons/one.cfg":  {Data: []byte("echo one\n")},
		"lessons/note.txt": {Data: []byte("echo txt\n")},
	}}
	for _, tc := range []struct {
		name, want string // want "" = refused
	}{
		{"both", "set from dir\n"},
		{"both.cfg", "set from dir\n"},
		{"lessons/one", "echo one\n"},
		{"lessons/one.cfg", "echo one\n"},
		{"lessons/two", ""},
		{"/etc/passwd", ""},
	} {
		b, err := fs.ReadFile(f, tc.name)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: read %q, want refused", tc.name, b)
		case tc.want != "" && (err != nil || string(b) != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, b, err, tc.want)
		}
	}
	// Without a fallback, only sv_configdir.
	f.fallback = nil
	if _, err := fs.ReadFile(f, "lessons/one"); err == nil {
		t.Error("read a fallback file without a fallback")
	}
}
