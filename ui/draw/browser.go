package draw

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/ui/menu"
)

// drawBrowser paints the server browser page's tabs, header, rows,
// buttons and status line (menu.BrowserView) inside the menu's panel.
func (u *UI) drawBrowser(screen *ebiten.Image, v *menu.BrowserView, ui float64) {
	s := menu.TableScale * ui
	fill := func(rc menu.Rect, c color.RGBA) {
		vector.DrawFilledRect(screen, float32(rc.X), float32(rc.Y), float32(rc.W), float32(rc.H), c, false)
	}
	stroke := func(rc menu.Rect, c color.RGBA) {
		vector.StrokeRect(screen, float32(rc.X), float32(rc.Y), float32(rc.W), float32(rc.H), 1, c, false)
	}
	textY := func(rc menu.Rect) float64 { return float64(rc.Y) + (float64(rc.H)-menu.GlyphH*s)/2 }

	for _, t := range v.Tabs {
		c := colMenuDim
		if t.Active {
			fill(t.Rect, colMenuSelect)
			vector.DrawFilledRect(screen, float32(t.Rect.X), float32(float64(t.Rect.Y+t.Rect.H)-3*ui), float32(t.Rect.W), float32(3*ui), colMenuAccent, false)
			c = colMenuAccent
		}
		stroke(t.Rect, colMenuBarBg)
		u.centreText(screen, t.Label, float64(t.Rect.X+t.Rect.W/2), float64(t.Rect.Y+t.Rect.H/2), s, c)
	}

	for _, c := range v.Columns {
		fill(c.Rect, colMenuField)
		label := c.Label
		if c.Sorted {
			if c.Descending {
				label += " v"
			} else {
				label += " ^"
			}
		}
		col := colMenuDim
		if c.Sorted {
			col = colWhite
		}
		u.cell(screen, label, c.Rect, c.Right, textY(c.Rect), col, ui)
	}

	for i := range v.Rows {
		row := &v.Rows[i]
		col := colWhite
		if row.Greyed {
			col = colMenuDim
		}
		if row.Selected {
			fill(row.Rect, colMenuSelect)
			vector.DrawFilledRect(screen, float32(row.Rect.X), float32(row.Rect.Y), float32(4*ui), float32(row.Rect.H), colMenuAccent, false)
			if !row.Greyed {
				col = colMenuAccent
			}
		}
		for j, text := range row.Cells {
			if j >= len(v.Columns) {
				break
			}
			c := v.Columns[j]
			if j == 0 && row.Favorite {
				text = "* " + text
			}
			u.cell(screen, text, menu.Rect{X: c.Rect.X, Y: row.Rect.Y, W: c.Rect.W, H: row.Rect.H}, c.Right, float64(row.TextY), col, ui)
		}
	}
	if len(v.Rows) == 0 && v.Empty != "" {
		u.centreText(screen, v.Empty, float64(v.Table.X+v.Table.W/2), float64(v.Table.Y+v.Table.H/2), s, colMenuDim)
	}
	right := float64(v.Table.X+v.Table.W) - 10*ui
	if v.MoreAbove && len(v.Rows) > 0 {
		u.centreText(screen, "^", right, float64(v.Rows[0].Rect.Y+v.Rows[0].Rect.H/2), s, colMenuDim)
	}
	if v.MoreBelow && len(v.Rows) > 0 {
		last := v.Rows[len(v.Rows)-1].Rect
		u.centreText(screen, "v", right, float64(last.Y+last.H/2), s, colMenuDim)
	}

	for _, b := range v.Buttons {
		c := colWhite
		switch {
		case b.Toggle && b.On:
			fill(b.Rect, colMenuSelect)
			c = colMenuAccent
		case b.Toggle:
			fill(b.Rect, colMenuField)
			c = colMenuDim
		default:
			fill(b.Rect, colMenuBarBg)
		}
		stroke(b.Rect, colMenuBorder)
		u.centreText(screen, b.Label, float64(b.Rect.X+b.Rect.W/2), float64(b.Rect.Y+b.Rect.H/2), s, c)
	}
	if v.Status != "" {
		p := v.Table
		u.centreText(screen, v.Status, float64(p.X+p.W/2), float64(v.StatusY), u.fitScale(v.Status, p.W, ui), colMenuDim)
	}
}

// cell draws text in the cell rc at TableScale times the UI scale ui,
// left-aligned or, for a number column, right-aligned, cut with "~"
// where it would overflow.
func (u *UI) cell(screen *ebiten.Image, text string, rc menu.Rect, right bool, y float64, c color.RGBA, ui float64) {
	s, pad := menu.TableScale*ui, 8*ui
	fit := int((float64(rc.W) - 2*pad) / (menu.GlyphW * s))
	if fit <= 0 {
		return
	}
	if n := len([]rune(text)); n > fit {
		text = string([]rune(text)[:max(fit-1, 0)]) + "~"
	}
	if right {
		u.rightText(screen, text, float64(rc.X+rc.W)-pad, y, s, c)
		return
	}
	u.text(screen, text, float64(rc.X)+pad, y, s, c)
}
