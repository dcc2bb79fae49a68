package bot

import (
	"fmt"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/maps/arenas"
)

// shippedMaps loads every embedded arena; duel1 must be among them.
func shippedMaps(t testing.TB) []*tilemap.Map {
	t.Helper()
	var ms []*tilemap.Map
	for _, name := range arenas.Names() {
		m, err := arenas.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		t.Fatal("no shipped arenas")
	}
	return ms
}

// testMap parses a map from grid rows (a solid border is added).
func testMap(t testing.TB, directives string, rows ...string) *tilemap.Map {
	t.Helper()
	m, err := tilemap.FromRows(directives, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func navStats(n *Nav) string {
	var kinds [numEdgeKinds]int
	for _, e := range n.edges {
		kinds[e.Kind]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes, %d edges (", len(n.nodes), len(n.edges))
	for k, c := range kinds {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", EdgeKind(k), c)
	}
	fmt.Fprintf(&b, "), %d script frames", len(n.scripts))
	return b.String()
}

// spawnNode is the node a player spawned at tile p stands in.
func spawnNode(t *testing.T, n *Nav, p tilemap.Point) int32 {
	t.Helper()
	id := n.Locate(bg.TileFeet(p.X, p.Y, n.Params))
	if id < 0 {
		t.Fatalf("spawn %v is not a node", p)
	}
	return id
}

// itemNode is the node from which a player touches the item at tile p: a
// node whose standing box touches the item's box.
func itemNodes(n *Nav, p tilemap.Point) []int32 {
	pos := bg.Vec{X: int32(p.X)*bg.TileUnits + bg.TileUnits/2, Y: int32(p.Y)*bg.TileUnits + bg.TileUnits/2}
	var out []int32
	for dy := -2; dy <= 2; dy++ {
		for dx := -1; dx <= 1; dx++ {
			id := n.NodeAt(p.X+dx, p.Y+dy)
			if id >= 0 && bg.PlayerTouchesItem(n.Center(id), pos, n.Params) {
				out = append(out, id)
			}
		}
	}
	return out
}

func TestNavConnected(t *testing.T) {
	for _, m := range shippedMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			n := NewNav(m, nil)
			t.Logf("%s: %s", m.Name, navStats(n))
			s := newSearch(n)
			for si, sp := range m.Spawns {
				s.run(spawnNode(t, n, sp), 0, nil)
				for sj, sq := range m.Spawns {
					if s.dist[spawnNode(t, n, sq)] == unreached {
						t.Errorf("spawn %d %v cannot reach spawn %d %v", si, sp, sj, sq)
					}
				}
				for _, it := range m.Items {
					ok := false
					for _, id := range itemNodes(n, it.At) {
						ok = ok || s.dist[id] != unreached
					}
					if !ok {
						t.Errorf("spawn %d %v cannot reach %s at %v", si, sp, it.Class, it.At)
					}
				}
			}
		})
	}
}

// TestEdgeScripts replays every edge's script through bg.Pmove from its
// start state and checks that it lands where the edge says.
func TestEdgeScripts(t *testing.T) {
	for _, m := range shippedMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			n := NewNav(m, nil)
			checked := 0
			for e := int32(0); int(e) < len(n.edges); e++ {
				ed := n.Edge(e)
				ps := n.StartState(e)
				for _, in := range n.Script(e) {
					pm := bg.Pmove{PS: &ps, Cmd: bg.UserCmd{ServerTime: ps.CommandTime + FrameMsec, RightMove: int32(in.RightMove), UpMove: int32(in.UpMove)}, World: m}
					pm.Run()
				}
				checked++
				if got := n.Locate(ps.Origin); ps.GroundEntity == bg.EntityNumNone || got != ed.To {
					t.Errorf("edge %d %s %v -> %v: script ends at %v (node %d, ground %d)", e, ed.Kind, n.Node(ed.From), n.Node(ed.To), ps.Origin, got, ps.GroundEntity)
				}
			}
			t.Logf("%d edges replayed", checked)
		})
	}
}
