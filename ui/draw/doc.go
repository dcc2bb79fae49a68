// Package draw draws a Tremor frame with Ebitengine: the tile map, the
// players, missiles and items of a cgame frame, short-lived effects from
// its events (rail trails, explosions), and the HUD, crosshair, chat and
// scoreboard. It reads only the plain data cgame exposes after
// (*cgame.CGame).Frame and the map; it never changes either, so the
// windowless cgame stays the single source of what is shown.
//
// It is Quake III's cg_draw.c and cg_ents.c without the simulation. Only
// the client imports it (see internal/layout).
package draw
