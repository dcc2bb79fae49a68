package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/pe"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// entry is one file or folder of an archive: its name inside the
// archive (slash-separated, under the top folder) and where it is read.
type entry struct {
	name string
	src  string
	dir  bool
	mode fs.FileMode // 0755 or 0644; folders 0755
	size int64
}

// topName is the archive's top folder: out's base name without .zip or
// .tar.gz.
func topName(out string) (string, error) {
	base := filepath.Base(out)
	for _, ext := range []string{".zip", ".tar.gz"} {
		if s, ok := strings.CutSuffix(base, ext); ok && s != "" {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s: the name must end in .zip or .tar.gz", out)
}

// entries lists the tree under src, folders before their files, in
// lexical order, refusing anything but folders and regular files.
func entries(src, top string) ([]entry, error) {
	var list []entry
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		name := top
		if rel != "." {
			name = path.Join(top, filepath.ToSlash(rel))
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			list = append(list, entry{name: name + "/", src: p, dir: true, mode: 0o755})
		case info.Mode().IsRegular():
			mode := fs.FileMode(0o644)
			if info.Mode()&0o111 != 0 {
				mode = 0o755
			}
			list = append(list, entry{name: name, src: p, mode: mode, size: info.Size()})
		default:
			return fmt.Errorf("%s: not a regular file or folder (%s)", p, info.Mode().Type())
		}
		return nil
	})
	return list, err
}

// archive packs the tree under src into out (a .zip or a .tar.gz), under
// one top folder, every entry dated mtime. It writes out.tmp and renames
// it, so that a failed run leaves no half archive under out's name.
func archive(out, src string, mtime time.Time) (err error) {
	top, err := topName(out)
	if err != nil {
		return err
	}
	list, err := entries(src, top)
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if strings.HasSuffix(out, ".zip") {
		err = writeZip(w, list, mtime)
	} else {
		err = writeTarGz(w, list, mtime)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func writeZip(w io.Writer, list []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range list {
		h := &zip.FileHeader{Name: e.name, Modified: mtime.UTC(), Method: zip.Deflate}
		if e.dir {
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | e.mode)
		} else {
			h.SetMode(e.mode)
		}
		dst, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if !e.dir {
			if err := copyFile(dst, e.src); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

func writeTarGz(w io.Writer, list []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range list {
		h := &tar.Header{Name: e.name, Mode: int64(e.mode), ModTime: mtime, Format: tar.FormatPAX,
			Uname: "root", Gname: "root", Typeflag: tar.TypeReg, Size: e.size}
		if e.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !e.dir {
			if err := copyFile(tw, e.src); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func copyFile(dst io.Writer, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(dst, f)
	return err
}

// sums writes dir/SHA256SUMS over the archives in dir, sorted by name.
func sums(dir string) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, d := range des {
		n := d.Name()
		if d.Type().IsRegular() && (strings.HasSuffix(n, ".zip") || strings.HasSuffix(n, ".tar.gz")) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: no .zip or .tar.gz to sum", dir)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		h := sha256.New()
		if err := copyFile(h, filepath.Join(dir, n)); err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// subsystem returns the PE subsystem of the Windows executable at file:
// "gui", "console", or "subsystem N".
func subsystem(file string) (string, error) {
	f, err := pe.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var s uint16
	switch h := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		s = h.Subsystem
	case *pe.OptionalHeader32:
		s = h.Subsystem
	default:
		return "", errors.New(file + ": no PE optional header")
	}
	switch s {
	case pe.IMAGE_SUBSYSTEM_WINDOWS_GUI:
		return "gui", nil
	case pe.IMAGE_SUBSYSTEM_WINDOWS_CUI:
		return "console", nil
	}
	return fmt.Sprintf("subsystem %d", s), nil
}
