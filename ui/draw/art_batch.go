package draw

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
)

// This file is the drawing primitive of the vector art: a batch of
// coloured triangles sent to the GPU in one DrawTrianglesShader call.
// Every shape carries its colour in its vertices, so a whole layer of
// players, items or particles costs one draw call however many colours
// it has. The buffers are kept between frames: drawing allocates nothing
// in steady state.

// colourShader paints a triangle in its vertices' colour (straight
// alpha, premultiplied here) and reads no texture. Ebitengine's own
// DrawTriangles samples its source image for every pixel, even a white
// one: with a software renderer (Mesa's llvmpipe) a full-screen pass
// through that shader costs about twice as much as through this one
// (docs/PERFORMANCE.md, "Client frame time").
var colourShader = func() *ebiten.Shader {
	s, err := ebiten.NewShader([]byte(colourShaderSrc))
	if err != nil {
		panic("draw: colour shader: " + err.Error())
	}
	return s
}()

const colourShaderSrc = `//kage:unit pixels

package main

func Fragment(dst vec4, src vec2, color vec4) vec4 {
	return vec4(color.rgb*color.a, color.a)
}
`

// maxBatchVertices keeps indices within uint16.
const maxBatchVertices = 65000

// batch collects triangles for one DrawTrianglesShader call.
type batch struct {
	vs    []ebiten.Vertex
	is    []uint16
	blend ebiten.Blend
	op    ebiten.DrawTrianglesShaderOptions
	// zoom magnifies the shapes at flush (0 or 1: none), as
	// textPainter.zoom does text.
	zoom float32
}

// rgba is a straight-alpha colour with float channels in [0, 1].
type rgba struct{ r, g, b, a float32 }

// rgbaOf converts an opaque or straight-alpha colour c with an extra
// alpha factor a.
func rgbaOf(c color.RGBA, a float32) rgba {
	return rgba{float32(c.R) / 255, float32(c.G) / 255, float32(c.B) / 255, float32(c.A) / 255 * max(0, min(1, a))}
}

// shade returns c with its RGB multiplied by k (k < 1 darker, > 1
// lighter, clamped).
func shade(c color.RGBA, k float32) color.RGBA {
	f := func(v uint8) uint8 { return uint8(max(0, min(255, float32(v)*k))) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), c.A}
}

// mix returns a + (b-a)·k.
func mix(a, b color.RGBA, k float32) color.RGBA {
	k = max(0, min(1, k))
	f := func(x, y uint8) uint8 { return uint8(float32(x) + (float32(y)-float32(x))*k) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), f(a.A, b.A)}
}

func (b *batch) vertex(x, y float32, c rgba) uint16 {
	b.vs = append(b.vs, ebiten.Vertex{DstX: x, DstY: y, ColorR: c.r, ColorG: c.g, ColorB: c.b, ColorA: c.a})
	return uint16(len(b.vs) - 1)
}

// room makes sure n more vertices fit, flushing into dst if not.
func (b *batch) room(dst *ebiten.Image, n int) {
	if len(b.vs)+n > maxBatchVertices {
		b.flush(dst)
	}
}

// quad adds the quadrilateral p0 p1 p2 p3 (in order around), each corner
// with its colour.
func (b *batch) quad(x0, y0, x1, y1, x2, y2, x3, y3 float32, c0, c1, c2, c3 rgba) {
	i := b.vertex(x0, y0, c0)
	b.vertex(x1, y1, c1)
	b.vertex(x2, y2, c2)
	b.vertex(x3, y3, c3)
	b.is = append(b.is, i, i+1, i+2, i, i+2, i+3)
}

// rect adds a filled rectangle.
func (b *batch) rect(x, y, w, h float32, c rgba) {
	b.quad(x, y, x+w, y, x+w, y+h, x, y+h, c, c, c, c)
}

// vgrad adds a rectangle shaded from top colour t to bottom colour u.
func (b *batch) vgrad(x, y, w, h float32, t, u rgba) {
	b.quad(x, y, x+w, y, x+w, y+h, x, y+h, t, t, u, u)
}

// hgrad adds a rectangle shaded from left colour l to right colour r.
func (b *batch) hgrad(x, y, w, h float32, l, r rgba) {
	b.quad(x, y, x+w, y, x+w, y+h, x, y+h, l, r, r, l)
}

// line adds a segment of width w.
func (b *batch) line(x0, y0, x1, y1, w float32, c rgba) {
	b.line2(x0, y0, x1, y1, w, c, c)
}

// line2 adds a segment of width w shaded from c0 at its start to c1.
func (b *batch) line2(x0, y0, x1, y1, w float32, c0, c1 rgba) {
	dx, dy := x1-x0, y1-y0
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l == 0 {
		return
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	b.quad(x0+nx, y0+ny, x1+nx, y1+ny, x1-nx, y1-ny, x0-nx, y0-ny, c0, c1, c1, c0)
}

// segments returns how many sides a circle of radius r gets.
func segments(r float32) int {
	return int(max(8, min(40, r*1.2)))
}

// circle adds a filled disc.
func (b *batch) circle(x, y, r float32, c rgba) { b.radial(x, y, r, c, c) }

// radial adds a disc shaded from colour in at its centre to out at its
// rim: a soft glow when out is transparent.
func (b *batch) radial(x, y, r float32, in, out rgba) {
	if r <= 0 {
		return
	}
	n := segments(r)
	centre := b.vertex(x, y, in)
	for k := 0; k <= n; k++ {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		b.vertex(x+r*float32(c), y+r*float32(s), out)
		if k > 0 {
			j := centre + uint16(k)
			b.is = append(b.is, centre, j, j+1)
		}
	}
}

// ellipse adds a filled ellipse with radii rx, ry.
func (b *batch) ellipse(x, y, rx, ry float32, in, out rgba) {
	n := segments(max(rx, ry))
	centre := b.vertex(x, y, in)
	for k := 0; k <= n; k++ {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		b.vertex(x+rx*float32(c), y+ry*float32(s), out)
		if k > 0 {
			j := centre + uint16(k)
			b.is = append(b.is, centre, j, j+1)
		}
	}
}

// arc adds a ring of radius r and width w from angle a0 to a1 (radians,
// clockwise on screen), shaded from c0 to c1 along it.
func (b *batch) arc(x, y, r, w, a0, a1 float32, c0, c1 rgba) {
	span := a1 - a0
	if span <= 0 || r <= 0 {
		return
	}
	n := max(2, int(float32(segments(r))*span/(2*math.Pi))+1)
	ri, ro := r-w/2, r+w/2
	first := uint16(len(b.vs))
	for k := 0; k <= n; k++ {
		f := float32(k) / float32(n)
		s, c := math.Sincos(float64(a0 + span*f))
		cc := rgba{c0.r + (c1.r-c0.r)*f, c0.g + (c1.g-c0.g)*f, c0.b + (c1.b-c0.b)*f, c0.a + (c1.a-c0.a)*f}
		b.vertex(x+ri*float32(c), y+ri*float32(s), cc)
		b.vertex(x+ro*float32(c), y+ro*float32(s), cc)
		if k > 0 {
			i := first + uint16(2*k)
			b.is = append(b.is, i-2, i-1, i+1, i-2, i+1, i)
		}
	}
}

// ring adds a full ring.
func (b *batch) ring(x, y, r, w float32, c rgba) { b.arc(x, y, r, w, 0, 2*math.Pi, c, c) }

// tri adds a triangle.
func (b *batch) tri(x0, y0, x1, y1, x2, y2 float32, c rgba) {
	i := b.vertex(x0, y0, c)
	b.vertex(x1, y1, c)
	b.vertex(x2, y2, c)
	b.is = append(b.is, i, i+1, i+2)
}

// flush draws what was collected on dst and empties the batch.
func (b *batch) flush(dst *ebiten.Image) {
	if len(b.is) > 0 {
		if z := b.zoom; z > 0 && z != 1 {
			for i := range b.vs {
				b.vs[i].DstX *= z
				b.vs[i].DstY *= z
			}
		}
		b.op.Blend = b.blend
		b.op.AntiAlias = false
		dst.DrawTrianglesShader(b.vs, b.is, colourShader, &b.op)
	}
	b.vs, b.is = b.vs[:0], b.is[:0]
}
