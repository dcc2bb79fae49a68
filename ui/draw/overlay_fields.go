package draw

import (
	"image"
	"image/color"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame/overlay"
)

// FieldBitsRows is how many fields the field-bits panel lists.
const FieldBitsRows = 10

// Geometry of the field-bits panel, in screen pixels.
const (
	fieldBitsWidth = 340
	fieldBitsRowH  = 16
	fieldBitsTop   = 8 + 5*28 + 8 // below the kill feed's five rows
)

// FieldBitsRect returns where the field-bits panel goes on a w×h
// screen: at the right edge, below the kill feed.
func FieldBitsRect(w, h int) image.Rectangle {
	height := 8 + 2*fieldBitsRowH + 4 + FieldBitsRows*fieldBitsRowH + 6
	return image.Rect(w-8-fieldBitsWidth, fieldBitsTop, w-8, fieldBitsTop+height)
}

// tableColour returns the colour of a table's rows and bars.
func tableColour(table string) color.RGBA {
	switch table {
	case "PlayerState":
		return colHealth
	case "EntityState":
		return colStripPair
	case "UserCmd":
		return colExplosion
	}
	return colWhite
}

// tableTag returns a table's short name.
func tableTag(table string) string {
	switch table {
	case "PlayerState":
		return "PS"
	case "EntityState":
		return "ES"
	case "UserCmd":
		return "UC"
	}
	return table
}

// appendRate appends a bits-per-second figure: 850, 12.3k, 123k.
func appendRate(buf []byte, bits int64) []byte {
	switch {
	case bits < 1000:
		return strconv.AppendInt(buf, bits, 10)
	case bits < 100000:
		buf = strconv.AppendFloat(buf, float64(bits)/1000, 'f', 1, 64)
	default:
		buf = strconv.AppendInt(buf, (bits+500)/1000, 10)
	}
	return append(buf, 'k')
}

// DrawFieldBits draws the bandwidth per delta field over the last
// second (cg_showFieldBits) in FieldBitsRect: the totals per table, then
// the FieldBitsRows costliest fields of player states (PS) and entity
// states (ES) received and usercmds (UC) sent, each with its bits per
// second and a bar scaled to the costliest. The panel is drawn into an
// image once a second, when the sampler takes new figures; a frame
// draws that image. Call it after Draw, with the Overlays updated this
// frame.
func (r *Renderer) DrawFieldBits(screen *ebiten.Image, o *Overlays) {
	if o == nil || o.Fields == nil {
		return
	}
	o.drawFieldBits(screen)
}

// drawFieldBits draws the panel: see Renderer.DrawFieldBits.
func (o *Overlays) drawFieldBits(screen *ebiten.Image) {
	sb := screen.Bounds()
	rect := FieldBitsRect(sb.Dx(), sb.Dy())
	fs := o.Fields
	if o.fieldImg == nil || o.fieldSeq != fs.Seq() || o.fieldReady != fs.Ready() || o.fieldImg.Bounds().Size() != rect.Size() {
		o.fieldSeq, o.fieldReady = fs.Seq(), fs.Ready()
		o.renderFieldBits(rect.Size())
	}
	op := &o.imgOp
	op.GeoM.Reset()
	op.GeoM.Translate(float64(rect.Min.X), float64(rect.Min.Y))
	op.ColorScale.Reset()
	screen.DrawImage(o.fieldImg, op)
}

// renderFieldBits draws the field-bits panel into o.fieldImg.
func (o *Overlays) renderFieldBits(size image.Point) {
	if o.fieldImg == nil || o.fieldImg.Bounds().Size() != size {
		if o.fieldImg != nil {
			o.fieldImg.Deallocate()
		}
		o.fieldImg = ebiten.NewImage(size.X, size.Y)
	} else {
		o.fieldImg.Clear()
	}
	img := o.fieldImg
	fs := o.Fields
	top := fs.Top(FieldBitsRows)
	o.rebuildFieldText(top)

	b := &o.b
	b.vgrad(0, 0, float32(size.X), float32(size.Y),
		rgbaOf(color.RGBA{0x10, 0x14, 0x22, 0xff}, 0.8), rgbaOf(color.RGBA{0x04, 0x06, 0x0c, 0xff}, 0.8))
	b.rect(0, 0, float32(size.X), 1, rgbaOf(colStripGrid, 0.6))
	const (
		nameX  = 8
		valueX = 210 // right edge of the figures
		barX   = 218
	)
	barW := float32(size.X) - barX - 8
	rowsY := float32(8 + 2*fieldBitsRowH + 4)
	var most int64 = 1
	if len(top) > 0 {
		most = max(top[0].Bits, 1)
	}
	for i, f := range top {
		y := rowsY + float32(i*fieldBitsRowH)
		w := barW * float32(f.Bits) / float32(most)
		b.rect(barX, y+3, barW, fieldBitsRowH-6, rgbaOf(colStripBar, 0.9))
		b.rect(barX, y+3, max(w, 1), fieldBitsRowH-6, rgbaOf(tableColour(f.Table), 0.9))
	}
	b.flush(img)

	o.text(img, "bits/s per field, last second", nameX, 6, 1, colWhite)
	o.text(img, o.fieldHead, nameX, 6+fieldBitsRowH, 1, colStripDimText)
	for i, f := range top {
		ry := float64(rowsY) + float64(i*fieldBitsRowH) + 1
		o.text(img, o.fieldRows[i], nameX, ry, 1, mix(tableColour(f.Table), colWhite, 0.45))
		o.rightText(img, o.fieldBits[i], valueX, ry, 1, colWhite)
	}
	if !fs.Ready() {
		o.text(img, "measuring...", nameX, float64(rowsY)+1, 1, colStripDimText)
	}
}

// rebuildFieldText makes the panel's text for a new second of figures.
func (o *Overlays) rebuildFieldText(top []overlay.FieldRate) {
	fs := o.Fields
	t := o.buf[:0]
	var in, out int64
	for _, tr := range fs.Totals() {
		if tr.Dir == overlay.Sent {
			out += tr.Bits
		} else {
			in += tr.Bits
		}
	}
	t = append(t, "in "...)
	t = appendRate(t, in)
	for _, tr := range fs.Totals() {
		if tr.Dir == overlay.Received {
			t = append(t, ' ')
			t = append(t, tableTag(tr.Table)...)
			t = append(t, ' ')
			t = appendRate(t, tr.Bits)
		}
	}
	t = append(t, "  out "...)
	t = appendRate(t, out)
	for _, tr := range fs.Totals() {
		if tr.Dir == overlay.Sent {
			t = append(t, ' ')
			t = append(t, tableTag(tr.Table)...)
		}
	}
	o.fieldHead = string(t)
	for i := range o.fieldRows {
		if i >= len(top) {
			o.fieldRows[i], o.fieldBits[i] = "", ""
			continue
		}
		f := top[i]
		t = append(o.buf[:0], tableTag(f.Table)...)
		t = append(t, ' ')
		t = append(t, f.Field...)
		o.fieldRows[i] = string(t)
		o.fieldBits[i] = string(appendRate(o.buf[:0], f.Bits))
	}
}
