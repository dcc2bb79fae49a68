package main

import (
	"io/fs"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/lessons"
	"tremor/ui/keys"
)

// The browser build has no files (docs/web.md): no screenshots, demos or
// journal, and exec runs the built-in lessons only. files.go has the
// rest.

// execFS is where exec finds scripts: the built-in lessons.
func execFS() fs.FS { return lessons.FS() }

// localMapDir leaves sv_mapdir at its default, which is empty in a
// browser (server/mapdir_js.go): the embedded arenas only.
func localMapDir(*config) (string, bool) { return "", false }

// addFileCommands adds nothing: every one of them writes or reads files.
// F12, which saves a screenshot on the desktop, is left unbound (the
// page's screenshot is the browser's).
func (g *game) addFileCommands() {
	if g.binds.Binding(keys.KeyF12) == "screenshot" {
		_ = g.binds.Set(keys.KeyF12, "")
	}
}

// saveDueShot does nothing: no screenshot is ever asked for.
func (g *game) saveDueShot(*ebiten.Image) {}
