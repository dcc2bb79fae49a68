package lessons

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

func TestFS(t *testing.T) {
	for _, name := range []string{"lesson1.cfg", "lessons/lesson1.cfg", "reset.cfg", "lessons/reset.cfg", "lesson7.cfg", "lessons/lesson6-server.cfg", "lessons/classroom4.cfg"} {
		b, err := fs.ReadFile(FS(), name)
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	for _, name := range []string{"lessons.go", "lessons/lessons/lesson1.cfg", "../lesson1.cfg", "net.sh", "lessons/net.sh", "nope.cfg"} {
		if _, err := fs.ReadFile(FS(), name); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

func TestOver(t *testing.T) {
	dir := fstest.MapFS{"lessons/lesson1.cfg": {Data: []byte("echo mine\n")}, "own.cfg": {Data: []byte("echo own\n")}}
	o := Over(dir)
	for name, want := range map[string]string{"lessons/lesson1.cfg": "echo mine\n", "own.cfg": "echo own\n"} {
		if b, err := fs.ReadFile(o, name); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if b, err := fs.ReadFile(o, "lessons/reset.cfg"); err != nil || len(b) == 0 {
		t.Errorf("lessons/reset.cfg from the built-in files: %v", err)
	}
	if _, err := fs.ReadFile(o, "missing.cfg"); err == nil {
		t.Error("missing.cfg read")
	}
}
