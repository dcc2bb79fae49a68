// Package gamedata keeps a game's files between runs: settings, key
// bindings, console history, demos. It has the shape of
// github.com/quasilyte/gdata/v2 — objects holding named properties, kept
// in the platform's data directory (~/.local/share/APP on Linux, as
// gdata does) — written on the standard library because that module
// cannot be fetched from the Go module proxy this project builds with
// (it answers 403). Swapping gdata in is a change of this one package.
//
// Writes are atomic: a property is written to a temporary file in the
// same directory and renamed over the old one, so a crash never leaves a
// half-written config.
package gamedata

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Config says where the data lives.
type Config struct {
	// AppName names the directory under the platform's data directory.
	AppName string
	// Dir, when not empty, is the data directory itself (a command-line
	// override such as fs_homepath, and tests); AppName is then unused.
	Dir string
}

// Manager reads and writes the properties of objects under one
// directory. Its methods are safe for concurrent use as far as the file
// system is: two writers of one property race, the last rename wins.
type Manager struct {
	dir string
}

// Open returns a manager for c, creating its directory.
func Open(c Config) (*Manager, error) {
	dir := c.Dir
	if dir == "" {
		if err := checkName(c.AppName); err != nil {
			return nil, fmt.Errorf("gamedata: app name: %w", err)
		}
		base, err := DataHome()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(base, c.AppName)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("gamedata: %w", err)
	}
	return &Manager{dir: dir}, nil
}

// DataHome returns the platform's directory for application data:
// $XDG_DATA_HOME or ~/.local/share on Linux and other Unix systems,
// %AppData% on Windows.
func DataHome() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	if d := os.Getenv("AppData"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("gamedata: no data directory: %w", err)
	}
	return filepath.Join(home, ".local", "share"), nil
}

// Dir returns the directory the manager keeps its objects in.
func (m *Manager) Dir() string { return m.dir }

// checkName refuses names that are empty, too long, or could leave the
// directory (separators, dot names).
func checkName(s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return fmt.Errorf("bad name %q", s)
	case len(s) > 128:
		return fmt.Errorf("name of %d bytes (at most 128)", len(s))
	case strings.ContainsAny(s, `/\:`+"\x00"):
		return fmt.Errorf("bad name %q: no / \\ : or NUL", s)
	case strings.HasPrefix(s, "."):
		return fmt.Errorf("bad name %q: starts with a dot", s)
	}
	return nil
}

// PropPath returns the file that holds object's property prop.
func (m *Manager) PropPath(object, prop string) (string, error) {
	if err := checkName(object); err != nil {
		return "", fmt.Errorf("gamedata: object: %w", err)
	}
	if err := checkName(prop); err != nil {
		return "", fmt.Errorf("gamedata: property: %w", err)
	}
	return filepath.Join(m.dir, object, prop), nil
}

// SaveObjectProp writes data as object's property prop, atomically.
func (m *Manager) SaveObjectProp(object, prop string, data []byte) error {
	p, err := m.PropPath(object, prop)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("gamedata: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+prop+".*")
	if err != nil {
		return fmt.Errorf("gamedata: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("gamedata: writing %s/%s: %w", object, prop, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("gamedata: %w", err)
	}
	return nil
}

// LoadObjectProp returns object's property prop, or nil and no error if
// it was never saved.
func (m *Manager) LoadObjectProp(object, prop string) ([]byte, error) {
	p, err := m.PropPath(object, prop)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gamedata: %w", err)
	}
	return b, nil
}

// ObjectPropExists reports whether object's property prop was saved.
func (m *Manager) ObjectPropExists(object, prop string) bool {
	p, err := m.PropPath(object, prop)
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// DeleteObjectProp removes object's property prop; removing one that does
// not exist is not an error.
func (m *Manager) DeleteObjectProp(object, prop string) error {
	p, err := m.PropPath(object, prop)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("gamedata: %w", err)
	}
	return nil
}

// ListObjectProps returns the names of object's properties, sorted.
func (m *Manager) ListObjectProps(object string) ([]string, error) {
	if err := checkName(object); err != nil {
		return nil, fmt.Errorf("gamedata: object: %w", err)
	}
	ents, err := os.ReadDir(filepath.Join(m.dir, object))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gamedata: %w", err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}
