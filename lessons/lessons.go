// Package lessons holds the config files of docs/teaching.md's lessons,
// built into the client and the server so that `exec lessons/lesson1`
// (or just `exec lesson1`) works from any directory, on a machine that
// has only the binaries.
package lessons

import (
	"embed"
	"errors"
	"io/fs"
	"strings"
)

//go:embed *.cfg
var files embed.FS

// Dir is the folder the lessons' files live in, and the prefix their exec
// lines use ("exec lessons/reset").
const Dir = "lessons"

// FS returns the lessons' config files, each under two names: "NAME.cfg"
// and "lessons/NAME.cfg".
func FS() fs.FS { return prefixFS{} }

// prefixFS serves files under its own names and under Dir/.
type prefixFS struct{}

// Open implements fs.FS.
func (prefixFS) Open(name string) (fs.File, error) {
	if rest, ok := strings.CutPrefix(name, Dir+"/"); ok && !strings.Contains(rest, "/") {
		name = rest
	}
	return files.Open(name)
}

// Over returns a file system that reads fsys first and the lessons'
// files where fsys has no such file: the window's exec, which reads the
// working directory.
func Over(fsys fs.FS) fs.FS { return overFS{fsys} }

// overFS is Over's file system.
type overFS struct{ first fs.FS }

// Open implements fs.FS.
func (o overFS) Open(name string) (fs.File, error) {
	f, err := o.first.Open(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	return prefixFS{}.Open(name)
}
