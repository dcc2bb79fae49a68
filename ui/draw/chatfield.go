package draw

import (
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/common/console"
)

// DrawChatField draws the chat line being typed (messagemode) above the
// HUD: "say: " and the text with a blinking cursor, at twice the UI
// scale.
func (u *UI) DrawChatField(screen *ebiten.Image, p *console.Prompt, now int64) {
	b := screen.Bounds()
	s := u.uiScale(b.Dx(), b.Dy())
	ts := 2 * s     // the text's scale
	charW := 7 * ts // and a character's width at it
	y := float64(b.Dy()) - 110*s
	vector.DrawFilledRect(screen, float32(8*s), float32(y-4*s), float32(float64(b.Dx())-16*s), float32(34*s), colPanel, false)
	u.text(screen, "say:", 16*s, y, ts, colArmor)
	x0 := 16*s + 5*charW
	text := p.Text()
	u.text(screen, text, x0, y, ts, colWhite)
	if (now/500)%2 == 0 {
		cur := utf8.RuneCountInString(text[:p.Cursor()])
		u.text(screen, "_", x0+float64(cur)*charW, y+2*s, ts, colWhite)
	}
}
