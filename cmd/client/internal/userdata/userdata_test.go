package userdata

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	d, err := Open("tremor", dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dir() != dir {
		t.Fatalf("Dir() = %q, want %q", d.Dir(), dir)
	}
	if b, err := d.Load("config", "cvars.cfg"); b != nil || err != nil {
		t.Fatalf("never saved: got %q, %v; want nil, nil", b, err)
	}
	for _, v := range []string{"one", "two, longer", ""} {
		if err := d.Save("config", "cvars.cfg", []byte(v)); err != nil {
			t.Fatal(err)
		}
		b, err := d.Load("config", "cvars.cfg")
		if err != nil || string(b) != v {
			t.Fatalf("load = %q, %v; want %q", b, err, v)
		}
	}
	if err := d.Save("config", "binds.cfg", []byte("bind a +moveleft")); err != nil {
		t.Fatal(err)
	}
	// The files are where gdata's layout puts them, and no temporary
	// file is left beside them.
	ents, err := os.ReadDir(filepath.Join(dir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"binds.cfg", "cvars.cfg"}) {
		t.Fatalf("files %q, want binds.cfg and cvars.cfg only", names)
	}
	if err := d.Delete("config", "binds.cfg"); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete("config", "binds.cfg"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if b, _ := d.Load("config", "binds.cfg"); b != nil {
		t.Fatal("still there after delete")
	}
}

// Without fs_homepath the data is in $XDG_DATA_HOME/tremor when that is
// an absolute path, else in gdata's directory for the app; fs_homepath
// wins over both, and a relative one is taken from the working
// directory.
func TestPlatformDir(t *testing.T) {
	home, xdg, wd := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(wd)
	gdataDir := filepath.Join(home, ".local", "share", "tremor")
	for _, tc := range []struct {
		name, xdg, homepath, want string
	}{
		{"no XDG_DATA_HOME", "", "", gdataDir},
		{"XDG_DATA_HOME", xdg, "", filepath.Join(xdg, "tremor")},
		{"relative XDG_DATA_HOME ignored", "data", "", gdataDir},
		{"fs_homepath over XDG_DATA_HOME", xdg, filepath.Join(home, "portable"), filepath.Join(home, "portable")},
		{"relative fs_homepath", xdg, "rel", filepath.Join(wd, "rel")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			d, err := Open("tremor", tc.homepath)
			if err != nil {
				t.Fatal(err)
			}
			if d.Dir() != tc.want {
				t.Fatalf("Dir() = %q, want %q", d.Dir(), tc.want)
			}
			if err := d.Save("config", "x", []byte(tc.name)); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(tc.want, "config", "x")); err != nil || string(b) != tc.name {
				t.Fatalf("file: %q, %v", b, err)
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	dir := t.TempDir()
	d, err := Open("tremor", filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ object, prop string }{
		{"..", "x"}, {"config", "../escape"}, {"a/b", "x"}, {"config", ""}, {"", "x"},
		{"config", ".hidden"}, {"config", `c:\x`}, {"config", "nul\x00"}, {"config", strings.Repeat("x", 200)},
	} {
		if err := d.Save(tc.object, tc.prop, []byte("x")); err == nil {
			t.Errorf("Save(%q, %q) accepted", tc.object, tc.prop)
		}
		if _, err := d.Load(tc.object, tc.prop); err == nil {
			t.Errorf("Load(%q, %q) accepted", tc.object, tc.prop)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Error("a file escaped the data directory")
	}
	if _, err := Open("../x", ""); err == nil {
		t.Error("app name ../x accepted")
	}
}
