//go:build !js

package server

// defaultMapDir is sv_mapdir's default: maps under the working
// directory, before the embedded arenas.
const defaultMapDir = "maps"
