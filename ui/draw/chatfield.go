package draw

import (
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/common/console"
)

// DrawChatField draws the chat line being typed (messagemode) above the
// HUD: "say: " and the text with a blinking cursor.
func (u *UI) DrawChatField(screen *ebiten.Image, p *console.Prompt, now int64) {
	b := screen.Bounds()
	y := float64(b.Dy()) - 110
	vector.DrawFilledRect(screen, 8, float32(y)-4, float32(b.Dx())-16, 34, colPanel, false)
	u.text(screen, "say:", 16, y, 2, colArmor)
	const x0, charW = 16 + 5*14, 14 // the font at scale 2
	text := p.Text()
	u.text(screen, text, x0, y, 2, colWhite)
	if (now/500)%2 == 0 {
		cur := utf8.RuneCountInString(text[:p.Cursor()])
		u.text(screen, "_", x0+float64(cur*charW), y+2, 2, colWhite)
	}
}
