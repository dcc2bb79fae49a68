package tilemap

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// TileSize is the side of a tile in pixels: tile (x, y) covers the pixels
// [x*TileSize, (x+1)*TileSize) x [y*TileSize, (y+1)*TileSize).
const TileSize = 32

// Limits of the format. Parse refuses anything beyond them.
const (
	MaxWidth       = 512     // grid columns
	MaxHeight      = 256     // grid rows
	MaxLineLen     = 4096    // bytes in a line, line ending excluded
	MaxFileSize    = 1 << 20 // bytes in a file
	MinSpawns      = 2       // spawn points a map needs
	MaxPlayerCount = 64      // largest value of the players directive
	MaxPadSpeed    = 10000   // largest |VX| or |VY| of a pad directive, px/s
	MaxChannel     = 9       // teleporter channels are 1..MaxChannel
)

// Default launch velocity of a jump pad without a pad directive, in pixels
// per second (y down, so negative is up).
const (
	DefaultPadVX = 0
	DefaultPadVY = -900
)

// Tile is the collision class of one grid cell.
type Tile uint8

// Tile classes. Spawn points, items, jump pads and teleporter entrances are
// Empty tiles with something attached.
const (
	Empty    Tile = iota // nothing: players and projectiles pass
	Solid                // a wall or floor
	Platform             // one-way: solid only to something landing on it from above
	Lava                 // a hazard that damages whoever touches it; not solid
)

var tileNames = [...]string{Empty: "empty", Solid: "solid", Platform: "platform", Lava: "lava"}

// String returns the lower-case name of the tile class.
func (t Tile) String() string {
	if int(t) < len(tileNames) {
		return tileNames[t]
	}
	return fmt.Sprintf("Tile(%d)", uint8(t))
}

// Point is a tile coordinate: X to the right, Y down, (0,0) top-left.
type Point struct{ X, Y int }

// ItemSpawn is an item placed on an empty tile. Class is a Quake III style
// classname such as "weapon_rocketlauncher" or "item_health_mega".
type ItemSpawn struct {
	Class string
	At    Point
}

// JumpPad is an empty tile that launches whoever touches it with velocity
// (VX, VY) in pixels per second (y down). Corresponds to trigger_push.
type JumpPad struct {
	At     Point
	VX, VY int
}

// Teleporter is an entrance tile: touching it moves a player to stand on the
// bottom edge of tile Dest. All entrances with one Channel share one Dest.
// Corresponds to trigger_teleport and its misc_teleporter_dest.
type Teleporter struct {
	At      Point
	Channel int
	Dest    Point
}

// Map is a parsed arena. Spawns, Items, Pads and Teleporters are in grid
// order (rows top to bottom, each row left to right). A Map is read-only
// once parsed and safe for concurrent use.
type Map struct {
	Name, Author           string
	MinPlayers, MaxPlayers int // recommended player counts; both 0 when the file gives none
	Width, Height          int // grid size in tiles

	Spawns      []Point // tiles a player spawns standing in (feet on the tile's bottom edge)
	Items       []ItemSpawn
	Pads        []JumpPad
	Teleporters []Teleporter

	// Checksum is the CRC-32 (IEEE) of the file with CRLF line endings
	// normalised to LF, so that a server and a client can tell whether
	// they loaded the same map.
	Checksum uint32

	tiles []Tile  // Width*Height, row-major
	links []int32 // per tile: 0 none, i+1 Pads[i], -(i+1) Teleporters[i]
}

// At returns the tile at (x, y). Every position outside the grid is Solid.
func (m *Map) At(x, y int) Tile {
	if uint(x) >= uint(m.Width) || uint(y) >= uint(m.Height) {
		return Solid
	}
	return m.tiles[y*m.Width+x]
}

// link returns the pad/teleporter index of tile (x, y), 0 if none.
func (m *Map) link(x, y int) int32 {
	if uint(x) >= uint(m.Width) || uint(y) >= uint(m.Height) {
		return 0
	}
	return m.links[y*m.Width+x]
}

// PadAt returns the jump pad at tile (x, y), if there is one.
func (m *Map) PadAt(x, y int) (JumpPad, bool) {
	if l := m.link(x, y); l > 0 {
		return m.Pads[l-1], true
	}
	return JumpPad{}, false
}

// TeleporterAt returns the teleporter entrance at tile (x, y), if there is one.
func (m *Map) TeleporterAt(x, y int) (Teleporter, bool) {
	if l := m.link(x, y); l < 0 {
		return m.Teleporters[-l-1], true
	}
	return Teleporter{}, false
}

// Load reads and parses name+".map" from fsys. An error from opening the
// file wraps the fs error, so errors.Is(err, fs.ErrNotExist) works.
func Load(fsys fs.FS, name string) (*Map, error) {
	file := name + ".map"
	f, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("tilemap: %w", err)
	}
	defer f.Close()
	// Read one byte past the limit so Parse reports an oversized file
	// without this reading all of it.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("tilemap: %s: %w", file, err)
	}
	return Parse(file, data)
}

// VerifyChecksum compares m with the map a server announced, as the
// decimal checksum it puts in its map-checksum configstring. A client
// with a different file for the same map name must refuse to play: its
// collision and prediction would disagree with the server's.
func (m *Map) VerifyChecksum(announced string) error {
	want, err := strconv.ParseUint(announced, 10, 32)
	if err != nil {
		return fmt.Errorf("tilemap: server announced a malformed checksum %q for map %s", announced, m.Name)
	}
	if uint32(want) != m.Checksum {
		return fmt.Errorf("tilemap: your map %s (checksum %d) differs from the server's (checksum %d): get the server's version of the map file", m.Name, m.Checksum, want)
	}
	return nil
}

// FromRows builds a map named "test" from grid rows and directive lines,
// adding a border of solid tiles, so tile (x, y) of rows is tile
// (x+1, y+1) of the map: a compact way for tests and tools to describe a
// room. Rows must have equal lengths.
func FromRows(directives string, rows ...string) (*Map, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("tilemap: FromRows needs at least one row")
	}
	border := strings.Repeat("#", len(rows[0])+2)
	var b strings.Builder
	b.WriteString("name \"test\"\n" + directives + "grid\n" + border + "\n")
	for _, r := range rows {
		b.WriteString("#" + r + "#\n")
	}
	b.WriteString(border + "\nend\n")
	return Parse("test.map", []byte(b.String()))
}
