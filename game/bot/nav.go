package bot

import (
	"sync"

	"tremor/bg"
	"tremor/bg/tilemap"
)

// FrameMsec is the time one bot command covers: the server thinks every bot
// once per server frame (sv_fps 20). Navigation simulates movement in steps
// of this length, the steps the server runs a bot's commands in.
const FrameMsec = 50

// Input is one frame of a movement script: the movement part of a UserCmd.
type Input struct {
	RightMove, UpMove int8
}

// EdgeKind says how an edge moves the player.
type EdgeKind uint8

// Edge kinds, in the order they take precedence when a movement does
// several things (a jump that ends on a jump pad is an EdgePad).
const (
	EdgeWalk     EdgeKind = iota // run to the next tile, climbing a one-tile step
	EdgeDrop                     // walk off a ledge and fall
	EdgePlatform                 // drop through the one-way platform underfoot
	EdgeJump                     // jump
	EdgePad                      // launched by a jump pad on the way
	EdgeTeleport                 // through a teleporter on the way
	numEdgeKinds
)

var edgeKindNames = [numEdgeKinds]string{"walk", "drop", "platform", "jump", "pad", "teleport"}

// String returns the edge kind's lower-case name.
func (k EdgeKind) String() string {
	if k < numEdgeKinds {
		return edgeKindNames[k]
	}
	return "edge?"
}

// Edge is one movement from a node to another, found by simulating
// bg.Pmove: from the start state (standing on From's tile, centred, with
// horizontal velocity StartVX, on the ground) the Script, one Input per
// FrameMsec, ends with the player on the ground in To's tile.
type Edge struct {
	From, To int32
	Kind     EdgeKind
	Cost     int32 // estimated travel time, ms
	StartVX  int32 // horizontal velocity the script starts with, units/s
	script   int32 // offset in Nav.scripts
	frames   int32 // script length
}

// Nav is the navigation data of one map, shared by every bot on it: a
// graph whose nodes are the tiles a player can stand in and whose edges
// are movements found by running the real movement code (see docs/bots.md).
// A Nav is read-only once built and safe for concurrent use.
type Nav struct {
	Map    *tilemap.Map
	Params *bg.Params

	nodes   []tilemap.Point // node -> tile
	grid    []int32         // tile -> node, -1 if none
	first   []int32         // node -> index of its first edge; len(nodes)+1 entries
	edges   []Edge          // grouped by From
	scripts []Input
	hazard  []bool // per tile: lava, whose touch the graph avoids
	trigger []bool // per tile: a jump pad or a teleporter
	// runUp is how far behind a node's middle a player at rest starts
	// running to pass the middle at full speed at the end of a frame.
	runUp int32
}

type navKey struct {
	name          string
	checksum      uint32
	width, height int
	params        bg.Params
}

var navCache struct {
	sync.Mutex
	m map[navKey]*Nav
}

// maxCachedNavs bounds the cache; it is emptied when full.
const maxCachedNavs = 16

// NewNav prepares navigation for map m with movement parameters p (nil
// means bg.DefaultParams). It is deterministic, and cached: a second call
// for the same map file and parameters returns the same *Nav.
func NewNav(m *tilemap.Map, p *bg.Params) *Nav {
	if p == nil {
		p = &bg.DefaultParams
	}
	key := navKey{m.Name, m.Checksum, m.Width, m.Height, *p}
	navCache.Lock()
	n := navCache.m[key]
	navCache.Unlock()
	if n != nil {
		return n
	}
	n = buildNav(m, p)
	navCache.Lock()
	defer navCache.Unlock()
	if old := navCache.m[key]; old != nil {
		return old
	}
	if navCache.m == nil || len(navCache.m) >= maxCachedNavs {
		navCache.m = make(map[navKey]*Nav)
	}
	navCache.m[key] = n
	return n
}

// NumNodes returns the number of nodes.
func (n *Nav) NumNodes() int { return len(n.nodes) }

// NumEdges returns the number of edges.
func (n *Nav) NumEdges() int { return len(n.edges) }

// Node returns the tile of node i.
func (n *Nav) Node(i int32) tilemap.Point { return n.nodes[i] }

// Edge returns edge i.
func (n *Nav) Edge(i int32) Edge { return n.edges[i] }

// Script returns edge e's inputs, one per FrameMsec. The slice belongs to
// the Nav: do not modify it.
func (n *Nav) Script(e int32) []Input {
	ed := &n.edges[e]
	return n.scripts[ed.script : ed.script+ed.frames : ed.script+ed.frames]
}

// StartState returns the player state edge e's script starts from: on the
// ground in the middle of From's tile, moving at StartVX.
func (n *Nav) StartState(e int32) bg.PlayerState {
	ed := &n.edges[e]
	return n.standing(ed.From, ed.StartVX)
}

func (n *Nav) standing(node int32, vx int32) bg.PlayerState {
	t := n.nodes[node]
	ps := bg.PlayerState{
		Origin:       bg.TileFeet(t.X, t.Y, n.Params),
		Velocity:     bg.Vec{X: vx},
		GroundEntity: bg.EntityNumWorld,
		PmFlags:      bg.PMFOnGround,
	}
	ps.Stats[bg.StatHealth], ps.Stats[bg.StatMaxHealth] = 100, 100
	return ps
}

// NodeAt returns the node of tile (x, y), or -1.
func (n *Nav) NodeAt(x, y int) int32 {
	if uint(x) >= uint(n.Map.Width) || uint(y) >= uint(n.Map.Height) {
		return -1
	}
	return n.grid[y*n.Map.Width+x]
}

// Locate returns the node of a player standing with its origin at o: the
// tile of its feet, or the tile of the other column its box overlaps when
// it stands on the edge of a ledge. It returns -1 when neither is a node
// (the player is in the air).
func (n *Nav) Locate(o bg.Vec) int32 {
	row := bg.TileOf(o.Y + n.Params.Maxs.Y - 1)
	col := bg.TileOf(o.X)
	if id := n.NodeAt(col, row); id >= 0 {
		return id
	}
	if l := bg.TileOf(o.X + n.Params.Mins.X); l != col {
		if id := n.NodeAt(l, row); id >= 0 {
			return id
		}
	}
	if r := bg.TileOf(o.X + n.Params.Maxs.X - 1); r != col {
		if id := n.NodeAt(r, row); id >= 0 {
			return id
		}
	}
	return -1
}

// LocateBelow returns the node at o or, failing that, the first node at
// most depth tiles below o's feet in the columns its box overlaps: where
// a player or an item in the air comes down. It returns -1 if there is none.
func (n *Nav) LocateBelow(o bg.Vec, depth int) int32 {
	if id := n.Locate(o); id >= 0 {
		return id
	}
	row := bg.TileOf(o.Y + n.Params.Maxs.Y - 1)
	col := bg.TileOf(o.X)
	l, r := bg.TileOf(o.X+n.Params.Mins.X), bg.TileOf(o.X+n.Params.Maxs.X-1)
	for d := 0; d <= depth; d++ {
		if id := n.NodeAt(col, row+d); id >= 0 {
			return id
		}
		if id := n.NodeAt(l, row+d); id >= 0 {
			return id
		}
		if id := n.NodeAt(r, row+d); id >= 0 {
			return id
		}
	}
	return -1
}

// canStand reports whether a player can stand at rest with its origin at
// x on the floor of node i's row: nothing solid, hazardous or triggering in
// its box, ground below.
func (n *Nav) canStand(x int32, i int32) bool {
	o := bg.Vec{X: x, Y: n.Center(i).Y}
	l, r := bg.TileOf(o.X+n.Params.Mins.X), bg.TileOf(o.X+n.Params.Maxs.X-1)
	t, b := bg.TileOf(o.Y+n.Params.Mins.Y), bg.TileOf(o.Y+n.Params.Maxs.Y-1)
	floor := false
	for c := l; c <= r; c++ {
		for y := t; y <= b; y++ {
			if n.Map.At(c, y) == tilemap.Solid || n.triggerAt(c, y) {
				return false
			}
		}
		if f := n.Map.At(c, b+1); f == tilemap.Solid || f == tilemap.Platform {
			floor = true
		}
	}
	return floor && !n.hurts(o)
}

// Center returns the origin of a player standing in the middle of node i.
func (n *Nav) Center(i int32) bg.Vec {
	t := n.nodes[i]
	return bg.TileFeet(t.X, t.Y, n.Params)
}

// step advances ps by one command of msec with the given input, exactly as
// the server runs a bot's command.
func (n *Nav) step(ps *bg.PlayerState, in Input, msec int32) {
	pm := bg.Pmove{
		PS:     ps,
		Cmd:    bg.UserCmd{ServerTime: ps.CommandTime + msec, RightMove: int32(in.RightMove), UpMove: int32(in.UpMove), Aim: ps.Aim, Weapon: ps.Weapon},
		World:  n.Map,
		Params: n.Params,
	}
	pm.Run()
}

// grounded reports whether ps stands on something.
func grounded(ps *bg.PlayerState) bool { return ps.GroundEntity != bg.EntityNumNone }

// hurts reports whether a player at o touches lava or has left the map.
func (n *Nav) hurts(o bg.Vec) bool {
	l, r := bg.TileOf(o.X+n.Params.Mins.X), bg.TileOf(o.X+n.Params.Maxs.X-1)
	t, b := bg.TileOf(o.Y+n.Params.Mins.Y), bg.TileOf(o.Y+n.Params.Maxs.Y-1)
	if l < 0 || t < 0 || r >= n.Map.Width || b >= n.Map.Height {
		return true
	}
	for y := t; y <= b; y++ {
		for x := l; x <= r; x++ {
			if n.hazard[y*n.Map.Width+x] {
				return true
			}
		}
	}
	return false
}

// triggerAt reports whether tile (x, y) is a jump pad or a teleporter.
func (n *Nav) triggerAt(x, y int) bool {
	return uint(x) < uint(n.Map.Width) && uint(y) < uint(n.Map.Height) && n.trigger[y*n.Map.Width+x]
}
