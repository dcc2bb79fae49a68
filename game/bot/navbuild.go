package bot

import (
	"tremor/bg"
	"tremor/bg/tilemap"
)

// Building the graph. Nodes are found from the tiles; every edge is the
// outcome of running bg.Pmove from a node with a scripted input (a policy
// below), so the graph holds only movements the real movement code
// performs. See docs/bots.md.

// Limits of one simulated movement.
const (
	maxSimFrames    = 100 // 5 s: a flight longer than this is not an edge
	maxGroundFrames = 12  // frames a walk may take to reach the next tile
	jumpReach       = 8   // tiles a jump can carry a player sideways, about
)

// policy is a family of scripts: what to press on the first frame, while
// still on the ground, and in the air (air0 for the first delay frames in
// the air, then air).
type policy struct {
	first, ground Input
	air0, air     Input
	delay         int
}

// candidate is an edge found for the node being built.
type candidate struct {
	to      int32
	kind    EdgeKind
	cost    int32
	startVX int32
	script  []Input // in builder.scratch
}

type builder struct {
	n       *Nav
	m       *tilemap.Map
	cands   []candidate
	scratch []Input
	buf     []Input
	buf2    []Input
	ps      bg.PlayerState // simulated player
}

// flatWorld is an endless floor: row 0 is open, rows below are solid.
type flatWorld struct{}

func (flatWorld) At(x, y int) tilemap.Tile {
	if y >= 1 {
		return tilemap.Solid
	}
	return tilemap.Empty
}
func (flatWorld) PadAt(x, y int) (tilemap.JumpPad, bool) { return tilemap.JumpPad{}, false }
func (flatWorld) TeleporterAt(x, y int) (tilemap.Teleporter, bool) {
	return tilemap.Teleporter{}, false
}

// runUpDistance returns how far a player starting at rest on a flat floor
// runs, holding full speed ahead, before the end of the first frame at
// which it moves at full speed.
func runUpDistance(p *bg.Params) int32 {
	ps := &bg.PlayerState{Origin: bg.TileFeet(0, 0, p), GroundEntity: bg.EntityNumWorld, PmFlags: bg.PMFOnGround}
	start := ps.Origin.X
	for i := 0; i < 40 && ps.Velocity.X < p.MaxSpeed; i++ {
		pm := bg.Pmove{PS: ps, Cmd: bg.UserCmd{ServerTime: ps.CommandTime + FrameMsec, RightMove: 127}, World: flatWorld{}, Params: p}
		pm.Run()
	}
	return ps.Origin.X - start
}

func buildNav(m *tilemap.Map, p *bg.Params) *Nav {
	n := &Nav{Map: m, Params: p}
	b := &builder{n: n, m: m}
	w, h := m.Width, m.Height
	n.hazard = make([]bool, w*h)
	n.trigger = make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			n.hazard[i] = m.At(x, y) == tilemap.Lava
		}
	}
	for _, pd := range m.Pads {
		if uint(pd.At.X) < uint(w) && uint(pd.At.Y) < uint(h) {
			n.trigger[pd.At.Y*w+pd.At.X] = true
		}
	}
	for _, t := range m.Teleporters {
		if uint(t.At.X) < uint(w) && uint(t.At.Y) < uint(h) {
			n.trigger[t.At.Y*w+t.At.X] = true
		}
	}

	n.grid = make([]int32, w*h)
	for i := range n.grid {
		n.grid[i] = -1
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if b.standable(x, y) {
				n.grid[y*w+x] = int32(len(n.nodes))
				n.nodes = append(n.nodes, tilemap.Point{X: x, Y: y})
			}
		}
	}

	n.runUp = runUpDistance(p)
	n.first = make([]int32, len(n.nodes)+1)
	b.buf = make([]Input, 0, maxSimFrames)
	b.buf2 = make([]Input, 0, maxSimFrames)
	for i := range n.nodes {
		n.first[i] = int32(len(n.edges))
		b.node(int32(i))
	}
	n.first[len(n.nodes)] = int32(len(n.edges))
	// Trim the slices grown by append.
	n.edges = n.edges[:len(n.edges):len(n.edges)]
	n.scripts = n.scripts[:len(n.scripts):len(n.scripts)]
	return n
}

// body returns the tile rectangle a player standing in tile (x, y) covers.
func (b *builder) body(x, y int) (l, r, t, bot int) {
	o := bg.TileFeet(x, y, b.n.Params)
	p := b.n.Params
	return bg.TileOf(o.X + p.Mins.X), bg.TileOf(o.X + p.Maxs.X - 1), bg.TileOf(o.Y + p.Mins.Y), bg.TileOf(o.Y + p.Maxs.Y - 1)
}

// standable reports whether a player can stand in tile (x, y): a floor or
// platform under it and nothing solid, hazardous or triggering in the box.
func (b *builder) standable(x, y int) bool {
	if f := b.m.At(x, y+1); f != tilemap.Solid && f != tilemap.Platform {
		return false
	}
	l, r, t, bot := b.body(x, y)
	for yy := t; yy <= bot; yy++ {
		for xx := l; xx <= r; xx++ {
			switch b.m.At(xx, yy) {
			case tilemap.Solid, tilemap.Lava:
				return false
			}
			if b.n.trigger[yy*b.m.Width+xx] {
				return false
			}
		}
	}
	return true
}

// open reports whether tile (x, y) is empty air with nothing attached.
func (b *builder) open(x, y int) bool {
	if uint(x) >= uint(b.m.Width) || uint(y) >= uint(b.m.Height) {
		return false
	}
	return b.m.At(x, y) == tilemap.Empty && !b.n.trigger[y*b.m.Width+x]
}

// flatOpen reports whether node (x, y) stands on a long flat floor with
// nothing in jumping reach: jumping from it can only land on that floor,
// where walking is faster, so the builder does not try.
func (b *builder) flatOpen(x, y int) bool {
	for c := x - jumpReach; c <= x+jumpReach; c++ {
		if f := b.m.At(c, y+1); f != tilemap.Solid && f != tilemap.Platform {
			return false
		}
		for r := y - 4; r <= y; r++ {
			if !b.open(c, r) {
				return false
			}
		}
	}
	return true
}

// walkable reports whether nodes a and b are on one row with a node in
// every tile between them.
func (b *builder) walkable(from, to int32) bool {
	p, q := b.n.nodes[from], b.n.nodes[to]
	if p.Y != q.Y {
		return false
	}
	lo, hi := min(p.X, q.X), max(p.X, q.X)
	for x := lo; x <= hi; x++ {
		if b.n.NodeAt(x, p.Y) < 0 {
			return false
		}
	}
	return true
}

// roomToRun reports whether a player can run up to node from at full
// speed in direction d: it can stand still at the run-up point behind the
// node's middle, with the same floor all the way.
func (b *builder) roomToRun(from int32, d int32) bool {
	n := b.n
	c := n.Center(from).X
	for x := c - d*n.runUp; x*d < c*d; x += d * bg.TileUnits / 4 {
		if !n.canStand(x, from) || n.NodeAt(bg.TileOf(x), n.nodes[from].Y) < 0 {
			return false
		}
	}
	return true
}

// Horizontal inputs tried in the air, as fractions of full control.
var airInputs = [...]int8{127, 64, 0, -64, -127}

func (b *builder) node(from int32) {
	n := b.n
	t := n.nodes[from]
	run := n.Params.MaxSpeed
	b.cands = b.cands[:0]
	b.scratch = b.scratch[:0]

	for _, d := range [2]int8{1, -1} {
		dv := int32(d)
		runUp := b.roomToRun(from, dv)
		// Walk towards d; off a ledge, onto a pad or into a teleporter
		// that becomes a flight, steered in the air.
		walk := policy{first: Input{d * 127, 0}, ground: Input{d * 127, 0}, air: Input{d * 127, 0}, air0: Input{d * 127, 0}}
		if kind, _ := b.try(from, 0, walk); kind == EdgeWalk {
			continue // walked to the next tile, or a wall
		}
		for _, a := range airInputs {
			if a == 127 {
				continue // tried above
			}
			pol := walk
			pol.air, pol.air0 = Input{a * d, 0}, Input{a * d, 0}
			b.try(from, 0, pol)
		}
		if runUp {
			for _, a := range airInputs {
				pol := walk
				pol.air, pol.air0 = Input{a * d, 0}, Input{a * d, 0}
				b.try(from, dv*run, pol)
			}
		}
	}

	if f := b.m.At(t.X, t.Y+1); f == tilemap.Platform {
		for _, a := range airInputs {
			b.try(from, 0, policy{first: Input{a, -127}, air: Input{a, 0}, air0: Input{a, 0}})
		}
	}

	if !b.flatOpen(t.X, t.Y) {
		// Standing jumps: steered from the start, or straight up first.
		for _, a := range airInputs {
			b.try(from, 0, policy{first: Input{a, 127}, air: Input{a, 0}, air0: Input{a, 0}})
		}
		for _, a := range [2]int8{127, -127} {
			for _, delay := range [2]int{4, 8} {
				b.try(from, 0, policy{first: Input{0, 127}, air0: Input{0, 0}, air: Input{a, 0}, delay: delay})
			}
		}
		// Running jumps.
		for _, d := range [2]int8{1, -1} {
			if !b.roomToRun(from, int32(d)) {
				continue
			}
			for _, a := range [...]int8{127, 0, -64, -127} {
				b.try(from, int32(d)*run, policy{first: Input{a * d, 127}, air: Input{a * d, 0}, air0: Input{a * d, 0}})
			}
			b.try(from, int32(d)*run, policy{first: Input{0, 127}, air0: Input{0, 0}, air: Input{-127 * d, 0}, delay: 5})
		}
	}

	for i := range b.cands {
		c := &b.cands[i]
		n.edges = append(n.edges, Edge{
			From: from, To: c.to, Kind: c.kind, Cost: c.cost, StartVX: c.startVX,
			script: int32(len(n.scripts)), frames: int32(len(c.script)),
		})
		n.scripts = append(n.scripts, c.script...)
	}
}

// try simulates pol from node from moving at vx, and records the edge it
// makes, keeping per destination and start (standing or running) only the
// fastest. It returns the kind of movement and whether it reached a node.
func (b *builder) try(from int32, vx int32, pol policy) (EdgeKind, bool) {
	n := b.n
	b.ps = n.standing(from, vx)
	to, kind, frames := n.simulate(&b.ps, from, pol, &b.buf)
	if to < 0 {
		return kind, false
	}
	if kind == EdgeJump && b.walkable(from, to) {
		return kind, true // walking there is never slower
	}
	if pol.first.UpMove != 0 {
		// A take-off must not depend on the last pixel: the same script
		// from a pixel to either side must land in the same node.
		for _, off := range [2]int32{-bg.UnitsPerPixel, bg.UnitsPerPixel} {
			b.ps = n.standing(from, vx)
			b.ps.Origin.X += off
			if t, _, _ := n.simulate(&b.ps, from, pol, &b.buf2); t != to {
				return kind, false
			}
		}
	}
	var cost int32
	if kind == EdgeWalk {
		cost = int32(int64(bg.TileUnits) * 1000 / int64(n.Params.MaxSpeed))
		if n.nodes[to].Y < n.nodes[from].Y {
			cost += cost / 2 // a step up
		}
	} else {
		cost = int32(frames)*FrameMsec + FrameMsec
		if vx == 0 && (kind == EdgeJump || pol.first.UpMove != 0) {
			cost += 2 * FrameMsec // stopping first
		}
	}
	running := vx != 0
	for i := range b.cands {
		c := &b.cands[i]
		if c.to == to && (c.startVX != 0) == running {
			if cost < c.cost {
				*c = b.candidate(to, kind, cost, vx)
			}
			return kind, true
		}
	}
	b.cands = append(b.cands, b.candidate(to, kind, cost, vx))
	return kind, true
}

func (b *builder) candidate(to int32, kind EdgeKind, cost, vx int32) candidate {
	start := len(b.scratch)
	b.scratch = append(b.scratch, b.buf...)
	return candidate{to: to, kind: kind, cost: cost, startVX: vx, script: b.scratch[start:len(b.scratch):len(b.scratch)]}
}

// simulate runs pol from ps (standing in node from) until the player is on
// the ground in another node, appending the inputs to *rec. It returns
// that node (-1 if the movement fails: back where it started, into lava,
// out of the map, stuck, or too long), the kind of movement and the
// number of frames.
func (n *Nav) simulate(ps *bg.PlayerState, from int32, pol policy, rec *[]Input) (int32, EdgeKind, int) {
	*rec = (*rec)[:0]
	kind := EdgeWalk
	switch {
	case pol.first.UpMove > 0:
		kind = EdgeJump
	case pol.first.UpMove < 0:
		kind = EdgePlatform
	}
	left := false
	airFrames := 0
	teleBit := ps.EFlags & bg.EFTeleportBit
	for f := 0; f < maxSimFrames; f++ {
		var in Input
		switch {
		case f == 0:
			in = pol.first
		case !left:
			in = pol.ground
		case airFrames <= pol.delay:
			in = pol.air0
		default:
			in = pol.air
		}
		n.step(ps, in, FrameMsec)
		*rec = append(*rec, in)
		if n.hurts(ps.Origin) {
			return -1, kind, f + 1
		}
		if ps.EFlags&bg.EFTeleportBit != teleBit {
			kind = EdgeTeleport
			teleBit = ps.EFlags & bg.EFTeleportBit
		}
		if ps.PmFlags&bg.PMFOnPad != 0 && kind < EdgePad {
			kind = EdgePad
		}
		if !grounded(ps) {
			if !left && kind == EdgeWalk {
				kind = EdgeDrop
			}
			left = true
			airFrames++
			continue
		}
		id := n.Locate(ps.Origin)
		switch {
		case left && (id < 0 || id == from):
			return -1, kind, f + 1
		case left:
			return id, kind, f + 1
		case id >= 0 && id != from:
			return id, kind, f + 1
		case f >= maxGroundFrames:
			return -1, kind, f + 1
		}
	}
	return -1, kind, maxSimFrames
}
