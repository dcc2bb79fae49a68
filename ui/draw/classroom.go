package draw

import (
	"image"
	"image/color"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"golang.org/x/image/font/basicfont"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/classroom"
	"tremor/client"
	"tremor/game/framesync"
	lagdraw "tremor/lagometer/draw"
	"tremor/ui/draw/view"
)

// This file draws the classroom view (docs/classroom.md): three panes —
// Player 1, the server's authoritative world, Player 2, each painted
// by the game's world painter — with a lane between each player and the
// server where every packet travels as a mark over its simulated delay,
// each pane's counters, lagometer and switches (the model's), and a
// panel with the packet clicked decoded field by field. Where each part
// goes is view.ClassroomLayout, at the UI scale.

// ClassroomLinger is how long (virtual time) a packet stays in view after
// it arrived (a fading mark at the receiver), and at least how long a
// lost one takes to fall out of its lane.
const ClassroomLinger = 250 * time.Millisecond

// Colours of the packet kinds (classroom.Kind), for the lanes and the
// legend.
var packetColours = [classroom.NumKinds]color.RGBA{
	classroom.KindHandshake: {0xb0, 0xb0, 0xb0, 0xff},
	classroom.KindUsercmd:   {0x50, 0xd0, 0xff, 0xff},
	classroom.KindDelta:     {0x60, 0xe0, 0x70, 0xff},
	classroom.KindFull:      {0x20, 0x90, 0x30, 0xff},
	classroom.KindReliable:  {0xff, 0xd0, 0x40, 0xff},
	classroom.KindFragment:  {0xe0, 0x70, 0xff, 0xff},
	classroom.KindGamestate: {0xff, 0x80, 0xa0, 0xff},
	classroom.KindOther:     {0x90, 0x90, 0xc0, 0xff},
	// Frame sync's: teal frames, a deep blue whole state, a tan request.
	classroom.KindFrames:       {0x40, 0xe0, 0xc8, 0xff},
	classroom.KindWhole:        {0x30, 0x70, 0xe0, 0xff},
	classroom.KindFrameRequest: {0xd8, 0xb0, 0x70, 0xff},
}

// legendKinds are the kinds the legend lists, with snapshots and in
// frame sync (its usercmds are the inputs of their frames).
var legendKinds = [2][]classroom.Kind{
	{classroom.KindHandshake, classroom.KindUsercmd, classroom.KindDelta, classroom.KindFull,
		classroom.KindReliable, classroom.KindFragment, classroom.KindGamestate},
	{classroom.KindHandshake, classroom.KindUsercmd, classroom.KindFrames, classroom.KindWhole,
		classroom.KindReliable, classroom.KindFrameRequest, classroom.KindFragment, classroom.KindGamestate},
}

// PacketColour returns the colour of a packet kind in the lanes.
func PacketColour(k classroom.Kind) color.RGBA {
	if k < classroom.NumKinds {
		return packetColours[k]
	}
	return colWhite
}

var (
	colLost      = color.RGBA{0xff, 0x40, 0x40, 0xff}
	colLate      = color.RGBA{0xff, 0x90, 0x20, 0xff}
	colButton    = color.RGBA{0x28, 0x30, 0x40, 0xff}
	colButtonHot = color.RGBA{0x40, 0x50, 0x70, 0xff}
	colButtonOn  = color.RGBA{0x30, 0x70, 0x40, 0xff}
	colDim       = color.RGBA{0xa0, 0xa8, 0xb8, 0xff}
	colPaneBack  = color.RGBA{0x10, 0x14, 0x1c, 0xff}
	colStall     = color.RGBA{0xff, 0x30, 0x30, 0xff}
	colRollback  = color.RGBA{0xff, 0xe0, 0x60, 0xff}
	// The players' colours, the same in every pane and run whatever
	// their client numbers; bots are blue.
	classColours = [3]color.RGBA{{0x40, 0xe0, 0x60, 0xff}, {0xff, 0x60, 0x60, 0xff}, {0x60, 0x90, 0xff, 0xff}}
)

// ClassroomFrame is what one ClassroomView.Draw shows besides the model.
type ClassroomFrame struct {
	CursorX, CursorY int
	// UIScale is ui_scale: the size of the view's text, switches and
	// panels; 0 picks it from the window (view.UIScale).
	UIScale float64
}

// ClassroomView draws a classroom.Model and answers where the mouse
// clicked: a switch (ClassroomView.Click) or a packet (PacketAt). It
// keeps the layout, the map's tiles and the last frame's marks and
// switches; the switches, titles and labels themselves are the model's.
// Not safe for concurrent use.
type ClassroomView struct {
	tp      textPainter   // Go Mono at the layout's size
	tpSize  float64       // the size tp's face is
	wp      *worldPainter // the three panes' worlds: the model's map's, nil without one
	b       batch
	labels  view.Labels // the tags of one pane
	l       view.Classroom
	lw, lh  int
	lui     float64
	marks   []packetMark
	buttons []classButton
	sel     struct {
		id     uint64
		late   bool
		copies int
		cols   int // characters a line of the panel holds
		lines  []string
	}
	selected uint64  // this frame's m.Selected()
	maxW     float64 // when > 0, text is cut to this width: the column being drawn
	numBuf   []byte
	// nums are P1's and P2's client numbers this frame, -1 before
	// they have a cgame: who tells them from the bot.
	nums [2]int32
	// panes are the world panes' images, each its pane's size, that
	// drawWorld paints the panes' worlds into.
	panes [3]*ebiten.Image
	// The reliable commands' texts, made again only when they change:
	// the counter beside each player's carrier switch, the server
	// pane's table.
	carrier [2]struct {
		key  carrierKey
		text string
	}
	relTable struct {
		key   relTableKey
		lines []string
	}
}

// packetMark is a packet drawn in a lane, for PacketAt.
type packetMark struct {
	id      uint64
	x, y, r float32
}

// classButton is a switch drawn this frame: its box and what it shows
// and runs.
type classButton struct {
	rect image.Rectangle
	sw   classroom.Switch
}

// NewClassroomView returns a view with no map drawn yet.
func NewClassroomView() *ClassroomView {
	return &ClassroomView{}
}

// PacketAt returns the packet drawn nearest (x, y) in the last frame, if
// one is within reach of a click.
func (v *ClassroomView) PacketAt(x, y int) (uint64, bool) {
	best, bestD := uint64(0), float32(math.MaxFloat32)
	for _, m := range v.marks {
		dx, dy := float32(x)-m.x, float32(y)-m.y
		d := dx*dx + dy*dy
		reach := m.r + 5
		if d <= reach*reach && d < bestD {
			best, bestD = m.id, d
		}
	}
	return best, best != 0
}

// Click returns the console lines of the switch at (x, y) in the last
// frame, if there is one there.
func (v *ClassroomView) Click(x, y int) ([]string, bool) {
	p := image.Pt(x, y)
	for _, b := range v.buttons {
		if p.In(b.rect) {
			return b.sw.Lines, true
		}
	}
	return nil, false
}

// layout lays the view out for a w×h screen, and makes the face for its
// text size.
func (v *ClassroomView) layout(w, h int, set float64) {
	ui := view.UIScale(set, w, h)
	if v.lw != w || v.lh != h || v.lui != ui || v.tp.face == nil {
		v.l = view.ClassroomLayout(w, h, ui)
		v.lw, v.lh, v.lui = w, h, ui
	}
	if v.tpSize != v.l.FontSize || v.tp.face == nil {
		face := monoFace(v.l.FontSize)
		if face == nil {
			face = text.NewGoXFace(basicfont.Face7x13)
		}
		v.tp.setFace(face)
		v.tpSize = v.l.FontSize
		v.sel.lines = v.sel.lines[:0] // wrapped for the old size
	}
}

// Draw draws the classroom on screen.
func (v *ClassroomView) Draw(screen *ebiten.Image, m *classroom.Model, f *ClassroomFrame) {
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	screen.Fill(colBackground)
	v.layout(w, h, f.UIScale)
	l := &v.l
	v.buttons = v.buttons[:0]
	v.marks = v.marks[:0]
	v.selected = m.Selected()
	v.drawHeader(screen, m)
	mp := m.Map()
	if v.wp == nil || mp != v.wp.m {
		// A new map: a new painter, with its tiles.
		if v.wp != nil {
			v.wp.dispose()
			v.wp = nil
		}
		if mp != nil {
			v.wp = newWorldPainter(mp, nil, nil)
			v.wp.colour = v.colour
		}
	}
	for pane := range 3 {
		v.drawWorld(screen, m, pane, mp)
	}
	v.drawLanes(screen, m)
	for i := range 2 {
		v.drawPlayerInfo(screen, m, i)
	}
	v.drawServerInfo(screen, m)
	v.drawLaneInfo(screen, m)
	v.drawLegend(screen, m.FrameSync(0) || m.FrameSync(1))
	v.drawPanel(screen, m, l)
	v.drawButtons(screen, f)
}

// drawHeader draws the title, the clock and its switches.
func (v *ClassroomView) drawHeader(screen *ebiten.Image, m *classroom.Model) {
	l := &v.l
	b := &v.b
	b.rect(0, 0, float32(l.Header.Dx()), float32(l.Header.Dy()), rgbaOf(colPanel, 0.9))
	b.flush(screen)
	state := "running"
	if m.Paused() {
		state = "PAUSED"
	}
	ty := float64(l.Header.Min.Y) + float64(l.Header.Dy()-l.LineH)/2
	title := "CLASSROOM  virtual time " + strconv.FormatFloat(m.Now().Seconds(), 'f', 2, 64) + " s  " + state
	v.text(screen, title, float64(l.Pad*2), ty, colWhite)
	x := l.Pad*4 + int(v.tp.advance)*42
	bh := min(l.ButtonH, l.Header.Dy()-2*l.Pad)
	y := l.Header.Min.Y + (l.Header.Dy()-bh)/2
	for _, sw := range m.Switches(classroom.PaneClock) {
		bw := int(v.tp.advance)*(len(sw.Label)+4) + l.Pad
		v.button(image.Rect(x, y, x+bw, y+bh), sw)
		x += bw + l.Pad
	}
}

// drawLegend draws the packet kinds' colours in the lanes' columns,
// under their counts: frame sync's when a player is in frame sync.
func (v *ClassroomView) drawLegend(screen *ebiten.Image, frameSync bool) {
	l := &v.l
	b := &v.b
	lh := float32(l.LineH)
	r := lh * 0.3
	y0 := float32(l.LaneInfo[0].Min.Y + 8*l.LineH + l.Pad)
	x, y := float32(l.LaneInfo[0].Min.X+l.Pad), y0
	v.maxW = float64(l.LaneInfo[0].Dx() - 2*l.Pad - int(lh))
	defer func() { v.maxW = 0 }()
	kinds := legendKinds[0]
	if frameSync {
		kinds = legendKinds[1]
	}
	for n, k := range kinds {
		if n == 4 {
			x, y = float32(l.LaneInfo[1].Min.X+l.Pad), y0
		}
		b.circle(x+r, y+lh/2, r, rgbaOf(PacketColour(k), 1))
		label := k.String()
		switch {
		case k == classroom.KindReliable:
			// Also the dot in a mark that carries commands besides.
			label = "reliable (dot)"
		case k == classroom.KindUsercmd && frameSync:
			label = "inputs"
		}
		b.flush(screen)
		v.text(screen, label, float64(x+lh), float64(y), colDim)
		y += lh
	}
	// Under the first column's kinds: the reliable commands' marks.
	rx, ry := float32(l.LaneInfo[0].Min.X+l.Pad), y0+4*lh
	yellow := rgbaOf(PacketColour(classroom.KindReliable), 1)
	b.circle(rx+r, ry+lh/2, r, rgbaOf(PacketColour(classroom.KindUsercmd), 1))
	b.circle(rx+r, ry+lh/2, max(2, r*0.45), yellow)
	b.circle(rx+r, ry+lh*3/2, r, rgbaOf(PacketColour(classroom.KindUsercmd), 1))
	b.ring(rx+r, ry+lh*3/2, max(2, r*0.45), 1.5, yellow)
	b.circle(rx+r, ry+lh*5/2, r, rgbaOf(PacketColour(classroom.KindDelta), 1))
	tickMark(b, rx+r, ry+lh*5/2, r, 1)
	b.flush(screen)
	for k, s := range [...]string{"first send", "sent again", "acknowledges"} {
		v.text(screen, s, float64(rx+lh), float64(ry+float32(k)*lh), colDim)
	}
	b.circle(x+r, y+lh/2, r, rgbaOf(colDim, 1))
	b.line(x+r*0.2, y+lh/2-r*0.8, x+r*1.8, y+lh/2+r*0.8, 2, rgbaOf(colLost, 1))
	b.line(x+r*0.2, y+lh/2+r*0.8, x+r*1.8, y+lh/2-r*0.8, 2, rgbaOf(colLost, 1))
	b.flush(screen)
	v.text(screen, "lost", float64(x+lh), float64(y), colDim)
	y += lh
	b.ring(x+r, y+lh/2, r+1, 2, rgbaOf(colLate, 1))
	b.flush(screen)
	v.text(screen, "overtaken", float64(x+lh), float64(y), colDim)
}

// paneScale returns the scale of the world panes: the map's height
// fills the pane (the camera follows across the map's width), never
// smaller than the whole map fitting.
func paneScale(pane image.Rectangle, mapW, mapH float64) (scale, whole float64) {
	whole = min(float64(pane.Dx())/mapW, float64(pane.Dy())/mapH)
	return max(whole, float64(pane.Dy())/mapH), whole
}

// paneView returns the view of a pane centred on world pixels (cx, cy),
// clamped to the map.
func paneView(pane image.Rectangle, cx, cy, scale, mapW, mapH float64) view.View {
	return view.View{CX: cx, CY: cy, Scale: scale, W: float64(pane.Dx()), H: float64(pane.Dy()),
		X0: float64(pane.Min.X), Y0: float64(pane.Min.Y)}.Clamp(mapW, mapH)
}

// drawWorld draws one pane's world: PaneP1 P1's cgame, PaneServer the
// server's state, PaneP2 P2's cgame, all with the game's world painter.
func (v *ClassroomView) drawWorld(screen *ebiten.Image, m *classroom.Model, pane int, mp *tilemap.Map) {
	l := &v.l
	r := l.Pane[pane]
	tc := colWhite
	if pane != classroom.PaneServer {
		tc = classColours[pane/2]
	}
	v.maxW = float64(l.Title[pane].Dx())
	v.text(screen, m.Title(pane), float64(l.Title[pane].Min.X), float64(l.Title[pane].Min.Y), tc)
	v.maxW = 0
	x0, y0 := float64(r.Min.X), float64(r.Min.Y)
	if mp == nil {
		v.b.rect(float32(x0), float32(y0), float32(r.Dx()), float32(r.Dy()), rgbaOf(colPaneBack, 1))
		v.b.flush(screen)
		v.text(screen, "connecting...", x0+8, y0+8, colDim)
		return
	}
	mapW, mapH := float64(mp.Width*tilemap.TileSize), float64(mp.Height*tilemap.TileSize)
	scale, whole := paneScale(r, mapW, mapH)
	v.nums = [2]int32{-1, -1}
	for i := range v.nums {
		if p := m.Player(i); p.CGame() != nil {
			v.nums[i] = p.C.ClientNum()
		}
	}
	// The world is painted into the pane's own image, at its origin, and
	// that image drawn on the screen at the pane's place: the image
	// clips the painting to the pane. A SubImage of the screen would
	// not: the client draws its frames straight onto the window's
	// framebuffer when it can (cmd/client, finalscreen.go), whose rows
	// OpenGL counts from the bottom, and Ebitengine flips the drawing
	// for it but not the SubImage's clip rectangle, so a pane near the
	// top was clipped to the rows mirrored near the bottom, where none
	// of its world is, and stayed empty (in the browser, and in the
	// window whenever no screenshot was being taken).
	dst := v.paneImage(pane, r.Size())
	dst.Clear()
	r0 := image.Rectangle{Max: r.Size()} // the pane, in dst's pixels
	t := m.Now().Seconds()
	if pane == classroom.PaneServer {
		// Both players in view when they are near enough; the whole map
		// when not.
		var xs [2]float64
		found := 0
		for _, sp := range m.ServerPlayers() {
			if k := v.who(int32(sp.Num)); k < 2 {
				xs[k], _ = cgame.PointOf(sp.PS.Origin).Px()
				found++
			}
		}
		cx := mapW / 2
		if found == 2 {
			span := math.Abs(xs[0]-xs[1]) + 400
			scale = min(scale, max(whole, float64(r.Dx())/span))
			cx = (xs[0] + xs[1]) / 2
		}
		v.wp.begin(dst, paneView(r0, cx, mapH/2, scale, mapW, mapH), t)
		st := m.ServerTime()
		for i := range m.ServerEntities() {
			es := &m.ServerEntities()[i]
			if es.EType == bg.ETPlayer {
				continue // drawn from their player states below
			}
			v.wp.entity(dst, es, cgame.PointOf(es.Pos.Evaluate(st)), t, 0)
		}
		for i := range m.ServerPlayers() {
			sp := &m.ServerPlayers()[i]
			x, y := v.wp.view.PointScreen(cgame.PointOf(sp.PS.Origin))
			v.wp.playerState(dst, &sp.PS, float32(x), float32(y), float64(sp.PS.Origin.X), t)
		}
	} else {
		p := m.Player(pane / 2)
		cg := p.CGame()
		if cg == nil || cg.Snap == nil {
			v.b.rect(float32(x0), float32(y0), float32(r.Dx()), float32(r.Dy()), rgbaOf(colPaneBack, 1))
			v.b.flush(screen)
			v.text(screen, p.C.State().String()+"...", x0+8, y0+8, colDim)
			return
		}
		px, py := cg.DrawnOrigin.Px()
		v.wp.begin(dst, paneView(r0, px, py, scale, mapW, mapH), t)
		for _, ce := range cg.Entities {
			v.wp.entity(dst, &ce.Current, ce.Lerp, t, 0)
		}
		v.drawTrail(dst, m, pane/2)
		// The server's idea of this player: an outline where the server
		// has it now, beside where this client draws it.
		self := p.C.ClientNum()
		hw, hh := playerHalf()
		hw, hh = hw*v.wp.view.Scale, hh*v.wp.view.Scale
		for _, sp := range m.ServerPlayers() {
			if int32(sp.Num) == self {
				x, y := v.wp.view.PointScreen(cgame.PointOf(sp.PS.Origin))
				v.wp.world.ovlOutline(float32(x-hw), float32(y-hh), float32(2*hw), float32(2*hh), max(1, float32(l.UI)), rgbaOf(colWhite, 0.9))
			}
		}
		x, y := v.wp.view.PointScreen(cg.DrawnOrigin)
		v.wp.playerState(dst, &cg.Predicted, float32(x), float32(y), cg.DrawnOrigin.X, t)
	}
	v.wp.end(dst)
	v.labels.Reset()
	db := dst.Bounds()
	v.labels.Bound(float64(db.Dx()), float64(db.Dy())) // a name at the pane's edge is moved in, not cut
	v.wp.drawTags(dst, &v.tp, &v.labels, 1, 1, v.tag, v.colour)
	var op ebiten.DrawImageOptions
	op.GeoM.Translate(x0, y0)
	screen.DrawImage(dst, &op)
	caption := "no prediction, no interpolation"
	if pane != classroom.PaneServer {
		caption = "white outline: the server's P" + strconv.Itoa(pane/2+1) + " now"
		if m.FrameSync(pane / 2) {
			caption = "ghosts: the last rollback's frames"
			v.drawSyncMarks(screen, m, pane/2, r)
		}
	}
	v.maxW = float64(r.Dx() - 2*l.Pad)
	cw, _ := v.tp.size(v.tp.fit(caption, v.maxW))
	cy := float64(r.Max.Y - l.LineH - l.Pad)
	v.b.rect(float32(x0), float32(cy), float32(cw)+float32(2*l.Pad), float32(l.LineH+l.Pad), rgbaOf(colPaneBack, 0.75))
	v.b.flush(screen)
	v.text(screen, caption, x0+float64(l.Pad), cy+float64(l.Pad)/2, colDim)
	v.maxW = 0
}

// TrailLinger is how long (virtual time) a rollback's ghost trail stays
// in view, fading, unless a newer rollback replaces it first.
const TrailLinger = time.Second

// drawTrail adds the ghost trail of player i's last rollback to the
// pane's world (frame sync): for every player in the frames the rollback
// ran again, a filled ghost where the frame put it when run again and an
// outline where it had been predicted, each frame older fainter, linked
// frame to frame; the whole trail fades over TrailLinger.
func (v *ClassroomView) drawTrail(dst *ebiten.Image, m *classroom.Model, i int) {
	rb, age := m.Rollback(i)
	if rb == nil || age >= TrailLinger || rb.Kept == 0 {
		return
	}
	fade := 1 - float32(age)/float32(TrailLinger)
	hw, hh := playerHalf()
	sc := v.wp.view.Scale
	w, h := float32(2*hw*sc*0.8), float32(2*hh*sc*0.8)
	b := &v.wp.world
	th := max(1, float32(v.l.UI))
	// A link longer than this is a respawn or a teleporter, not a move:
	// not drawn.
	far := float64(6 * w)
	at := func(pos *framesync.Positions, c int) (x, y float64) {
		return v.wp.view.PointScreen(cgame.PointOf(pos.Origin[c]))
	}
	for k := range rb.Kept {
		after, before := &rb.After[k], &rb.Before[k]
		a := fade * (0.25 + 0.75*float32(k+1)/float32(rb.Kept))
		for q := after.Present; q != 0; q &= q - 1 {
			c := bits.TrailingZeros64(q)
			bit := uint64(1) << c
			b.room(dst, 400) // a ghost, its outline, its links and dashes
			col := v.colour(int32(c))
			ax, ay := at(after, c)
			if before.Present&bit != 0 {
				// Where it had been predicted: a white outline, linked to
				// the frame before by dashes, and to where the frame put
				// it when run again (the correction).
				bx, by := at(before, c)
				b.ovlOutline(float32(bx)-w/2, float32(by)-h/2, w, h, th, rgbaOf(colWhite, a*0.6))
				if d := math.Hypot(ax-bx, ay-by); d > 2 && d < far {
					b.line(float32(bx), float32(by), float32(ax), float32(ay), th, rgbaOf(colWhite, a*0.8))
				}
				if k > 0 && rb.Before[k-1].Present&bit != 0 {
					px, py := at(&rb.Before[k-1], c)
					if math.Hypot(bx-px, by-py) < far {
						b.ovlDashed(float32(px), float32(py), float32(bx), float32(by), th, 3*th, rgbaOf(colWhite, a*0.6))
					}
				}
			}
			// Where the frame put it when run again: a ghost of its
			// colour, linked to the frame before.
			b.rect(float32(ax)-w/2, float32(ay)-h/2, w, h, rgbaOf(col, a*0.45))
			b.ovlOutline(float32(ax)-w/2, float32(ay)-h/2, w, h, th, rgbaOf(col, a))
			if k > 0 && rb.After[k-1].Present&bit != 0 {
				px, py := at(&rb.After[k-1], c)
				if math.Hypot(ax-px, ay-py) < far {
					b.line(float32(px), float32(py), float32(ax), float32(ay), 2*th, rgbaOf(col, a))
				}
			}
		}
	}
}

// drawSyncMarks draws over player i's pane r, in frame sync, a STALL
// marker while the client stalls (it would run more than
// cl_maxPredictionFrames past the last confirmed frame, so its game
// waits) and the last rollback while its trail shows.
func (v *ClassroomView) drawSyncMarks(screen *ebiten.Image, m *classroom.Model, i int, r image.Rectangle) {
	l := &v.l
	x, y := float64(r.Min.X+l.Pad), float64(r.Min.Y+l.Pad)
	fig := m.Player(i).Figures()
	if !fig.FrameSync {
		return
	}
	lh := float64(l.LineH)
	v.maxW = float64(r.Dx() - 2*l.Pad)
	defer func() { v.maxW = 0 }()
	if fig.Sync.Stalling {
		s := "STALL: " + strconv.Itoa(int(fig.Sync.Stats.Ahead)) + " ahead of frame " + itoa(fig.Sync.Stats.Confirmed)
		sw, _ := v.tp.size(v.tp.fit(s, v.maxW))
		v.b.rect(float32(x)-2, float32(y)-1, float32(sw)+4, float32(lh)+2, rgbaOf(colStall, 0.9))
		v.b.flush(screen)
		v.text(screen, s, x, y, colWhite)
		y += lh + 2
	}
	if rb, age := m.Rollback(i); rb != nil && age < TrailLinger {
		s := "rollback: frames " + itoa(rb.From) + "-" + itoa(rb.To) + " run again"
		sw, _ := v.tp.size(v.tp.fit(s, v.maxW))
		a := 1 - float32(age)/float32(TrailLinger)
		v.b.rect(float32(x)-2, float32(y)-1, float32(sw)+4, float32(lh)+2, rgbaOf(colPaneBack, 0.75*a))
		v.b.flush(screen)
		v.text(screen, s, x, y, fade(colRollback, a))
	}
}

// who returns which of the classroom's players client num is: 0 for
// P1, 1 for P2, 2 for the bot.
func (v *ClassroomView) who(num int32) int {
	switch num {
	case v.nums[0]:
		return 0
	case v.nums[1]:
		return 1
	}
	return 2
}

// colour returns client n's colour in the panes.
func (v *ClassroomView) colour(n int32) color.RGBA { return classColours[v.who(n)] }

// tag returns client n's tag in the panes.
func (v *ClassroomView) tag(n int32) string { return [3]string{"P1", "P2", "bot"}[v.who(n)] }

// paneImage returns the image world pane i is painted into, of size
// size: the last one when it has that size, else a new one.
func (v *ClassroomView) paneImage(i int, size image.Point) *ebiten.Image {
	if img := v.panes[i]; img != nil {
		if img.Bounds().Size() == size {
			return img
		}
		img.Deallocate()
	}
	v.panes[i] = ebiten.NewImage(max(1, size.X), max(1, size.Y))
	return v.panes[i]
}

// drawLanes draws the two lanes and every packet in them.
func (v *ClassroomView) drawLanes(screen *ebiten.Image, m *classroom.Model) {
	l := &v.l
	b := &v.b
	top, hgt := float32(l.Lane[0].Min.Y), float32(l.Lane[0].Dy())
	half := hgt / 2
	lh := float32(l.LineH)
	for i := range 2 {
		x, lw := float32(l.Lane[i].Min.X), float32(l.Lane[i].Dx())
		b.rect(x+2, top, lw-4, hgt, rgbaOf(colPaneBack, 0.6))
		b.line(x+2, top+half, x+lw-2, top+half, 1, rgbaOf(colDim, 0.4))
	}
	b.flush(screen)
	for i := range 2 {
		ln := l.Lane[i]
		x := float64(ln.Min.X + l.Pad)
		if i == 0 {
			v.text(screen, "P1 -> server", x, float64(top)+2, colDim)
			v.text(screen, "P1 <- server", x, float64(top+hgt-lh), colDim)
		} else {
			v.right(screen, "server <- P2", float64(ln.Max.X-l.Pad), float64(top)+2, colDim)
			v.right(screen, "server -> P2", float64(ln.Max.X-l.Pad), float64(top+hgt-lh), colDim)
		}
		cx := float64(ln.Min.X) + float64(ln.Dx())/2
		for d := range 2 {
			y := float64(top) + float64(half)*float64(d) + float64(half)/2
			v.centre(screen, m.LinkLabel(i, classroom.Dir(d)), cx, y, fade(colDim, 0.5))
		}
	}
	now := m.Now()
	const rows = 6
	rowH := (half - lh - 4) / rows
	m.Events(ClassroomLinger, func(e *classroom.Event) {
		ln := l.Lane[e.Player]
		left, right := float32(ln.Min.X+2*l.Pad), float32(ln.Max.X-2*l.Pad)
		from, to := left, right // P1's uplink goes right, to the server
		if (e.Player == 1) == (e.Dir == classroom.Up) {
			from, to = right, left
		}
		row := float32(e.ID % rows)
		if e.Netchan {
			row = float32(e.Sequence % rows)
		}
		y := top + lh + row*rowH + rowH/2
		if e.Dir == classroom.Down {
			y = top + half + 4 + row*rowH + rowH/2
		}
		r := float32(3+math.Sqrt(float64(e.Bytes))/3) * float32(l.UI)
		r = min(r, rowH/2+3, 14*float32(l.UI))
		c := PacketColour(e.Kind)
		sel := e.ID == v.selected
		if e.Lost() {
			travel := max(e.Arrive[0]-e.Sent, ClassroomLinger)
			f := float32(now-e.Sent) / float32(travel)
			if f > 1 {
				return
			}
			x := from + (to-from)*min(f, 0.5)
			yy := y
			a := float32(1)
			if f > 0.5 { // past half way it falls out of the lane
				k := (f - 0.5) * 2
				x += (to - from) * 0.15 * k
				yy += k * k * 60 * float32(l.UI)
				a = 1 - k
			}
			v.mark(x, yy, r, c, a, sel, false, relDotOf(e), false, e.ID)
			b.line(x-r*0.7, yy-r*0.7, x+r*0.7, yy+r*0.7, 2, rgbaOf(colLost, a))
			b.line(x-r*0.7, yy+r*0.7, x+r*0.7, yy-r*0.7, 2, rgbaOf(colLost, a))
			return
		}
		for k := range e.Copies {
			arr := e.Arrive[k]
			var x float32
			a := float32(1)
			if now >= arr {
				x = to
				a = 1 - float32(now-arr)/float32(ClassroomLinger)
				if a <= 0 {
					continue
				}
			} else {
				f := float32(now-e.Sent) / float32(arr-e.Sent)
				x = from + (to-from)*f
			}
			rr := r
			if now >= arr {
				rr *= 0.4 + 0.6*a // arrived: shrinking into the receiver
			}
			yy := y
			if k == 1 { // the duplicate splits off from the original
				f := float32(1)
				if arr > e.Sent {
					f = min(1, 3*float32(now-e.Sent)/float32(arr-e.Sent))
				}
				yy += f * rowH * 0.6
			}
			v.mark(x, yy, rr, c, a, sel, e.Late(), relDotOf(e), e.Acks > 0, e.ID)
		}
	})
	b.flush(screen)
}

// relDot is how a mark shows the reliable commands it carries.
type relDot uint8

const (
	relNone  relDot = iota
	relFirst        // a command sent for the first time: a filled dot
	relAgain        // only commands sent again: a hollow ring
)

// relDotOf returns how packet e's mark shows its reliable commands.
func relDotOf(e *classroom.Event) relDot {
	switch {
	case e.RelNew > 0:
		return relFirst
	case e.RelAgain > 0:
		return relAgain
	case e.Reliable:
		return relFirst // followed by no counter (an old connection's): as before
	}
	return relNone
}

// mark draws one packet and remembers it for PacketAt. A packet that
// carries reliable commands has a dot of the reliable colour in its
// middle (a mark of the reliable kind is that colour already): filled
// when it sends one for the first time, a hollow ring when it only sends
// them again. A packet that acknowledges commands of the other way (the
// first to do so that arrives) carries a white tick.
func (v *ClassroomView) mark(x, y, r float32, c color.RGBA, a float32, selected, late bool, rel relDot, ack bool, id uint64) {
	b := &v.b
	b.circle(x, y, r+1, rgbaOf(colShadow, a*0.8))
	b.circle(x, y, r, rgbaOf(c, a))
	yellow := PacketColour(classroom.KindReliable)
	dr := max(2.5, r*0.5)
	switch {
	case rel == relFirst && c != yellow:
		b.circle(x, y, dr, rgbaOf(yellow, a))
	case rel == relAgain && c != yellow:
		b.ring(x, y, dr, max(1.5, dr*0.5), rgbaOf(yellow, a))
	case rel == relAgain: // a yellow mark: hollowed
		b.circle(x, y, dr, rgbaOf(colPaneBack, a))
	}
	if ack {
		tickMark(b, x, y, r, a)
	}
	if late {
		b.ring(x, y, r+2, 2, rgbaOf(colLate, a))
	}
	if selected {
		b.ring(x, y, r+4, 2, rgbaOf(colWhite, 1))
	}
	v.marks = append(v.marks, packetMark{id: id, x: x, y: y, r: r})
}

// tickMark draws a white tick over a mark of radius r at (x, y), on a
// dark outline so it shows on every colour.
func tickMark(b *batch, x, y, r, a float32) {
	s := max(r, 5)
	x0, y0 := x-s*0.8, y-s*0.05
	x1, y1 := x-s*0.25, y+s*0.55
	x2, y2 := x+s*0.9, y-s*0.75
	b.line(x0, y0, x1, y1, 4, rgbaOf(colShadow, a))
	b.line(x1, y1, x2, y2, 4, rgbaOf(colShadow, a))
	b.line(x0, y0, x1, y1, 2, rgbaOf(colWhite, a))
	b.line(x1, y1, x2, y2, 2, rgbaOf(colWhite, a))
}

// switchGrid lays a pane's switches out two a row from y in info
// column r, and returns the y under them.
func (v *ClassroomView) switchGrid(r image.Rectangle, y int, sws []classroom.Switch) int {
	l := &v.l
	bw := (r.Dx() - l.Pad) / 2
	for k, sw := range sws {
		bx, by := r.Min.X+(k%2)*(bw+l.Pad), y+(k/2)*(l.ButtonH+l.Pad)
		v.button(image.Rect(bx, by, bx+bw, by+l.ButtonH), sw)
	}
	return y + (len(sws)+1)/2*(l.ButtonH+l.Pad)
}

// drawPlayerInfo draws player i's counters, switches and lagometer under
// its pane.
func (v *ClassroomView) drawPlayerInfo(screen *ebiten.Image, m *classroom.Model, i int) {
	l := &v.l
	p := m.Player(i)
	col := l.Info[2*i]
	x := float64(col.Min.X)
	y := float64(col.Min.Y)
	v.maxW = float64(col.Dx())
	defer func() { v.maxW = 0 }()
	fig := p.Figures()
	line := func(s string, c color.RGBA) {
		v.text(screen, s, x, y, c)
		y += float64(l.LineH)
	}
	if p.CGame() == nil {
		line(p.C.State().String()+"...", colDim)
	} else if fig.FrameSync {
		v.syncLines(&fig.Sync, fig.FrameCPU, line)
	} else {
		line("usercmd #"+itoa(fig.Cmd)+"  not acked: "+strconv.Itoa(fig.Unacked), colWhite)
		s := "server ran: older than 64"
		if fig.ServerCmd >= 0 {
			s = "server ran usercmd #" + itoa(fig.ServerCmd)
		}
		line(string(appendCPU(append(v.numBuf[:0], s...), fig.FrameCPU)), colWhite)
		late := strconv.FormatFloat(max(0, fig.SnapsBehind), 'f', 1, 64)
		if m.Predicting(i) {
			line("others "+late+" snaps late, you predicted", colWhite)
		} else {
			line("all drawn "+late+" snaps late", colWhite)
		}
		mc := colWhite
		if fig.Mispredictions > 0 {
			mc = colLow
		}
		line("mispredicted "+strconv.Itoa(fig.Mispredictions)+"  "+pingText(fig.Ping), mc)
	}
	sy := col.Min.Y + 4*l.LineH + l.Pad
	sws := m.Switches(2 * i)
	ly := v.switchGrid(col, sy, sws)
	if len(sws)%2 == 1 {
		// Beside the last switch (the carrier of reliable commands): the
		// carrier the connection is on, and on the acks carrier the loss
		// of its own packets as the client measures it.
		bw := (col.Dx() - l.Pad) / 2
		tx := float64(col.Min.X + bw + 2*l.Pad)
		ty := float64(sy+(len(sws)/2)*(l.ButtonH+l.Pad)) + float64(l.ButtonH-l.LineH)/2
		v.maxW = float64(col.Max.X) - tx
		v.text(screen, v.carrierText(p, i), tx, ty, colWhite)
		v.maxW = float64(col.Dx())
	}
	if cg := p.CGame(); cg != nil {
		lagdraw.Draw(screen, &cg.Lagometer, float32(x), float32(ly), float32(l.Lagom))
		tx := x + float64(l.Lagom+l.Pad)
		v.maxW = float64(col.Max.X) - tx
		lh := float64(l.Lagom) / 4
		for k, s := range [...]string{"lagometer: frames on top,", "blue interp., yellow extrap.;", "snapshots below: green", "ping, red lost"} {
			v.text(screen, s, tx, float64(ly)+float64(k)*lh, colDim)
		}
	}
}

// appendCPU appends a client's frame time ("  cpu 0.12 ms"), if measured.
func appendCPU(b []byte, d time.Duration) []byte {
	if d <= 0 {
		return b
	}
	return append(strconv.AppendFloat(append(b, "  cpu "...), float64(d)/1e6, 'f', 2, 64), " ms"...)
}

// syncLines writes a player's frame-sync counters in four lines: the
// frame its game is at, the last confirmed one and how many it runs
// ahead of it (yellow at the stall limit); the rollbacks a second and in
// all, and the client's frame time; the frames they ran again (the last one, all, the most at once);
// the stalls (red while stalling), the server's input lead and the hash
// checks (red on a mismatch).
func (v *ClassroomView) syncLines(f *classroom.SyncFigures, cpu time.Duration, line func(string, color.RGBA)) {
	st := &f.Stats
	c := colWhite
	if f.MaxPrediction > 0 && int(st.Ahead) >= f.MaxPrediction {
		c = colRollback
	}
	b := append(v.numBuf[:0], "frame "...)
	b = strconv.AppendInt(b, int64(st.Current), 10)
	b = append(b, " confirmed "...)
	b = strconv.AppendInt(b, int64(st.Confirmed), 10)
	b = append(b, " ahead "...)
	b = strconv.AppendInt(b, int64(st.Ahead), 10)
	line(string(b), c)
	b = append(b[:0], "rollbacks "...)
	if f.RollbacksPerSecond >= 0 {
		b = append(strconv.AppendInt(b, int64(f.RollbacksPerSecond), 10), "/s, "...)
	}
	b = append(strconv.AppendInt(b, int64(st.Rollbacks), 10), " in all"...)
	line(string(appendCPU(b, cpu)), colWhite)
	b = append(b[:0], "re-run: last "...)
	b = strconv.AppendInt(b, int64(f.LastRollback), 10)
	b = append(b, ", all "...)
	b = strconv.AppendInt(b, int64(st.Resimulated), 10)
	b = append(b, ", most "...)
	b = strconv.AppendInt(b, int64(st.MaxResimulated), 10)
	line(string(b), colWhite)
	c = colWhite
	if f.Stalling {
		c = colStall
	}
	b = append(b[:0], "stalls "...)
	b = strconv.AppendInt(b, int64(st.Stalls), 10)
	b = append(b, "  lead "...)
	b = strconv.AppendInt(b, int64(st.Lead), 10)
	if st.Mismatches > 0 {
		b = append(b, "  DESYNC at "...)
		b = strconv.AppendInt(b, int64(st.MismatchFrame), 10)
		c = colStall
	} else {
		b = append(b, "  hashes ok "...)
		b = strconv.AppendInt(b, int64(st.HashChecks), 10)
	}
	line(string(b), c)
	v.numBuf = b
}

// drawServerInfo draws the server's figures and switches under its pane.
func (v *ClassroomView) drawServerInfo(screen *ebiten.Image, m *classroom.Model) {
	l := &v.l
	col := l.Info[classroom.PaneServer]
	x, y := float64(col.Min.X), float64(col.Min.Y)
	v.maxW = float64(col.Dx())
	defer func() { v.maxW = 0 }()
	srv := m.Server()
	if srv == nil {
		return
	}
	fps := srv.Config().FPS
	if rs, newest, ok := srv.FrameSyncStats(); ok {
		// Frame sync: the frame the server closed last, what it did with
		// the inputs, and what it sent each player.
		v.text(screen, "frame "+itoa(newest)+", one every "+strconv.Itoa(1000/max(1, fps))+" ms", x, y, colWhite)
		y += float64(l.LineH)
		v.text(screen, "inputs late "+strconv.Itoa(rs.Late)+", repeated "+strconv.Itoa(rs.Repeats), x, y, colDim)
		y += float64(l.LineH)
		for i := range 2 {
			c := m.Counts(i, classroom.Down)
			v.text(screen, "P"+strconv.Itoa(i+1)+": "+utoa(c.FrameMessages)+" frames msgs, "+utoa(c.WholeStates)+" whole", x, y, colWhite)
			y += float64(l.LineH)
		}
	} else {
		v.text(screen, "server time "+itoa(m.ServerTime())+" ms", x, y, colWhite)
		y += float64(l.LineH)
		v.text(screen, "a frame every "+strconv.Itoa(1000/max(1, fps))+" ms", x, y, colDim)
		y += float64(l.LineH)
		for i := range 2 {
			p := m.Player(i)
			if p.CGame() == nil {
				continue
			}
			ci := srv.Client(int(p.C.ClientNum()))
			v.text(screen, "P"+strconv.Itoa(i+1)+": "+strconv.Itoa(ci.Usercmds)+" cmds run, "+strconv.Itoa(ci.Snapshots)+" snaps sent", x, y, colWhite)
			y += float64(l.LineH)
		}
	}
	y = float64(v.switchGrid(col, col.Min.Y+4*l.LineH+l.Pad, m.Switches(classroom.PaneServer)))
	for k, s := range v.reliableTable(m) {
		c := colWhite
		if k == 0 {
			c = colDim
		}
		v.text(screen, s, x, y, c)
		y += float64(l.LineH)
	}
}

// carrierText returns the counter beside player i's carrier switch: the
// carrier its connection is on ("q3: up loss unseen", "acks: up loss
// 21%"), or what it asked for while that is another. The string is
// made again only when it changes.
func (v *ClassroomView) carrierText(p *classroom.Player, i int) string {
	now, asked := p.Carrier()
	loss := -1
	if a := p.C.Acks(); a.On {
		loss = int(a.UpstreamLoss*100 + 0.5)
	}
	k := carrierKey{now, asked, loss, p.CGame() != nil}
	c := &v.carrier[i]
	if c.key == k && c.text != "" {
		return c.text
	}
	c.key = k
	switch {
	case !k.active:
		c.text = "asked " + asked + ", connecting"
	case now != asked:
		c.text = "asked " + asked + ", on " + now
	case loss >= 0:
		c.text = "acks: up loss " + strconv.Itoa(loss) + "%"
	default:
		c.text = "q3: up loss unseen"
	}
	return c.text
}

// carrierKey is what carrierText's string shows.
type carrierKey struct {
	now, asked string
	loss       int
	active     bool
}

// reliableTable returns the server pane's table of the two players'
// reliable commands, both ways summed, in columns: the carrier each is
// on, the commands sent first and again, their bytes and the packet
// acks', the delivery delay (first send to first arrival) and the time
// until the acknowledgement came back, means over the commands
// acknowledged. The lines are made again only when a figure changes.
func (v *ClassroomView) reliableTable(m *classroom.Model) []string {
	var k relTableKey
	for i := range 2 {
		k.now[i], _ = m.Player(i).Carrier()
		up, down := m.Counts(i, classroom.Up), m.Counts(i, classroom.Down)
		k.c[i] = [8]uint64{up.RelSent + down.RelSent, up.RelResent + down.RelResent,
			up.RelBytes + down.RelBytes, up.AckBytes + down.AckBytes,
			up.RelTimed + down.RelTimed, uint64(up.DelaySum + down.DelaySum),
			uint64(max(up.DelayMax, down.DelayMax)), up.RelAcked + down.RelAcked}
		k.ackSum[i] = up.AckSum + down.AckSum
	}
	t := &v.relTable
	if t.key == k && len(t.lines) > 0 {
		return t.lines
	}
	t.key = k
	t.lines = t.lines[:0]
	row := func(label string, cell func(i int, b []byte) []byte) {
		b := append(v.numBuf[:0], label...)
		for i := range 2 {
			for len(b) < 13+12*i {
				b = append(b, ' ')
			}
			b = cell(i, b)
		}
		v.numBuf = b
		t.lines = append(t.lines, string(b))
	}
	row("reliable", func(i int, b []byte) []byte {
		b = append(b, 'P', byte('1'+i), ' ')
		if k.now[i] == "q3" {
			return append(b, "q3 rings"...)
		}
		return append(b, k.now[i]...)
	})
	row("sent, again", func(i int, b []byte) []byte {
		return strconv.AppendUint(append(strconv.AppendUint(b, k.c[i][0], 10), '+'), k.c[i][1], 10)
	})
	row("cmd bytes", func(i int, b []byte) []byte { return appendBytes(b, k.c[i][2]) })
	row("packet acks", func(i int, b []byte) []byte {
		if k.c[i][3] == 0 {
			return append(b, '-')
		}
		return appendBytes(b, k.c[i][3])
	})
	ms := func(b []byte, d time.Duration) []byte {
		return append(strconv.AppendInt(b, d.Milliseconds(), 10), " ms"...)
	}
	row("delay mean", func(i int, b []byte) []byte {
		if k.c[i][4] == 0 {
			return append(b, '-')
		}
		return ms(b, time.Duration(k.c[i][5]/k.c[i][4]))
	})
	row("delay max", func(i int, b []byte) []byte { return ms(b, time.Duration(k.c[i][6])) })
	row("acked after", func(i int, b []byte) []byte {
		if k.c[i][7] == 0 {
			return append(b, '-')
		}
		return ms(b, k.ackSum[i]/time.Duration(k.c[i][7]))
	})
	return t.lines
}

// relTableKey is what reliableTable's lines show.
type relTableKey struct {
	now    [2]string
	c      [2][8]uint64
	ackSum [2]time.Duration
}

// appendBytes appends n bytes as "812 B", "41.2 kB" or "1.3 MB".
func appendBytes(b []byte, n uint64) []byte {
	switch {
	case n < 1000:
		return append(strconv.AppendUint(b, n, 10), " B"...)
	case n < 1000000:
		return append(strconv.AppendFloat(b, float64(n)/1000, 'f', 1, 64), " kB"...)
	}
	return append(strconv.AppendFloat(b, float64(n)/1e6, 'f', 1, 64), " MB"...)
}

// drawLaneInfo draws each lane's counts under it: its packets, and the
// bits a second of delta fields that player's connection sent that way
// (the sender's own count, never another connection's).
func (v *ClassroomView) drawLaneInfo(screen *ebiten.Image, m *classroom.Model) {
	l := &v.l
	v.maxW = float64(l.LaneInfo[0].Dx() - l.Pad)
	defer func() { v.maxW = 0 }()
	lh := float64(l.LineH)
	for i := range 2 {
		x := float64(l.LaneInfo[i].Min.X + l.Pad)
		y := float64(l.LaneInfo[i].Min.Y)
		up, down := m.Counts(i, classroom.Up), m.Counts(i, classroom.Down)
		name := "P" + strconv.Itoa(i+1)
		for _, d := range [...]struct {
			title string
			dir   classroom.Dir
			c     classroom.Counts
		}{{name + " -> server", classroom.Up, up}, {"server -> " + name, classroom.Down, down}} {
			v.text(screen, d.title, x, y, colWhite)
			y += lh
			lc := colDim
			if d.c.Lost > 0 {
				lc = colLost
			}
			v.text(screen, "sent "+utoa(d.c.Sent)+" lost "+utoa(d.c.Lost), x, y, lc)
			y += lh
			nb := strconv.AppendUint(append(v.numBuf[:0], "dup "...), d.c.Duplicated, 10)
			v.numBuf = appendBytes(append(nb, ' ', ' '), d.c.Bytes)
			v.text(screen, string(v.numBuf), x, y, colDim)
			y += lh
			if bits, ok := m.FieldBits(i, d.dir); ok {
				rate := appendRate(v.numBuf[:0], bits)
				if rate[len(rate)-1] != 'k' {
					rate = append(rate, ' ')
				}
				v.numBuf = append(rate, "bit/s"...)
				v.text(screen, "fields "+string(v.numBuf), x, y, colDim)
			}
			y += lh
		}
	}
}

// classroomHints are the panel's lines while no packet is selected.
var classroomHints = []string{
	"Click a packet in a lane (or type  inspect last  in the console) to see it decoded field by field.",
	"P1: A and D run, W jumps, S drops, F fires.  P2: the arrows, Enter fires (or a bot).",
	"P pauses, [ ] slow down / speed up, . steps one frame.  netmodel framesync: the same game in frame sync, with rollback.",
	"Every switch is a console command aimed at one pane:  p1 cl_nopredict 1,  p2 lag 200,  sv sv_fps 10,  slowmo 0.1.",
	"A mark is a packet, its size its bytes; it crosses the lane in its delay. Lost: it falls out. Duplicated: it splits.",
	"Orange ring: overtaken. A yellow dot: a reliable command's first send; a yellow ring: sent again (q3 rings: in every packet until acknowledged;",
	"acks carrier: after the resend interval). A white tick: the packet acknowledges the other way's commands. p1 cl_reliable acks switches P1.",
}

// drawPanel draws the packet inspector panel at the bottom, or the
// hints: the decoded packet in two columns, its long lines wrapped, from
// the model's panel line on, with switches to scroll it.
func (v *ClassroomView) drawPanel(screen *ebiten.Image, m *classroom.Model, l *view.Classroom) {
	r := l.Panel
	if r.Dy() < 2*l.LineH {
		return
	}
	b := &v.b
	b.rect(float32(r.Min.X), float32(r.Min.Y), float32(r.Dx()), float32(r.Dy()), rgbaOf(colPanel, 0.85))
	b.flush(screen)
	x, y := float64(r.Min.X+2*l.Pad), float64(r.Min.Y+l.Pad)
	lh := float64(l.LineH)
	v.maxW = float64(r.Dx() - 4*l.Pad)
	defer func() { v.maxW = 0 }()
	e, ok := m.Event(v.selected)
	if v.selected == 0 || !ok {
		for _, s := range classroomHints {
			if y+lh > float64(r.Max.Y) {
				break
			}
			v.text(screen, s, x, y, colWhite)
			y += lh
		}
		return
	}
	colW := float64(r.Dx()-4*l.Pad-2*l.Pad) / 2
	cols := max(8, int(colW/v.tp.advance)-1)
	if v.sel.id != e.ID || v.sel.late != e.Late() || v.sel.copies != e.Copies || v.sel.cols != cols || len(v.sel.lines) == 0 {
		v.sel.id, v.sel.late, v.sel.copies, v.sel.cols = e.ID, e.Late(), e.Copies, cols
		v.sel.lines = view.Wrap(v.sel.lines[:0], strings.Split(strings.TrimRight(classroom.Describe(e), "\n"), "\n")[1:], cols)
	}
	// The headline, and at its right which lines show and the scroll
	// switches.
	rows := max(1, (r.Max.Y-l.Pad-int(y+lh))/l.LineH)
	page := 2 * rows
	first := min(m.PanelLine(), max(0, len(v.sel.lines)-page))
	last := min(len(v.sel.lines), first+page)
	bw := int(v.tp.advance)*8 + l.Pad
	bh := min(l.ButtonH, l.LineH)
	bx := r.Max.X - 2*l.Pad - 2*bw - l.Pad
	v.button(image.Rect(bx, int(y), bx+bw, int(y)+bh), classroom.Switch{Label: "up", On: first > 0, Lines: []string{"inspect scroll " + strconv.Itoa(max(0, first-page))}})
	v.button(image.Rect(bx+bw+l.Pad, int(y), bx+2*bw+l.Pad, int(y)+bh), classroom.Switch{Label: "down", On: last < len(v.sel.lines), Lines: []string{"inspect scroll " + strconv.Itoa(first+page)}})
	shown := strconv.Itoa(first+1) + "-" + strconv.Itoa(last) + " of " + strconv.Itoa(len(v.sel.lines))
	sw, _ := v.tp.size(shown)
	v.maxW = 0
	v.right(screen, shown, float64(bx-l.Pad), y, colDim)
	v.maxW = float64(bx-2*l.Pad) - sw - x
	v.text(screen, classroom.Headline(e), x, y, PacketColour(e.Kind))
	v.maxW = 0
	y += lh
	for k, s := range v.sel.lines[first:last] {
		c := k / rows
		v.text(screen, s, x+float64(c)*(colW+float64(2*l.Pad)), y+float64(k%rows)*lh, colWhite)
	}
}

// button records a switch and its box, drawn by drawButtons.
func (v *ClassroomView) button(r image.Rectangle, sw classroom.Switch) {
	v.buttons = append(v.buttons, classButton{rect: r, sw: sw})
}

// drawButtons draws the switches recorded this frame, the one under the
// cursor highlighted.
func (v *ClassroomView) drawButtons(screen *ebiten.Image, f *ClassroomFrame) {
	b := &v.b
	cur := image.Pt(f.CursorX, f.CursorY)
	for _, bt := range v.buttons {
		c := colButton
		if bt.sw.On {
			c = colButtonOn
		}
		if cur.In(bt.rect) {
			c = colButtonHot
		}
		r := bt.rect
		b.rect(float32(r.Min.X), float32(r.Min.Y), float32(r.Dx()), float32(r.Dy()), rgbaOf(c, 1))
	}
	b.flush(screen)
	for _, bt := range v.buttons {
		r := bt.rect
		v.maxW = float64(r.Dx() - 4)
		v.centre(screen, bt.sw.Label, float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2, colWhite)
	}
	v.maxW = 0
}

// text draws s with its top-left corner at (x, y), without a shadow,
// cut to the column being drawn.
func (v *ClassroomView) text(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	if v.maxW > 0 {
		s = v.tp.fit(s, v.maxW)
	}
	v.tp.plain(screen, s, x, y, c)
}

// centre draws s centred on (x, y), without a shadow.
func (v *ClassroomView) centre(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	if v.maxW > 0 {
		s = v.tp.fit(s, v.maxW)
	}
	w, h := v.tp.size(s)
	v.tp.plain(screen, s, x-w/2, y-h/2, c)
}

// right draws s with its top-right corner at (x, y), without a shadow.
func (v *ClassroomView) right(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	w, _ := v.tp.size(s)
	v.tp.plain(screen, s, x-w, y, c)
}

// pingText returns a pane's ping: the mean of the newest snapshots'
// pings and, when they differ, the least and the most of them ("ping 412
// ms (403-422)").
func pingText(p client.Ping) string {
	if p.Samples == 0 {
		return "ping -"
	}
	s := "ping " + strconv.Itoa(int(p.Mean+0.5)) + " ms"
	if p.Low != p.High {
		s += " (" + itoa(p.Low) + "-" + itoa(p.High) + ")"
	}
	return s
}

func itoa(n int32) string  { return strconv.Itoa(int(n)) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }
