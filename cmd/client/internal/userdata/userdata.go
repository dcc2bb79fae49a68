// Package userdata keeps the window client's files between runs —
// settings, binds, console history, demos, favorites, downloaded maps —
// through github.com/quasilyte/gdata/v2: objects holding named
// properties, in $XDG_DATA_HOME/APP (~/.local/share/APP when it is unset)
// on Linux and macOS, %AppData%\APP on Windows, the browser's
// localStorage under WebAssembly.
//
// It adds the three things the game needs that gdata v2.0.0 does not do:
//   - Atomic writes. [Data.Save] writes beside the file gdata names
//     (ObjectPropPath) and renames it over, so a crash or a full disk
//     never leaves a half-written config. Where gdata stores no files
//     (localStorage) it saves through gdata itself.
//   - A directory chosen by the command line (fs_homepath), for tests
//     and portable installs. gdata takes only an application name,
//     which it joins to the platform's data directory; Open passes it
//     the path from that directory to the one wanted, so that gdata's
//     own join lands there.
//   - XDG_DATA_HOME. gdata always uses ~/.local/share; the XDG Base
//     Directory specification puts user data in $XDG_DATA_HOME when it
//     is set to an absolute path (a relative one is ignored, as the
//     specification says), and Open does the same, by the same
//     relative-path route as fs_homepath.
package userdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/quasilyte/gdata/v2"
)

// Data is the client's data directory. Its methods are safe for
// concurrent use as far as the file system is: two writers of one
// property race, the last rename wins.
type Data struct {
	m   *gdata.Manager
	dir string // "" where gdata keeps no files (localStorage)
}

// Open opens the data directory of app: dir when it is not empty (the
// fs_homepath cvar), else the platform's (on Linux and macOS
// $XDG_DATA_HOME/app when that is an absolute path), creating it.
func Open(app, dir string) (*Data, error) {
	if err := checkName(app); err != nil {
		return nil, fmt.Errorf("userdata: app name: %w", err)
	}
	from := "fs_homepath"
	if xdg := xdgDataHome(); dir == "" && xdg != "" {
		dir, from = filepath.Join(xdg, app), "XDG_DATA_HOME"
	}
	base, err := dataHome()
	if err != nil && dir != "" {
		return nil, fmt.Errorf("userdata: %s %s: %w", from, dir, err)
	}
	name := app
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("userdata: %s %s: %w", from, dir, err)
		}
		if name, err = filepath.Rel(base, abs); err != nil {
			return nil, fmt.Errorf("userdata: %s %s: %w", from, dir, err)
		}
	}
	m, err := gdata.Open(gdata.Config{AppName: name})
	if err != nil {
		return nil, fmt.Errorf("userdata: %w", err)
	}
	d := &Data{m: m}
	if base != "" {
		d.dir = filepath.Join(base, name)
	}
	return d, nil
}

// dataHome returns the directory gdata joins the application name to on
// this platform, or "" and an error where it keeps no files.
func dataHome() (string, error) {
	switch runtime.GOOS {
	case "js", "android":
		return "", errors.New("no data directory on " + runtime.GOOS)
	case "windows":
		if d := os.Getenv("AppData"); d != "" {
			return d, nil
		}
		return "", errors.New("AppData is not set")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// xdgDataHome returns $XDG_DATA_HOME where gdata would otherwise use
// ~/.local/share (not on Windows, nor where there are no files), if it
// is an absolute path; else "".
func xdgDataHome() string {
	switch runtime.GOOS {
	case "js", "android", "windows":
		return ""
	}
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d
	}
	return ""
}

// Dir returns the data directory, or "" where the data is not kept in
// files (WebAssembly): demos and downloaded maps then cannot be saved.
func (d *Data) Dir() string { return d.dir }

// Path returns the file that holds object's property prop, checking that
// both names stay inside the data directory.
func (d *Data) Path(object, prop string) (string, error) {
	if err := checkName(object); err != nil {
		return "", fmt.Errorf("userdata: object: %w", err)
	}
	if err := checkName(prop); err != nil {
		return "", fmt.Errorf("userdata: property: %w", err)
	}
	return d.m.ObjectPropPath(object, prop), nil
}

// Load returns object's property prop, or nil and no error if it was
// never saved.
func (d *Data) Load(object, prop string) ([]byte, error) {
	if _, err := d.Path(object, prop); err != nil {
		return nil, err
	}
	b, err := d.m.LoadObjectProp(object, prop)
	if err != nil {
		return nil, fmt.Errorf("userdata: %s/%s: %w", object, prop, err)
	}
	return b, nil
}

// Save writes data as object's property prop, atomically where it is a
// file.
func (d *Data) Save(object, prop string, data []byte) error {
	p, err := d.Path(object, prop)
	if err != nil {
		return err
	}
	if d.dir == "" {
		return d.m.SaveObjectProp(object, prop, data)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("userdata: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+prop+".*")
	if err != nil {
		return fmt.Errorf("userdata: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("userdata: writing %s/%s: %w", object, prop, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("userdata: %w", err)
	}
	return nil
}

// Delete removes object's property prop; removing one that does not
// exist is not an error.
func (d *Data) Delete(object, prop string) error {
	if _, err := d.Path(object, prop); err != nil {
		return err
	}
	return d.m.DeleteObjectProp(object, prop)
}

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
