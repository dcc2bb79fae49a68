package draw

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/classroom"
	"tremor/client"
	lagdraw "tremor/lagometer/draw"
)

// This file draws the classroom view (docs/classroom.md): three panes —
// Player 1, the server's authoritative world, Player 2 — with a lane
// between each player and the server where every packet travels as a
// mark over its simulated delay, each pane's counters, lagometer and
// switches, and a panel with the packet clicked decoded field by field.

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
	// The players' colours, the same in every pane and run whatever
	// their client numbers; bots are blue.
	classColours = [3]color.RGBA{{0x40, 0xe0, 0x60, 0xff}, {0xff, 0x60, 0x60, 0xff}, {0x60, 0x90, 0xff, 0xff}}
)

// ClassroomFrame is what one ClassroomView.Draw shows besides the model.
type ClassroomFrame struct {
	CursorX, CursorY int
	// Keys says which keys play P1 and P2, for the hint line.
	Keys [2]string
}

// ClassroomView draws a classroom.Model and answers where the mouse
// clicked: a switch (ClassroomView.Click) or a packet (PacketAt). It keeps
// the map's tiles pre-rendered and the last frame's marks and buttons.
// Not safe for concurrent use.
type ClassroomView struct {
	r *Renderer // its text
	b batch

	tiles      *ebiten.Image
	tilesMap   *tilemap.Map
	tilesW     int
	tilesH     int
	tileOp     ebiten.DrawImageOptions
	marks      []packetMark
	buttons    []classButton
	selLines   []string
	selFor     uint64
	selLate    bool
	selCopies  int
	numBuf     []byte
	lastLayout classroomLayout
	selected   uint64  // this frame's m.Selected()
	maxW       float64 // when > 0, text is cut to this width: the column being drawn
}

// packetMark is a packet drawn in a lane, for PacketAt.
type packetMark struct {
	id      uint64
	x, y, r float32
}

// classButton is a switch drawn this frame: its box, its label and the
// console lines a click runs.
type classButton struct {
	rect  image.Rectangle
	label string
	on    bool
	lines []string
}

// NewClassroomView returns a view with no map drawn yet.
func NewClassroomView() *ClassroomView {
	return &ClassroomView{r: New(nil), numBuf: make([]byte, 0, 32)}
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
			return b.lines, true
		}
	}
	return nil, false
}

// classroomLayout is where everything goes on a w×h screen.
type classroomLayout struct {
	w, h       int
	paneW      int
	laneW      int
	worldTop   int
	worldH     int
	infoTop    int
	panelTop   int
	paneX      [3]int // P1, server, P2
	laneX      [2]int // P1's lane, P2's lane
	scale      float64
	mapW, mapH int
}

const (
	classHeaderH = 28
	classLabelH  = 18
	classLineH   = 15
)

func layoutClassroom(w, h int, m *tilemap.Map) classroomLayout {
	l := classroomLayout{w: w, h: h, mapW: 40 * tilemap.TileSize, mapH: 22 * tilemap.TileSize}
	if m != nil {
		l.mapW, l.mapH = m.Width*tilemap.TileSize, m.Height*tilemap.TileSize
	}
	l.laneW = w * 13 / 100
	l.paneW = (w - 2*l.laneW - 8) / 3
	l.paneX = [3]int{4, 4 + l.paneW + l.laneW, 4 + 2*(l.paneW+l.laneW)}
	l.laneX = [2]int{4 + l.paneW, 4 + 2*l.paneW + l.laneW}
	l.scale = float64(l.paneW) / float64(l.mapW)
	l.worldTop = classHeaderH + classLabelH
	l.worldH = int(float64(l.mapH) * l.scale)
	if maxH := h * 40 / 100; l.worldH > maxH {
		l.worldH = maxH
		l.scale = float64(maxH) / float64(l.mapH)
	}
	l.infoTop = l.worldTop + l.worldH + 6
	l.panelTop = l.infoTop + 4*classLineH + 4*24 + 96 + 8
	return l
}

// Draw draws the classroom on screen.
func (v *ClassroomView) Draw(screen *ebiten.Image, m *classroom.Model, f *ClassroomFrame) {
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	screen.Fill(colBackground)
	mp := m.Map()
	l := layoutClassroom(w, h, mp)
	v.lastLayout = l
	v.buttons = v.buttons[:0]
	v.marks = v.marks[:0]
	v.selected = m.Selected()
	v.drawHeader(screen, m, l)
	v.r.m = mp
	for pane := range 3 {
		v.drawWorld(screen, m, l, pane, mp)
	}
	v.drawLanes(screen, m, l)
	for i := range 2 {
		v.drawPlayerInfo(screen, m, l, i, f)
	}
	v.drawServerInfo(screen, m, l)
	v.drawLaneInfo(screen, m, l)
	v.drawLegend(screen, l)
	v.drawPanel(screen, m, l, f)
	v.drawButtons(screen, f)
}

// drawHeader draws the title, the clock and its switches.
func (v *ClassroomView) drawHeader(screen *ebiten.Image, m *classroom.Model, l classroomLayout) {
	b := &v.b
	b.rect(0, 0, float32(l.w), classHeaderH, rgbaOf(colPanel, 0.9))
	b.flush(screen)
	state := "running"
	if m.Paused() {
		state = "PAUSED"
	}
	v.text(screen, "CLASSROOM  virtual time "+strconv.FormatFloat(m.Now().Seconds(), 'f', 2, 64)+" s  "+state, 8, 7, colWhite)
	x := 360
	speeds := []float64{1, 0.5, 0.25, 0.1, 0.05}
	next := speeds[0]
	for i, s := range speeds {
		if m.Speed() >= s-1e-9 {
			next = speeds[(i+1)%len(speeds)]
			break
		}
	}
	v.button(image.Rect(x, 4, x+130, 24), "speed "+strconv.FormatFloat(m.Speed(), 'g', 2, 64)+"x", m.Speed() < 1, "slowmo "+strconv.FormatFloat(next, 'g', 2, 64))
	x += 136
	label := "pause"
	if m.Paused() {
		label = "resume"
	}
	v.button(image.Rect(x, 4, x+80, 24), label, m.Paused(), "pause")
	x += 86
	v.button(image.Rect(x, 4, x+100, 24), "step 1 frame", false, "step")
}

// drawLegend draws the packet kinds' colours in two columns, under the
// lanes' counts.
func (v *ClassroomView) drawLegend(screen *ebiten.Image, l classroomLayout) {
	b := &v.b
	y0 := l.infoTop + 6*classLineH + 16
	x, y := l.laneX[0]+8, y0
	n := 0
	for k := classroom.Kind(0); k < classroom.NumKinds; k++ {
		if k == classroom.KindOther {
			continue
		}
		if n == 4 {
			x, y = l.laneX[1]+8, y0
		}
		n++
		b.circle(float32(x+5), float32(y+7), 5, rgbaOf(PacketColour(k), 1))
		label := k.String()
		if k == classroom.KindReliable {
			// Also the dot in a mark that carries commands besides.
			label = "reliable (dot)"
		}
		b.flush(screen)
		v.text(screen, label, float64(x+14), float64(y), colDim)
		y += classLineH
	}
	b.circle(float32(x+5), float32(y+7), 5, rgbaOf(colDim, 1))
	b.line(float32(x+1), float32(y+3), float32(x+9), float32(y+11), 2, rgbaOf(colLost, 1))
	b.line(float32(x+1), float32(y+11), float32(x+9), float32(y+3), 2, rgbaOf(colLost, 1))
	b.flush(screen)
	v.text(screen, "lost", float64(x+14), float64(y), colDim)
	y += classLineH
	b.ring(float32(x+5), float32(y+7), 6, 2, rgbaOf(colLate, 1))
	b.flush(screen)
	v.text(screen, "overtaken", float64(x+14), float64(y), colDim)
}

// paneTitle returns the label over a pane.
func paneTitle(m *classroom.Model, pane int) string {
	if pane == 1 {
		return "SERVER: authoritative, at sv_fps"
	}
	i := pane / 2
	t := m.Player(i).T
	s := "PLAYER " + strconv.Itoa(i+1) + ": "
	if t.Get("cl_nopredict").Bool() {
		s += "no prediction"
	} else {
		s += "prediction"
	}
	up, down := t.Get("cl_packetdelay").Int(), t.Get("sv_packetdelay").Int()
	switch {
	case up == down && up > 0:
		s += ", " + strconv.Itoa(up) + " ms each way"
	case up != down:
		s += ", " + strconv.Itoa(up) + "/" + strconv.Itoa(down) + " ms"
	}
	return s
}

// drawWorld draws one pane's world: 0 P1's cgame, 1 the server's state,
// 2 P2's cgame.
func (v *ClassroomView) drawWorld(screen *ebiten.Image, m *classroom.Model, l classroomLayout, pane int, mp *tilemap.Map) {
	x0, y0 := float32(l.paneX[pane]), float32(l.worldTop)
	v.maxW = float64(l.paneW)
	defer func() { v.maxW = 0 }()
	tc := colWhite
	if pane != 1 {
		tc = classColours[pane/2]
	}
	v.text(screen, paneTitle(m, pane), float64(x0), float64(classHeaderH+3), tc)
	b := &v.b
	b.rect(x0, y0, float32(l.paneW), float32(l.worldH), rgbaOf(colPaneBack, 1))
	b.flush(screen)
	if mp == nil {
		v.text(screen, "connecting...", float64(x0)+8, float64(y0)+8, colDim)
		return
	}
	v.drawTiles(screen, l, mp, x0, y0)
	s := float32(l.scale)
	toPane := func(ux, uy int32) (float32, float32) {
		return x0 + float32(ux)/bg.UnitsPerPixel*s, y0 + float32(uy)/bg.UnitsPerPixel*s
	}
	p1, p2 := m.Player(0), m.Player(1)
	nums := [2]int32{-1, -1}
	for i, p := range [...]*classroom.Player{p1, p2} {
		if p.CGame() != nil {
			nums[i] = p.C.ClientNum()
		}
	}
	who := func(num int32) int {
		switch num {
		case nums[0]:
			return 0
		case nums[1]:
			return 1
		}
		return 2
	}
	labels := [3]string{"P1", "P2", "bot"}
	player := func(ux, uy int32, aim int32, num int32, dead, outline bool, alpha float32) {
		x, y := toPane(ux, uy)
		hw, hh := max(12*s, 4), max(22*s, 8) // at least 8×16 pixels
		c := classColours[who(num)]
		if dead {
			c = colDead
		}
		if outline {
			b.line(x-hw, y-hh, x+hw, y-hh, 1, rgbaOf(colWhite, alpha))
			b.line(x+hw, y-hh, x+hw, y+hh, 1, rgbaOf(colWhite, alpha))
			b.line(x+hw, y+hh, x-hw, y+hh, 1, rgbaOf(colWhite, alpha))
			b.line(x-hw, y+hh, x-hw, y-hh, 1, rgbaOf(colWhite, alpha))
			return
		}
		b.rect(x-hw-1, y-hh-1, 2*hw+2, 2*hh+2, rgbaOf(colShadow, alpha))
		b.rect(x-hw, y-hh, 2*hw, 2*hh, rgbaOf(c, alpha))
		a := float64(aim) / 65536 * 2 * math.Pi
		b.line(x, y-hh/3, x+float32(math.Cos(a))*hw*2, y-hh/3+float32(math.Sin(a))*hw*2, 1.5, rgbaOf(colWhite, alpha))
	}
	var tags [bg.MaxClients + 1]struct {
		x, y float32
		num  int32
	}
	ntags := 0
	tag := func(ux, uy int32, num int32) {
		if ntags < len(tags) {
			x, y := toPane(ux, uy)
			y -= max(22*s, 8) + 10
			// Players side by side: stack their names instead of
			// writing one over the other.
			for moved := true; moved; {
				moved = false
				for k := range ntags {
					if dx, dy := tags[k].x-x, tags[k].y-y; dx > -24 && dx < 24 && dy > -12 && dy < 12 {
						y, moved = tags[k].y-12, true
					}
				}
			}
			tags[ntags].x, tags[ntags].y, tags[ntags].num = x, y, num
			ntags++
		}
	}
	if pane == 1 {
		t := m.ServerTime()
		for _, es := range m.ServerEntities() {
			switch es.EType {
			case bg.ETItem:
				if es.EFlags&bg.EFNoDraw == 0 {
					x, y := toPane(es.Pos.Base.X, es.Pos.Base.Y)
					b.rect(x-3, y-3, 6, 6, rgbaOf(colDim, 1))
				}
			case bg.ETMissile:
				pos := es.Pos.Evaluate(t)
				x, y := toPane(pos.X, pos.Y)
				b.circle(x, y, 3, rgbaOf(colExplosion, 1))
			}
		}
		for _, sp := range m.ServerPlayers() {
			if sp.PS.PmType == bg.PMSpectator || sp.PS.PmType == bg.PMIntermission {
				continue
			}
			player(sp.PS.Origin.X, sp.PS.Origin.Y, sp.PS.Aim, int32(sp.Num), sp.PS.PmType == bg.PMDead, false, 1)
			tag(sp.PS.Origin.X, sp.PS.Origin.Y, int32(sp.Num))
		}
	} else {
		p := p1
		if pane == 2 {
			p = p2
		}
		cg := p.CGame()
		if cg == nil || cg.Snap == nil {
			b.flush(screen)
			v.text(screen, p.C.State().String()+"...", float64(x0)+8, float64(y0)+8, colDim)
			return
		}
		for _, ce := range cg.Entities {
			es := &ce.Current
			ux, uy := int32(ce.Lerp.X), int32(ce.Lerp.Y)
			switch es.EType {
			case bg.ETItem:
				if es.EFlags&bg.EFNoDraw == 0 {
					x, y := toPane(ux, uy)
					b.rect(x-3, y-3, 6, 6, rgbaOf(colDim, 1))
				}
			case bg.ETMissile:
				x, y := toPane(ux, uy)
				b.circle(x, y, 3, rgbaOf(colExplosion, 1))
			case bg.ETPlayer:
				player(ux, uy, es.Aim, es.ClientNum, es.EFlags&bg.EFDead != 0, false, 1)
				tag(ux, uy, es.ClientNum)
			}
		}
		// The server's idea of this player: an outline where the server
		// has it now, beside where this client draws it.
		self := p.C.ClientNum()
		for _, sp := range m.ServerPlayers() {
			if int32(sp.Num) == self {
				player(sp.PS.Origin.X, sp.PS.Origin.Y, 0, self, false, true, 0.8)
			}
		}
		ps := &cg.Predicted
		ux, uy := int32(cg.DrawnOrigin.X), int32(cg.DrawnOrigin.Y)
		player(ux, uy, ps.Aim, self, ps.PmType == bg.PMDead, false, 1)
		tag(ux, uy, self)
	}
	b.flush(screen)
	for i := range ntags {
		t := &tags[i]
		k := who(t.num)
		// Shadowed: over the world, not a dark panel.
		v.r.centreText(screen, labels[k], float64(t.x), float64(t.y), 1, classColours[k])
	}
	if pane != 1 {
		v.text(screen, "white outline: where the server has you now", float64(x0)+4, float64(y0)+float64(l.worldH)-16, colDim)
	} else {
		v.text(screen, "no prediction, no interpolation", float64(x0)+4, float64(y0)+float64(l.worldH)-16, colDim)
	}
}

// drawTiles draws the map's tiles, pre-rendered once per map and size.
func (v *ClassroomView) drawTiles(screen *ebiten.Image, l classroomLayout, mp *tilemap.Map, x0, y0 float32) {
	if v.tiles == nil || v.tilesMap != mp || v.tilesW != l.paneW || v.tilesH != l.worldH {
		if v.tiles != nil {
			v.tiles.Deallocate()
		}
		v.tiles = ebiten.NewImage(max(1, l.paneW), max(1, l.worldH))
		v.tilesMap, v.tilesW, v.tilesH = mp, l.paneW, l.worldH
		b := &v.b
		ts := float32(tilemap.TileSize) * float32(l.scale)
		for ty := range mp.Height {
			for tx := range mp.Width {
				x, y := float32(tx)*ts, float32(ty)*ts
				switch mp.At(tx, ty) {
				case tilemap.Solid:
					b.rect(x, y, ts+0.5, ts+0.5, rgbaOf(colSolid, 1))
				case tilemap.Platform:
					b.rect(x, y, ts+0.5, max(2, ts/4), rgbaOf(colPlatform, 1))
				case tilemap.Lava:
					b.rect(x, y, ts+0.5, ts+0.5, rgbaOf(colLava, 1))
				}
			}
		}
		for _, pad := range mp.Pads {
			b.rect(float32(pad.At.X)*ts, float32(pad.At.Y+1)*ts-3, ts, 3, rgbaOf(colPad, 1))
		}
		for _, tp := range mp.Teleporters {
			b.ring(float32(tp.At.X)*ts+ts/2, float32(tp.At.Y)*ts+ts/2, ts/2, 1.5, rgbaOf(colTeleporter, 1))
		}
		b.flush(v.tiles)
	}
	op := &v.tileOp
	op.GeoM.Reset()
	op.GeoM.Translate(float64(x0), float64(y0))
	screen.DrawImage(v.tiles, op)
}

// drawLanes draws the two lanes and every packet in them.
func (v *ClassroomView) drawLanes(screen *ebiten.Image, m *classroom.Model, l classroomLayout) {
	b := &v.b
	top, hgt := float32(l.worldTop), float32(l.worldH)
	half := hgt / 2
	for i := range 2 {
		x := float32(l.laneX[i])
		b.rect(x+2, top, float32(l.laneW)-4, hgt, rgbaOf(colPaneBack, 0.6))
		b.line(x+2, top+half, x+float32(l.laneW)-2, top+half, 1, rgbaOf(colDim, 0.4))
	}
	b.flush(screen)
	for i := range 2 {
		x := float64(l.laneX[i]) + 6
		if i == 0 {
			v.text(screen, "P1 -> server", x, float64(top)+2, colDim)
			v.text(screen, "P1 <- server", x, float64(top+hgt)-15, colDim)
		} else {
			v.right(screen, "server <- P2", float64(l.laneX[i]+l.laneW)-6, float64(top)+2, colDim)
			v.right(screen, "server -> P2", float64(l.laneX[i]+l.laneW)-6, float64(top+hgt)-15, colDim)
		}
	}
	for i := range 2 {
		t := m.Player(i).T
		cx := float64(l.laneX[i]) + float64(l.laneW)/2
		for k, name := range [...]string{"cl_packet", "sv_packet"} {
			s := strconv.Itoa(t.Get(name+"delay").Int()) + " ms"
			if loss := t.Get(name + "loss").Float(); loss > 0 {
				s += ", " + strconv.FormatFloat(loss, 'g', 3, 64) + "% lost"
			}
			y := float64(top) + float64(half)*float64(k) + float64(half)/2
			v.centre(screen, s, cx, y, fade(colDim, 0.5))
		}
	}
	now := m.Now()
	const rows = 6
	rowH := (half - 22) / rows
	m.Events(ClassroomLinger, func(e *classroom.Event) {
		left, right := float32(l.laneX[e.Player])+8, float32(l.laneX[e.Player]+l.laneW)-8
		from, to := left, right // P1's uplink goes right, to the server
		if (e.Player == 1) == (e.Dir == classroom.Up) {
			from, to = right, left
		}
		row := float32(e.ID % rows)
		if e.Netchan {
			row = float32(e.Sequence % rows)
		}
		y := top + 18 + row*rowH + rowH/2
		if e.Dir == classroom.Down {
			y = top + half + 4 + row*rowH + rowH/2
		}
		r := float32(3 + math.Sqrt(float64(e.Bytes))/3)
		r = min(r, rowH/2+3, 14)
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
				yy += k * k * 60
				a = 1 - k
			}
			v.mark(x, yy, r, c, a, sel, false, e.Reliable && e.Kind != classroom.KindReliable, e.ID)
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
			v.mark(x, yy, rr, c, a, sel, e.Late(), e.Reliable && e.Kind != classroom.KindReliable, e.ID)
		}
	})
	b.flush(screen)
}

// mark draws one packet and remembers it for PacketAt. A packet that
// also carries reliable commands (a snapshot or usercmds with a command
// riding along) has a dot of the reliable colour in its middle.
func (v *ClassroomView) mark(x, y, r float32, c color.RGBA, a float32, selected, late, reliable bool, id uint64) {
	b := &v.b
	b.circle(x, y, r+1, rgbaOf(colShadow, a*0.8))
	b.circle(x, y, r, rgbaOf(c, a))
	if reliable {
		b.circle(x, y, max(2, r*0.45), rgbaOf(PacketColour(classroom.KindReliable), a))
	}
	if late {
		b.ring(x, y, r+2, 2, rgbaOf(colLate, a))
	}
	if selected {
		b.ring(x, y, r+4, 2, rgbaOf(colWhite, 1))
	}
	v.marks = append(v.marks, packetMark{id: id, x: x, y: y, r: r})
}

// drawPlayerInfo draws player i's counters, switches and lagometer under
// its pane.
func (v *ClassroomView) drawPlayerInfo(screen *ebiten.Image, m *classroom.Model, l classroomLayout, i int, f *ClassroomFrame) {
	p := m.Player(i)
	x := l.paneX[2*i]
	y := float64(l.infoTop)
	v.maxW = float64(l.paneW - 2)
	defer func() { v.maxW = 0 }()
	fig := p.Figures()
	line := func(s string, c color.RGBA) {
		v.text(screen, s, float64(x)+2, y, c)
		y += classLineH
	}
	if p.CGame() == nil {
		line(p.C.State().String()+"...", colDim)
	} else {
		line("usercmd #"+itoa(fig.Cmd)+"   not yet acked: "+strconv.Itoa(fig.Unacked), colWhite)
		if fig.ServerCmd >= 0 {
			line("last usercmd the server ran: #"+itoa(fig.ServerCmd), colWhite)
		} else {
			line("last usercmd the server ran: (older than 64)", colWhite)
		}
		late := strconv.FormatFloat(max(0, fig.SnapsBehind), 'f', 1, 64)
		if p.T.Get("cl_nopredict").Bool() {
			line("you and others drawn "+late+" snaps late", colWhite)
		} else {
			line("others drawn "+late+" snaps late; you: predicted", colWhite)
		}
		mc := colWhite
		if fig.Mispredictions > 0 {
			mc = colLow
		}
		line("mispredictions "+strconv.Itoa(fig.Mispredictions)+"  "+pingText(fig.Ping), mc)
	}
	y = float64(l.infoTop + 4*classLineH + 2)
	t := p.T
	pfx := "p" + strconv.Itoa(i+1) + " "
	bw := (l.paneW - 6) / 2
	col := [2]int{x, x + bw + 6}
	row := 0
	add := func(label string, on bool, lines ...string) {
		bx, by := col[row%2], int(y)+(row/2)*24
		v.button(image.Rect(bx, by, bx+bw, by+20), label, on, lines...)
		row++
	}
	np := t.Get("cl_nopredict").Bool()
	add("prediction "+onOff(!np), !np, pfx+"toggle cl_nopredict")
	ed := t.Get("cg_errorDecay").Int()
	add("error decay "+strconv.Itoa(ed)+" ms", ed > 0, pfx+"cg_errorDecay "+strconv.Itoa(nextOf([]int{0, 100, 500}, ed)))
	tn := t.Get("cl_timeNudge").Int()
	add("time nudge "+strconv.Itoa(tn)+" ms", tn != 0, pfx+"cl_timeNudge "+strconv.Itoa(nextOf([]int{0, 15, 30, -15}, tn)))
	an := t.Get("cl_autoNudge").Bool()
	add("auto nudge "+onOff(an), an, pfx+"toggle cl_autoNudge")
	lag := t.Get("cl_packetdelay").Int()
	down := t.Get("sv_packetdelay").Int()
	lagLabel := "lag " + strconv.Itoa(lag) + " ms each way"
	if lag != down {
		lagLabel = "lag " + strconv.Itoa(lag) + " up " + strconv.Itoa(down) + " down"
	}
	add(lagLabel, lag+down > 0, pfx+"lag "+strconv.Itoa(nextOf([]int{0, 50, 100, 200, 300}, lag)))
	loss := int(t.Get("cl_packetloss").Float())
	add("loss "+strconv.Itoa(loss)+" % each way", loss > 0 || t.Get("sv_packetloss").Float() > 0, pfx+"loss "+strconv.Itoa(nextOf([]int{0, 5, 10, 25}, loss)))
	bot := t.Get("cl_bot").Bool()
	driver := "keys " + f.Keys[i]
	if bot {
		driver = "played by a bot"
	}
	add(driver, bot, pfx+"toggle cl_bot")
	dup := int(t.Get("cl_packetduplicate").Float())
	add("duplicate "+strconv.Itoa(dup)+" %", dup > 0, pfx+"dup "+strconv.Itoa(nextOf([]int{0, 10, 25}, dup)))
	ly := float32(int(y) + 4*24 + 2)
	if cg := p.CGame(); cg != nil {
		lagdraw.Draw(screen, &cg.Lagometer, float32(x), ly, 88)
		v.maxW = float64(l.paneW - 96)
		v.text(screen, "lagometer", float64(x)+94, float64(ly), colDim)
		v.text(screen, "top: frames", float64(x)+94, float64(ly)+15, colDim)
		v.text(screen, " blue interpolated,", float64(x)+94, float64(ly)+30, colDim)
		v.text(screen, " yellow extrapolated", float64(x)+94, float64(ly)+45, colDim)
		v.text(screen, "bottom: snapshots", float64(x)+94, float64(ly)+60, colDim)
		v.text(screen, " green ping, red lost", float64(x)+94, float64(ly)+75, colDim)
	}
}

// drawServerInfo draws the server's figures and switches under its pane.
func (v *ClassroomView) drawServerInfo(screen *ebiten.Image, m *classroom.Model, l classroomLayout) {
	x := l.paneX[1]
	y := float64(l.infoTop)
	v.maxW = float64(l.paneW - 2)
	defer func() { v.maxW = 0 }()
	srv := m.Server()
	if srv == nil {
		return
	}
	fps := srv.Config().FPS
	v.text(screen, "server time "+itoa(m.ServerTime())+" ms, a frame every "+strconv.Itoa(1000/max(1, fps))+" ms", float64(x)+2, y, colWhite)
	y += classLineH
	snaps := m.Player(0).T.Get("snaps").Int()
	v.text(screen, "runs the usercmds that came, sends snapshots", float64(x)+2, y, colDim)
	y += classLineH
	for i := range 2 {
		p := m.Player(i)
		if p.CGame() == nil {
			continue
		}
		ci := srv.Client(int(p.C.ClientNum()))
		v.text(screen, "P"+strconv.Itoa(i+1)+": "+strconv.Itoa(ci.Usercmds)+" usercmds run, "+strconv.Itoa(ci.Snapshots)+" snapshots sent", float64(x)+2, y, colWhite)
		y += classLineH
	}
	y = float64(l.infoTop + 4*classLineH + 2)
	bw := (l.paneW - 6) / 2
	v.button(image.Rect(x, int(y), x+bw, int(y)+20), "sv_fps "+strconv.Itoa(fps), fps != 20, "sv sv_fps "+strconv.Itoa(nextOf([]int{20, 10, 40}, fps)))
	ns := strconv.Itoa(nextOf([]int{20, 10, 40}, snaps))
	v.button(image.Rect(x+bw+6, int(y), x+2*bw+6, int(y)+20), "snaps "+strconv.Itoa(snaps), snaps != 20, "p1 snaps "+ns, "p2 snaps "+ns)
}

// drawLaneInfo draws each lane's counts under it: its packets, and the
// bits a second of delta fields that player's connection sent that way
// (the sender's own count, never another connection's).
func (v *ClassroomView) drawLaneInfo(screen *ebiten.Image, m *classroom.Model, l classroomLayout) {
	v.maxW = float64(l.laneW - 8)
	defer func() { v.maxW = 0 }()
	for i := range 2 {
		x := float64(l.laneX[i]) + 6
		y := float64(l.infoTop)
		up, down := m.Counts(i, classroom.Up), m.Counts(i, classroom.Down)
		name := "P" + strconv.Itoa(i+1)
		for _, d := range [...]struct {
			title string
			dir   classroom.Dir
			c     classroom.Counts
		}{{name + " -> server", classroom.Up, up}, {"server -> " + name, classroom.Down, down}} {
			v.text(screen, d.title, x, y, colWhite)
			y += classLineH
			v.text(screen, "sent "+utoa(d.c.Sent), x, y, colDim)
			y += classLineH
			lc := colDim
			if d.c.Lost > 0 {
				lc = colLost
			}
			v.text(screen, "lost "+utoa(d.c.Lost)+" dup "+utoa(d.c.Duplicated), x, y, lc)
			y += classLineH
			if bits, ok := m.FieldBits(i, d.dir); ok {
				v.text(screen, "fields "+string(appendRate(nil, bits))+" bit/s", x, y, colDim)
			}
			y += classLineH + 4
		}
	}
}

// drawPanel draws the packet inspector panel at the bottom, or the hints.
func (v *ClassroomView) drawPanel(screen *ebiten.Image, m *classroom.Model, l classroomLayout, f *ClassroomFrame) {
	top := l.panelTop
	if top >= l.h-30 {
		return
	}
	b := &v.b
	b.rect(4, float32(top), float32(l.w-8), float32(l.h-top-4), rgbaOf(colPanel, 0.85))
	b.flush(screen)
	x, y := 12.0, float64(top)+6
	e, ok := m.Event(v.selected)
	if v.selected == 0 || !ok {
		for _, s := range []string{
			"Click a packet in a lane (or type  inspect last  in the console) to see it decoded field by field.",
			"P1: A and D run, W jumps, S drops, F fires.  P2: the arrows, Enter fires (or a bot).  P pauses, [ ] slow down / speed up, . steps.",
			"Every switch is a console command aimed at one pane:  p1 cl_nopredict 1,  p2 lag 200,  sv sv_fps 10,  slowmo 0.1.",
			"A mark is a packet, its size its bytes; it crosses the lane in its delay. Lost: it falls out. Duplicated: it splits. Orange ring: overtaken.",
			"A yellow dot: reliable commands ride in the packet; they ride in every one until the other end acknowledges them.",
		} {
			v.text(screen, s, x, y, colWhite)
			y += classLineH + 2
		}
		return
	}
	if v.selFor != e.ID || v.selLate != e.Late() || v.selCopies != e.Copies || len(v.selLines) == 0 {
		v.selFor, v.selLate, v.selCopies = e.ID, e.Late(), e.Copies
		v.selLines = strings.Split(strings.TrimRight(classroom.Describe(e), "\n"), "\n")
	}
	v.text(screen, v.selLines[0], x, y, PacketColour(e.Kind))
	y += classLineH + 2
	rows := max(1, (l.h-4-int(y))/classLineH)
	colW := float64(l.w-24) / 2
	for k, s := range v.selLines[1:] {
		c := k / rows
		if c > 1 {
			v.text(screen, "... (inspect "+utoa(e.ID)+" in the console prints it all)", x+colW, float64(l.h-4-classLineH), colDim)
			break
		}
		if maxC := int(colW/7) - 1; len(s) > maxC {
			s = s[:maxC]
		}
		v.text(screen, s, x+float64(c)*colW, y+float64(k%rows*classLineH), colWhite)
	}
}

// button records a switch and draws its box.
func (v *ClassroomView) button(r image.Rectangle, label string, on bool, lines ...string) {
	v.buttons = append(v.buttons, classButton{rect: r, label: label, on: on, lines: lines})
}

// drawButtons draws the switches recorded this frame, the one under the
// cursor highlighted.
func (v *ClassroomView) drawButtons(screen *ebiten.Image, f *ClassroomFrame) {
	b := &v.b
	cur := image.Pt(f.CursorX, f.CursorY)
	for _, bt := range v.buttons {
		c := colButton
		if bt.on {
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
		s := bt.label
		if maxC := r.Dx()/7 - 1; len(s) > maxC && maxC > 0 {
			s = s[:maxC]
		}
		v.centre(screen, s, float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2, colWhite)
	}
}

// text draws s with its top-left corner at (x, y), without the shadow
// Renderer.text adds: on the view's dark panels it is not needed, and
// it halves the glyphs drawn.
func (v *ClassroomView) text(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	if n := int(v.maxW / 7); v.maxW > 0 && len(s) > n { // 7: basicfont's advance
		s = s[:max(0, n)]
	}
	if s == "" {
		return
	}
	r := v.r
	r.glyphs = text.AppendGlyphs(r.glyphs[:0], s, r.face, nil)
	r.drawGlyphs(screen, x, y, 1, c)
}

// centre draws s centred on (x, y), without a shadow.
func (v *ClassroomView) centre(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	w, h := text.Measure(s, v.r.face, 0)
	v.text(screen, s, x-w/2, y-h/2, c)
}

// right draws s with its top-right corner at (x, y), without a shadow.
func (v *ClassroomView) right(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	w, _ := text.Measure(s, v.r.face, 0)
	v.text(screen, s, x-w, y, c)
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

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// nextOf returns the value after cur in vals, cycling; the first if cur
// is not one of them.
func nextOf(vals []int, cur int) int {
	for i, v := range vals {
		if v == cur {
			return vals[(i+1)%len(vals)]
		}
	}
	return vals[0]
}

func itoa(n int32) string  { return strconv.Itoa(int(n)) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }
