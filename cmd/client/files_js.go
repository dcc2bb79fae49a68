package main

import (
	"io/fs"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/lessons"
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
func (g *game) addFileCommands() {}

// saveDueShot does nothing: no screenshot is ever asked for.
func (g *game) saveDueShot(*ebiten.Image) {}
