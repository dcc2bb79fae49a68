package draw

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"golang.org/x/image/font/basicfont"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/cgame/draw/view"
)

// Frame is what one call of Draw shows besides the cgame data: the
// things the engine knows (names, the clock's configstrings, the
// connection) and the player's view settings.
type Frame struct {
	// CG is the client game after its Frame; nil before the first
	// gamestate (then only Status is drawn).
	CG *cgame.CGame
	// Names holds every client's name by client number.
	Names *[bg.MaxClients]string
	// LevelStartTime is the server time the match started
	// (CSLevelStartTime); TimeLimit is in minutes, 0 for none.
	LevelStartTime int32
	TimeLimit      int
	// Status is a line shown while there is nothing to draw, or over
	// the frame when not empty (connecting, dropped...).
	Status string
	// ShowScores draws the scoreboard (Tab).
	ShowScores bool
	// CursorX, CursorY is the mouse, in screen pixels: the crosshair.
	CursorX, CursorY int
	// Dt is the real time since the previous frame, in seconds.
	Dt float64
}

// MaxEffects is how many rail trails, explosions and sparks are shown at
// once; a new one replaces the oldest.
const MaxEffects = 64

type effectKind uint8

const (
	effectNone effectKind = iota
	effectRail
	effectExplosion
	effectSpark
	effectBlood
	effectPickup
)

// effect is one short-lived picture started by an event.
type effect struct {
	kind   effectKind
	start  int32 // cgame real time, ms
	x, y   float64
	x2, y2 float64 // rail end
	life   int32   // ms
}

// Renderer draws frames of one map. It keeps the camera and the effects
// between frames. Not safe for concurrent use.
type Renderer struct {
	m       *tilemap.Map
	cam     view.Camera
	view    view.View
	face    text.Face
	effects [MaxEffects]effect
	next    int
	txt     text.DrawOptions
	buf     []byte
	local   struct{ x, y float64 } // screen position of the local player
}

// New returns a renderer for map m (nil: no map yet).
func New(m *tilemap.Map) *Renderer {
	return &Renderer{m: m, face: text.NewGoXFace(basicfont.Face7x13), buf: make([]byte, 0, 64)}
}

// SetMap changes the map drawn and forgets the effects.
func (r *Renderer) SetMap(m *tilemap.Map) {
	r.m = m
	r.effects = [MaxEffects]effect{}
	r.cam.Valid = false
}

// View returns the view of the last frame drawn.
func (r *Renderer) View() view.View { return r.view }

// LocalScreen returns where the local player was drawn last frame, in
// screen pixels; the client aims from there.
func (r *Renderer) LocalScreen() (x, y float64) { return r.local.x, r.local.y }

// Colours.
var (
	colBackground = color.RGBA{0x16, 0x1c, 0x28, 0xff}
	colSolid      = color.RGBA{0x4a, 0x5a, 0x70, 0xff}
	colSolidTop   = color.RGBA{0x8a, 0x9c, 0xb4, 0xff}
	colPlatform   = color.RGBA{0xb0, 0x84, 0x4c, 0xff}
	colLava       = color.RGBA{0xe0, 0x48, 0x18, 0xff}
	colLavaTop    = color.RGBA{0xff, 0xb0, 0x30, 0xff}
	colPad        = color.RGBA{0x40, 0xd0, 0x70, 0xff}
	colTeleporter = color.RGBA{0xa0, 0x60, 0xf0, 0xff}
	colWhite      = color.RGBA{0xff, 0xff, 0xff, 0xff}
	colShadow     = color.RGBA{0, 0, 0, 0xa0}
	colPanel      = color.RGBA{0, 0, 0, 0xb0}
	colHealth     = color.RGBA{0x60, 0xe0, 0x60, 0xff}
	colArmor      = color.RGBA{0xf0, 0xd0, 0x40, 0xff}
	colLow        = color.RGBA{0xff, 0x50, 0x40, 0xff}
	colRail       = color.RGBA{0x60, 0xc0, 0xff, 0xff}
	colExplosion  = color.RGBA{0xff, 0x90, 0x20, 0xff}
	colSpark      = color.RGBA{0xff, 0xf0, 0xa0, 0xff}
	colBlood      = color.RGBA{0xd0, 0x10, 0x10, 0xff}
	colDead       = color.RGBA{0x60, 0x60, 0x60, 0xff}
)

// playerColours are the players' colours by client number.
var playerColours = [...]color.RGBA{
	{0x40, 0x90, 0xff, 0xff}, {0xff, 0x50, 0x50, 0xff}, {0x50, 0xe0, 0x70, 0xff}, {0xff, 0xc0, 0x30, 0xff},
	{0xd0, 0x60, 0xff, 0xff}, {0x30, 0xe0, 0xe0, 0xff}, {0xff, 0x80, 0xc0, 0xff}, {0xc0, 0xc0, 0xc0, 0xff},
}

// PlayerColour returns client n's colour.
func PlayerColour(n int32) color.RGBA { return playerColours[uint32(n)%uint32(len(playerColours))] }

// weaponColour returns the colour of a weapon's items, missiles and aim line.
func weaponColour(w int32) color.RGBA {
	switch w {
	case bg.WPGauntlet:
		return color.RGBA{0x80, 0xd0, 0xff, 0xff}
	case bg.WPMachinegun:
		return color.RGBA{0xf0, 0xe0, 0x80, 0xff}
	case bg.WPGrenadeLauncher:
		return color.RGBA{0x40, 0xb0, 0x40, 0xff}
	case bg.WPRocketLauncher:
		return color.RGBA{0xff, 0x70, 0x20, 0xff}
	case bg.WPRailgun:
		return colRail
	}
	return colWhite
}

// weaponLetters are the short names on weapon and ammo items.
var weaponLetters = [bg.NumWeapons]string{"", "GA", "MG", "GL", "RL", "RG"}

// Draw draws one frame on screen.
func (r *Renderer) Draw(screen *ebiten.Image, f *Frame) {
	screen.Fill(colBackground)
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	g := f.CG
	if g == nil || g.Snap == nil || r.m == nil {
		r.centreText(screen, statusOr(f.Status, "waiting for the server"), float64(w)/2, float64(h)/2, 2, colWhite)
		return
	}
	px, py := g.DrawnOrigin.Px()
	r.cam.Follow(px, py, f.Dt)
	r.view = view.View{CX: r.cam.X, CY: r.cam.Y, Scale: view.ScaleFor(w, h), W: float64(w), H: float64(h)}
	r.local.x, r.local.y = r.view.ToScreen(px, py)

	r.addEvents(g)
	r.drawTiles(screen)
	r.drawEntities(screen, g, f)
	r.drawLocal(screen, g, f)
	r.drawEffects(screen, g.RealTime)
	r.drawHUD(screen, g, f)
	if f.ShowScores || g.Predicted.PmType == bg.PMIntermission {
		r.drawScores(screen, g, f)
	}
	r.drawCrosshair(screen, float32(f.CursorX), float32(f.CursorY))
	if f.Status != "" {
		r.centreText(screen, f.Status, float64(w)/2, float64(h)/3, 2, colWhite)
	}
}

func statusOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// drawTiles draws the tiles in view.
func (r *Renderer) drawTiles(screen *ebiten.Image) {
	v := r.view
	x0, y0 := v.ToWorld(0, 0)
	x1, y1 := v.ToWorld(v.W, v.H)
	// Outside the grid every tile is solid (tilemap.Map.At): draw it so.
	tx0, ty0 := int(math.Floor(x0/tilemap.TileSize)), int(math.Floor(y0/tilemap.TileSize))
	tx1, ty1 := int(math.Floor(x1/tilemap.TileSize)), int(math.Floor(y1/tilemap.TileSize))
	ts := float32(tilemap.TileSize * v.Scale)
	for ty := ty0; ty <= ty1; ty++ {
		for tx := tx0; tx <= tx1; tx++ {
			sx, sy := v.ToScreen(float64(tx*tilemap.TileSize), float64(ty*tilemap.TileSize))
			x, y := float32(math.Floor(sx)), float32(math.Floor(sy))
			s := ts + 1 // no seams between tiles
			switch r.m.At(tx, ty) {
			case tilemap.Solid:
				vector.DrawFilledRect(screen, x, y, s, s, colSolid, false)
				if r.m.At(tx, ty-1) != tilemap.Solid {
					vector.DrawFilledRect(screen, x, y, s, 3*float32(v.Scale), colSolidTop, false)
				}
			case tilemap.Platform:
				vector.DrawFilledRect(screen, x, y, s, 6*float32(v.Scale), colPlatform, false)
			case tilemap.Lava:
				vector.DrawFilledRect(screen, x, y, s, s, colLava, false)
				if r.m.At(tx, ty-1) != tilemap.Lava {
					vector.DrawFilledRect(screen, x, y, s, 4*float32(v.Scale), colLavaTop, false)
				}
			default:
				if _, ok := r.m.PadAt(tx, ty); ok {
					vector.DrawFilledRect(screen, x+2, y+ts-8*float32(v.Scale), ts-4, 8*float32(v.Scale), colPad, false)
					cx := x + ts/2
					vector.StrokeLine(screen, cx-8, y+ts-12, cx, y+ts-20, 2, colPad, true)
					vector.StrokeLine(screen, cx, y+ts-20, cx+8, y+ts-12, 2, colPad, true)
				} else if _, ok := r.m.TeleporterAt(tx, ty); ok {
					vector.StrokeRect(screen, x+3, y+3, ts-6, ts-6, 2, colTeleporter, false)
					vector.DrawFilledCircle(screen, x+ts/2, y+ts/2, ts/5, colTeleporter, true)
				}
			}
		}
	}
}

// drawEntities draws items, missiles and the other players.
func (r *Renderer) drawEntities(screen *ebiten.Image, g *cgame.CGame, f *Frame) {
	v := r.view
	sc := float32(v.Scale)
	for _, ce := range g.Entities {
		es := &ce.Current
		if es.EFlags&bg.EFNoDraw != 0 {
			continue
		}
		sx, sy := v.PointScreen(ce.Lerp)
		x, y := float32(sx), float32(sy)
		switch es.EType {
		case bg.ETItem:
			r.drawItem(screen, es.ModelIndex, x, y, sc, g.Time)
		case bg.ETMissile:
			c := weaponColour(es.Weapon)
			if es.Weapon == bg.WPRocketLauncher {
				dx, dy := float64(es.Pos.Delta.X), float64(es.Pos.Delta.Y)
				if l := math.Hypot(dx, dy); l > 0 {
					vector.StrokeLine(screen, x, y, x-float32(dx/l*14)*sc, y-float32(dy/l*14)*sc, 3*sc, colSpark, true)
				}
			}
			vector.DrawFilledCircle(screen, x, y, 5*sc, c, true)
		case bg.ETPlayer:
			r.drawPlayer(screen, es.ClientNum, es.EFlags, es.Aim, es.Weapon, x, y, f)
		}
	}
}

// drawItem draws item number item centred on (x, y), bobbing with time.
func (r *Renderer) drawItem(screen *ebiten.Image, item int32, x, y, sc float32, t int32) {
	if item <= 0 || int(item) >= len(bg.Items) {
		return
	}
	it := &bg.Items[item]
	y += float32(math.Sin(float64(t%2000)/2000*2*math.Pi)) * 3 * sc
	size := 20 * sc
	var c color.RGBA
	label := ""
	switch it.Type {
	case bg.ITHealth:
		c, label = colHealth, "+"
		if it.Quantity >= 100 {
			c, label, size = color.RGBA{0x40, 0x80, 0xff, 0xff}, "MH", 26*sc
		}
	case bg.ITArmor:
		c, label = colArmor, "A"
		if it.Quantity < 25 {
			size = 14 * sc
		}
	case bg.ITWeapon:
		c, label = weaponColour(it.Tag), weaponLetters[it.Tag&7%bg.NumWeapons]
		size = 24 * sc
	case bg.ITAmmo:
		c, label, size = weaponColour(it.Tag), "am", 14*sc
	case bg.ITPowerup:
		c, label, size = color.RGBA{0xc0, 0x40, 0xff, 0xff}, "Q", 26*sc
	default:
		return
	}
	if it.Type == bg.ITHealth || it.Type == bg.ITPowerup {
		vector.DrawFilledCircle(screen, x, y, size/2, c, true)
	} else {
		vector.DrawFilledRect(screen, x-size/2, y-size/2, size, size, c, false)
	}
	vector.StrokeRect(screen, x-size/2, y-size/2, size, size, 1, colShadow, false)
	r.centreText(screen, label, float64(x), float64(y), 1, color.RGBA{0x10, 0x10, 0x10, 0xff})
}

// drawPlayer draws a player whose origin is at screen (x, y).
func (r *Renderer) drawPlayer(screen *ebiten.Image, client, eflags, aim, weapon int32, x, y float32, f *Frame) {
	sc := float32(r.view.Scale)
	hw, hh := playerHalf()
	w, h := float32(hw)*sc, float32(hh)*sc
	c := PlayerColour(client)
	if eflags&bg.EFDead != 0 {
		// Lying on the floor.
		vector.DrawFilledRect(screen, x-h, y+h-w*0.8, 2*h, w*0.8, colDead, false)
		return
	}
	vector.DrawFilledRect(screen, x-w, y-h, 2*w, 2*h, c, false)
	vector.DrawFilledRect(screen, x-w, y-h, 2*w, 6*sc, colWhite, false) // head band
	if eflags&bg.EFSpawnProtect != 0 {
		vector.StrokeRect(screen, x-w-3, y-h-3, 2*w+6, 2*h+6, 2, colWhite, false)
	}
	dx, dy := view.AimVector(aim)
	ay := y - h/3
	vector.StrokeLine(screen, x, ay, x+float32(dx*34)*sc, ay+float32(dy*34)*sc, 4*sc, weaponColour(weapon), true)
	if f.Names != nil && uint32(client) < bg.MaxClients {
		r.centreText(screen, f.Names[client], float64(x), float64(y-h-10*sc), 1, colWhite)
	}
}

// drawLocal draws the local player at its predicted position.
func (r *Renderer) drawLocal(screen *ebiten.Image, g *cgame.CGame, f *Frame) {
	ps := &g.Predicted
	if ps.PmType == bg.PMSpectator {
		return
	}
	r.drawPlayer(screen, ps.ClientNum, ps.EFlags, ps.Aim, ps.Weapon, float32(r.local.x), float32(r.local.y), f)
}

// addEvents starts the effects of this frame's events.
func (r *Renderer) addEvents(g *cgame.CGame) {
	for i := range g.Events {
		e := &g.Events[i]
		x, y := e.Origin.Px()
		switch e.Event {
		case bg.EvRailTrail:
			bx, by := cgame.PointOf(e.State.Pos.Base).Px()
			ex, ey := cgame.PointOf(e.State.Origin2).Px()
			r.add(effect{kind: effectRail, start: g.RealTime, x: bx, y: by, x2: ex, y2: ey, life: 700})
		case bg.EvExplosion, bg.EvMissileHit, bg.EvMissileMiss:
			r.add(effect{kind: effectExplosion, start: g.RealTime, x: x, y: y, life: 450})
		case bg.EvBulletHitWall:
			r.add(effect{kind: effectSpark, start: g.RealTime, x: x, y: y, life: 150})
		case bg.EvBulletHitFlesh, bg.EvGauntletHit, bg.EvDeath:
			r.add(effect{kind: effectBlood, start: g.RealTime, x: x, y: y, life: 300})
		case bg.EvItemPickup:
			r.add(effect{kind: effectPickup, start: g.RealTime, x: x, y: y, life: 300})
		}
	}
}

func (r *Renderer) add(e effect) {
	r.effects[r.next] = e
	r.next = (r.next + 1) % MaxEffects
}

// drawEffects draws the live effects at real time now.
func (r *Renderer) drawEffects(screen *ebiten.Image, now int32) {
	v := r.view
	sc := float32(v.Scale)
	for i := range r.effects {
		e := &r.effects[i]
		if e.kind == effectNone {
			continue
		}
		age := now - e.start
		if age < 0 || age >= e.life {
			e.kind = effectNone
			continue
		}
		k := float32(age) / float32(e.life) // 0 → 1
		sx, sy := v.ToScreen(e.x, e.y)
		x, y := float32(sx), float32(sy)
		switch e.kind {
		case effectRail:
			ex, ey := v.ToScreen(e.x2, e.y2)
			c := fade(colRail, 1-k)
			vector.StrokeLine(screen, x, y, float32(ex), float32(ey), (4-3*k)*sc, c, true)
			vector.StrokeLine(screen, x, y, float32(ex), float32(ey), 1*sc, fade(colWhite, 1-k), true)
		case effectExplosion:
			vector.DrawFilledCircle(screen, x, y, (12+50*k)*sc, fade(colExplosion, 1-k), true)
			vector.DrawFilledCircle(screen, x, y, (6+20*k)*sc, fade(colSpark, 1-k), true)
		case effectSpark:
			vector.DrawFilledCircle(screen, x, y, 3*sc, fade(colSpark, 1-k), true)
		case effectBlood:
			vector.DrawFilledCircle(screen, x, y, (4+10*k)*sc, fade(colBlood, 1-k), true)
		case effectPickup:
			vector.StrokeCircle(screen, x, y, (10+20*k)*sc, 2, fade(colWhite, 1-k), true)
		}
	}
}

// fade returns c with its alpha multiplied by a (premultiplied colour).
func fade(c color.RGBA, a float32) color.RGBA {
	a = max(0, min(1, a))
	return color.RGBA{uint8(float32(c.R) * a), uint8(float32(c.G) * a), uint8(float32(c.B) * a), uint8(float32(c.A) * a)}
}

// drawCrosshair draws the crosshair at (x, y).
func (r *Renderer) drawCrosshair(screen *ebiten.Image, x, y float32) {
	vector.StrokeLine(screen, x-10, y, x-3, y, 2, colWhite, false)
	vector.StrokeLine(screen, x+3, y, x+10, y, 2, colWhite, false)
	vector.StrokeLine(screen, x, y-10, x, y-3, 2, colWhite, false)
	vector.StrokeLine(screen, x, y+3, x, y+10, 2, colWhite, false)
}

// text draws s with its top-left corner at (x, y), scaled, with a shadow.
func (r *Renderer) text(screen *ebiten.Image, s string, x, y, scale float64, c color.Color) {
	if s == "" {
		return
	}
	o := &r.txt
	o.GeoM.Reset()
	o.GeoM.Scale(scale, scale)
	o.GeoM.Translate(x+scale, y+scale)
	o.ColorScale.Reset()
	o.ColorScale.ScaleWithColor(colShadow)
	text.Draw(screen, s, r.face, o)
	o.GeoM.Translate(-scale, -scale)
	o.ColorScale.Reset()
	o.ColorScale.ScaleWithColor(c)
	text.Draw(screen, s, r.face, o)
}

// centreText draws s centred on (x, y).
func (r *Renderer) centreText(screen *ebiten.Image, s string, x, y, scale float64, c color.Color) {
	w, h := text.Measure(s, r.face, 0)
	r.text(screen, s, x-w*scale/2, y-h*scale/2, scale, c)
}

// rightText draws s with its top-right corner at (x, y).
func (r *Renderer) rightText(screen *ebiten.Image, s string, x, y, scale float64, c color.Color) {
	w, _ := text.Measure(s, r.face, 0)
	r.text(screen, s, x-w*scale, y, scale, c)
}
