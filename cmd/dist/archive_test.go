package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree makes a folder with an executable, a text file and a subfolder.
func tree(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	must(t, os.WriteFile(filepath.Join(src, "tremor"), []byte("binary"), 0o700))
	must(t, os.WriteFile(filepath.Join(src, "README.txt"), []byte("read me\n"), 0o600))
	must(t, os.Mkdir(filepath.Join(src, "maps"), 0o700))
	must(t, os.WriteFile(filepath.Join(src, "maps", "a.map"), []byte("map"), 0o600))
	return src
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// want is what every archive of tree holds, by name: the mode and the
// contents.
var want = map[string]struct {
	mode os.FileMode
	data string
}{
	"x/":           {os.ModeDir | 0o755, ""},
	"x/README.txt": {0o644, "read me\n"},
	"x/maps/":      {os.ModeDir | 0o755, ""},
	"x/maps/a.map": {0o644, "map"},
	"x/tremor":     {0o755, "binary"},
}

var order = []string{"x/", "x/README.txt", "x/maps/", "x/maps/a.map", "x/tremor"}

func TestArchiveZipAndTarGz(t *testing.T) {
	src, out := tree(t), t.TempDir()
	mtime := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	for _, name := range []string{"x.zip", "x.tar.gz"} {
		file := filepath.Join(out, name)
		must(t, archive(file, src, mtime))
		var got []string
		check := func(n string, mode os.FileMode, mod time.Time, r io.Reader) {
			data, err := io.ReadAll(r)
			must(t, err)
			w, ok := want[n]
			if !ok || w.mode != mode || w.data != string(data) || !mod.Equal(mtime) {
				t.Errorf("%s: %s: mode %v, %q, %v; want %+v at %v", name, n, mode, data, mod, w, mtime)
			}
			got = append(got, n)
		}
		if strings.HasSuffix(name, ".zip") {
			zr, err := zip.OpenReader(file)
			must(t, err)
			for _, f := range zr.File {
				r, err := f.Open()
				must(t, err)
				check(f.Name, f.Mode(), f.Modified, r)
				r.Close()
			}
			zr.Close()
		} else {
			f, err := os.Open(file)
			must(t, err)
			gz, err := gzip.NewReader(f)
			must(t, err)
			tr := tar.NewReader(gz)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				must(t, err)
				check(h.Name, h.FileInfo().Mode(), h.ModTime, tr)
			}
			f.Close()
		}
		if strings.Join(got, " ") != strings.Join(order, " ") {
			t.Errorf("%s: entries %q, want %q", name, got, order)
		}
		// The same tree and time give the same bytes.
		first, err := os.ReadFile(file)
		must(t, err)
		must(t, archive(file, src, mtime))
		again, err := os.ReadFile(file)
		must(t, err)
		if !bytes.Equal(first, again) {
			t.Errorf("%s: two runs differ", name)
		}
	}
	if err := archive(filepath.Join(out, "x.tar"), src, mtime); err == nil {
		t.Error("an archive named .tar was written")
	}
	if _, err := os.Stat(filepath.Join(out, "x.zip.tmp")); !os.IsNotExist(err) {
		t.Errorf("x.zip.tmp left behind: %v", err)
	}
}

func TestSums(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "b.tar.gz"), []byte("bb"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a.zip"), []byte("aa"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("no"), 0o644))
	must(t, sums(dir))
	got, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	must(t, err)
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	if w := hash("aa") + "  a.zip\n" + hash("bb") + "  b.tar.gz\n"; string(got) != w {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, w)
	}
}

// fakePE writes the headers of a 64-bit PE file with no sections and the
// given subsystem: what subsystem reads.
func fakePE(t *testing.T, sub uint16) string {
	t.Helper()
	var b bytes.Buffer
	dos := make([]byte, 0x40)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], 0x40)
	b.Write(dos)
	b.WriteString("PE\x00\x00")
	opt := pe.OptionalHeader64{Magic: 0x20b, Subsystem: sub, NumberOfRvaAndSizes: 16}
	must(t, binary.Write(&b, binary.LittleEndian, pe.FileHeader{
		Machine: pe.IMAGE_FILE_MACHINE_AMD64, SizeOfOptionalHeader: uint16(binary.Size(opt)),
	}))
	must(t, binary.Write(&b, binary.LittleEndian, opt))
	file := filepath.Join(t.TempDir(), "x.exe")
	must(t, os.WriteFile(file, b.Bytes(), 0o644))
	return file
}

func TestSubsystem(t *testing.T) {
	for sub, want := range map[uint16]string{
		pe.IMAGE_SUBSYSTEM_WINDOWS_GUI:     "gui",
		pe.IMAGE_SUBSYSTEM_WINDOWS_CUI:     "console",
		pe.IMAGE_SUBSYSTEM_EFI_APPLICATION: "subsystem 10",
	} {
		got, err := subsystem(fakePE(t, sub))
		if err != nil || got != want {
			t.Errorf("subsystem %d: %q, %v; want %q", sub, got, err, want)
		}
	}
	notPE := filepath.Join(t.TempDir(), "x.exe")
	must(t, os.WriteFile(notPE, []byte("#!/bin/sh\n"), 0o755))
	if got, err := subsystem(notPE); err == nil {
		t.Errorf("a shell script: %q, no error", got)
	}
}
