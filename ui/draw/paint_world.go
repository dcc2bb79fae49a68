package draw

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/cgame/fx"
	"tremor/ui/draw/view"
)

// worldPainter draws one map's world into a viewport: the background,
// the tiles (pre-rendered once per map), the items, the missiles and the
// players. The game's Renderer paints the whole screen with it; the
// classroom view paints its three panes with one, each pane a viewport
// of the screen with its own camera and scale. Its lifetime is the map's:
// newWorldPainter builds it for one map, and a new map gets a new
// painter; the view and the tags are the frame's, set by begin. Not safe
// for concurrent use.
type worldPainter struct {
	m     *tilemap.Map
	view  view.View
	tiles tileLayer
	world batch // opaque shapes: items, players, missiles, particles
	glow  batch // additive light over them
	sky   []skyRect
	tags  [bg.MaxClients + 1]nameTag // the players drawn since begin
	ntags int

	// smoke and rnd, when set, get the missiles' smoke trails (the
	// game's particles); the classroom's panes leave them nil.
	smoke *fx.Particles
	rnd   *fx.Rand
	// colour gives a player's colour by client number; nil:
	// PlayerColour.
	colour func(client int32) color.RGBA
}

// newWorldPainter returns a painter of map m. smoke and rnd, when not
// nil, get the missiles' smoke trails.
func newWorldPainter(m *tilemap.Map, smoke *fx.Particles, rnd *fx.Rand) *worldPainter {
	p := &worldPainter{m: m, tiles: newTileLayer(m), smoke: smoke, rnd: rnd}
	p.glow.blend = ebiten.BlendLighter
	return p
}

// dispose frees the map's pre-rendered tiles; the painter is not used
// again.
func (p *worldPainter) dispose() { p.tiles.dispose() }

// begin starts painting with view v on dst (the screen, or an image
// the world is drawn into): the background and the tiles, then what
// moves on them, into the batches. v's viewport should be all of dst,
// which clips what is drawn outside it: a part of the screen is painted
// into an image of its size that is then drawn there, since a SubImage
// of the screen does not clip where it should on the window's
// framebuffer (see ClassroomView.drawWorld). t is the animation time,
// in seconds.
func (p *worldPainter) begin(dst *ebiten.Image, v view.View, t float64) {
	p.view = v
	p.ntags = 0
	wb := &p.world
	p.drawBackground(wb)
	p.drawTileLayer(dst, wb) // flushes the background first
	p.drawAnimatedTiles(wb, &p.glow, t)
}

// end draws what the batches hold on dst.
func (p *worldPainter) end(dst *ebiten.Image) {
	p.world.flush(dst)
	p.glow.flush(dst)
}

// visible reports whether screen point (x, y) is within margin pixels
// of the viewport.
func (p *worldPainter) visible(x, y, margin float32) bool {
	v := &p.view
	return x >= float32(v.X0)-margin && y >= float32(v.Y0)-margin && x <= float32(v.X0+v.W)+margin && y <= float32(v.Y0+v.H)+margin
}

// entity adds an item, a missile or a player whose state is es, at
// world position at (units), unless it is out of view or not drawn.
func (p *worldPainter) entity(dst *ebiten.Image, es *bg.EntityState, at cgame.Point, t float64, dt float32) {
	if es.EFlags&bg.EFNoDraw != 0 {
		return
	}
	sx, sy := p.view.PointScreen(at)
	x, y := float32(sx), float32(sy)
	if !p.visible(x, y, 200) {
		return
	}
	sc := float32(p.view.Scale)
	p.world.room(dst, 600)
	p.glow.room(dst, 600)
	switch es.EType {
	case bg.ETItem:
		bob := float32(math.Sin(t*2.5+float64(es.Number))) * 3 * sc
		p.drawItem(es.ModelIndex, x, y+bob, sc, t, 1)
	case bg.ETMissile:
		p.drawMissile(es, at, x, y, sc, t, dt)
	case bg.ETPlayer:
		vel := es.Pos.Delta
		p.drawPlayer(es.ClientNum, es.EFlags, es.Aim, es.Weapon, es.Powerups, float32(vel.X)/bg.UnitsPerPixel, float32(vel.Y)/bg.UnitsPerPixel, x, y, at.X, t)
	}
}

// playerState adds the player whose state is ps at screen (x, y): the
// local player of a cgame (predicted, or as its snapshots have it) or a
// player as the server holds it.
func (p *worldPainter) playerState(dst *ebiten.Image, ps *bg.PlayerState, x, y float32, worldX, t float64) {
	if ps.PmType == bg.PMSpectator || ps.PmType == bg.PMIntermission {
		return
	}
	eflags := ps.EFlags
	if ps.PmType == bg.PMDead {
		eflags |= bg.EFDead
	}
	var pw int32
	for i := int32(1); i < bg.NumPowerups; i++ {
		if ps.Powerups[i] != 0 {
			pw |= 1 << i
		}
	}
	p.world.room(dst, 600)
	p.glow.room(dst, 600)
	p.drawPlayer(ps.ClientNum, eflags, ps.Aim, ps.Weapon, pw,
		float32(ps.Velocity.X)/bg.UnitsPerPixel, float32(ps.Velocity.Y)/bg.UnitsPerPixel, x, y, worldX, t)
}

// playerColour returns client's colour in this painter.
func (p *worldPainter) playerColour(client int32) color.RGBA {
	if p.colour != nil {
		return p.colour(client)
	}
	return PlayerColour(client)
}

// drawTags writes a tag over every player painted since begin, name(n)
// for client n in colour(n) (grey for the dead), its text at textScale,
// placed by lb so that none covers another. scale maps the world
// image's pixels to dst's (the game draws its world smaller below
// r_scale 1).
func (p *worldPainter) drawTags(dst *ebiten.Image, tp *textPainter, lb *view.Labels, scale, textScale float64, name func(int32) string, colour func(int32) color.RGBA) {
	for i := 0; i < p.ntags; i++ {
		t := &p.tags[i]
		s := name(t.client)
		if s == "" {
			continue
		}
		c := colour(t.client)
		if t.dead {
			c = colDead
		}
		w, h := tp.size(s)
		w, h = w*textScale, h*textScale
		x, y, ok := lb.Place(t.x*scale-w/2, t.y*scale-h/2, w, h)
		if ok {
			tp.text(dst, s, x, y, textScale, c)
		}
	}
}
