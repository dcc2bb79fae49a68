// Package draw paints a [lagometer.Lagometer] on an Ebitengine image: a
// translucent square box and, inside it, the columns package lagometer
// lays out, in Quake III's colours. All the meaning (scaling, clamping,
// kinds) lives in package lagometer; this package only paints.
//
// The whole lagometer is one DrawTriangles call from buffers kept
// between frames: drawing allocates nothing once they have grown to the
// largest box drawn.
package draw

import (
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/lagometer"
)

// background is the translucent box behind the graphs.
var background = color.RGBA{0, 0, 0, 0x70}

// colours are Quake III's g_color_table entries for each kind of column.
var colours = [...]color.RGBA{
	lagometer.Interpolate: {0, 0, 0xff, 0xff},    // blue
	lagometer.Extrapolate: {0xff, 0xff, 0, 0xff}, // yellow
	lagometer.Ping:        {0, 0xff, 0, 0xff},    // green
	lagometer.RateDelayed: {0xff, 0xff, 0, 0xff}, // yellow
	lagometer.Lost:        {0xff, 0, 0, 0xff},    // red
	lagometer.Stalled:     {0xff, 0, 0xff, 0xff}, // magenta: not Quake III's (frame sync)
}

// Colour returns the colour of a column of kind k (for a legend, say):
// blue Interpolate, yellow Extrapolate and RateDelayed, green Ping, red
// Lost, magenta Stalled; transparent for None.
func Colour(k lagometer.Kind) color.RGBA {
	if int(k) < len(colours) {
		return colours[k]
	}
	return color.RGBA{}
}

// maxSize bounds the box, so that a wild size cannot make the column
// buffers huge; columns past lagometer.Samples are empty anyway.
const maxSize = 4096

// white is the texture every triangle samples: the centre texel of a
// white 3×3 image, so that filtering never reaches an edge.
var white = func() *ebiten.Image {
	img := ebiten.NewImage(3, 3)
	img.Fill(color.White)
	return img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image)
}()

// painter holds the buffers kept between frames.
type painter struct {
	mu          sync.Mutex
	top, bottom []lagometer.Column
	vs          []ebiten.Vertex
	is          []uint16
	op          ebiten.DrawTrianglesOptions
}

var p painter

// Draw paints l's lagometer on screen in a size×size box whose top-left
// corner is (x, y), one pixel column per sample; x, y and size are
// rounded down to whole pixels (size to at most 4096). Quake III put the box in the bottom-right
// corner of its 480-unit-tall screen, 48 units wide; the caller picks.
// Draw is what cg_lagometer switches: when it is 0, do not call it.
func Draw(screen *ebiten.Image, l *lagometer.Lagometer, x, y, size float32) {
	n := min(int(size), maxSize)
	if n <= 0 || l == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	x0, y0 := float32(math.Floor(float64(x))), float32(math.Floor(float64(y)))
	p.vs, p.is = p.vs[:0], p.is[:0]
	p.rect(x0, y0, float32(n), float32(n), background)
	p.top = l.FrameColumns(p.top, n)
	p.columns(p.top, x0, y0)
	p.bottom = l.SnapshotColumns(p.bottom, n)
	p.columns(p.bottom, x0, y0)
	p.op.AntiAlias = false
	screen.DrawTriangles(p.vs, p.is, white, &p.op)
}

// columns adds the bars of cols, column 0 at x0, merging neighbours that
// are the same bar into one rectangle.
func (p *painter) columns(cols []lagometer.Column, x0, y0 float32) {
	for i := 0; i < len(cols); {
		c := cols[i]
		j := i + 1
		for j < len(cols) && cols[j] == c {
			j++
		}
		if c.Kind != lagometer.None && c.Height > 0 {
			p.rect(x0+float32(i), y0+float32(c.Y), float32(j-i), float32(c.Height), Colour(c.Kind))
		}
		i = j
	}
}

// rect adds a filled rectangle of colour c (straight alpha).
func (p *painter) rect(x, y, w, h float32, c color.RGBA) {
	r, g, b, a := float32(c.R)/255, float32(c.G)/255, float32(c.B)/255, float32(c.A)/255
	i := uint16(len(p.vs))
	for _, v := range [4][2]float32{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}} {
		p.vs = append(p.vs, ebiten.Vertex{DstX: v[0], DstY: v[1], SrcX: 1.5, SrcY: 1.5,
			ColorR: r, ColorG: g, ColorB: b, ColorA: a})
	}
	p.is = append(p.is, i, i+1, i+2, i, i+2, i+3)
}
