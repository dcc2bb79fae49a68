// Package bg is the code both sides of a Tremor connection run: the wire
// structs (PlayerState, EntityState, UserCmd, Trajectory) with their delta
// field tables, player movement (Pmove), trajectory evaluation, the item
// table and predictable events. It corresponds to Quake III's q_shared.h
// and bg_*.c.
//
// Everything here is deterministic: integer fixed-point arithmetic, time as
// integer milliseconds passed in, no globals that change, no clock and no
// randomness. The server's game and the client's prediction call the same
// functions with the same inputs and get the same bits — the property
// client-side prediction depends on.
package bg
