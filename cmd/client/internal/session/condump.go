//go:build !js

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// CondumpExt is the extension of the files condump writes: the only one
// it writes, so that it cannot overwrite settings, scripts or demos.
const CondumpExt = ".txt"

// CondumpPath returns the file condump NAME writes in dir: a plain file
// name, CondumpExt added when it has no extension. A name with a folder,
// a leading dot or another extension is an error.
func CondumpPath(dir, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\:`+"\x00") || strings.HasPrefix(name, ".") || len(name) > 128 {
		return "", fmt.Errorf("condump: bad file name %q: a plain name in the data directory", name)
	}
	switch filepath.Ext(name) {
	case "":
		name += CondumpExt
	case CondumpExt:
	default:
		return "", fmt.Errorf("condump: %q: only %s files", name, CondumpExt)
	}
	return filepath.Join(dir, name), nil
}

// AddCondump adds condump to t (Quake III's Con_Dump_f): condump FILE
// writes every line of sb, the console's scrollback, oldest first, to
// FILE in the data directory (the working directory without one).
func (s *Session) AddCondump(t *console.Table, sb *console.Scrollback) {
	t.AddCommand("condump", "condump FILE: save the console's text to FILE"+CondumpExt+" in the data directory", func(a *cmdargs.Args) {
		if a.Argc() != 2 {
			t.Printf("usage: condump FILE\n")
			return
		}
		path, err := CondumpPath(s.dataDir, a.Argv(1))
		if err != nil {
			t.Printf("%v\n", err)
			return
		}
		if s.dataDir != "" {
			if err := os.MkdirAll(s.dataDir, 0o755); err != nil {
				t.Printf("condump: %v\n", err)
				return
			}
		}
		lines := sb.Lines(nil)
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Printf("condump: %v\n", err)
			return
		}
		t.Printf("condump: wrote %d lines to %s\n", len(lines), path)
	})
}
