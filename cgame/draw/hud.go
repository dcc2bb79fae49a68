package draw

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cgame/draw/view"
)

// How long text stays on screen, in ms of real time.
const (
	ChatTime        = 8000
	CenterPrintTime = 3000
	ObituaryTime    = 5000
	ChatLines       = 6
)

// drawHUD draws the status bar, the clock, the chat, the kill feed and the
// centre print.
func (r *Renderer) drawHUD(screen *ebiten.Image, g *cgame.CGame, f *Frame) {
	ps := &g.Predicted
	w, h := r.view.W, r.view.H
	const s = 3.0 // HUD text scale
	y := h - 13*s - 12

	vector.DrawFilledRect(screen, 0, float32(y-8), float32(w), float32(13*s+20), colPanel, false)
	health := ps.Stats[bg.StatHealth]
	hc := colHealth
	if health <= 25 {
		hc = colLow
	}
	r.buf = view.AppendInt(append(r.buf[:0], "HP "...), health)
	r.text(screen, string(r.buf), 16, y, s, hc)
	r.buf = view.AppendInt(append(r.buf[:0], "AR "...), ps.Stats[bg.StatArmor])
	r.text(screen, string(r.buf), 16+9*7*s, y, s, colArmor)

	wp := ps.Weapon
	if wp > bg.WPNone && wp < bg.NumWeapons {
		r.buf = append(r.buf[:0], bg.Weapons[wp].Name...)
		if a := ps.Ammo[wp]; a >= 0 {
			r.buf = view.AppendInt(append(r.buf, "  "...), a)
		}
		r.centreText(screen, string(r.buf), w/2, y+13*s/2, s, weaponColour(wp))
	}
	r.buf = view.AppendInt(append(r.buf[:0], "FRAGS "...), ps.Persistant[bg.PersScore])
	r.rightText(screen, string(r.buf), w-16, y, s, colWhite)

	// Clock: time left with a time limit, else time played.
	elapsed := g.Time - f.LevelStartTime
	if f.TimeLimit > 0 {
		elapsed = int32(f.TimeLimit)*60000 - elapsed
	}
	r.buf = view.ClockText(r.buf[:0], elapsed)
	r.centreText(screen, string(r.buf), w/2, 22, 2, colWhite)

	// Chat, newest at the bottom of a block at the top left.
	n := 0
	for i := g.Chat.Len() - 1; i >= 0 && n < ChatLines; i-- {
		if g.RealTime-g.Chat.At(i).Time > ChatTime {
			break
		}
		n++
	}
	for i := 0; i < n; i++ {
		l := g.Chat.At(g.Chat.Len() - n + i)
		r.text(screen, l.Text, 12, 12+float64(i)*28, 2, colWhite)
	}

	// Kill feed, top right.
	row := 0
	for i := g.Obituaries.Len() - 1; i >= 0 && row < 5; i-- {
		o := g.Obituaries.At(i)
		if g.Time-o.Time > ObituaryTime || f.Names == nil {
			break
		}
		killer := "world"
		if uint32(o.Killer) < bg.MaxClients {
			killer = f.Names[o.Killer]
		}
		victim := ""
		if uint32(o.Victim) < bg.MaxClients {
			victim = f.Names[o.Victim]
		}
		line := killer + " > " + victim
		if o.Killer == o.Victim {
			line = victim + " died"
		}
		r.rightText(screen, line, w-12, 12+float64(row)*24, 2, colWhite)
		row++
	}

	if cp := g.CenterPrint; cp.Text != "" && g.RealTime-cp.Time < CenterPrintTime {
		r.centreText(screen, cp.Text, w/2, h/4, 3, colWhite)
	}
	if ps.PmType == bg.PMDead || ps.EFlags&bg.EFDead != 0 {
		r.centreText(screen, "you are dead: fire to respawn", w/2, h/2+80, 2, colLow)
	}
}

// drawScores draws the scoreboard of g.Scores.
func (r *Renderer) drawScores(screen *ebiten.Image, g *cgame.CGame, f *Frame) {
	sc := &g.Scores
	const s = 2.0
	rows := max(sc.Count, 1)
	pw, ph := 560.0, float64(rows)*30+90
	x, y := (r.view.W-pw)/2, (r.view.H-ph)/2
	vector.DrawFilledRect(screen, float32(x), float32(y), float32(pw), float32(ph), colPanel, false)
	r.text(screen, "NAME", x+20, y+16, s, colArmor)
	r.rightText(screen, "FRAGS", x+360, y+16, s, colArmor)
	r.rightText(screen, "DEATHS", x+460, y+16, s, colArmor)
	r.rightText(screen, "PING", x+pw-20, y+16, s, colArmor)
	if sc.Count == 0 {
		r.text(screen, "waiting for scores...", x+20, y+56, s, colWhite)
		return
	}
	for i := 0; i < sc.Count; i++ {
		p := &sc.Players[i]
		yy := y + 56 + float64(i)*30
		var c color.Color = colWhite
		if p.Client == g.Predicted.ClientNum {
			c = colArmor
		}
		name := ""
		if f.Names != nil && uint32(p.Client) < bg.MaxClients {
			name = f.Names[p.Client]
		}
		vector.DrawFilledRect(screen, float32(x+8), float32(yy+4), 8, 16, PlayerColour(p.Client), false)
		r.text(screen, name, x+20, yy, s, c)
		r.buf = view.AppendInt(r.buf[:0], p.Score)
		r.rightText(screen, string(r.buf), x+360, yy, s, c)
		r.buf = view.AppendInt(r.buf[:0], p.Deaths)
		r.rightText(screen, string(r.buf), x+460, yy, s, c)
		r.buf = view.AppendInt(r.buf[:0], p.Ping)
		r.rightText(screen, string(r.buf), x+pw-20, yy, s, c)
	}
}
