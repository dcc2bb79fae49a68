package view

// Labels places text labels so that none is drawn over another: each
// goes at the first free place among where it asks to be and a few
// places stepped down and up from there, and is left out when none is
// free. Reset it at the start of every frame (or viewport); the zero
// value is ready. Place allocates nothing once as many labels have
// been placed in an earlier frame.
type Labels struct {
	boxes []labelBox
	w, h  float64 // the screen labels stay inside; 0: unbounded
}

// MaxLabelSteps is how many steps of a label's height Place tries each
// way from where the label asks to be.
const MaxLabelSteps = 3

// labelGap is the space kept between two labels, in pixels.
const labelGap = 2

type labelBox struct{ x0, y0, x1, y1 float64 }

// Reset forgets the labels placed and the rectangles reserved.
func (p *Labels) Reset() { p.boxes = p.boxes[:0] }

// Bound keeps the labels placed from now on inside a w×h screen: a
// label is moved in from the left and right edges, and a place above
// the top or below the bottom is not taken. 0 for either lifts the
// bound.
func (p *Labels) Bound(w, h float64) { p.w, p.h = w, h }

// Reserve keeps the rectangle from (x0, y0) to (x1, y1) free of labels
// until the next Reset: a panel drawn over the labels, such as the
// HUD's clock or the net graph.
func (p *Labels) Reserve(x0, y0, x1, y1 float64) {
	p.boxes = append(p.boxes, labelBox{x0, y0, x1, y1})
}

// Place finds room for a w×h label wanted with its top-left corner at
// (x, y): there if it overlaps no label placed, else the nearest free
// place one label height (plus a gap) at a time below or above it, up
// to MaxLabelSteps each way, below first. It reserves and returns that
// corner, or ok false when every place is taken.
func (p *Labels) Place(x, y, w, h float64) (px, py float64, ok bool) {
	if p.w > 0 {
		x = max(0, min(x, p.w-w))
	}
	step := h + labelGap
	for k := 0; k <= 2*MaxLabelSteps; k++ {
		dy := float64((k+1)/2) * step // 0, 1, 1, 2, 2, ...
		if k%2 == 0 {
			dy = -dy
		}
		b := labelBox{x, y + dy, x + w, y + dy + h}
		if p.h > 0 && (b.y0 < 0 || b.y1 > p.h) {
			continue
		}
		if p.free(b) {
			p.boxes = append(p.boxes, b)
			return b.x0, b.y0, true
		}
	}
	return x, y, false
}

// free reports whether b overlaps no label placed, gap included.
func (p *Labels) free(b labelBox) bool {
	for _, o := range p.boxes {
		if b.x0 < o.x1+labelGap && o.x0 < b.x1+labelGap && b.y0 < o.y1+labelGap && o.y0 < b.y1+labelGap {
			return false
		}
	}
	return true
}
