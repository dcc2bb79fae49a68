package main

import "github.com/hajimehoshi/ebiten/v2"

// classroomShot does nothing in a browser: there are no files (the
// browser's own screenshot is the page's).
func (g *game) classroomShot(*ebiten.Image) { g.shot = "" }
