package draw

import (
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font/basicfont"

	"tremor/assets"
	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/cgame/fx"
	"tremor/client"
	"tremor/ui/draw/view"
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
	// Intermission: the CSIntermission configstring is set, the match
	// is over; the final scoreboard fills the screen. A player state in
	// bg.PMIntermission shows it too.
	Intermission bool
	// Status is a line shown while there is nothing to draw, or over
	// the frame when not empty (connecting, dropped...).
	Status string
	// Download, when Downloading, is the map download in progress
	// before the game (client.Client.Download): drawn as a progress bar
	// under Status.
	Download    client.DownloadStatus
	Downloading bool
	// Idle: the player is in no game and the menu covers the screen;
	// with nothing to draw, only the background is (no "waiting for the
	// server").
	Idle bool
	// ShowScores draws the scoreboard (Tab).
	ShowScores bool
	// CursorX, CursorY is the mouse, in screen pixels: the crosshair.
	CursorX, CursorY int
	// Dt is the real time since the previous frame, in seconds.
	Dt float64
	// Follow points the camera at (FollowX, FollowY), world pixels,
	// instead of the local player: a demo's spectator camera.
	Follow           bool
	FollowX, FollowY float64
	// Playback: the frame is a demo's. Fire does nothing there, so the
	// HUD never asks for it; with Follow its status bar is about
	// FollowClient, the player the camera follows, instead of the
	// recorder (a FollowClient below 0 is the free camera).
	Playback     bool
	FollowClient int32
	// LocalServer: the match runs on this client's embedded server. The
	// scoreboard then says what its ping is made of.
	LocalServer bool
	// UIScale is ui_scale: the size of the players' names and the
	// overlays' labels; 0 picks it from the window (view.UIScale).
	UIScale float64
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
	effectRing // a coloured ring that widens: teleports, respawns
)

// effect is one short-lived picture started by an event.
type effect struct {
	kind   effectKind
	start  int32 // cgame real time, ms
	x, y   float64
	x2, y2 float64 // rail end
	life   int32   // ms
	col    color.RGBA
}

// MaxCues bounds the sounds Renderer holds for TakeCues.
const MaxCues = 64

// Renderer draws frames of one map. It keeps the camera, the effects,
// the particles and the pre-rendered tiles between frames. Not safe for
// concurrent use.
type Renderer struct {
	worldPainter // the map, its tiles, the view of this frame
	textPainter  // the small bitmap font

	cam     view.Camera
	effects [MaxEffects]effect
	next    int
	buf     []byte
	local   struct{ x, y float64 } // screen position of the local player
	labels  view.Labels            // the name tags' places this frame
	ui      float64                // this frame's UI scale

	hud       batch // the HUD's panels and icons
	imgOp     ebiten.DrawImageOptions
	particles fx.Particles
	rnd       fx.Rand
	feedback  fx.Feedback
	spots     fx.ItemSpots
	cues      []fx.Cue

	// The cgame frame whose events were taken in last, so that a frame
	// drawn twice does not play its events twice.
	seenCG     *cgame.CGame
	seenFrames int
	lastRT     int32 // cgame real time of the previous Draw

	scale    float64       // render scale; 0 means 1
	lowres   *ebiten.Image // the world below render scale 1
	tagScale float64       // from the world's pixels to the screen's

	demo  demoBar
	clock clockText // the HUD's clock
}

// nameTag is a name to write over a player drawn this frame.
type nameTag struct {
	client int32
	x, y   float64
	dead   bool
}

// New returns a renderer for map m (nil: no map yet).
func New(m *tilemap.Map) *Renderer {
	r := &Renderer{buf: make([]byte, 0, 64), cues: make([]fx.Cue, 0, MaxCues)}
	r.setFace(text.NewGoXFace(basicfont.Face7x13))
	r.glow.blend = ebiten.BlendLighter
	r.smoke, r.worldPainter.rnd = &r.particles, &r.rnd
	r.SetMap(m)
	return r
}

// SetMap changes the map drawn and forgets the effects, the particles
// and the feedback of the previous one.
func (r *Renderer) SetMap(m *tilemap.Map) {
	r.setMap(m)
	r.effects = [MaxEffects]effect{}
	r.cam.Valid = false
	r.spots.Reset(m)
	r.particles.Clear()
	r.feedback.Reset()
	r.seenCG = nil
}

// LocalScreen returns where the local player was drawn last frame, in
// screen pixels; the client aims from there.
func (r *Renderer) LocalScreen() (x, y float64) { return r.local.x, r.local.y }

// Observe takes in the events of cgame frame g: effects, feedback and
// sounds. Draw calls it; the client may also call it after every cgame
// Frame (in Update), so that no frame's events are lost when a draw is
// skipped. A frame is taken in once however often it is observed.
func (r *Renderer) Observe(g *cgame.CGame) {
	if g == nil || g.Snap == nil || r.m == nil || (g == r.seenCG && g.Stats.Frames == r.seenFrames) {
		return
	}
	if g != r.seenCG {
		r.feedback.Reset()
	}
	r.seenCG, r.seenFrames = g, g.Stats.Frames
	r.feedback.Update(g)
	for _, c := range r.feedback.Cues {
		if len(r.cues) < MaxCues {
			r.cues = append(r.cues, c)
		}
	}
	r.spots.Update(g)
	r.addEvents(g)
}

// TakeCues returns the sounds of the frames observed since the last
// call, in order, and forgets them: hand them to the sound player
// (ui/sound). The slice is valid until the next Observe or
// Draw.
func (r *Renderer) TakeCues() []fx.Cue {
	c := r.cues
	r.cues = r.cues[:0]
	return c
}

// Colours, from the palette (assets/palette.txt).
var (
	colBackground = assets.Colour("background")
	colSolid      = assets.Colour("solid")
	colSolidTop   = assets.Colour("solidTop")
	colPlatform   = assets.Colour("platform")
	colLava       = assets.Colour("lava")
	colLavaTop    = assets.Colour("lavaTop")
	colPad        = assets.Colour("pad")
	colTeleporter = assets.Colour("teleporter")
	colWhite      = assets.Colour("white")
	colShadow     = assets.Colour("shadow")
	colPanel      = assets.Colour("panel")
	colHealth     = assets.Colour("health")
	colArmor      = assets.Colour("armor")
	colLow        = assets.Colour("low")
	colRail       = assets.Colour("rail")
	colExplosion  = assets.Colour("explosion")
	colSpark      = assets.Colour("spark")
	colBlood      = assets.Colour("blood")
	colDead       = assets.Colour("dead")
)

// playerColours are the players' colours by client number, from the
// palette (assets/palette.txt).
var playerColours = func() (c [16]color.RGBA) {
	for i := range c {
		c[i] = assets.Colour("player" + strconv.Itoa(i))
	}
	return c
}()

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
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	r.ui = view.UIScale(f.UIScale, w, h)
	g := f.CG
	if g == nil || g.Snap == nil || r.m == nil {
		screen.Fill(colBackground)
		if !f.Idle && !f.Downloading {
			r.centreText(screen, statusOr(f.Status, "waiting for the server"), float64(w)/2, float64(h)/2, 2, colWhite)
		}
		if f.Downloading {
			r.drawDownload(screen, &f.Download, w, h)
		}
		return
	}
	px, py := g.DrawnOrigin.Px()
	if f.Follow {
		px, py = f.FollowX, f.FollowY
	}
	r.cam.Follow(px, py, f.Dt)
	// The camera follows the player but the view stops at the map's
	// edges: no screen of the grey outside.
	native := view.View{CX: r.cam.X, CY: r.cam.Y, Scale: view.ScaleFor(w, h), W: float64(w), H: float64(h)}
	native = native.Clamp(float64(r.m.Width*tilemap.TileSize), float64(r.m.Height*tilemap.TileSize))
	r.view = native
	r.local.x, r.local.y = r.view.ToScreen(px, py)
	// Below render scale 1 the world is drawn into a smaller image and
	// stretched over the screen: fewer pixels to fill, which is what a
	// software renderer spends its time on. Text and the HUD stay sharp.
	world := r.worldTarget(screen)

	r.Observe(g)
	dt := float32(f.Dt)
	if r.lastRT != 0 && g.RealTime > r.lastRT {
		dt = float32(g.RealTime-r.lastRT) / 1000
	}
	r.lastRT = g.RealTime
	r.particles.Step(dt)
	t := float64(g.RealTime) / 1000

	r.begin(world, r.view, t)
	r.drawItemSpots(world, g)
	r.drawEntities(world, g, f, dt)
	r.drawLocal(world, g, f)
	r.drawParticles(world)
	r.drawEffects(world, g.RealTime)
	r.end(world)
	r.tagScale = 1
	if world != screen {
		op := &r.imgOp
		op.GeoM.Reset()
		r.tagScale = float64(w) / float64(world.Bounds().Dx())
		op.GeoM.Scale(r.tagScale, float64(h)/float64(world.Bounds().Dy()))
		op.ColorScale.Reset()
		op.Filter = ebiten.FilterLinear
		screen.DrawImage(world, op)
		op.Filter = ebiten.FilterNearest
		r.view = native
	}
	r.labels.Reset() // the names first, then the overlays' labels
	r.drawNames(screen, g, f)

	intermission := f.Intermission || g.Predicted.PmType == bg.PMIntermission
	if intermission {
		r.drawIntermission(screen, g, f)
	} else {
		r.drawDamage(screen, g)
		r.drawHUD(screen, g, f)
		if f.ShowScores {
			r.drawScores(screen, g, f)
		}
		r.drawCrosshair(screen, float32(f.CursorX), float32(f.CursorY), g.RealTime)
	}
	if f.Status != "" {
		r.centreText(screen, f.Status, float64(w)/2, float64(h)/3, 2, colWhite)
	}
}

// MinRenderScale is the smallest render scale SetRenderScale takes.
const MinRenderScale = 0.25

// SetRenderScale sets the share of the screen's width and height the
// world is drawn at (r_scale): 1 draws it at the screen's resolution,
// 0.5 into an image of a quarter of the pixels, stretched over the
// screen with linear filtering. The HUD and text are always drawn at the
// screen's resolution.
func (r *Renderer) SetRenderScale(s float64) {
	r.scale = min(1, max(MinRenderScale, s))
}

// RenderScale returns the render scale in force.
func (r *Renderer) RenderScale() float64 {
	if r.scale == 0 {
		return 1
	}
	return r.scale
}

// worldTarget returns what the world is drawn on this frame: screen at
// render scale 1, else the smaller image, with r.view set for it.
func (r *Renderer) worldTarget(screen *ebiten.Image) *ebiten.Image {
	s := r.RenderScale()
	if s >= 1 {
		return screen
	}
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	tw, th := max(1, int(math.Ceil(float64(w)*s))), max(1, int(math.Ceil(float64(h)*s)))
	if r.lowres == nil || r.lowres.Bounds().Dx() != tw || r.lowres.Bounds().Dy() != th {
		if r.lowres != nil {
			r.lowres.Deallocate()
		}
		r.lowres = ebiten.NewImage(tw, th)
	}
	v := r.view
	v.Scale *= float64(tw) / float64(w)
	v.W, v.H = float64(tw), float64(th)
	r.view = v
	return r.lowres
}

func statusOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// scaleWith multiplies cs by c, as cs.ScaleWithColor(c) does without
// boxing c in an interface, which allocates.
func scaleWith(cs *ebiten.ColorScale, c color.RGBA) {
	cs.Scale(float32(c.R)/0xff, float32(c.G)/0xff, float32(c.B)/0xff, float32(c.A)/0xff)
}

// fade returns c with its alpha multiplied by a (premultiplied colour).
func fade(c color.RGBA, a float32) color.RGBA {
	a = max(0, min(1, a))
	return color.RGBA{uint8(float32(c.R) * a), uint8(float32(c.G) * a), uint8(float32(c.B) * a), uint8(float32(c.A) * a)}
}

// drawCrosshair draws the crosshair at (x, y), with the hit marker
// around it after a hit given.
func (r *Renderer) drawCrosshair(screen *ebiten.Image, x, y float32, now int32) {
	b := &r.hud
	dark, light := rgbaOf(colShadow, 1), rgbaOf(colWhite, 0.95)
	for _, c := range [2]struct {
		w float32
		c rgba
	}{{4, dark}, {2, light}} {
		b.line(x-11, y, x-4, y, c.w, c.c)
		b.line(x+4, y, x+11, y, c.w, c.c)
		b.line(x, y-11, x, y-4, c.w, c.c)
		b.line(x, y+4, x, y+11, c.w, c.c)
	}
	b.rect(x-1, y-1, 2, 2, light)
	if ht := r.feedback.HitTime; ht != 0 && now-ht < HitMarkerTime {
		k := float32(now-ht) / HitMarkerTime
		a := 1 - k*k
		d0, d1 := 7+4*k, 15+4*k
		c := rgbaOf(mix(colWhite, colLow, min(1, float32(r.feedback.HitCount)/60)), a)
		for _, s := range [4][2]float32{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}} {
			b.line(x+s[0]*d0, y+s[1]*d0, x+s[0]*d1, y+s[1]*d1, 3, rgbaOf(colShadow, a))
			b.line(x+s[0]*d0, y+s[1]*d0, x+s[0]*d1, y+s[1]*d1, 2, c)
		}
	}
	b.flush(screen)
}
