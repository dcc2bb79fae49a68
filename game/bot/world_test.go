package bot

import (
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
)

// miniWorld is a tiny stand-in for the game: it runs bots' commands
// through bg.Pmove every 50 ms frame and lets them pick items up. There is
// no damage: it tests movement and goals, not fights.
type miniWorld struct {
	m       *tilemap.Map
	nav     *Nav
	time    int32
	ps      []bg.PlayerState
	bots    []*Bot
	items   []ItemInfo
	respawn []int32
	players []PlayerInfo
	pickups int
	blind   bool // bots see no other players

	// stuck tracking: per player, where it last moved a tile and when
	anchor   []bg.Vec
	anchorAt []int32
	maxStill []int32
}

func newMiniWorld(m *tilemap.Map) *miniWorld {
	w := &miniWorld{m: m, nav: NewNav(m, nil), time: 1000}
	for i, it := range m.Items {
		w.items = append(w.items, ItemInfo{
			Entity:    100 + i,
			Item:      bg.ItemByClass(it.Class),
			Pos:       itemPos(it.At),
			Available: true,
		})
	}
	w.respawn = make([]int32, len(w.items))
	return w
}

func itemPos(p tilemap.Point) bg.Vec {
	return bg.Vec{X: int32(p.X)*bg.TileUnits + bg.TileUnits/2, Y: int32(p.Y)*bg.TileUnits + bg.TileUnits/2}
}

func (w *miniWorld) addBot(skill int, seed uint64, spawn tilemap.Point) *Bot {
	ps := bg.PlayerState{
		CommandTime:  w.time,
		Origin:       bg.TileFeet(spawn.X, spawn.Y, nil),
		GroundEntity: bg.EntityNumNone,
		ClientNum:    int32(len(w.ps)),
		Weapon:       bg.WPMachinegun,
	}
	ps.Stats[bg.StatHealth], ps.Stats[bg.StatMaxHealth] = 100, 100
	ps.Stats[bg.StatWeapons] = 1<<bg.WPGauntlet | 1<<bg.WPMachinegun
	ps.Ammo[bg.WPGauntlet], ps.Ammo[bg.WPMachinegun] = -1, 100
	w.ps = append(w.ps, ps)
	b := New("bot", skill, seed, w.nav)
	w.bots = append(w.bots, b)
	w.anchor = append(w.anchor, ps.Origin)
	w.anchorAt = append(w.anchorAt, w.time)
	w.maxStill = append(w.maxStill, 0)
	return b
}

func (w *miniWorld) frame() {
	w.time += FrameMsec
	for i := range w.items {
		if !w.items[i].Available && w.time >= w.respawn[i] {
			w.items[i].Available = true
		}
	}
	for i, b := range w.bots {
		w.players = w.players[:0]
		for j := range w.ps {
			if j != i && !w.blind {
				w.players = append(w.players, PlayerInfo{ClientNum: j, Origin: w.ps[j].Origin, Velocity: w.ps[j].Velocity, Health: 100})
			}
		}
		ps := &w.ps[i]
		v := View{Time: w.time, Self: ps, Players: w.players, Items: w.items}
		cmd := b.Think(&v)
		cmd.ServerTime = w.time
		pm := bg.Pmove{PS: ps, Cmd: cmd, World: w.m}
		pm.Run()
		for j := range w.items {
			it := &w.items[j]
			if it.Available && bg.PlayerTouchesItem(ps.Origin, it.Pos, nil) && bg.CanItemBeGrabbed(it.Item, ps) {
				w.give(ps, it.Item)
				it.Available = false
				w.respawn[j] = w.time + bg.Items[it.Item].Respawn*1000
				w.pickups++
			}
		}
		if abs32(ps.Origin.X-w.anchor[i].X) > bg.TileUnits || abs32(ps.Origin.Y-w.anchor[i].Y) > bg.TileUnits {
			w.anchor[i], w.anchorAt[i] = ps.Origin, w.time
		}
		w.maxStill[i] = max(w.maxStill[i], w.time-w.anchorAt[i])
	}
}

func (w *miniWorld) give(ps *bg.PlayerState, item int32) {
	it := &bg.Items[item]
	switch it.Type {
	case bg.ITWeapon:
		ps.Stats[bg.StatWeapons] |= 1 << it.Tag
		ps.Ammo[it.Tag] = min(ps.Ammo[it.Tag]+it.Quantity, bg.Weapons[it.Tag].MaxAmmo)
	case bg.ITAmmo:
		ps.Ammo[it.Tag] = min(ps.Ammo[it.Tag]+it.Quantity, bg.Weapons[it.Tag].MaxAmmo)
	case bg.ITHealth:
		limit := ps.Stats[bg.StatMaxHealth]
		if it.Quantity >= 100 {
			limit *= 2
		}
		ps.Stats[bg.StatHealth] = min(ps.Stats[bg.StatHealth]+it.Quantity, limit)
	case bg.ITArmor:
		ps.Stats[bg.StatArmor] = min(ps.Stats[bg.StatArmor]+it.Quantity, 2*ps.Stats[bg.StatMaxHealth])
	case bg.ITPowerup:
		ps.Powerups[it.Tag] = w.time + it.Quantity*1000
	}
}

// TestBotReachesItems puts one bot at each spawn of duel1 with a single
// item available and checks that it picks it up within 20 s of game time.
func TestBotReachesItems(t *testing.T) {
	m := shippedMap(t, "duel1")
	for si, sp := range m.Spawns {
		for ii, it := range m.Items {
			w := newMiniWorld(m)
			for j := range w.items {
				w.items[j].Available = j == ii
				w.respawn[j] = 1 << 30
			}
			ps := &w.ps
			w.addBot(3, uint64(si*100+ii), sp)
			// Make it want everything: hurt, no armor, every weapon
			// nearly empty.
			p := &(*ps)[0]
			p.Stats[bg.StatHealth] = 20
			for wp := bg.WPMachinegun; wp < bg.NumWeapons; wp++ {
				p.Stats[bg.StatWeapons] |= 1 << wp
				p.Ammo[wp] = 1
			}
			frames := 0
			for ; frames < 400 && w.items[ii].Available; frames++ {
				w.frame()
			}
			t.Logf("spawn %v -> %s at %v: %d ms", sp, it.Class, it.At, frames*FrameMsec)
			if w.items[ii].Available {
				t.Errorf("bot from spawn %v did not reach %s at %v in 20 s; ended at %v", sp, it.Class, it.At, (*ps)[0].Origin)
			}
		}
	}
}

func shippedMap(t testing.TB, name string) *tilemap.Map {
	t.Helper()
	for _, m := range shippedMaps(t) {
		if m.Name != "" && (name == "duel1" && m.Name == "Duel Pit" || m.Name == name) {
			return m
		}
	}
	t.Fatalf("no map %s", name)
	return nil
}

// TestBotsRoam runs four bots on every shipped map for two minutes of game
// time and checks that they keep moving and pick items up.
func TestBotsRoam(t *testing.T) {
	for _, m := range shippedMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			w := newMiniWorld(m)
			for i := 0; i < 4; i++ {
				w.addBot(1+i, uint64(i+1), m.Spawns[i%len(m.Spawns)])
			}
			for f := 0; f < 2400; f++ {
				w.frame()
			}
			for i, b := range w.bots {
				t.Logf("bot %d: at %v, longest still %d ms, stuck %d times", i, w.ps[i].Origin, w.maxStill[i], b.stuckCount)
				if w.maxStill[i] > 5000 {
					t.Errorf("bot %d stood within a tile for %d ms", i, w.maxStill[i])
				}
			}
			t.Logf("%d pickups", w.pickups)
			if w.pickups == 0 {
				t.Error("no pickups")
			}
		})
	}
}

// TestBotFollowsEdges starts a bot at rest in the middle of an edge's
// start node with that edge as its whole path, for every edge of every
// shipped map other than walks, and checks that it reaches the
// edge's end within 5 s without giving the edge up, backing up for a
// running start where it must.
func TestBotFollowsEdges(t *testing.T) {
	for _, m := range shippedMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			n := NewNav(m, nil)
			var sample []int32
			for e := int32(0); int(e) < n.NumEdges(); e++ {
				if n.Edge(e).Kind != EdgeWalk {
					sample = append(sample, e)
				}
			}
			tried, failed := 0, 0
			for _, e := range sample {
				ed := n.Edge(e)
				w := newMiniWorld(m)
				w.blind = true
				for j := range w.items {
					w.items[j].Available = false
					w.respawn[j] = 1 << 30
				}
				b := w.addBot(3, uint64(e), n.Node(ed.From))
				w.frame() // the first think starts a life
				ps := n.standing(ed.From, 0)
				ps.CommandTime, ps.Weapon, ps.Stats, ps.Ammo = w.time, w.ps[0].Weapon, w.ps[0].Stats, w.ps[0].Ammo
				w.ps[0] = ps
				b.fl = flight{edge: -1, from: -1}
				b.path = append(b.path[:0], e)
				b.pathPos = 0
				b.goalKind, b.goalNode = goalWander, ed.To
				b.planAt = 1 << 30
				ok := false
				for f := 0; f < 100 && !ok; f++ {
					w.frame()
					if b.banned[e] != 0 {
						break // gave the edge up
					}
					ok = grounded(&w.ps[0]) && n.Locate(w.ps[0].Origin) == ed.To
				}
				tried++
				if !ok {
					failed++
					t.Errorf("edge %d %s %v -> %v (start speed %d px/s): bot ended at %v, node %v", e, ed.Kind,
						n.Node(ed.From), n.Node(ed.To), ed.StartVX/bg.UnitsPerPixel, w.ps[0].Origin, n.Locate(w.ps[0].Origin))
				}
			}
			t.Logf("%d edges followed, %d failed", tried, failed)
		})
	}
}
