// Package arenas holds Tremor's shipped arena files (NAME.map, the format of
// package tilemap, see docs/maps.md), embedded in the binary, and loads them
// by name, preferring a file in an on-disk directory so that players can add
// or replace arenas without rebuilding.
package arenas

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"tremor/bg/tilemap"
)

//go:embed *.map
var files embed.FS

// FS returns the embedded arena files, NAME.map at the root.
func FS() fs.FS { return files }

// Names returns the names of the embedded arenas (file names without
// ".map"), sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil // cannot happen with an embed.FS
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".map"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Load parses the embedded arena name ("duel1", without ".map").
func Load(name string) (*tilemap.Map, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return tilemap.Load(files, name)
}

// LoadFrom parses dir/name.map if that file exists, and the embedded arena
// name otherwise. An empty dir means the embedded set only. A file that
// exists but does not parse is an error: it does not fall back.
func LoadFrom(dir, name string) (*tilemap.Map, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if dir != "" {
		m, err := tilemap.Load(os.DirFS(dir), name)
		if !errors.Is(err, fs.ErrNotExist) {
			return m, err
		}
	}
	return tilemap.Load(files, name)
}

// MaxNameLen is the longest map name.
const MaxNameLen = 64

// ReadFrom returns the bytes of the file LoadFrom(dir, name) parses:
// dir/name.map if it exists, else the embedded arena. A file over
// tilemap.MaxFileSize is an error.
func ReadFrom(dir, name string) ([]byte, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if dir != "" {
		data, err := readFile(os.DirFS(dir), name+".map")
		if !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
	}
	return readFile(files, name+".map")
}

// readFile reads file from fsys, refusing one over tilemap.MaxFileSize.
func readFile(fsys fs.FS, file string) ([]byte, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("arenas: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, tilemap.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("arenas: %s: %w", file, err)
	}
	if len(data) > tilemap.MaxFileSize {
		return nil, fmt.Errorf("arenas: %s is larger than %d bytes", file, tilemap.MaxFileSize)
	}
	return data, nil
}

// CheckName accepts only a plain file name of at most MaxNameLen bytes
// (no '/', '\\', ':', '"', control character or leading '.'), so that a
// map name received from the network cannot name a file outside the map
// directory.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen || strings.ContainsAny(name, `/\:"`) || name != path.Base(name) ||
		strings.HasPrefix(name, ".") || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("arenas: invalid map name %q", name)
	}
	return nil
}
