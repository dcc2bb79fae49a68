package view

import "image"

// Runs turns the cells of a grid rectangle that pass a test into few
// rectangles: runs along each row, each merged with the run below it
// when they span the same columns. The drawing uses it to fill only the
// parts of the screen that show something: the sky where no opaque tile
// covers it, a pre-rendered chunk where its tiles drew. A software
// renderer pays for every pixel it fills, seen or not. The zero value
// is ready; its buffers are kept between calls, so it does not allocate
// once they have grown.
type Runs struct {
	rects     []image.Rectangle
	prev, cur []int // the rects that reach the previous and this row
}

// Build returns the cells (x, y) in [x0, x1) × [y0, y1) with keep(x, y)
// as rectangles of cells, in the order of their top-left corners (rows
// top to bottom, left to right). They do not overlap. The slice is valid
// until the next call.
func (rb *Runs) Build(x0, y0, x1, y1 int, keep func(x, y int) bool) []image.Rectangle {
	rb.rects, rb.prev = rb.rects[:0], rb.prev[:0]
	for y := y0; y < y1; y++ {
		rb.cur = rb.cur[:0]
		p := 0 // into prev, whose rects are in x order
		for x := x0; x < x1; {
			if !keep(x, y) {
				x++
				continue
			}
			start := x
			for x < x1 && keep(x, y) {
				x++
			}
			for p < len(rb.prev) && rb.rects[rb.prev[p]].Min.X < start {
				p++
			}
			if p < len(rb.prev) && rb.rects[rb.prev[p]].Min.X == start && rb.rects[rb.prev[p]].Max.X == x {
				rb.rects[rb.prev[p]].Max.Y = y + 1
				rb.cur = append(rb.cur, rb.prev[p])
				p++
				continue
			}
			rb.rects = append(rb.rects, image.Rect(start, y, x, y+1))
			rb.cur = append(rb.cur, len(rb.rects)-1)
		}
		rb.prev, rb.cur = rb.cur, rb.prev
	}
	return rb.rects
}
