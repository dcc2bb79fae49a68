// Package cgame will be the client game: prediction of the local player
// through bg.Pmove, interpolation of the others between snapshots, events,
// and the HUD (Quake III's cg_*.c). Drawing will live in cgame/draw, the
// only part that imports Ebitengine. Nothing is here yet.
package cgame
