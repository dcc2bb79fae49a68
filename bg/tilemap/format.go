package tilemap

import (
	"strconv"
	"strings"
)

// tileBytes are the grid bytes String writes for each tile class.
var tileBytes = [...]byte{Empty: '.', Solid: '#', Platform: '=', Lava: '~'}

// String writes the map in the map file format, in a canonical form: the
// directives in a fixed order (pad directives only for pads whose velocity
// is not the default), '.' for every empty tile, no comments. Parsing the
// result gives a map equal to m except for Checksum, which covers the
// bytes of the file.
func (m *Map) String() string {
	var b strings.Builder
	b.Grow(128 + (m.Width+1)*m.Height)
	b.WriteString(`name "` + m.Name + "\"\n")
	if m.Author != "" {
		b.WriteString(`author "` + m.Author + "\"\n")
	}
	if m.MinPlayers != 0 || m.MaxPlayers != 0 {
		b.WriteString("players " + strconv.Itoa(m.MinPlayers) + " " + strconv.Itoa(m.MaxPlayers) + "\n")
	}
	var done [MaxChannel + 1]bool
	for ch := 1; ch <= MaxChannel; ch++ {
		for _, t := range m.Teleporters {
			if t.Channel == ch && !done[ch] {
				done[ch] = true
				b.WriteString("teleport " + strconv.Itoa(ch) + " " + strconv.Itoa(t.Dest.X) + " " + strconv.Itoa(t.Dest.Y) + "\n")
			}
		}
	}
	for _, p := range m.Pads {
		if p.VX != DefaultPadVX || p.VY != DefaultPadVY {
			b.WriteString("pad " + strconv.Itoa(p.At.X) + " " + strconv.Itoa(p.At.Y) + " " + strconv.Itoa(p.VX) + " " + strconv.Itoa(p.VY) + "\n")
		}
	}

	grid := make([]byte, m.Width*m.Height)
	for i, t := range m.tiles {
		grid[i] = tileBytes[t]
	}
	set := func(p Point, c byte) {
		if uint(p.X) < uint(m.Width) && uint(p.Y) < uint(m.Height) && c != 0 {
			grid[p.Y*m.Width+p.X] = c
		}
	}
	for _, p := range m.Spawns {
		set(p, 'S')
	}
	for _, it := range m.Items {
		set(it.At, itemByte(it.Class))
	}
	for _, p := range m.Pads {
		set(p.At, '^')
	}
	for _, t := range m.Teleporters {
		if t.Channel >= 1 && t.Channel <= MaxChannel {
			set(t.At, byte('0'+t.Channel))
		}
	}
	b.WriteString("grid\n")
	for y := 0; y < m.Height; y++ {
		b.Write(grid[y*m.Width : (y+1)*m.Width])
		b.WriteByte('\n')
	}
	b.WriteString("end\n")
	return b.String()
}
