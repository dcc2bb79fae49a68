package bot

import (
	"tremor/bg"
	"tremor/bg/tilemap"
)

// LineOfSight reports whether a shot from a reaches b: the segment enters
// no solid tile, and no platform through its top (platforms are one-way
// for shots as for players; lava does not block). It walks the tiles the
// segment crosses in order (Amanatides and Woo), in integer arithmetic,
// and does not allocate.
func (n *Nav) LineOfSight(a, b bg.Vec) bool {
	m := n.Map
	x, y := bg.TileOf(a.X), bg.TileOf(a.Y)
	tx, ty := bg.TileOf(b.X), bg.TileOf(b.Y)
	if m.At(x, y) == tilemap.Solid {
		return false
	}
	dx, dy := int64(b.X)-int64(a.X), int64(b.Y)-int64(a.Y)
	stepX, stepY := 1, 1
	if dx < 0 {
		stepX, dx = -1, -dx
	}
	if dy < 0 {
		stepY, dy = -1, -dy
	}
	// Distance, along each axis, from a to the first tile boundary it
	// crosses; comparing the crossings' parameters t = dist/d without
	// division: tX = nx/dx, tY = ny/dy, so tX < tY <=> nx·dy < ny·dx.
	var nx, ny int64
	if stepX > 0 {
		nx = int64(x+1)*bg.TileUnits - int64(a.X)
	} else {
		nx = int64(a.X) - int64(x)*bg.TileUnits
	}
	if stepY > 0 {
		ny = int64(y+1)*bg.TileUnits - int64(a.Y)
	} else {
		ny = int64(a.Y) - int64(y)*bg.TileUnits
	}
	for steps := 0; x != tx || y != ty; steps++ {
		if steps > m.Width+m.Height+2 {
			return true // cannot happen; bounds the loop
		}
		down := false
		switch l, r := nx*dy, ny*dx; {
		case x == tx:
			y += stepY
			ny += bg.TileUnits
			down = stepY > 0
		case y == ty:
			x += stepX
			nx += bg.TileUnits
		case l < r:
			x += stepX
			nx += bg.TileUnits
		case l > r:
			y += stepY
			ny += bg.TileUnits
			down = stepY > 0
		default:
			// Through a corner: blocked if both side tiles are solid.
			if m.At(x+stepX, y) == tilemap.Solid && m.At(x, y+stepY) == tilemap.Solid {
				return false
			}
			x += stepX
			y += stepY
			nx += bg.TileUnits
			ny += bg.TileUnits
			down = stepY > 0
		}
		switch m.At(x, y) {
		case tilemap.Solid:
			return false
		case tilemap.Platform:
			if down {
				return false
			}
		}
	}
	return true
}
