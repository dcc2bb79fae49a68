package draw

import (
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/client"
)

// demoBar is the demo bar's state: the demo's first and last times and
// the bar's text, rebuilt when what it says changes. Its lifetime is one
// demo's (Renderer.ResetDemoBar).
type demoBar struct {
	sec      int32
	scale    float64
	paused   bool
	timedemo bool
	text     string
	first    int32
	last     int32
	known    bool
}

// DrawDemoBar draws, while a demo plays, a bar under the clock: the
// demo's time and length, the speed, "paused", and a progress line;
// timedemo says a timedemo runs.
func (r *Renderer) DrawDemoBar(screen *ebiten.Image, pb *client.Playback, timedemo bool) {
	r.demo.draw(screen, &r.text, pb, timedemo)
}

// draw draws the demo bar with tp: see Renderer.DrawDemoBar.
func (d *demoBar) draw(screen *ebiten.Image, tp *textPainter, pb *client.Playback, timedemo bool) {
	if !d.known {
		if s, err := pb.Summary(); err == nil && s != nil {
			d.first, d.last = s.FirstTime, s.LastTime
		}
		d.known = true
	}
	now := pb.Time()
	sec := (now - d.first) / 1000
	if d.text == "" || sec != d.sec || pb.Timescale() != d.scale || pb.Paused() != d.paused || timedemo != d.timedemo {
		d.sec, d.scale, d.paused, d.timedemo = sec, pb.Timescale(), pb.Paused(), timedemo
		length := max(0, d.last-d.first) / 1000
		state := ""
		switch {
		case timedemo:
			state = "  timedemo"
		case d.paused:
			state = "  paused"
		}
		d.text = fmt.Sprintf("DEMO %d:%02d / %d:%02d  x%.2g%s", sec/60, sec%60, length/60, length%60, d.scale, state)
	}
	b := screen.Bounds()
	w := float32(360)
	x, y := float32(b.Dx())/2-w/2, float32(44)
	vector.DrawFilledRect(screen, x, y, w, 34, colPanel, false)
	tp.centreText(screen, d.text, float64(b.Dx())/2, float64(y)+3, 1, colWhite)
	frac := float32(0)
	if d.last > d.first {
		frac = min(1, max(0, float32(now-d.first)/float32(d.last-d.first)))
	}
	vector.DrawFilledRect(screen, x+8, y+22, w-16, 4, colShadow, false)
	vector.DrawFilledRect(screen, x+8, y+22, (w-16)*frac, 4, colArmor, false)
}

// ResetDemoBar forgets the demo the bar described, for the next one.
func (r *Renderer) ResetDemoBar() { r.demo = demoBar{} }

// DrawReplayBanner draws, while a journal replays (docs/journal.md), a
// panel under the clock saying so, with the frames replayed; once it has
// ended, whether every hash was as recorded or where it diverged (err).
func (r *Renderer) DrawReplayBanner(screen *ebiten.Image, name string, frames int, done bool, err error) {
	tp := &r.text
	text, c := fmt.Sprintf("JOURNAL REPLAY %s  frame %d", name, frames), colWhite
	switch {
	case done && err != nil:
		text, c = "JOURNAL REPLAY stopped: "+err.Error(), colLow
	case done:
		text, c = fmt.Sprintf("JOURNAL REPLAY done: %d frames, every hash as recorded", frames), colHealth
	}
	b := screen.Bounds()
	if room := float64(b.Dx()) - 40; tp.textWidth(text, 1) > room {
		for len(text) > 0 && tp.textWidth(text+"...", 1) > room {
			text = text[:len(text)-1]
		}
		text += "..."
	}
	w := float32(tp.textWidth(text, 1) + 24)
	x, y := float32(b.Dx())/2-w/2, float32(44)
	vector.DrawFilledRect(screen, x, y, w, 22, colPanel, false)
	tp.centreText(screen, text, float64(b.Dx())/2, float64(y)+3, 1, c)
}
