package draw

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/ui/menu"
)

// Menu colours (premultiplied alpha).
var (
	colMenuShade  = color.RGBA{0, 0, 0, 0x70}
	colMenuPanel  = color.RGBA{0x08, 0x0c, 0x14, 0xe0}
	colMenuBorder = color.RGBA{0x8a, 0x9c, 0xb4, 0xff}
	colMenuSelect = color.RGBA{0x22, 0x3a, 0x5c, 0xe0}
	colMenuAccent = color.RGBA{0xf0, 0xd0, 0x40, 0xff}
	colMenuDim    = color.RGBA{0x90, 0x9c, 0xb0, 0xff}
	colMenuBarBg  = color.RGBA{0x30, 0x38, 0x48, 0xff}
	colMenuBar    = color.RGBA{0x60, 0xc0, 0xff, 0xff}
	colMenuField  = color.RGBA{0x10, 0x18, 0x28, 0xff}
)

// DrawMenu draws m over what screen holds, if m is open: the screen
// shaded, a centred panel with the page title, its items (the selected one
// highlighted, values right-aligned, slider bars, text fields with a
// caret, "press a key..." while a key is captured), the message of the
// last action and a hint line. The model lays itself out for the
// screen's size (menu.Model.Layout); DrawMenu paints that layout, and the
// model's mouse hit test uses it until the next call.
func (u *UI) DrawMenu(screen *ebiten.Image, m *menu.Model) {
	if !m.IsOpen() {
		return
	}
	b := screen.Bounds()
	m.SetScale(u.uiScale(b.Dx(), b.Dy()))
	v := m.Layout(b.Dx(), b.Dy())
	ui := v.Scale
	vector.DrawFilledRect(screen, 0, 0, float32(b.Dx()), float32(b.Dy()), colMenuShade, false)

	p := v.Panel
	px, py, pw, ph := float32(p.X), float32(p.Y), float32(p.W), float32(p.H)
	vector.DrawFilledRect(screen, px, py, pw, ph, colMenuPanel, false)
	vector.StrokeRect(screen, px, py, pw, ph, float32(2*ui), colMenuBorder, false)
	cx := float64(p.X) + float64(p.W)/2
	u.centreText(screen, v.Title, cx, float64(v.TitleY), menu.TitleScale*ui, colMenuAccent)

	for i := range v.Items {
		u.drawMenuItem(screen, &v.Items[i], ui)
	}
	if v.Browser != nil {
		u.drawBrowser(screen, v.Browser, ui)
	}
	if n := len(v.Items); n > 0 {
		right := float64(p.X+p.W) - 14*ui
		if v.MoreAbove {
			r := v.Items[0].Row
			u.centreText(screen, "^", right, float64(r.Y+r.H/2), menu.TextScale*ui, colMenuDim)
		}
		if v.MoreBelow {
			r := v.Items[n-1].Row
			u.centreText(screen, "v", right, float64(r.Y+r.H/2), menu.TextScale*ui, colMenuDim)
		}
	}
	foot := p.W - int(32*ui)
	if v.Message != "" {
		u.centreText(screen, v.Message, cx, float64(v.MessageY), u.fitScale(v.Message, foot, ui), colLow)
	} else if v.Note != "" {
		u.centreText(screen, v.Note, cx, float64(v.MessageY), u.fitScale(v.Note, foot, ui), colArmor)
	}
	u.centreText(screen, v.Hint, cx, float64(v.HintY), u.fitScale(v.Hint, foot, ui), colMenuDim)
}

// drawMenuItem draws one row of the menu at UI scale ui.
func (u *UI) drawMenuItem(screen *ebiten.Image, it *menu.Item, ui float64) {
	s := menu.TextScale * ui
	row := it.Row
	ty := float64(it.TextY)
	labelCol := colWhite
	if it.Selected {
		vector.DrawFilledRect(screen, float32(row.X), float32(row.Y), float32(row.W), float32(row.H), colMenuSelect, false)
		vector.DrawFilledRect(screen, float32(row.X), float32(row.Y), float32(4*ui), float32(row.H), colMenuAccent, false)
		labelCol = colMenuAccent
	}
	u.text(screen, it.Label, float64(it.LabelX), ty, s, labelCol)
	if it.Detail != "" {
		lw, _ := text.Measure(it.Label, u.face, 0)
		u.text(screen, it.Detail, float64(it.LabelX)+lw*s+12*ui, ty+11*ui, menu.DetailScale*ui, colMenuDim)
	}

	right := float64(it.ValueRight)
	if it.Unit != "" {
		u.rightText(screen, it.Unit, right, ty+11*ui, menu.DetailScale*ui, colMenuDim)
		uw, _ := text.Measure(it.Unit, u.face, 0)
		right -= (uw + 6) * ui
	}
	vw, _ := text.Measure(it.Value, u.face, 0)
	vw *= s
	switch it.Kind {
	case menu.KindChoice:
		// Arrows around the value say Left/Right change it.
		arrow := colMenuDim
		if it.Selected {
			arrow = colWhite
		}
		u.rightText(screen, ">", right, ty, s, arrow)
		right -= 2 * menu.GlyphW * s
		u.rightText(screen, "<", right-vw-menu.GlyphW*s, ty, s, arrow)
		u.rightText(screen, it.Value, right, ty, s, colWhite)
	case menu.KindSlider:
		bar := it.Bar
		bx, by, bw, bh := float32(bar.X), float32(bar.Y), float32(bar.W), float32(bar.H)
		vector.DrawFilledRect(screen, bx, by, bw, bh, colMenuBarBg, false)
		vector.DrawFilledRect(screen, bx, by, bw*float32(it.Fraction), bh, colMenuBar, false)
		kx := bx + bw*float32(it.Fraction)
		k := float32(ui)
		vector.DrawFilledRect(screen, kx-3*k, by-4*k, 6*k, bh+8*k, colWhite, false)
		u.rightText(screen, it.Value, right, ty, s, colWhite)
	case menu.KindText:
		// A box marks the field even when empty; the caret shows where
		// typing goes.
		caret := menu.GlyphW * s
		w := max(vw+caret+12*ui, 12*menu.GlyphW*s)
		border := colMenuBarBg
		if it.Editing {
			border = colMenuBorder
		}
		bx, by, bw, bh := float32(right-w), float32(float64(row.Y)+3*ui), float32(w+6*ui), float32(float64(row.H)-6*ui)
		vector.DrawFilledRect(screen, bx, by, bw, bh, colMenuField, false)
		vector.StrokeRect(screen, bx, by, bw, bh, 1, border, false)
		if it.Editing {
			cc := colMenuDim
			if it.Changed {
				cc = colMenuAccent
			}
			u.text(screen, "_", right-caret, ty, s, cc)
		}
		u.rightText(screen, it.Value, right-caret, ty, s, colWhite)
	case menu.KindKey:
		c := colWhite
		if it.Capturing {
			c = colLow
		}
		u.rightText(screen, it.Value, right, ty, s, c)
	default:
		u.rightText(screen, it.Value, right, ty, s, colWhite)
	}
}

// fitScale returns menu.TextScale times the UI scale ui if s fits in
// width pixels at that scale, and ui otherwise.
func (u *UI) fitScale(s string, width int, ui float64) float64 {
	w, _ := text.Measure(s, u.face, 0)
	if w*menu.TextScale*ui <= float64(width) {
		return menu.TextScale * ui
	}
	return ui
}
