// Package tilemap reads Tremor's arena files and answers tile queries for
// collision, items, jump pads and teleporters.
//
// An arena is a UTF-8 text file NAME.map: a few directives (name, author,
// players, teleport, pad), then a grid of one byte per tile between the lines
// "grid" and "end". The format is specified in docs/maps.md; Parse implements
// exactly that and Map.String writes it back.
//
// Tile coordinates have x to the right and y down, with (0,0) the top-left
// tile. A tile is TileSize pixels square. Every position outside the grid is
// Solid, so a map needs no solid border.
//
// The grid corresponds to the brushes of a Quake III .bsp; spawn points,
// items, jump pads and teleporters correspond to its entities
// (info_player_deathmatch, item_*/weapon_*/ammo_*, trigger_push,
// trigger_teleport with a misc_teleporter_dest), and items keep their
// Quake III classnames so the game can map them to its item table.
//
// Parse treats its input as hostile: files over MaxFileSize bytes, lines over
// MaxLineLen bytes and grids over MaxWidth x MaxHeight tiles are refused
// before anything is allocated for them, so a parse never allocates more than
// a small multiple of its input.
package tilemap
