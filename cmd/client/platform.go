//go:build !js

package main

import "os"

// commandLine returns the program's arguments.
func commandLine() []string { return os.Args[1:] }

// frameDrawn is called after each frame drawn; only the browser build
// tells anyone (platform_js.go).
func frameDrawn(*game) {}
