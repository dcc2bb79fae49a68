package draw

import (
	"image/color"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/common/console"
)

// ConsoleView is what one call of DrawConsole shows: the drop-down
// console's text and input line, and how far it is down.
type ConsoleView struct {
	// Scrollback holds the console's text; Prompt is its input line.
	Scrollback *console.Scrollback
	Prompt     *console.Prompt
	// Frac is how far the console is down: 0 closed, 1 open, when it
	// covers the top half of the screen. The client moves it towards 0
	// or 1 each frame to slide the console (Quake III's con_speed).
	Frac float64
	// Now is the real time in ms; it blinks the cursor.
	Now int64
	// Version is shown in the bottom right corner (Quake III showed
	// Q3_VERSION there).
	Version string
}

// Console layout, in pixels at UI scale 1: the console uses the fixed
// font at the UI scale, and every size here is multiplied by it.
const (
	conCharW   = 7  // basicfont.Face7x13's advance
	conLineH   = 13 // and its line height
	conMargin  = 8
	conEdge    = 2   // the line at the console's bottom
	conMaxRows = 160 // text rows drawn at most, enough for a 4K screen
	conBlinkMs = 500 // the cursor is shown and hidden for this long
)

// Console colours. The panel's two are boxed once as color.Color so
// that passing them to package vector does not allocate each frame.
var (
	colConBack   color.Color = color.RGBA{0x05, 0x08, 0x10, 0xe0}
	colConEdge   color.Color = color.RGBA{0xc0, 0x30, 0x20, 0xff}
	colConCursor color.Color = colConPrompt
	colConText               = color.RGBA{0xd8, 0xdc, 0xe4, 0xff}
	colConPrompt             = color.RGBA{0xff, 0xff, 0xff, 0xff}
	colConMarker             = color.RGBA{0xf0, 0xd0, 0x40, 0xff}
	colConDim                = color.RGBA{0x80, 0x8c, 0xa0, 0xff}
)

// conMarker is the row shown below the text while the scrollback is
// scrolled back, cut to the screen's width.
var conMarker = strings.Repeat("^   ", conMaxRows)

// DrawConsole draws the console over the top of the screen as v.Frac
// says: a translucent panel with the newest lines of the scrollback (or
// older ones, marked "^ ^ ^", when scrolled back), the prompt "]" with
// its line and a blinking cursor, and the version in the bottom right
// corner (Quake III's Con_DrawSolidConsole). Nothing is drawn when
// v.Frac is 0. It does not allocate in steady state.
func (u *UI) DrawConsole(screen *ebiten.Image, v ConsoleView) {
	if v.Frac <= 0 || v.Scrollback == nil || v.Prompt == nil {
		return
	}
	b := screen.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	s := u.uiScale(b.Dx(), b.Dy())
	charW, lineH, margin, edge, gap := conCharW*s, conLineH*s, conMargin*s, math.Round(conEdge*s), 4*s
	full := math.Floor(h / 2)
	bottom := math.Round(full * min(v.Frac, 1)) // the panel's height on screen
	vector.DrawFilledRect(screen, 0, 0, float32(w), float32(bottom), colConBack, false)
	vector.DrawFilledRect(screen, 0, float32(bottom-edge), float32(w), float32(edge), colConEdge, false)

	// The prompt row, with the version at its right.
	py := bottom - edge - gap - lineH
	right := w - margin
	if v.Version != "" {
		vw := text.Advance(v.Version, u.face) * s
		u.text(screen, v.Version, right-vw, py, s, colConDim)
		right -= vw + 2*charW
	}
	u.drawPrompt(screen, v.Prompt, margin, py, right, v.Now, s)

	// The text rows above it. Their number is the full console's, so that
	// sliding does not change how far the scrollback scrolls.
	rows := int((full - edge - gap - lineH - gap - margin) / lineH)
	rows = min(max(rows, 1), conMaxRows)
	y := py - gap - lineH // the lowest text row
	if v.Scrollback.ScrolledBack() {
		cols := min(int((w-2*margin)/charW), len(conMarker))
		u.text(screen, conMarker[:max(cols, 0)], margin, y, s, colConMarker)
		y -= lineH
		rows--
	}
	var buf [conMaxRows]string
	lines := v.Scrollback.Visible(buf[:0], rows)
	for i := len(lines) - 1; i >= 0 && y > -lineH; i-- {
		u.text(screen, lines[i], margin, y, s, colConText)
		y -= lineH
	}
}

// drawPrompt draws "]" and the prompt's line at (x, y), scrolled
// sideways so that the cursor stays left of right, with the cursor shown
// for the first half of each blink period, all at UI scale sc.
func (u *UI) drawPrompt(screen *ebiten.Image, p *console.Prompt, x, y, right float64, now int64, sc float64) {
	charW := conCharW * sc
	u.text(screen, "]", x, y, sc, colConPrompt)
	x += charW
	s, cur := p.Text(), p.Cursor()
	cols := max(int((right-x)/charW)-1, 1) // one column for the cursor at the end
	// Scroll: the first shown rune is far enough right to show the cursor.
	start := 0
	if n := utf8.RuneCountInString(s[:cur]); n >= cols {
		start = runeOffset(s, n-cols+1)
	}
	end := start + runeOffset(s[start:], cols)
	u.text(screen, s[start:end], x, y, sc, colConPrompt)
	if now%(2*conBlinkMs) < conBlinkMs {
		cx := x + text.Advance(s[start:cur], u.face)*sc
		ch := math.Max(2, math.Round(2*sc))
		vector.DrawFilledRect(screen, float32(cx), float32(y+conLineH*sc-ch), float32(charW), float32(ch), colConCursor, false)
	}
}

// runeOffset returns the byte offset of rune n of s, or len(s).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// DrawNotify draws the scrollback's notify lines at real time now (ms) in
// the left, below the chat: what was printed in the last few seconds, for
// while the console is closed (Quake III's Con_DrawNotify). It does not
// allocate in steady state.
func (u *UI) DrawNotify(screen *ebiten.Image, sb *console.Scrollback, now int64) {
	if sb == nil {
		return
	}
	// Below the net graph's corner and the chat block, so that none of
	// the three covers another.
	b := screen.Bounds()
	s := u.uiScale(b.Dx(), b.Dy())
	y0 := float64(NetGraphRect(b.Dx(), b.Dy()).Max.Y+16+ChatLines*24) * s // under the HUD's chat, drawn at the same scale
	var buf [console.NotifyLines]string
	for i, l := range sb.Notify(buf[:0], now) {
		u.text(screen, l, 12, y0+float64(i)*conLineH*s, s, colConText)
	}
}
