package draw

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/assets"
	"tremor/bg/tilemap"
	"tremor/ui/draw/view"
)

// This file draws the world behind the players: a background with
// depth (a vertical gradient, far silhouettes and a faint grid, each
// moving slower than the camera), and the tiles, pre-rendered once per
// map into chunk images so that a frame blits a few images instead of
// drawing every tile. Only what moves (lava, pads, teleporters) is drawn
// each frame.

// ChunkTiles is the side of a pre-rendered chunk of the tile layer, in
// tiles; MaxChunks bounds how many chunk images are kept (the least
// recently drawn go first).
const (
	ChunkTiles = 16
	MaxChunks  = 48
)

// Art colours, from the palette (assets/palette.txt).
var (
	artSkyTop      = assets.Colour("skyTop")
	artSkyBottom   = assets.Colour("skyBottom")
	artFar         = assets.Colour("far")
	artGrid        = assets.Colour("grid")
	artRock        = colSolid
	artRockDeep    = assets.Colour("rockDeep")
	artRockLight   = colSolidTop
	artRockEdge    = assets.Colour("rockEdge")
	artPlank       = colPlatform
	artPlankLight  = assets.Colour("plankLight")
	artPlankDark   = assets.Colour("plankDark")
	artLavaDeep    = assets.Colour("lavaDeep")
	artLava        = assets.Colour("lavaCore")
	artLavaHot     = colLavaTop
	artShadowBlack = assets.Colour("shadowBlack")
)

// chunk is one pre-rendered block of ChunkTiles × ChunkTiles tiles.
type chunk struct {
	img  *ebiten.Image // nil when the chunk is all air
	used uint64        // frame it was last drawn
	// runs are the rectangles of img, in its pixels, with anything
	// drawn on them: only those are drawn, since every pixel a software
	// renderer fills costs, and most of a chunk may be air.
	runs []image.Rectangle
}

// tileLayer holds the pre-rendered tiles of one map.
type tileLayer struct {
	m      *tilemap.Map
	depth  []uint8 // per tile: distance to a non-solid tile, capped
	art    []bool  // per tile: it or a neighbour has art (see hasArt)
	chunks map[int]*chunk
	frame  uint64
	b      batch
	runs   view.Runs
	// The chunks' quads of this frame, kept between frames.
	vs []ebiten.Vertex
	is []uint16
	op ebiten.DrawTrianglesOptions
}

// maxDepth caps tileLayer.depth: solid deeper than this is all one
// colour, the colour of the world outside the map.
const maxDepth = 3

// newTileLayer returns the tile layer of m, with its solid depths and
// where its tiles draw computed and no chunk rendered yet.
func newTileLayer(m *tilemap.Map) tileLayer {
	l := tileLayer{m: m, chunks: make(map[int]*chunk)}
	if m == nil {
		return l
	}
	l.depth = make([]uint8, m.Width*m.Height)
	l.art = make([]bool, m.Width*m.Height)
	for y := 0; y < m.Height; y++ {
		for x := 0; x < m.Width; x++ {
			l.depth[y*m.Width+x] = l.measureDepth(x, y)
			l.art[y*m.Width+x] = l.hasArt(x, y)
		}
	}
	return l
}

// dispose frees the chunks' images.
func (l *tileLayer) dispose() {
	for _, c := range l.chunks {
		if c.img != nil {
			c.img.Deallocate()
		}
	}
	l.chunks = nil
}

// hasArt reports whether anything may be drawn on tile (x, y) in its
// chunk: it or one of its eight neighbours is not empty. A tile draws
// into itself, a little over its edges (lava's crust) and casts shadows
// on the empty tiles beside and under it; an empty tile with empty
// neighbours stays transparent and need not be drawn.
func (l *tileLayer) hasArt(x, y int) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if l.m.At(x+dx, y+dy) != tilemap.Empty {
				return true
			}
		}
	}
	return false
}

// measureDepth returns how many tiles (x, y) lies inside solid, capped.
func (l *tileLayer) measureDepth(x, y int) uint8 {
	if l.m.At(x, y) != tilemap.Solid {
		return 0
	}
	for d := 1; d <= maxDepth; d++ {
		for dy := -d; dy <= d; dy++ {
			for dx := -d; dx <= d; dx++ {
				if max(abs(dx), abs(dy)) == d && l.m.At(x+dx, y+dy) != tilemap.Solid {
					return uint8(d)
				}
			}
		}
	}
	return maxDepth
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// depthAt returns the solid depth of tile (x, y); outside the map, all
// solid, it is maxDepth.
func (l *tileLayer) depthAt(x, y int) uint8 {
	if x < 0 || y < 0 || x >= l.m.Width || y >= l.m.Height {
		return maxDepth
	}
	return l.depth[y*l.m.Width+x]
}

// rockColour is the colour of solid at depth d.
func rockColour(d uint8) color.RGBA {
	return mix(artRock, artRockDeep, float32(d-1)/float32(maxDepth-1))
}

// chunkImage returns the image of chunk (cx, cy), rendering it first if
// needed.
func (l *tileLayer) chunkImage(cx, cy int) *chunk {
	key := cy*4096 + cx
	if c, ok := l.chunks[key]; ok {
		c.used = l.frame
		return c
	}
	if len(l.chunks) >= MaxChunks {
		oldest, ok := 0, false
		for k, c := range l.chunks {
			if !ok || c.used < l.chunks[oldest].used {
				oldest, ok = k, true
			}
		}
		if img := l.chunks[oldest].img; img != nil {
			img.Deallocate()
		}
		delete(l.chunks, oldest)
	}
	const size = ChunkTiles * tilemap.TileSize
	const s = tilemap.TileSize
	x0, y0 := cx*ChunkTiles, cy*ChunkTiles
	runs := l.runs.Build(x0, y0, min(x0+ChunkTiles, l.m.Width), min(y0+ChunkTiles, l.m.Height), func(x, y int) bool {
		return l.art[y*l.m.Width+x]
	})
	c := &chunk{used: l.frame}
	l.chunks[key] = c
	if len(runs) == 0 {
		return c // all air: the sky shows through
	}
	c.runs = make([]image.Rectangle, len(runs))
	for i, r := range runs {
		c.runs[i] = image.Rect((r.Min.X-x0)*s, (r.Min.Y-y0)*s, (r.Max.X-x0)*s, (r.Max.Y-y0)*s)
	}
	img := ebiten.NewImage(size, size)
	for ty := 0; ty < ChunkTiles; ty++ {
		for tx := 0; tx < ChunkTiles; tx++ {
			l.b.room(img, 64)
			l.tile(cx*ChunkTiles+tx, cy*ChunkTiles+ty, float32(tx*tilemap.TileSize), float32(ty*tilemap.TileSize))
		}
	}
	l.b.flush(img)
	c.img = img
	return c
}

// tile adds the art of map tile (x, y) with its top-left corner at
// (px, py) of a chunk.
func (l *tileLayer) tile(x, y int, px, py float32) {
	const s = tilemap.TileSize
	b := &l.b
	m := l.m
	switch m.At(x, y) {
	case tilemap.Solid:
		d := l.depthAt(x, y)
		c := rockColour(d)
		if d < maxDepth {
			b.vgrad(px, py, s, s, rgbaOf(shade(c, 1.06), 1), rgbaOf(shade(c, 0.95), 1))
		} else {
			b.rect(px, py, s, s, rgbaOf(c, 1))
		}
		if d <= 2 {
			// Panel seams and a rivet: a pattern that fades inwards.
			a := 0.5 / float32(d)
			b.rect(px, py+s-1, s, 1, rgbaOf(artRockEdge, a))
			b.rect(px+s-1, py, 1, s, rgbaOf(artRockEdge, a*0.7))
			b.rect(px+1, py+1, s-2, 1, rgbaOf(artRockLight, a*0.18))
			if (x+y)%2 == 0 {
				b.rect(px+5, py+5, 2, 2, rgbaOf(artRockLight, a*0.35))
				b.rect(px+s-8, py+s-8, 2, 2, rgbaOf(artRockLight, a*0.35))
			} else {
				b.line(px+6, py+s-6, px+s-6, py+6, 1, rgbaOf(artRockEdge, a*0.5))
			}
		}
		// Bevel on every face open to the air.
		if m.At(x, y-1) != tilemap.Solid {
			b.rect(px, py, s, 3, rgbaOf(artRockLight, 1))
			b.vgrad(px, py+3, s, 5, rgbaOf(artRockLight, 0.35), rgbaOf(artRockLight, 0))
		}
		if m.At(x, y+1) != tilemap.Solid {
			b.vgrad(px, py+s-6, s, 6, rgbaOf(artRockEdge, 0), rgbaOf(artRockEdge, 0.9))
		}
		if m.At(x-1, y) != tilemap.Solid {
			b.hgrad(px, py, 4, s, rgbaOf(artRockLight, 0.45), rgbaOf(artRockLight, 0))
		}
		if m.At(x+1, y) != tilemap.Solid {
			b.hgrad(px+s-5, py, 5, s, rgbaOf(artRockEdge, 0), rgbaOf(artRockEdge, 0.8))
		}
	case tilemap.Platform:
		l.shadows(x, y, px, py)
		const h = 7
		b.rect(px, py, s, h, rgbaOf(artPlank, 1))
		b.rect(px, py, s, 2, rgbaOf(artPlankLight, 1))
		b.rect(px, py+h-1, s, 1, rgbaOf(artPlankDark, 1))
		b.rect(px+s-1, py+2, 1, h-3, rgbaOf(artPlankDark, 0.6))
		// A bracket under every other plank.
		if x%2 == 0 {
			b.tri(px+8, py+h, px+16, py+h, px+8, py+h+8, rgbaOf(artPlankDark, 0.9))
		}
		b.vgrad(px, py+h, s, 8, rgbaOf(artShadowBlack, 0.35), rgbaOf(artShadowBlack, 0))
	case tilemap.Lava:
		b.vgrad(px, py, s, s, rgbaOf(artLava, 1), rgbaOf(artLavaDeep, 1))
		if m.At(x, y-1) == tilemap.Lava {
			b.rect(px, py, s, s, rgbaOf(artLavaDeep, 0.25))
		}
		// Crust blotches.
		h := uint32(x*73856093) ^ uint32(y*19349663)
		for k := 0; k < 3; k++ {
			h = h*1664525 + 1013904223
			bx, by := float32(h>>8%s), float32(h>>16%s)
			b.circle(px+bx, py+by, 2+float32(h>>24%3), rgbaOf(artLavaDeep, 0.5))
		}
	default:
		l.shadows(x, y, px, py)
	}
}

// shadows darkens an open tile where solid above or beside it would
// cast a soft shadow on the wall behind.
func (l *tileLayer) shadows(x, y int, px, py float32) {
	const s = tilemap.TileSize
	b := &l.b
	m := l.m
	if m.At(x, y-1) == tilemap.Solid {
		b.vgrad(px, py, s, 14, rgbaOf(artShadowBlack, 0.45), rgbaOf(artShadowBlack, 0))
	}
	if m.At(x-1, y) == tilemap.Solid {
		b.hgrad(px, py, 10, s, rgbaOf(artShadowBlack, 0.3), rgbaOf(artShadowBlack, 0))
	}
	if m.At(x+1, y) == tilemap.Solid {
		b.hgrad(px+s-10, py, 10, s, rgbaOf(artShadowBlack, 0), rgbaOf(artShadowBlack, 0.3))
	}
}

// drawBackground draws the sky gradient, the far silhouettes and the
// parallax grid into b (to be flushed before the tiles).
func (r *worldPainter) drawBackground(b *batch) {
	v := r.view
	vx0, vy0 := float32(v.X0), float32(v.Y0)
	w, h := float32(v.W), float32(v.H)
	// Only inside the map: outside it the solid bands of drawTileLayer
	// cover the viewport, and a pixel painted twice costs twice.
	mx0, my0 := v.ToScreen(0, 0)
	mx1, my1 := v.ToScreen(float64(r.m.Width*tilemap.TileSize), float64(r.m.Height*tilemap.TileSize))
	cx0, cy0 := max(vx0, float32(mx0)), max(vy0, float32(my0))
	cx1, cy1 := min(vx0+w, float32(mx1)), min(vy0+h, float32(my1))
	if cx1 <= cx0 || cy1 <= cy0 {
		return
	}
	// The gradient follows the camera's height a little, so falling
	// and climbing show.
	k := float32(math.Mod(v.CY/4000, 1))
	top, bottom := rgbaOf(mix(artSkyTop, artSkyBottom, 0.15*k), 1), rgbaOf(artSkyBottom, 1)
	// Only where the tiles let it show: solid and lava tiles are opaque.
	sky := r.skyRects(cx0, cy0, cx1, cy1)
	for _, q := range sky {
		b.vgrad(q.x0, q.y0, q.x1-q.x0, q.y1-q.y0, lerp(top, bottom, (q.y0-vy0)/h), lerp(top, bottom, (q.y1-vy0)/h))
	}

	// Far silhouettes: columns at a fifth of the camera's speed.
	sc := float32(v.Scale)
	const par = 0.2
	const colW = 96
	ox := float32(v.CX*par) * sc
	first := int(math.Floor(float64(ox / (colW * sc))))
	bottom0 := vy0 + h // the silhouettes stand on the viewport's bottom
	for i := first - 1; i < first+int(w/(colW*sc))+2; i++ {
		hsh := uint32(i) * 2654435761
		hh := (0.25 + float32(hsh>>24)/255*0.45) * h
		x := vx0 + float32(i)*colW*sc - ox
		cw := colW * sc * (0.55 + float32(hsh>>16&0xff)/255*0.35)
		// Clipped to the sky drawn, the colours kept where they were.
		for _, q := range sky {
			x0, x1 := max(x, q.x0), min(x+cw, q.x1)
			y0, y1 := max(bottom0-hh, q.y0), q.y1
			if x1 <= x0 || y1 <= y0 {
				continue
			}
			a0 := 0.2 + 0.3*(y0-(bottom0-hh))/hh
			a1 := 0.2 + 0.3*(y1-(bottom0-hh))/hh
			b.vgrad(x0, y0, x1-x0, y1-y0, rgbaOf(artFar, a0), rgbaOf(artFar, a1))
			if y0 == bottom0-hh {
				b.rect(x0, y0, x1-x0, min(2*sc, y1-y0), rgbaOf(artGrid, 0.12))
			}
			// Lit windows.
			if hsh&3 == 0 {
				wx, wy := x+cw/2-3*sc, bottom0-hh+20*sc
				wx0, wy0, wx1, wy1 := max(wx, q.x0), max(wy, q.y0), min(wx+6*sc, q.x1), min(wy+10*sc, q.y1)
				if wx1 > wx0 && wy1 > wy0 {
					b.rect(wx0, wy0, wx1-wx0, wy1-wy0, rgbaOf(artLavaHot, 0.18))
				}
			}
		}
	}

	// Grid at half the camera's speed.
	const gpar = 0.5
	const cell = 64
	step := cell * sc
	gx := float32(math.Mod(v.CX*gpar, cell)) * sc
	gy := float32(math.Mod(v.CY*gpar, cell)) * sc
	ga := rgbaOf(artGrid, 0.05)
	for x := vx0 - gx; x < vx0+w; x += step {
		if x >= cx0 && x < cx1 {
			b.rect(x, cy0, 1, cy1-cy0, ga)
		}
	}
	for y := vy0 - gy; y < vy0+h; y += step {
		if y >= cy0 && y < cy1 {
			b.rect(cx0, y, cx1-cx0, 1, ga)
		}
	}
}

// skyRect is a rectangle of the screen, in pixels.
type skyRect struct{ x0, y0, x1, y1 float32 }

// skyRects returns where the background shows in [cx0, cx1) × [cy0,
// cy1), the map's part of the screen: the tiles in view that are
// neither solid nor lava, as few rectangles. They meet edge to edge, so
// what is drawn clipped to each of them is drawn once. The slice is
// valid until the next call.
func (r *worldPainter) skyRects(cx0, cy0, cx1, cy1 float32) []skyRect {
	const s = tilemap.TileSize
	v := r.view
	m := r.m
	wx0, wy0 := v.ToWorld(float64(cx0), float64(cy0))
	wx1, wy1 := v.ToWorld(float64(cx1), float64(cy1))
	tx0, ty0 := max(0, int(wx0/s)), max(0, int(wy0/s))
	tx1, ty1 := min(m.Width, int(wx1/s)+1), min(m.Height, int(wy1/s)+1)
	runs := r.tiles.runs.Build(tx0, ty0, tx1, ty1, func(x, y int) bool {
		t := m.At(x, y)
		return t != tilemap.Solid && t != tilemap.Lava
	})
	r.sky = r.sky[:0]
	for _, q := range runs {
		x0, y0 := v.ToScreen(float64(q.Min.X*s), float64(q.Min.Y*s))
		x1, y1 := v.ToScreen(float64(q.Max.X*s), float64(q.Max.Y*s))
		sr := skyRect{max(cx0, float32(x0)), max(cy0, float32(y0)), min(cx1, float32(x1)), min(cy1, float32(y1))}
		if sr.x1 > sr.x0 && sr.y1 > sr.y0 {
			r.sky = append(r.sky, sr)
		}
	}
	return r.sky
}

// lerp returns a + (b-a)·k.
func lerp(a, b rgba, k float32) rgba {
	return rgba{a.r + (b.r-a.r)*k, a.g + (b.g-a.g)*k, a.b + (b.b-a.b)*k, a.a + (b.a-a.a)*k}
}

// drawTileLayer draws the pre-rendered chunks in view and fills the
// solid world outside the map.
func (r *worldPainter) drawTileLayer(screen *ebiten.Image, b *batch) {
	l := &r.tiles
	l.frame++
	v := r.view
	m := r.m
	const size = ChunkTiles * tilemap.TileSize
	sc := float32(v.Scale)
	// Outside the map: solid, deep colour, drawn as four bands.
	mx0, my0 := v.ToScreen(0, 0)
	mx1, my1 := v.ToScreen(float64(m.Width*tilemap.TileSize), float64(m.Height*tilemap.TileSize))
	deep := rgbaOf(rockColour(maxDepth), 1)
	vx0, vy0 := float32(v.X0), float32(v.Y0)
	vx1, vy1 := vx0+float32(v.W), vy0+float32(v.H)
	// The bands reach 2 px into the map, under the chunks, so no seam
	// opens between them whatever the rounding.
	x0, y0 := float32(math.Round(mx0))+2, float32(math.Round(my0))+2
	x1, y1 := float32(math.Round(mx1))-2, float32(math.Round(my1))-2
	if y0 > vy0 {
		b.rect(vx0, vy0, vx1-vx0, y0-vy0, deep)
	}
	if y1 < vy1 {
		b.rect(vx0, y1, vx1-vx0, vy1-y1, deep)
	}
	if x0 > vx0 {
		b.rect(vx0, y0, x0-vx0, y1-y0, deep)
	}
	if x1 < vx1 {
		b.rect(x1, y0, vx1-x1, y1-y0, deep)
	}
	b.flush(screen)

	wx0, wy0, wx1, wy1 := v.WorldRect()
	cx0, cy0 := max(0, int(math.Floor(wx0/size))), max(0, int(math.Floor(wy0/size)))
	cx1 := min((m.Width-1)/ChunkTiles, int(math.Floor(wx1/size)))
	cy1 := min((m.Height-1)/ChunkTiles, int(math.Floor(wy1/size)))
	l.op.Filter = ebiten.FilterNearest
	if sc != 1 {
		l.op.Filter = ebiten.FilterLinear
	}
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			c := l.chunkImage(cx, cy)
			if c.img == nil {
				continue // all air: the sky shows through
			}
			sx, sy := v.ToScreen(float64(cx*size), float64(cy*size))
			l.vs, l.is = appendRuns(l.vs[:0], l.is[:0], c.runs, float32(math.Round(sx)), float32(math.Round(sy)), sc)
			screen.DrawTriangles(l.vs, l.is, c.img, &l.op)
		}
	}
}

// appendRuns adds a textured quad for each rectangle of a chunk's
// pixels, drawn at (ox, oy) + its position × sc on the screen.
func appendRuns(vs []ebiten.Vertex, is []uint16, runs []image.Rectangle, ox, oy, sc float32) ([]ebiten.Vertex, []uint16) {
	for _, r := range runs {
		x0, y0, x1, y1 := float32(r.Min.X), float32(r.Min.Y), float32(r.Max.X), float32(r.Max.Y)
		i := uint16(len(vs))
		vs = append(vs,
			ebiten.Vertex{DstX: ox + x0*sc, DstY: oy + y0*sc, SrcX: x0, SrcY: y0, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1},
			ebiten.Vertex{DstX: ox + x1*sc, DstY: oy + y0*sc, SrcX: x1, SrcY: y0, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1},
			ebiten.Vertex{DstX: ox + x1*sc, DstY: oy + y1*sc, SrcX: x1, SrcY: y1, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1},
			ebiten.Vertex{DstX: ox + x0*sc, DstY: oy + y1*sc, SrcX: x0, SrcY: y1, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1})
		is = append(is, i, i+1, i+2, i, i+2, i+3)
	}
	return vs, is
}

// drawAnimatedTiles adds what moves on the tiles in view: the glowing
// lava surface, the jump pads and the teleporters.
func (r *worldPainter) drawAnimatedTiles(b, glow *batch, t float64) {
	v := r.view
	m := r.m
	sc := float32(v.Scale)
	const s = tilemap.TileSize
	ts := s * sc
	x0, y0, x1, y1 := v.WorldRect()
	tx0, ty0 := max(0, int(x0/s)-1), max(0, int(y0/s)-1)
	tx1, ty1 := min(m.Width-1, int(x1/s)+1), min(m.Height-1, int(y1/s)+1)
	for ty := ty0; ty <= ty1; ty++ {
		for tx := tx0; tx <= tx1; tx++ {
			if m.At(tx, ty) != tilemap.Lava || m.At(tx, ty-1) == tilemap.Lava {
				continue
			}
			sx, sy := v.ToScreen(float64(tx*s), float64(ty*s))
			x, y := float32(sx), float32(sy)
			// A rolling surface: two waves of bright crest.
			for k := 0; k < 4; k++ {
				fx := float32(k) / 4
				ph := t*2.2 + float64(tx)*1.3 + float64(k)*0.9
				hgt := (3 + 2*float32(math.Sin(ph))) * sc
				b.rect(x+fx*ts, y, ts/4+1, hgt, rgbaOf(artLavaHot, 1))
			}
			a := 0.22 + 0.08*float32(math.Sin(t*3+float64(tx)))
			glow.vgrad(x, y-22*sc, ts, 22*sc, rgbaOf(artLava, 0), rgbaOf(artLava, a))
		}
	}
	pulse := float32(0.5 + 0.5*math.Sin(t*5))
	for i := range m.Pads {
		p := &m.Pads[i]
		sx, sy := v.ToScreen(float64(p.At.X*s), float64(p.At.Y*s))
		x, y := float32(sx), float32(sy)
		if !r.visible(x, y, ts) {
			continue
		}
		b.rect(x+2*sc, y+ts-7*sc, ts-4*sc, 7*sc, rgbaOf(shade(colPad, 0.55), 1))
		b.rect(x+2*sc, y+ts-7*sc, ts-4*sc, 2*sc, rgbaOf(colPad, 1))
		for k := 0; k < 3; k++ {
			f := float32(math.Mod(t*1.6+float64(k)/3, 1))
			cy := y + ts - 10*sc - f*26*sc
			a := (1 - f) * 0.9
			cx := x + ts/2
			b.line(cx-7*sc, cy+5*sc, cx, cy, 2.5*sc, rgbaOf(colPad, a))
			b.line(cx, cy, cx+7*sc, cy+5*sc, 2.5*sc, rgbaOf(colPad, a))
		}
		glow.vgrad(x, y-ts, ts, 2*ts-6*sc, rgbaOf(colPad, 0), rgbaOf(colPad, 0.12+0.1*pulse))
	}
	for i := range m.Teleporters {
		p := &m.Teleporters[i]
		sx, sy := v.ToScreen(float64(p.At.X*s)+s/2, float64(p.At.Y*s)+s/2)
		x, y := float32(sx), float32(sy)
		if !r.visible(x, y, ts) {
			continue
		}
		glow.radial(x, y, ts*0.9, rgbaOf(colTeleporter, 0.45), rgbaOf(colTeleporter, 0))
		b.ellipse(x, y, ts*0.32, ts*0.46, rgbaOf(shade(colTeleporter, 0.25), 0.9), rgbaOf(colTeleporter, 0.7))
		for k := 0; k < 3; k++ {
			a0 := float32(t*3) + float32(k)*2.094
			b.arc(x, y, ts*(0.22+0.08*float32(k)), 2*sc, a0, a0+1.6, rgbaOf(colTeleporter, 0), rgbaOf(colWhite, 0.8))
		}
	}
}
