package arenas

import (
	"fmt"
	"math"
	"strings"

	"tremor/bg/tilemap"
)

// This file is a coarse movement model used to check that the shipped
// arenas are connected: every spawn can reach every item and every other
// spawn, and no place a player can get to is a trap. It is not bg.Pmove; it
// only needs to be pessimistic enough that a route it finds exists in the
// game. Units are tiles and seconds.
//
// The model: a player box 0.75 x 1.4 tiles; a jump rises jumpHeight tiles
// and a running jump covers jumpDistance tiles on the flat, whatever the
// gravity (bg tunes its speeds for that); horizontal air control is a
// constant intended speed held for the whole flight; a jump pad sets the
// vertical velocity to its VY and adds its VX; a teleporter puts the player
// at rest standing on its destination; lava kills.

const (
	jumpHeight   = 2.75 // tiles: under the designed ~3
	jumpDistance = 5.5  // tiles: under the designed ~6
	halfWidth    = 0.375
	bodyHeight   = 1.4
	dt           = 1.0 / 120
	maxFlight    = 6.0 // seconds before a trajectory is abandoned
)

// model is the movement model for one gravity.
type model struct {
	g     float64 // tiles/s², y down
	jumpV float64 // jump take-off speed, tiles/s
	run   float64 // top horizontal speed, tiles/s
}

func newModel(gravityPx float64) model {
	g := gravityPx / tilemap.TileSize
	v := math.Sqrt(2 * g * jumpHeight)
	return model{g: g, jumpV: v, run: jumpDistance / (2 * v / g)}
}

// event is how a trajectory ends.
type event int

const (
	evLand event = iota
	evPad
	evTele
	evDead
	evStuck
)

// reach is the movement graph of one map under one model.
type reach struct {
	m      *tilemap.Map
	mod    model
	nodes  int // standing nodes are y*W+x; then one node per pad, then per channel
	edges  [][]int32
	items  [][]int32 // items touched on the way out of each node (or standing in it)
	itemAt map[tilemap.Point]int32
}

func (r *reach) padNode(i int) int   { return r.m.Width*r.m.Height + i }
func (r *reach) teleNode(ch int) int { return r.m.Width*r.m.Height + len(r.m.Pads) + ch }

// passable reports whether a body may overlap tile (x, y).
func (r *reach) passable(x, y int) bool {
	t := r.m.At(x, y)
	return t == tilemap.Empty || t == tilemap.Platform
}

// special reports whether tile (x, y) is lava, a pad or a teleporter.
func (r *reach) special(x, y int) bool {
	if r.m.At(x, y) == tilemap.Lava {
		return true
	}
	_, p := r.m.PadAt(x, y)
	_, t := r.m.TeleporterAt(x, y)
	return p || t
}

// stand reports whether a player can stand in tile (x, y): feet on its
// bottom edge, body in it and the tile above, floor below.
func (r *reach) stand(x, y int) bool {
	if r.m.At(x, y) != tilemap.Empty || !r.passable(x, y-1) || r.m.At(x, y-1) == tilemap.Lava {
		return false
	}
	if y+1 >= r.m.Height {
		return false // on the outside of the grid: not a floor a map means
	}
	f := r.m.At(x, y+1)
	return f == tilemap.Solid || f == tilemap.Platform
}

// span returns the tile range a box edge interval [a, b) overlaps.
func span(a, b float64) (int, int) {
	return int(math.Floor(a + 1e-6)), int(math.Floor(b - 1e-6))
}

// blocked reports whether the box at (cx, fy) overlaps a solid tile.
func (r *reach) blocked(cx, fy float64) bool {
	x0, x1 := span(cx-halfWidth, cx+halfWidth)
	y0, y1 := span(fy-bodyHeight, fy)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			if r.m.At(x, y) == tilemap.Solid {
				return true
			}
		}
	}
	return false
}

// flight simulates one trajectory. It returns how it ended, the node it
// ended in, and appends the items touched on the way to *items.
func (r *reach) flight(cx, fy, vx, vy float64, ignorePad int, items *[]int32) (event, int) {
	if r.blocked(cx, fy) {
		return evStuck, 0
	}
	for t := 0.0; t < maxFlight; t += dt {
		vy += r.mod.g * dt
		if nx := cx + vx*dt; !r.blocked(nx, fy) {
			cx = nx
		}
		ny := fy + vy*dt
		landed := false
		if vy > 0 {
			row := int(math.Floor(ny))
			if float64(row) >= fy-1e-9 && float64(row) <= ny {
				x0, x1 := span(cx-halfWidth, cx+halfWidth)
				for x := x0; x <= x1; x++ {
					if f := r.m.At(x, row); f == tilemap.Solid || f == tilemap.Platform {
						landed = true
					}
				}
				if landed {
					ny = float64(row)
				}
			}
			if !landed && r.blocked(cx, ny) {
				return evStuck, 0
			}
		} else if r.blocked(cx, ny) {
			vy = 0
			ny = fy
		}
		fy = ny
		// What the box touches now.
		x0, x1 := span(cx-halfWidth, cx+halfWidth)
		y0, y1 := span(fy-bodyHeight, fy)
		pad, ch := -1, 0
		stillOnLaunchPad := false
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				if r.m.At(x, y) == tilemap.Lava {
					return evDead, 0
				}
				if tp, ok := r.m.TeleporterAt(x, y); ok {
					ch = tp.Channel
				}
				if p, ok := r.m.PadAt(x, y); ok {
					i := r.padIndex(p)
					if i == ignorePad {
						stillOnLaunchPad = true
					} else {
						pad = i
					}
				}
				if it, ok := r.itemAt[tilemap.Point{X: x, Y: y}]; ok {
					*items = append(*items, it)
				}
			}
		}
		if !stillOnLaunchPad {
			ignorePad = -1
		}
		switch {
		case ch != 0:
			return evTele, r.teleNode(ch)
		case pad >= 0:
			return evPad, r.padNode(pad)
		case landed:
			row := int(fy)
			for _, x := range []int{int(math.Floor(cx)), x0, x1} {
				if r.stand(x, row-1) && !r.special(x, row-1) && !r.special(x, row-2) {
					return evLand, (row-1)*r.m.Width + x
				}
			}
			return evStuck, 0 // standing on an edge the grid graph has no node for
		}
	}
	return evStuck, 0
}

func (r *reach) padIndex(p tilemap.JumpPad) int {
	for i, q := range r.m.Pads {
		if q.At == p.At {
			return i
		}
	}
	return -1
}

// controls are the fractions of top speed tried as held air control.
var controls = []float64{-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1}

// newReach computes the movement graph of m under mod.
func newReach(m *tilemap.Map, mod model) *reach {
	r := &reach{m: m, mod: mod, itemAt: make(map[tilemap.Point]int32)}
	for i, it := range m.Items {
		r.itemAt[it.At] = int32(i)
	}
	W, H := m.Width, m.Height
	r.nodes = W*H + len(m.Pads) + tilemap.MaxChannel + 1
	r.edges = make([][]int32, r.nodes)
	r.items = make([][]int32, r.nodes)
	add := func(from int, ev event, to int, touched []int32) {
		if ev == evDead || ev == evStuck {
			return
		}
		r.edges[from] = append(r.edges[from], int32(to))
		r.items[from] = append(r.items[from], touched...)
	}
	var touched []int32
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			if !r.stand(x, y) || r.special(x, y) || r.special(x, y-1) {
				continue
			}
			u := y*W + x
			for _, p := range []tilemap.Point{{X: x, Y: y}, {X: x, Y: y - 1}} {
				if it, ok := r.itemAt[p]; ok {
					r.items[u] = append(r.items[u], it)
				}
			}
			fy := float64(y + 1)
			for _, d := range []int{-1, 1} {
				// Walk to the next tile.
				nx := x + d
				switch {
				case !r.passable(nx, y) || !r.passable(nx, y-1):
				case r.special(nx, y) || r.special(nx, y-1):
					touched = touched[:0]
					ev, to := r.flight(float64(nx)+0.5, fy, 0, 0, -1, &touched)
					add(u, ev, to, touched)
				case r.stand(nx, y):
					add(u, evLand, y*W+nx, nil)
				default:
					// Walk off the edge, steering.
					for _, c := range controls {
						touched = touched[:0]
						ev, to := r.flight(float64(x)+0.5+float64(d)*(0.5+halfWidth+0.01), fy, float64(d)*math.Abs(c)*mod.run, 0, -1, &touched)
						add(u, ev, to, touched)
					}
				}
			}
			// Jump from the middle of the tile and from either edge.
			for _, off := range []float64{0, -0.5, 0.5} {
				cx := float64(x) + 0.5 + off
				if r.blocked(cx, fy) {
					continue
				}
				for _, c := range controls {
					touched = touched[:0]
					ev, to := r.flight(cx, fy, c*mod.run, -mod.jumpV, -1, &touched)
					add(u, ev, to, touched)
				}
			}
		}
	}
	for i, p := range m.Pads {
		for _, c := range controls {
			touched = touched[:0]
			ev, to := r.flight(float64(p.At.X)+0.5, float64(p.At.Y+1), float64(p.VX)/tilemap.TileSize+c*mod.run, float64(p.VY)/tilemap.TileSize, i, &touched)
			add(r.padNode(i), ev, to, touched)
		}
	}
	for _, tp := range m.Teleporters {
		n := r.teleNode(tp.Channel)
		if len(r.edges[n]) > 0 {
			continue
		}
		for _, c := range controls {
			touched = touched[:0]
			ev, to := r.flight(float64(tp.Dest.X)+0.5, float64(tp.Dest.Y+1), c*mod.run*0.5, 0, -1, &touched)
			add(n, ev, to, touched)
		}
	}
	return r
}

// from returns the nodes reachable from node start.
func (r *reach) from(start int) []bool {
	seen := make([]bool, r.nodes)
	seen[start] = true
	queue := []int{start}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range r.edges[u] {
			if !seen[v] {
				seen[v] = true
				queue = append(queue, int(v))
			}
		}
	}
	return seen
}

// problems lists what the map fails: unreachable items, spawns, pads and
// teleporters, and reachable places from which spawn 0 cannot be reached.
func (r *reach) problems() []string {
	m := r.m
	var out []string
	spawn0 := m.Spawns[0].Y*m.Width + m.Spawns[0].X
	reached := make([]bool, r.nodes)
	for si, s := range m.Spawns {
		u := s.Y*m.Width + s.X
		seen := r.from(u)
		got := make([]bool, len(m.Items))
		for v, ok := range seen {
			if !ok {
				continue
			}
			reached[v] = true
			for _, it := range r.items[v] {
				got[it] = true
			}
		}
		for i, ok := range got {
			if !ok {
				out = append(out, fmt.Sprintf("spawn %d %v cannot reach item %s at %v", si, s, m.Items[i].Class, m.Items[i].At))
			}
		}
		for sj, t := range m.Spawns {
			if !seen[t.Y*m.Width+t.X] {
				out = append(out, fmt.Sprintf("spawn %d %v cannot reach spawn %d %v", si, s, sj, t))
			}
		}
	}
	for i, p := range m.Pads {
		if !reached[r.padNode(i)] {
			out = append(out, fmt.Sprintf("pad %v is never reached", p.At))
		}
	}
	for _, tp := range m.Teleporters {
		if !reached[r.teleNode(tp.Channel)] {
			out = append(out, fmt.Sprintf("teleporter %d at %v is never reached", tp.Channel, tp.At))
		}
	}
	// No traps: from every reachable standing place, spawn 0 is reachable.
	back := make([]bool, r.nodes)
	back[spawn0] = true
	rev := make([][]int32, r.nodes)
	for u, vs := range r.edges {
		for _, v := range vs {
			rev[v] = append(rev[v], int32(u))
		}
	}
	queue := []int{spawn0}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range rev[v] {
			if !back[u] {
				back[u] = true
				queue = append(queue, int(u))
			}
		}
	}
	traps := 0
	for v, ok := range reached {
		if ok && !back[v] && v < m.Width*m.Height {
			if traps++; traps <= 20 {
				out = append(out, fmt.Sprintf("trap: no way back from tile (%d,%d)", v%m.Width, v/m.Width))
			}
		}
	}
	return out
}

// dump draws the map with the standing places reached from spawn 0 as ','
// and rows numbered.
func (r *reach) dump() string {
	m := r.m
	seen := r.from(m.Spawns[0].Y*m.Width + m.Spawns[0].X)
	s := m.String()
	_, grid, _ := strings.Cut(s, "grid\n")
	var b strings.Builder
	for y, l := range strings.Split(grid, "\n")[:m.Height] {
		row := []byte(l)
		for x := range row {
			if row[x] == '.' && seen[y*m.Width+x] {
				row[x] = ','
			}
		}
		fmt.Fprintf(&b, "%s %d\n", row, y)
	}
	return b.String()
}
