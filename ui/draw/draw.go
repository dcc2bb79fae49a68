package draw

import (
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

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
	// NetGraph: the net graph will be drawn over the frame (its corner
	// is kept free of labels).
	NetGraph bool
	// LocalServer: the match runs on this client's embedded server. The
	// scoreboard then says what its ping is made of.
	LocalServer bool
	// UIScale is ui_scale: the size of the players' names and the
	// overlays' labels; 0 picks it from the window (view.UIScale).
	UIScale float64
	// Stall, when not empty, shows the frame-sync STALL marker under
	// the clock with this line under its title (view.StallMarker).
	Stall string
}

// MaxCues bounds the sounds Renderer holds for TakeCues.
const MaxCues = 64

// Renderer draws the game's frames. It is a composition of painters,
// each holding state of one lifetime, the way Quake III kept cls, cl and
// cg apart:
//
//   - the window's, made once by New: the text painter, the HUD
//     (hudPainter), the render scale and its smaller world image
//     (renderScale), the effects' random numbers and the sound cues not
//     yet taken;
//   - the map's (level): the world painter with the map's pre-rendered
//     tiles, the camera, the item spots, the effects and particles and
//     what was observed of the cgame; SetMap replaces it whole;
//   - the frame's (frameView): the world's view on the screen, where the
//     local player was drawn and the labels placed, which the names, the
//     HUD and the overlays drawn after the world read;
//   - the demo's (demoBar), replaced by ResetDemoBar.
//
// The console, the chat field and the menus are drawn by UI, which every
// scene shares, and the classroom by ClassroomView. Not safe for
// concurrent use.
type Renderer struct {
	text  textPainter // the small bitmap font
	hud   hudPainter
	scale renderScale
	rnd   fx.Rand  // the effects' random numbers, one stream for the run
	cues  []fx.Cue // the sounds observed and not yet taken

	lvl   *level    // nil without a map
	frame frameView // this frame's
	demo  demoBar   // the demo playing
}

// frameView is what Draw decided about the screen this frame, for the
// painters that draw after the world (the names, the HUD, the overlays)
// and for the client's aim. Draw sets it every frame the world is drawn.
type frameView struct {
	view   view.View              // the world on the screen, at the screen's resolution
	local  struct{ x, y float64 } // the local player's screen position
	labels view.Labels            // the name tags' and overlays' places this frame
	ui     float64                // the UI scale
	// tagScale maps the world image's pixels to the screen's (the world
	// is drawn smaller below render scale 1).
	tagScale float64
}

// nameTag is a name to write over a player drawn this frame.
type nameTag struct {
	client int32
	x, y   float64
	dead   bool
}

// New returns a renderer for map m (nil: no map yet).
func New(m *tilemap.Map) *Renderer {
	r := &Renderer{text: smallText(), cues: make([]fx.Cue, 0, MaxCues)}
	r.hud = newHUDPainter()
	r.SetMap(m)
	return r
}

// SetMap changes the map drawn: the map's painters are replaced by new
// ones, forgetting the camera, the effects, the particles and the
// feedback of the previous map.
func (r *Renderer) SetMap(m *tilemap.Map) {
	if r.lvl != nil {
		r.lvl.dispose()
	}
	r.lvl = newLevel(m, &r.rnd)
}

// LocalScreen returns where the local player was drawn last frame, in
// screen pixels; the client aims from there.
func (r *Renderer) LocalScreen() (x, y float64) { return r.frame.local.x, r.frame.local.y }

// Observe takes in the events of cgame frame g: effects, feedback and
// sounds. Draw calls it; the client may also call it after every cgame
// Frame (in Update), so that no frame's events are lost when a draw is
// skipped. A frame is taken in once however often it is observed.
func (r *Renderer) Observe(g *cgame.CGame) {
	if g == nil || g.Snap == nil || r.lvl.world == nil {
		return
	}
	r.cues = r.lvl.observe(g, r.cues)
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
	fv := &r.frame
	fv.ui = view.UIScale(f.UIScale, w, h)
	r.hud.setScreen(w, h, fv.ui)
	g := f.CG
	lv := r.lvl
	if g == nil || g.Snap == nil || lv.world == nil {
		screen.Fill(colBackground)
		if !f.Idle && !f.Downloading {
			r.text.centreText(screen, statusOr(f.Status, "waiting for the server"), float64(w)/2, float64(h)/2, 2, colWhite)
		}
		if f.Downloading {
			r.hud.drawDownload(screen, &f.Download)
		}
		return
	}
	px, py := g.DrawnOrigin.Px()
	if f.Follow {
		px, py = f.FollowX, f.FollowY
	}
	m := lv.world.m
	lv.cam.Follow(px, py, f.Dt)
	// The camera follows the player but the view stops at the map's
	// edges: no screen of the grey outside.
	native := view.View{CX: lv.cam.X, CY: lv.cam.Y, Scale: view.ScaleFor(w, h), W: float64(w), H: float64(h)}
	native = native.Clamp(float64(m.Width*tilemap.TileSize), float64(m.Height*tilemap.TileSize))
	fv.view = native
	fv.local.x, fv.local.y = native.ToScreen(px, py)
	// Below render scale 1 the world is drawn into a smaller image and
	// stretched over the screen: fewer pixels to fill, which is what a
	// software renderer spends its time on. Text and the HUD stay sharp.
	world, wv := r.scale.target(screen, native)

	r.Observe(g)
	dt := lv.step(g, f.Dt)
	// The local player where it is, in the world image's pixels: not
	// the camera's target (a demo's camera may follow someone else).
	lx, ly := wv.ToScreen(g.DrawnOrigin.Px())
	lv.drawWorld(world, wv, g, lx, ly, dt)
	fv.tagScale = r.scale.present(screen, world)
	fv.labels.Reset() // the HUD's panels, the names, then the overlays' labels
	r.hud.reserve(&fv.labels, f.NetGraph, f.Stall, &lv.seen.feedback, g.RealTime)
	r.drawNames(screen, f)

	intermission := f.Intermission || g.Predicted.PmType == bg.PMIntermission
	if intermission {
		r.hud.drawIntermission(screen, g, f, fv)
	} else {
		r.hud.drawDamage(screen, g, &lv.seen.feedback, fv)
		r.hud.drawHUD(screen, g, f, &lv.seen.feedback, fv)
		if f.ShowScores {
			r.hud.drawScores(screen, g, f, m.Name, fv)
		}
		r.hud.drawCrosshair(screen, float32(float64(f.CursorX)/r.hud.zoom), float32(float64(f.CursorY)/r.hud.zoom), g.RealTime, &lv.seen.feedback)
	}
	if f.Status != "" {
		r.text.centreText(screen, f.Status, float64(w)/2, float64(h)/3, 2, colWhite)
	}
}

// drawNames writes the name tags of the players drawn this frame.
func (r *Renderer) drawNames(screen *ebiten.Image, f *Frame) {
	if f.Names == nil {
		return
	}
	fv := &r.frame
	r.lvl.world.drawTags(screen, &r.text, &fv.labels, fv.tagScale, fv.ui, f.Name,
		func(n int32) color.RGBA { return mix(PlayerColour(n), colWhite, 0.55) })
}

// Name returns client n's name, or "" for a number out of range or
// without a name, or with no names.
func (f *Frame) Name(n int32) string {
	if f.Names == nil || uint32(n) >= bg.MaxClients {
		return ""
	}
	return f.Names[n]
}

// MinRenderScale is the smallest render scale SetRenderScale takes.
const MinRenderScale = 0.25

// SetRenderScale sets the share of the screen's width and height the
// world is drawn at (r_scale): 1 draws it at the screen's resolution,
// 0.5 into an image of a quarter of the pixels, stretched over the
// screen with linear filtering. The HUD and text are always drawn at the
// screen's resolution.
func (r *Renderer) SetRenderScale(s float64) { r.scale.set(s) }

// RenderScale returns the render scale in force.
func (r *Renderer) RenderScale() float64 { return r.scale.get() }

// renderScale is the render scale (r_scale) and the image the world is
// drawn into below 1, sized to the screen: the window's.
type renderScale struct {
	scale  float64       // 0 means 1
	lowres *ebiten.Image // the world below render scale 1
	op     ebiten.DrawImageOptions
}

// set sets the render scale, clamped to [MinRenderScale, 1].
func (s *renderScale) set(v float64) { s.scale = min(1, max(MinRenderScale, v)) }

// get returns the render scale in force.
func (s *renderScale) get() float64 {
	if s.scale == 0 {
		return 1
	}
	return s.scale
}

// target returns what the world is drawn on this frame and the view to
// draw it with: screen and native at render scale 1, else the smaller
// image and native shrunk to it.
func (s *renderScale) target(screen *ebiten.Image, native view.View) (*ebiten.Image, view.View) {
	k := s.get()
	if k >= 1 {
		return screen, native
	}
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	tw, th := max(1, int(math.Ceil(float64(w)*k))), max(1, int(math.Ceil(float64(h)*k)))
	if s.lowres == nil || s.lowres.Bounds().Dx() != tw || s.lowres.Bounds().Dy() != th {
		if s.lowres != nil {
			s.lowres.Deallocate()
		}
		s.lowres = ebiten.NewImage(tw, th)
	}
	v := native
	v.Scale *= float64(tw) / float64(w)
	v.W, v.H = float64(tw), float64(th)
	return s.lowres, v
}

// present stretches world, drawn by target, over screen when it is not
// screen itself, and returns the scale from its pixels to the screen's.
func (s *renderScale) present(screen, world *ebiten.Image) float64 {
	if world == screen {
		return 1
	}
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	op := &s.op
	op.GeoM.Reset()
	k := float64(w) / float64(world.Bounds().Dx())
	op.GeoM.Scale(k, float64(h)/float64(world.Bounds().Dy()))
	op.ColorScale.Reset()
	op.Filter = ebiten.FilterLinear
	screen.DrawImage(world, op)
	return k
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
// around it after a hit given (fb).
func (hp *hudPainter) drawCrosshair(screen *ebiten.Image, x, y float32, now int32, fb *fx.Feedback) {
	b := &hp.b
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
	if ht := fb.HitTime; ht != 0 && now-ht < HitMarkerTime {
		k := float32(now-ht) / HitMarkerTime
		a := 1 - k*k
		d0, d1 := 7+4*k, 15+4*k
		c := rgbaOf(mix(colWhite, colLow, min(1, float32(fb.HitCount)/60)), a)
		for _, s := range [4][2]float32{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}} {
			b.line(x+s[0]*d0, y+s[1]*d0, x+s[0]*d1, y+s[1]*d1, 3, rgbaOf(colShadow, a))
			b.line(x+s[0]*d0, y+s[1]*d0, x+s[0]*d1, y+s[1]*d1, 2, c)
		}
	}
	b.flush(screen)
}
