package client

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg/tilemap"
)

// TestDownloadFileNames: where a downloaded map goes, for the names and
// checksums a server may announce, and which file names of the folder
// the client takes for its own.
func TestDownloadFileNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		checksum uint32
		want     string // "" for an error
	}{
		{"arena1", 310906643, "arena1-310906643.map"},
		{"arena1", 0, "arena1-0.map"},
		{"arena1", 4294967295, "arena1-4294967295.map"},
		{"my-map", 7, "my-map-7.map"},
		{"downloads", 1, "downloads-1.map"},
		{"Zoë", 2, "Zoë-2.map"},
		{"..", 1, ""},
		{"../arena1", 1, ""},
		{"maps/arena1", 1, ""},
		{`..\arena1`, 1, ""},
		{"/etc/passwd", 1, ""},
		{".hidden", 1, ""},
		{"C:arena1", 1, ""},
		{"", 1, ""},
		{"a\x1bb", 1, ""},
		{strings.Repeat("x", 65), 1, ""},
	} {
		t.Run(tc.name+"/"+strconv.FormatUint(uint64(tc.checksum), 10), func(t *testing.T) {
			got, err := downloadFile(tc.name, tc.checksum)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("downloadFile(%q) = %q, want an error", tc.name, got)
				}
				if _, err := DownloadPath("maps", tc.name, tc.checksum); err == nil {
					t.Errorf("DownloadPath(%q) took the name", tc.name)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("downloadFile(%q, %d) = %q, %v; want %q", tc.name, tc.checksum, got, err, tc.want)
			}
			p, err := DownloadPath("maps", tc.name, tc.checksum)
			if err != nil || p != filepath.Join("maps", DownloadDir, tc.want) {
				t.Errorf("DownloadPath = %q, %v", p, err)
			}
			name, sum, ok := parseDownloadFile(got)
			if !ok || name != tc.name || sum != tc.checksum {
				t.Errorf("parseDownloadFile(%q) = %q, %d, %v", got, name, sum, ok)
			}
		})
	}
	for _, file := range []string{
		"arena1.map", "arena1-.map", "arena1-07.map", "arena1-4294967296.map", "arena1-+1.map",
		"arena1-1.map.tmp", ".arena1-1.map.0a1b2c.tmp", "-1.map", "arena1-1x.map", "arena1-1", "../x-1.map",
	} {
		if name, sum, ok := parseDownloadFile(file); ok {
			t.Errorf("parseDownloadFile(%q) = %q, %d: a file the client does not write taken for one", file, name, sum)
		}
	}
}

// FuzzDownloadFile: any accepted name and checksum give a plain file
// name inside the folder that reads back as the same pair, and any file
// name the client takes for its own is the one it would write.
func FuzzDownloadFile(f *testing.F) {
	for _, s := range []string{"arena1", "..", "a/b", `a\b`, ".x", "x-1", "", "a-07"} {
		f.Add(s, uint32(310906643))
	}
	f.Fuzz(func(t *testing.T, s string, sum uint32) {
		if file, err := downloadFile(s, sum); err == nil {
			if !filepath.IsLocal(file) || path.Base(file) != file || strings.ContainsAny(file, `/\:`) ||
				strings.HasPrefix(file, ".") || !strings.HasSuffix(file, ".map") {
				t.Fatalf("downloadFile(%q, %d) = %q: not a plain file name", s, sum, file)
			}
			name, got, ok := parseDownloadFile(file)
			if !ok || name != s || got != sum {
				t.Fatalf("parseDownloadFile(%q) = %q, %d, %v; want %q, %d", file, name, got, ok, s, sum)
			}
		}
		if name, got, ok := parseDownloadFile(s); ok {
			if file, err := downloadFile(name, got); err != nil || file != s {
				t.Fatalf("parseDownloadFile(%q) = %q, %d, but downloadFile gives %q, %v", s, name, got, file, err)
			}
		}
	})
}

// storedFile is a file of a test's downloads folder.
type storedFile struct {
	name string
	size int
	age  time.Duration
}

// fillFolder writes files into dir, each with its age.
func fillFolder(t *testing.T, dir string, now time.Time, files []storedFile) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
}

// folder returns the names in dir, sorted.
func folder(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestPruneDownloads: the folder is trimmed to its limits, the least
// recently used first, never the map just saved, never a file of a name
// the client does not write; stale temporary files go.
func TestPruneDownloads(t *testing.T) {
	now := time.Now()
	base := []storedFile{
		{"a-1.map", 100, 5 * time.Hour},
		{"b-2.map", 100, 4 * time.Hour},
		{"c-3.map", 100, 3 * time.Hour},
		{"d-4.map", 100, 2 * time.Hour},
		{"e-5.map", 100, time.Minute},
		{"mine.map", 5000, 10 * time.Hour},                   // the player's: not a download's name
		{"notes.txt", 5000, 10 * time.Hour},                  // not ours either
		{".e-5.map.0a0b0c0d0e0f.tmp", 100, 2 * time.Hour},    // a stopped client's
		{".f-6.map.0a0b0c0d0e0f.tmp", 100, 10 * time.Second}, // being written
	}
	for _, tc := range []struct {
		name     string
		keep     string
		maxFiles int
		maxBytes int64
		want     []string // downloads left
	}{
		{"within limits", "e-5.map", 5, 500, []string{"a-1.map", "b-2.map", "c-3.map", "d-4.map", "e-5.map"}},
		{"file cap", "e-5.map", 3, 1 << 20, []string{"c-3.map", "d-4.map", "e-5.map"}},
		{"byte cap", "e-5.map", 100, 250, []string{"d-4.map", "e-5.map"}},
		{"the kept map is the oldest", "a-1.map", 2, 1 << 20, []string{"a-1.map", "e-5.map"}},
		{"cap below one", "c-3.map", 0, 0, []string{"c-3.map"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fillFolder(t, dir, now, base)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			if _, err := pruneDownloads(root, tc.keep, tc.maxFiles, tc.maxBytes, now); err != nil {
				t.Fatal(err)
			}
			want := append([]string{".f-6.map.0a0b0c0d0e0f.tmp"}, tc.want...)
			want = append(want, "mine.map", "notes.txt")
			slices.Sort(want)
			if got := folder(t, dir); !slices.Equal(got, want) {
				t.Errorf("folder holds %v, want %v", got, want)
			}
		})
	}
}

// TestSaveDownloadBounded: with the folder full, each download saved
// removes the least recently used one, so reconnecting to servers that
// name map after map keeps at most MaxStoredDownloads on disk; loading a
// download (a rejoin) makes it the most recently used.
func TestSaveDownloadBounded(t *testing.T) {
	mapDir := t.TempDir()
	dir := filepath.Join(mapDir, DownloadDir)
	file := readMapFile(t, "maps", "arenas", "arena2.map")
	m, err := tilemap.Parse("arena2.map", file)
	if err != nil {
		t.Fatal(err)
	}
	sum := m.Checksum
	now := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxStoredDownloads {
		name, _ := downloadFile("old"+strconv.Itoa(i), sum)
		if err := os.WriteFile(filepath.Join(dir, name), file, 0o644); err != nil {
			t.Fatal(err)
		}
		age := now.Add(-time.Duration(MaxStoredDownloads-i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), age, age); err != nil {
			t.Fatal(err)
		}
	}
	if err := saveDownload(mapDir, "new0", sum, file); err != nil {
		t.Fatal(err)
	}
	if _, err := loadDownloaded(mapDir, "old1", sum); err != nil {
		t.Fatalf("loading a stored map: %v", err)
	}
	for _, name := range []string{"new1", "new2"} {
		if err := saveDownload(mapDir, name, sum, file); err != nil {
			t.Fatal(err)
		}
	}
	got := folder(t, dir)
	if len(got) != MaxStoredDownloads {
		t.Fatalf("%d files in the folder, want %d", len(got), MaxStoredDownloads)
	}
	for _, c := range []struct {
		name  string
		there bool
	}{{"old0", false}, {"old1", true}, {"old2", false}, {"old3", false}, {"old4", true}, {"new0", true}, {"new1", true}, {"new2", true}} {
		f, _ := downloadFile(c.name, sum)
		if slices.Contains(got, f) != c.there {
			t.Errorf("%s in the folder: %v, want %v", f, !c.there, c.there)
		}
	}
	if _, err := loadDownloaded(mapDir, "new0", sum+1); err == nil {
		t.Error("a download loaded for another checksum")
	}
}
