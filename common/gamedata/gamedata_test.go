package gamedata

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	m, err := Open(Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := m.LoadObjectProp("config", "cvars.cfg"); b != nil || err != nil {
		t.Fatalf("never saved: got %q, %v; want nil, nil", b, err)
	}
	if m.ObjectPropExists("config", "cvars.cfg") {
		t.Fatal("exists before saving")
	}
	for _, v := range []string{"one", "two, longer", ""} {
		if err := m.SaveObjectProp("config", "cvars.cfg", []byte(v)); err != nil {
			t.Fatal(err)
		}
		b, err := m.LoadObjectProp("config", "cvars.cfg")
		if err != nil || string(b) != v {
			t.Fatalf("load = %q, %v; want %q", b, err, v)
		}
	}
	if err := m.SaveObjectProp("config", "binds.cfg", []byte("bind a +moveleft")); err != nil {
		t.Fatal(err)
	}
	names, err := m.ListObjectProps("config")
	if err != nil || !slices.Equal(names, []string{"binds.cfg", "cvars.cfg"}) {
		t.Fatalf("props = %q, %v (no temporary files may remain)", names, err)
	}
	if err := m.DeleteObjectProp("config", "binds.cfg"); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteObjectProp("config", "binds.cfg"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if m.ObjectPropExists("config", "binds.cfg") {
		t.Fatal("exists after delete")
	}
}

func TestBadNames(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(Config{Dir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ object, prop string }{
		{"..", "x"}, {"config", "../escape"}, {"a/b", "x"}, {"config", ""}, {"", "x"},
		{"config", ".hidden"}, {"config", `c:\x`}, {"config", "nul\x00"}, {"config", strings.Repeat("x", 200)},
	} {
		if err := m.SaveObjectProp(tc.object, tc.prop, []byte("x")); err == nil {
			t.Errorf("SaveObjectProp(%q, %q) accepted", tc.object, tc.prop)
		}
		if _, err := m.LoadObjectProp(tc.object, tc.prop); err == nil {
			t.Errorf("LoadObjectProp(%q, %q) accepted", tc.object, tc.prop)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Error("a file escaped the data directory")
	}
}

func TestDataHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("AppData", "")
	t.Setenv("HOME", home)
	m, err := Open(Config{AppName: "tremor"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".local", "share", "tremor"); m.Dir() != want {
		t.Errorf("dir %q, want %q", m.Dir(), want)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	m, err = Open(Config{AppName: "tremor"})
	if err != nil || m.Dir() != filepath.Join(xdg, "tremor") {
		t.Errorf("with XDG_DATA_HOME: %q, %v", m.Dir(), err)
	}
	if _, err := Open(Config{AppName: "../x"}); err == nil {
		t.Error("app name ../x accepted")
	}
}
