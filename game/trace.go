package game

import (
	"tremor/bg"
	"tremor/bg/tilemap"
)

// Raycasts (Quake III's trap_Trace, for a world of tiles and boxes).
// Everything is integer: a segment walks the tile grid crossing by
// crossing (a DDA whose comparisons are exact cross-multiplications),
// and meets player boxes by the slab method. Positions along a segment
// are fractions in units of 1/FracOne of its length.

// FracOne is a whole segment in trace fractions.
const FracOne = 1 << 30

// Platforms are one-way: a segment going down into a platform tile
// through its top face stops there, as a falling player would; going up
// or sideways it passes. Lava never stops a trace.

// trace is the result of a raycast.
type trace struct {
	hit    bool
	frac   int64  // where it stopped, 0..FracOne
	end    bg.Vec // the point it stopped at
	ent    int    // what stopped it: a client, bg.EntityNumWorld for a tile, bg.EntityNumNone
	normal bg.Vec // for a tile: the face crossed as a unit axis vector, (±1, 0) or (0, ±1)
}

// boxHit is a player box met by a segment.
type boxHit struct {
	frac   int64
	client int
}

// traceTiles walks the segment a→b across the tile grid and stops at the
// first solid tile it enters (or platform it enters from above). A
// segment starting inside a solid tile stops at once with a zero normal.
func traceTiles(w *tilemap.Map, a, b bg.Vec) trace {
	cx, cy := bg.TileOf(a.X), bg.TileOf(a.Y)
	if w.At(cx, cy) == tilemap.Solid {
		return trace{hit: true, end: a, ent: bg.EntityNumWorld}
	}
	dx, dy := int64(b.X)-int64(a.X), int64(b.Y)-int64(a.Y)
	adx, ady := abs64(dx), abs64(dy)
	stepX, stepY := sign64(dx), sign64(dy)
	// Distances (in units along each axis) from a to the next boundary.
	var nx, ny int64
	if dx > 0 {
		nx = int64(cx+1)*bg.TileUnits - int64(a.X)
	} else if dx < 0 {
		nx = int64(a.X) - int64(cx)*bg.TileUnits
	}
	if dy > 0 {
		ny = int64(cy+1)*bg.TileUnits - int64(a.Y)
	} else if dy < 0 {
		ny = int64(a.Y) - int64(cy)*bg.TileUnits
	}
	for {
		// The next crossing is the x boundary when nx/adx <= ny/ady.
		useX := dx != 0 && (dy == 0 || nx*ady <= ny*adx)
		var num, den int64
		if useX {
			num, den = nx, adx
		} else if dy != 0 {
			num, den = ny, ady
		} else {
			return trace{end: b, frac: FracOne, ent: bg.EntityNumNone}
		}
		if num > den {
			return trace{end: b, frac: FracOne, ent: bg.EntityNumNone}
		}
		var blocked bool
		var normal bg.Vec
		if useX {
			cx += int(stepX)
			nx += bg.TileUnits
			blocked = w.At(cx, cy) == tilemap.Solid
			normal = bg.Vec{X: int32(-stepX)}
		} else {
			cy += int(stepY)
			ny += bg.TileUnits
			t := w.At(cx, cy)
			blocked = t == tilemap.Solid || t == tilemap.Platform && stepY > 0
			normal = bg.Vec{Y: int32(-stepY)}
		}
		if blocked {
			end := bg.Vec{
				X: a.X + int32(divRound(dx*num, den)),
				Y: a.Y + int32(divRound(dy*num, den)),
			}
			// The crossed coordinate is exact: the boundary itself.
			if useX {
				end.X = int32(int64(cx)*bg.TileUnits + max(0, -stepX)*bg.TileUnits)
			} else {
				end.Y = int32(int64(cy)*bg.TileUnits + max(0, -stepY)*bg.TileUnits)
			}
			return trace{hit: true, frac: num * FracOne / den, end: end, ent: bg.EntityNumWorld, normal: normal}
		}
	}
}

// segmentBox returns where the segment from a along d first meets the
// box [mins, maxs] (absolute, edges included), as a fraction, and
// whether it does within the segment. A segment starting inside the box
// meets it at 0.
func segmentBox(a, d, mins, maxs bg.Vec) (int64, bool) {
	lo, hi := int64(0), int64(FracOne)
	for axis := 0; axis < 2; axis++ {
		p, v, bmin, bmax := int64(a.X), int64(d.X), int64(mins.X), int64(maxs.X)
		if axis == 1 {
			p, v, bmin, bmax = int64(a.Y), int64(d.Y), int64(mins.Y), int64(maxs.Y)
		}
		if v == 0 {
			if p < bmin || p > bmax {
				return 0, false
			}
			continue
		}
		t1, t2 := (bmin-p)*FracOne/v, (bmax-p)*FracOne/v
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		lo, hi = max(lo, t1), min(hi, t2)
		if lo > hi {
			return 0, false
		}
	}
	return lo, true
}

// playerBox returns client's box, grown by pad on every side.
func (g *Arena) playerBox(client int, pad int32) (mins, maxs bg.Vec) {
	o := g.ps[client].Origin
	p := &bg.DefaultParams
	return bg.Vec{X: o.X + p.Mins.X - pad, Y: o.Y + p.Mins.Y - pad},
		bg.Vec{X: o.X + p.Maxs.X + pad, Y: o.Y + p.Maxs.Y + pad}
}

// solidPlayer reports whether client is a live player shots can hit.
func (g *Arena) solidPlayer(client int) bool {
	return g.clients[client].state == clientInGame && g.ps[client].PmType == bg.PMNormal
}

// trace casts a segment from a to b against the tiles and the boxes of
// live players other than pass (grown by pad; rewound during a
// lag-compensated shot, see shotBox), and returns the first
// thing it meets (Quake III's trap_Trace with MASK_SHOT).
func (g *Arena) trace(a, b bg.Vec, pass int, pad int32) trace {
	tr := traceTiles(g.m, a, b)
	d := b.Sub(a)
	best, bestClient := tr.frac, -1
	for c := 0; c < bg.MaxClients; c++ {
		if c == pass {
			continue
		}
		mins, maxs, ok := g.shotBox(c, pad)
		if !ok {
			continue
		}
		if f, ok := segmentBox(a, d, mins, maxs); ok && f <= tr.frac && (bestClient < 0 || f < best) {
			best, bestClient = f, c
		}
	}
	if bestClient < 0 {
		return tr
	}
	return trace{
		hit:  true,
		frac: best,
		end:  bg.Vec{X: a.X + int32(int64(d.X)*best/FracOne), Y: a.Y + int32(int64(d.Y)*best/FracOne)},
		ent:  bestClient,
	}
}

// traceThrough returns the wall trace of a→b and fills hits with every
// live player other than pass whose box the segment meets before the
// wall, nearest first (the railgun's trace, which Quake III did by
// unlinking each entity it hit and tracing again).
func (g *Arena) traceThrough(a, b bg.Vec, pass int, hits []boxHit) (trace, []boxHit) {
	tr := traceTiles(g.m, a, b)
	d := b.Sub(a)
	hits = hits[:0]
	for c := 0; c < bg.MaxClients; c++ {
		if c == pass {
			continue
		}
		mins, maxs, ok := g.shotBox(c, 0)
		if !ok {
			continue
		}
		if f, ok := segmentBox(a, d, mins, maxs); ok && f <= tr.frac {
			// Insert in order of distance (stable for equal fractions).
			j := len(hits)
			hits = append(hits, boxHit{f, c})
			for j > 0 && hits[j-1].frac > f {
				hits[j] = hits[j-1]
				j--
			}
			hits[j] = boxHit{f, c}
		}
	}
	return tr, hits
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func sign64(v int64) int64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// divRound divides rounding to nearest, halves away from zero (d > 0).
func divRound(n, d int64) int64 {
	if n >= 0 {
		return (n + d/2) / d
	}
	return -((-n + d/2) / d)
}
