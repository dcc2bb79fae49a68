package fx

import (
	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
)

// Server visibility, in pixels: the server sends a client the entities
// within a ViewWidth × ViewHeight rectangle around its player (see
// server). An item spot well inside it that has no item entity
// is waiting to respawn.
const (
	ViewWidth  = 1600
	ViewHeight = 1000
	viewMargin = 64
)

// ItemSpot is one item placement of the map and what the client last
// knew of it.
type ItemSpot struct {
	X, Y float64 // centre, pixels
	Item int32   // bg.Items index
	// Known: the spot has been in the server's view; until then
	// Present means nothing.
	Known bool
	// Present: the item was there when the spot was last in view.
	Present bool
	// GoneAt is the server time the item was seen to go; 0 when the
	// client never saw it go (it joined while the item was away).
	GoneAt int32
}

// RespawnFraction returns how far the item is through its respawn wait
// at server time now, in [0, 1]; ok is false when the wait's start is
// unknown.
func (s *ItemSpot) RespawnFraction(now int32) (f float64, ok bool) {
	if s.GoneAt == 0 || s.Item <= 0 || int(s.Item) >= len(bg.Items) {
		return 0, false
	}
	wait := bg.Items[s.Item].Respawn * 1000
	if wait <= 0 {
		return 1, true
	}
	return min(max(float64(now-s.GoneAt)/float64(wait), 0), 1), true
}

// ItemSpots follows every item placement of a map, so that the drawing
// can show a ghost and a timer ring where an item waits to respawn: the
// server does not send waiting items at all.
type ItemSpots struct {
	Spots []ItemSpot
	index map[int]int // tile key → index in Spots
	seen  []bool
	w     int
}

// Reset takes the item placements of m (nil: none).
func (s *ItemSpots) Reset(m *tilemap.Map) {
	s.Spots = s.Spots[:0]
	s.seen = s.seen[:0]
	s.index = make(map[int]int)
	if m == nil {
		return
	}
	s.w = m.Width
	for _, it := range m.Items {
		item := bg.ItemByClass(it.Class)
		if item == 0 {
			continue
		}
		s.index[it.At.Y*m.Width+it.At.X] = len(s.Spots)
		s.Spots = append(s.Spots, ItemSpot{
			X:    float64(it.At.X*tilemap.TileSize + tilemap.TileSize/2),
			Y:    float64(it.At.Y*tilemap.TileSize + tilemap.TileSize/2),
			Item: item,
		})
		s.seen = append(s.seen, false)
	}
}

// Update marks the spots whose item is in frame g, and the spots in the
// server's view of the local player without one.
func (s *ItemSpots) Update(g *cgame.CGame) {
	if len(s.Spots) == 0 || g.Snap == nil {
		return
	}
	clear(s.seen)
	for _, ce := range g.Entities {
		es := &ce.Current
		if es.EType != bg.ETItem || es.EFlags&bg.EFNoDraw != 0 {
			continue
		}
		x, y := cgame.PointOf(es.Pos.Base).Px()
		tx, ty := int(x)/tilemap.TileSize, int(y)/tilemap.TileSize
		if x < 0 || y < 0 {
			continue
		}
		if i, ok := s.index[ty*s.w+tx]; ok {
			s.seen[i] = true
		}
	}
	px, py := cgame.PointOf(g.Snap.PS.Origin).Px()
	for i := range s.Spots {
		sp := &s.Spots[i]
		if s.seen[i] {
			sp.Known, sp.Present, sp.GoneAt = true, true, 0
			continue
		}
		if sp.X < px-ViewWidth/2+viewMargin || sp.X > px+ViewWidth/2-viewMargin ||
			sp.Y < py-ViewHeight/2+viewMargin || sp.Y > py+ViewHeight/2-viewMargin {
			continue // out of the server's view: nothing learnt
		}
		switch {
		case !sp.Known: // away since before we looked: the wait's start is unknown
			sp.Known, sp.Present, sp.GoneAt = true, false, 0
		case sp.Present:
			sp.Present, sp.GoneAt = false, max(g.Time, 1)
		}
	}
}
