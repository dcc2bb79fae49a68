package draw

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cgame/fx"
	"tremor/client"
	"tremor/ui/draw/view"
)

// How long text and feedback stay on screen, in ms of real time.
const (
	ChatTime        = 8000
	CenterPrintTime = 3000
	ObituaryTime    = 5000
	ChatLines       = 6
	PickupTime      = 3000 // a pickup line
	HitMarkerTime   = 250  // the hit marker round the crosshair
	DamageFlashTime = 600  // the red vignette of a hit taken
	DamageDirTime   = 1200 // the arrow towards where it came from
)

// StatusBarHeight is the height of the status bar at the bottom of the
// screen, in screen pixels.
const StatusBarHeight = 52

// LagometerSize is the side of the lagometer's square box, in pixels:
// Quake III's 48 units at 1.5 pixels each.
const LagometerSize = 72

// LagometerRect returns where the lagometer goes on a w×h screen: a
// square in the bottom-left corner above the status bar. The HUD leaves
// it empty.
func LagometerRect(w, h int) image.Rectangle {
	return image.Rect(8, h-StatusBarHeight-8-LagometerSize, 8+LagometerSize, h-StatusBarHeight-8)
}

// LagometerScreenRect returns LagometerRect on a w×h screen whose HUD
// is drawn at UI scale ui, in screen pixels: the box grows with the
// scale, as the status bar it sits on does.
func LagometerScreenRect(w, h int, ui float64) image.Rectangle {
	ui = max(ui, view.MinUIScale)
	r := LagometerRect(int(float64(w)/ui), int(float64(h)/ui))
	return image.Rect(int(float64(r.Min.X)*ui), int(float64(r.Min.Y)*ui), int(float64(r.Max.X)*ui), int(float64(r.Max.Y)*ui))
}

// LagometerRect returns where the lagometer goes on screen at the UI
// scale of the last Draw, in screen pixels (LagometerScreenRect).
func (r *Renderer) LagometerRect(screen *ebiten.Image) image.Rectangle {
	b := screen.Bounds()
	return LagometerScreenRect(b.Dx(), b.Dy(), r.hud.zoom)
}

// NetGraphRect returns where the net graph goes on a w×h screen: the
// top-left corner, room for client.NetGraphColumns ×
// client.NetGraphLines of text above its bars. The HUD leaves it empty; the chat starts below
// it.
func NetGraphRect(w, h int) image.Rectangle {
	return image.Rect(8, 8, 8+12+7*client.NetGraphColumns, 8+124)
}

// numTexts caches the decimal text of small numbers so that the HUD
// does not allocate a string per number per frame.
var numTexts [1200]string

// numText returns n in decimal; numbers in [-200, 1000) come from a
// cache.
func numText(n int32) string {
	i := int(n) + 200
	if i < 0 || i >= len(numTexts) {
		return strconv.Itoa(int(n))
	}
	if numTexts[i] == "" {
		numTexts[i] = strconv.Itoa(int(n))
	}
	return numTexts[i]
}

// ordinal returns "1st", "2nd", ... for a rank.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return numText(int32(n)) + suffix
}

// ordinals caches ordinal for the ranks a server can have.
var ordinals = func() [bg.MaxClients + 1]string {
	var o [bg.MaxClients + 1]string
	for i := 1; i <= bg.MaxClients; i++ {
		o[i] = ordinal(i)
	}
	return o
}()

// clockText caches the clock's text for one second.
type clockText struct {
	sec int32
	s   string
}

// text returns the clock's text for ms, formatting it in buf when the
// second changed.
func (c *clockText) text(ms int32, buf []byte) string {
	if ms < 0 {
		ms = 0
	}
	if sec := ms / 1000; sec != c.sec || c.s == "" {
		c.sec = sec
		c.s = string(view.ClockText(buf[:0], ms))
	}
	return c.s
}

// hudPainter draws what lies over the game's world on the screen: the
// status bar, the clock, the chat, the kill feed, the pickup lines, the
// damage flash, the crosshair, the scoreboards, the net graph, the demo
// bar and the download screen. Its lifetime is the window's: it keeps
// its batch, the clock's text and a scratch buffer between frames, and
// is handed what it draws of other lifetimes (the cgame, the level's
// feedback, the frame's view). Not safe for concurrent use.
type hudPainter struct {
	textPainter // its own: it draws zoomed by the UI scale
	b           batch
	buf         []byte
	clock       clockText
	// zoom is the UI scale the HUD is drawn at, and w×h the screen it
	// lays out: the real one zoom times smaller. Every position and size
	// of the HUD is in these units; the painter's text and batch magnify
	// them onto the screen (setScreen).
	zoom float64
	w, h float64
}

// newHUDPainter returns a HUD painter at UI scale 1.
func newHUDPainter() hudPainter {
	hp := hudPainter{textPainter: smallText(), buf: make([]byte, 0, 64)}
	hp.setScreen(1, 1, 1)
	return hp
}

// setScreen makes the HUD lay out a w×h screen at UI scale zoom.
func (hp *hudPainter) setScreen(w, h int, zoom float64) {
	zoom = max(zoom, view.MinUIScale)
	hp.zoom, hp.w, hp.h = zoom, float64(w)/zoom, float64(h)/zoom
	hp.textPainter.zoom, hp.b.zoom = zoom, float32(zoom)
}

// reserve keeps what the HUD draws over the world free of the world's
// labels (names, the overlays' labels), which are drawn before it, and
// the labels inside the screen above the status bar: the clock's panel,
// the STALL marker when it shows, the net graph's corner when it is
// drawn, and the pickup lines shown at now (drawPickups).
func (hp *hudPainter) reserve(l *view.Labels, netGraph bool, stall string, fb *fx.Feedback, now int32) {
	z := hp.zoom
	l.Bound(hp.w*z, (hp.h-StatusBarHeight)*z)
	cw := hp.textWidth("00:00", 2) + 24
	l.Reserve((hp.w/2-cw/2)*z, 6*z, (hp.w/2+cw/2)*z, 38*z)
	if stall != "" {
		sw := hp.textWidth(stall, 1) + 24
		l.Reserve((hp.w/2-sw/2)*z, stallTop*z, (hp.w/2+sw/2)*z, (stallTop+stallHeight)*z)
	}
	if netGraph {
		r := NetGraphRect(int(hp.w), int(hp.h))
		l.Reserve(float64(r.Min.X)*z, float64(r.Min.Y)*z, float64(r.Max.X)*z, float64(r.Max.Y)*z)
	}
	if n := hp.pickupsShown(fb, now); n > 0 {
		const half = 200 // wide enough for "Rocket launcher +10 rockets" at scale 2
		bottom := hp.h - StatusBarHeight - 24 + 26
		l.Reserve((hp.w/2-half)*z, (bottom-26*float64(n)-12)*z, (hp.w/2+half)*z, bottom*z)
	}
}

// pickupsShown returns how many of fb's pickup lines are on screen at
// now.
func (hp *hudPainter) pickupsShown(fb *fx.Feedback, now int32) int {
	n := 0
	for i := fb.Pickups() - 1; i >= 0; i-- {
		if age := now - fb.PickupAt(i).Time; age < 0 || age > PickupTime {
			break
		}
		n++
	}
	return n
}

// panel adds a translucent panel with a light top edge to the HUD batch.
func (hp *hudPainter) panel(x, y, w, h float32, a float32) {
	b := &hp.b
	b.vgrad(x, y, w, h, rgbaOf(color.RGBA{0x10, 0x14, 0x22, 0xff}, a), rgbaOf(color.RGBA{0x04, 0x06, 0x0c, 0xff}, a))
	b.rect(x, y, w, 1, rgbaOf(artRockLight, a*0.35))
}

// drawHUD draws the status bar, the clock, the chat, the kill feed, the
// pickup lines and the centre print. The status bar is about the player
// the view is of (hudSubject): the local player's health, armor,
// weapons, ammo and frags; during a demo that follows another player,
// what a demo holds of that player; a line of text for a spectator and
// for the demo's free camera.
func (hp *hudPainter) drawHUD(screen *ebiten.Image, g *cgame.CGame, f *Frame, fb *fx.Feedback, fv *frameView) {
	ps := &g.Predicted
	w, h := hp.w, hp.h
	top := h - StatusBarHeight

	hp.panel(0, float32(top), float32(w), StatusBarHeight, 0.82)
	subject, who := hudSubject(g, f)
	if subject == hudSelf {
		hp.drawStatus(screen, g, fv)
	} else {
		hp.drawStatusLine(screen, g, f, fv, subject, who)
	}

	// Clock: time left with a time limit, else time played.
	elapsed := g.Time - f.LevelStartTime
	if f.TimeLimit > 0 {
		elapsed = int32(f.TimeLimit)*60000 - elapsed
	}
	clock := hp.clock.text(elapsed, hp.buf)
	cw := float32(hp.textWidth(clock, 2)) + 24
	hp.panel(float32(w/2)-cw/2, 6, cw, 32, 0.6)
	hp.b.flush(screen)
	hp.centreText(screen, clock, w/2, 22, 2, colWhite)
	hp.drawStall(screen, f.Stall)

	hp.drawChat(screen, g, fv)
	hp.drawKillFeed(screen, g, f, fv)
	if subject == hudSelf {
		hp.drawPickups(screen, g, fb, fv)
	}

	if cp := g.CenterPrint; cp.Text != "" && g.RealTime-cp.Time < CenterPrintTime {
		a := min(1, float32(CenterPrintTime-(g.RealTime-cp.Time))/400)
		hp.centreText(screen, cp.Text, w/2, h/4, 3, fade(colWhite, a))
	}
	switch {
	case subject == hudSelf && !f.Playback && (ps.PmType == bg.PMDead || ps.EFlags&bg.EFDead != 0):
		hp.centreText(screen, "you are dead: fire to respawn", w/2, h/2+80, 2, colLow)
	case subject == hudSelf && f.Playback && (ps.PmType == bg.PMDead || ps.EFlags&bg.EFDead != 0):
		hp.centreText(screen, hudName(f, ps.ClientNum)+" is dead", w/2, h/2+80, 2, colLow)
	case subject == hudFollowed && followedDead(g, who):
		hp.centreText(screen, hudName(f, who)+" is dead", w/2, h/2+80, 2, colLow)
	}
}

// Where the frame-sync STALL marker goes: under the clock, stallHeight
// high.
const (
	stallTop    = 44
	stallHeight = 46
)

// drawStall draws the frame-sync STALL marker under the clock when
// detail, the line under its title (view.StallMarker), is not empty.
func (hp *hudPainter) drawStall(screen *ebiten.Image, detail string) {
	if detail == "" {
		return
	}
	w := hp.w
	pw := float32(max(hp.textWidth(detail, 1), hp.textWidth("STALL", 3)) + 24)
	hp.b.rect(float32(w/2)-pw/2, stallTop, pw, stallHeight, rgbaOf(colLow, 0.75))
	hp.b.flush(screen)
	hp.centreText(screen, "STALL", w/2, stallTop+15, 3, colWhite)
	hp.centreText(screen, detail, w/2, stallTop+36, 1, colWhite)
}

// drawStatus draws the local player's status bar: health and armor,
// weapons and ammo, frags and place.
func (hp *hudPainter) drawStatus(screen *ebiten.Image, g *cgame.CGame, fv *frameView) {
	ps := &g.Predicted
	w := hp.w
	b := &hp.b
	const s = 3.0 // big HUD text
	top := hp.h - StatusBarHeight
	y := top + (StatusBarHeight-13*s)/2
	// Health and armor with their icons.
	health := ps.Stats[bg.StatHealth]
	hc := colHealth
	if health <= 25 {
		hc = colLow
	}
	cx, cy := float32(28), float32(top+StatusBarHeight/2)
	b.rect(cx-12, cy-4, 24, 8, rgbaOf(hc, 1))
	b.rect(cx-4, cy-12, 8, 24, rgbaOf(hc, 1))
	maxH := max(ps.Stats[bg.StatMaxHealth], 1)
	b.rect(50, float32(top+StatusBarHeight-7), 100, 3, rgbaOf(colShadow, 0.8))
	b.rect(50, float32(top+StatusBarHeight-7), 100*min(1, float32(max(health, 0))/float32(maxH)), 3, rgbaOf(hc, 1))
	ax := float32(190)
	b.quad(ax-10, cy-11, ax+10, cy-11, ax+10, cy+2, ax-10, cy+2, rgbaOf(colArmor, 1), rgbaOf(colArmor, 1), rgbaOf(shade(colArmor, 0.7), 1), rgbaOf(shade(colArmor, 0.7), 1))
	b.tri(ax-10, cy+2, ax+10, cy+2, ax, cy+12, rgbaOf(shade(colArmor, 0.7), 1))

	// Weapon slots: owned weapons lit, the current one framed.
	const slot = 36.0
	sx := float32(w/2 - 2.5*slot)
	owned := ps.Stats[bg.StatWeapons]
	for wp := int32(bg.WPGauntlet); wp < bg.NumWeapons; wp++ {
		x := sx + float32(wp-1)*slot
		c := weaponColour(wp)
		a := float32(0.25)
		if owned&(1<<wp) != 0 {
			a = 1
		}
		if wp == ps.Weapon {
			b.rect(x+1, float32(top)+5, slot-2, StatusBarHeight-10, rgbaOf(c, 0.25))
			b.rect(x+1, float32(top)+5, slot-2, 2, rgbaOf(c, 1))
			b.rect(x+1, float32(top)+StatusBarHeight-7, slot-2, 2, rgbaOf(c, 1))
		}
		l, th := weaponShape(wp)
		mx, my := x+slot/2, float32(top)+StatusBarHeight/2
		b.line(mx-l/2, my, mx+l/2, my, th+2, rgbaOf(artShadowBlack, 0.8*a))
		b.line(mx-l/2, my, mx+l/2, my, th, rgbaOf(c, a))
	}
	b.flush(screen)
	hp.text(screen, numText(max(health, 0)), 50, y-2, s, hc)
	hp.text(screen, numText(ps.Stats[bg.StatArmor]), 208, y-2, s, colArmor)
	for wp := int32(bg.WPGauntlet); wp < bg.NumWeapons; wp++ {
		x := float64(sx) + float64(wp-1)*slot
		hp.text(screen, numText(wp), x+3, top+4, 1, fade(colWhite, 0.6))
	}
	if wp := ps.Weapon; wp > bg.WPNone && wp < bg.NumWeapons {
		ammoX := float64(sx) + 5*slot + 14
		if a := ps.Ammo[wp]; a >= 0 {
			c := weaponColour(wp)
			if a <= bg.Weapons[wp].Ammo/4 {
				c = colLow
			}
			hp.text(screen, numText(a), ammoX, y-2, s, c)
		}
		hp.rightText(screen, bg.Weapons[wp].Name, float64(sx)-14, top+(StatusBarHeight-13*2)/2, 2, weaponColour(wp))
	}

	// Frags and place.
	score := numText(ps.Persistant[bg.PersScore])
	hp.rightText(screen, score, w-16, y-2, s, colWhite)
	fx := w - 16 - hp.textWidth(score, s) - 10
	hp.rightText(screen, "FRAGS", fx, top+8, 1, fade(colWhite, 0.6))
	if rank := hp.rank(g); rank > 0 {
		hp.rightText(screen, ordinals[rank], fx, top+24, 2, colArmor)
	}
}

// What the status bar is about (hudSubject).
const (
	hudSelf       = iota // the local player, or a demo's recorder
	hudFollowed          // another player a demo's camera follows
	hudFreeCamera        // a demo's free camera
	hudSpectator         // the local player, spectating
)

// hudSubject returns whom the status bar is about, and that player's
// client number (-1 for the free camera).
func hudSubject(g *cgame.CGame, f *Frame) (subject int, client int32) {
	switch {
	case f.Playback && f.Follow && f.FollowClient >= 0:
		return hudFollowed, f.FollowClient
	case f.Playback && f.Follow:
		return hudFreeCamera, -1
	case g.Predicted.PmType == bg.PMSpectator:
		return hudSpectator, g.Predicted.ClientNum
	}
	return hudSelf, g.Predicted.ClientNum
}

// drawStatusLine draws the status bar of a view that is not the local
// player's own: the player a demo follows (name, weapon, and frags when
// the demo's last scores have them; a demo holds no one's health but its
// recorder's), the free camera, or a spectator.
func (hp *hudPainter) drawStatusLine(screen *ebiten.Image, g *cgame.CGame, f *Frame, fv *frameView, subject int, who int32) {
	w := hp.w
	top := hp.h - StatusBarHeight
	mid := top + StatusBarHeight/2
	hp.b.flush(screen)
	switch subject {
	case hudFreeCamera:
		hp.centreText(screen, "FREE CAMERA", w/2, mid, 2, colWhite)
		return
	case hudSpectator:
		text := "SPECTATING: the console's team auto joins the match"
		if f.Playback {
			text = "SPECTATING"
		}
		hp.centreText(screen, text, w/2, mid, 2, colWhite)
		return
	}
	hp.text(screen, "FOLLOWING", 16, top+8, 1, fade(colWhite, 0.6))
	hp.text(screen, hudName(f, who), 16, top+22, 2, colWhite)
	if e := g.Entity(who); e != nil && e.Valid {
		if wp := e.Current.Weapon; wp > bg.WPNone && wp < bg.NumWeapons {
			hp.centreText(screen, bg.Weapons[wp].Name, w/2, mid, 2, weaponColour(wp))
		}
	}
	sc := &g.Scores
	for i := 0; i < sc.Count; i++ {
		if sc.Players[i].Client == who {
			hp.rightText(screen, numText(sc.Players[i].Score), w-16, top+(StatusBarHeight-13*3)/2-2, 3, colWhite)
			break
		}
	}
}

// followedDead reports whether client who, whom a demo follows, is dead
// in the snapshot.
func followedDead(g *cgame.CGame, who int32) bool {
	e := g.Entity(who)
	return e != nil && e.Valid && e.Current.EFlags&bg.EFDead != 0
}

// hudName returns client n's name for the HUD, or "player N" without one.
func hudName(f *Frame, n int32) string {
	if name := f.Name(n); name != "" {
		return name
	}
	return "player " + strconv.Itoa(int(n))
}

// rank returns the local player's place in the last scores, 0 if
// unknown.
func (hp *hudPainter) rank(g *cgame.CGame) int {
	sc := &g.Scores
	for i := 0; i < sc.Count; i++ {
		if sc.Players[i].Client == g.Predicted.ClientNum {
			return i + 1
		}
	}
	return 0
}

// drawChat draws the chat, newest at the bottom of a block below the
// net graph's corner.
func (hp *hudPainter) drawChat(screen *ebiten.Image, g *cgame.CGame, fv *frameView) {
	n := 0
	for i := g.Chat.Len() - 1; i >= 0 && n < ChatLines; i-- {
		if g.RealTime-g.Chat.At(i).Time > ChatTime {
			break
		}
		n++
	}
	y0 := float64(NetGraphRect(int(hp.w), int(hp.h)).Max.Y + 8)
	for i := 0; i < n; i++ {
		l := g.Chat.At(g.Chat.Len() - n + i)
		a := min(1, float32(ChatTime-(g.RealTime-l.Time))/500)
		c := colWhite
		if l.Team {
			c = colHealth
		}
		hp.text(screen, l.Text, 12, y0+float64(i)*24, 2, fade(c, a))
	}
}

// drawKillFeed draws the latest kills at the top right: killer, weapon,
// victim, each name in its player's colour.
func (hp *hudPainter) drawKillFeed(screen *ebiten.Image, g *cgame.CGame, f *Frame, fv *frameView) {
	if f.Names == nil {
		return
	}
	w := hp.w
	const s = 2.0
	row := 0
	for i := g.Obituaries.Len() - 1; i >= 0 && row < 5; i-- {
		o := g.Obituaries.At(i)
		age := g.Time - o.Time
		if age > ObituaryTime {
			break
		}
		a := min(1, float32(ObituaryTime-age)/500)
		victim, killer := f.Name(o.Victim), ""
		self := o.Killer == o.Victim || uint32(o.Killer) >= bg.MaxClients
		if !self {
			killer = f.Name(o.Killer)
		}
		tag := modTag(o.MOD)
		tw := hp.textWidth(tag, s) + 16
		vw := hp.textWidth(victim, s)
		kw := 0.0
		if !self {
			kw = hp.textWidth(killer, s) + 8
		}
		total := kw + tw + vw + 16
		y := 8 + float64(row)*28
		x := w - 8 - total
		mine := o.Killer == g.Predicted.ClientNum || o.Victim == g.Predicted.ClientNum
		hp.panel(float32(x), float32(y), float32(total), 24, 0.55*a)
		if mine {
			hp.b.rect(float32(x), float32(y), float32(total), 24, rgbaOf(colArmor, 0.15*a))
		}
		hp.b.flush(screen)
		xx := x + 8
		if !self {
			hp.text(screen, killer, xx, y+4, s, fade(mix(PlayerColour(o.Killer), colWhite, 0.4), a))
			xx += kw
		}
		hp.text(screen, tag, xx+4, y+4, s, fade(modColour(o.MOD), a))
		xx += tw
		hp.text(screen, victim, xx, y+4, s, fade(mix(PlayerColour(o.Victim), colWhite, 0.4), a))
		row++
	}
}

// modTag returns the short name of a means of death.
func modTag(mod int32) string {
	switch mod {
	case bg.MODGauntlet:
		return weaponLetters[bg.WPGauntlet]
	case bg.MODMachinegun:
		return weaponLetters[bg.WPMachinegun]
	case bg.MODGrenade, bg.MODGrenadeSplash:
		return weaponLetters[bg.WPGrenadeLauncher]
	case bg.MODRocket, bg.MODRocketSplash:
		return weaponLetters[bg.WPRocketLauncher]
	case bg.MODRailgun:
		return weaponLetters[bg.WPRailgun]
	case bg.MODLava:
		return "lava"
	case bg.MODTelefrag:
		return "tele"
	}
	return "died"
}

// modColour returns the colour of a means of death's tag.
func modColour(mod int32) color.RGBA {
	switch mod {
	case bg.MODGauntlet:
		return weaponColour(bg.WPGauntlet)
	case bg.MODMachinegun:
		return weaponColour(bg.WPMachinegun)
	case bg.MODGrenade, bg.MODGrenadeSplash:
		return weaponColour(bg.WPGrenadeLauncher)
	case bg.MODRocket, bg.MODRocketSplash:
		return weaponColour(bg.WPRocketLauncher)
	case bg.MODRailgun:
		return colRail
	case bg.MODLava:
		return colLava
	}
	return colDead
}

// drawPickups draws the latest pickup lines of fb over the status bar,
// the newest lowest.
func (hp *hudPainter) drawPickups(screen *ebiten.Image, g *cgame.CGame, fb *fx.Feedback, fv *frameView) {
	y := hp.h - StatusBarHeight - 24
	total := fb.Pickups()
	for i := total - 1; i >= total-hp.pickupsShown(fb, g.RealTime); i-- {
		p := fb.PickupAt(i)
		age := g.RealTime - p.Time
		a := min(1, float32(PickupTime-age)/600)
		rise := max(0, 1-float64(age)/150) * 12
		c := colWhite
		if p.Item > 0 && int(p.Item) < len(bg.Items) {
			c, _ = itemLook(&bg.Items[p.Item])
			c = mix(c, colWhite, 0.3)
		}
		hp.centreText(screen, p.Text, hp.w/2, y+rise, 2, fade(c, a))
		y -= 26
	}
}

// drawDamage draws the red flash and the direction of the last hit the
// local player took (fb), and a pulse when its health is low.
func (hp *hudPainter) drawDamage(screen *ebiten.Image, g *cgame.CGame, fb *fx.Feedback, fv *frameView) {
	ps := &g.Predicted
	now := g.RealTime
	alpha := float32(0)
	if fb.DamageTime != 0 && now-fb.DamageTime < DamageFlashTime {
		k := float32(now-fb.DamageTime) / DamageFlashTime
		alpha = (1 - k) * min(1, 0.35+float32(fb.DamageCount)/60)
	}
	alive := ps.PmType == bg.PMNormal
	if h := ps.Stats[bg.StatHealth]; alive && h > 0 && h <= 25 {
		alpha = max(alpha, 0.25+0.15*float32(math.Sin(float64(now)/160)))
	}
	if alpha > 0 {
		hp.b.vignette(float32(hp.w), float32(hp.h), colBlood, alpha)
		hp.b.flush(screen)
	}
	if fb.DamageTime != 0 && now-fb.DamageTime < DamageDirTime && alive {
		k := float32(now-fb.DamageTime) / DamageDirTime
		a := float32(fb.DamageDir&0xffff) / 65536 * 2 * math.Pi
		x, y := float32(fv.local.x/hp.zoom), float32(fv.local.y/hp.zoom)
		sc := float32(fv.view.Scale / hp.zoom)
		rad := 56 * sc
		b := &hp.b
		b.arc(x, y, rad, 7*sc, a-0.45, a, rgbaOf(colLow, 0), rgbaOf(colLow, 0.9*(1-k)))
		b.arc(x, y, rad, 7*sc, a, a+0.45, rgbaOf(colLow, 0.9*(1-k)), rgbaOf(colLow, 0))
		dx, dy := float32(math.Cos(float64(a))), float32(math.Sin(float64(a)))
		tx, ty := x+dx*(rad+14*sc), y+dy*(rad+14*sc)
		bx, by := x+dx*(rad+4*sc), y+dy*(rad+4*sc)
		b.tri(tx, ty, bx-dy*7*sc, by+dx*7*sc, bx+dy*7*sc, by-dx*7*sc, rgbaOf(colLow, 1-k))
		b.flush(screen)
	}
}

// Vignette shape: the alpha of the damage flash at elliptic distance d
// from the screen's centre (0 at the centre, 1 at the middle of an edge)
// is ((d-vignetteIn)/vignetteSpan)^1.6, clamped to [0, 1].
const (
	vignetteIn    = 0.45
	vignetteSpan  = 0.75
	vignetteRings = 6  // rings the curve is drawn with, linear between them
	vignetteSides = 32 // segments around
)

// vignette adds a w×h screen's damage vignette in colour c times alpha:
// transparent inside an ellipse, rising to full towards the edges and
// corners. It is a mesh of rings, so the clear middle of the screen is
// not drawn at all and the rest needs no texture: a software renderer
// paid for a full-screen stretched image with four texture reads a pixel
// every frame the player was hit or low on health.
func (b *batch) vignette(w, h float32, c color.RGBA, alpha float32) {
	// The outer ring, at full alpha, passes the corners (d = √1.8).
	const outer = 1.4
	cx, cy := w/2, h/2
	rx, ry := cx/float32(math.Sqrt(0.8)), cy
	first := uint16(len(b.vs))
	for k := 0; k <= vignetteRings+1; k++ {
		d, a := float32(outer), float32(1)
		if k <= vignetteRings {
			f := float64(k) / vignetteRings
			d = float32(vignetteIn + vignetteSpan*f)
			a = float32(math.Pow(f, 1.6))
		}
		col := rgbaOf(c, a*alpha)
		for j := 0; j <= vignetteSides; j++ {
			s, co := math.Sincos(2 * math.Pi * float64(j) / vignetteSides)
			b.vertex(cx+rx*d*float32(co), cy+ry*d*float32(s), col)
			if k > 0 && j > 0 {
				i := first + uint16(k*(vignetteSides+1)+j)
				o := i - (vignetteSides + 1) // the ring inside
				b.is = append(b.is, o-1, o, i, o-1, i, i-1)
			}
		}
	}
}

// scoreTable draws the rows of g.Scores in a table whose top-left is
// (x, y) and width pw; it returns the height used.
func (hp *hudPainter) scoreTable(screen *ebiten.Image, g *cgame.CGame, f *Frame, x, y, pw, rowH float64) float64 {
	sc := &g.Scores
	const s = 2.0
	fragX, deathX, pingX := x+pw-220, x+pw-110, x+pw-20
	hp.text(screen, "NAME", x+52, y, s, colArmor)
	hp.rightText(screen, "FRAGS", fragX, y, s, colArmor)
	hp.rightText(screen, "DEATHS", deathX, y, s, colArmor)
	hp.rightText(screen, "PING", pingX, y, s, colArmor)
	y += 36
	if sc.Count == 0 {
		hp.text(screen, "waiting for scores...", x+52, y, s, colWhite)
		return 36 + rowH
	}
	b := &hp.b
	for i := 0; i < sc.Count; i++ {
		p := &sc.Players[i]
		yy := y + float64(i)*rowH
		if p.Client == g.Predicted.ClientNum {
			b.rect(float32(x), float32(yy-4), float32(pw), float32(rowH-2), rgbaOf(colArmor, 0.15))
		} else if i%2 == 0 {
			b.rect(float32(x), float32(yy-4), float32(pw), float32(rowH-2), rgbaOf(colWhite, 0.04))
		}
		b.rect(float32(x+36), float32(yy), 8, 18, rgbaOf(PlayerColour(p.Client), 1))
	}
	b.flush(screen)
	for i := 0; i < sc.Count; i++ {
		p := &sc.Players[i]
		yy := y + float64(i)*rowH
		c := colWhite
		if p.Client == g.Predicted.ClientNum {
			c = colArmor
		}
		name := f.Name(p.Client)
		hp.rightText(screen, numText(int32(i+1)), x+28, yy, s, fade(colWhite, 0.5))
		hp.text(screen, name, x+52, yy, s, c)
		hp.rightText(screen, numText(p.Score), fragX, yy, s, c)
		hp.rightText(screen, numText(p.Deaths), deathX, yy, s, c)
		hp.rightText(screen, numText(p.Ping), pingX, yy, s, c)
	}
	return 36 + float64(sc.Count)*rowH
}

// drawScores draws the scoreboard of g.Scores (Tab), titled with the
// map's name.
func (hp *hudPainter) drawScores(screen *ebiten.Image, g *cgame.CGame, f *Frame, mapName string, fv *frameView) {
	rows := max(g.Scores.Count, 1)
	pw, ph := 620.0, float64(rows)*30+110
	x, y := (hp.w-pw)/2, (hp.h-ph)/2
	hp.panel(float32(x), float32(y), float32(pw), float32(ph), 0.85)
	hp.b.flush(screen)
	title := "SCORES"
	if mapName != "" {
		title = mapName
	}
	hp.centreText(screen, title, x+pw/2, y+22, 2, colWhite)
	hp.scoreTable(screen, g, f, x+10, y+50, pw-20, 30)
	if f.LocalServer {
		hp.centreText(screen, localPingNote, x+pw/2, y+ph-14, 1, fade(colWhite, 0.6))
	}
}

// localPingNote explains the ping of a player on this client's own
// server: no network is crossed, but a command waits for the next packet
// (cl_maxpackets 30 lets one leave only every third frame at 60 frames a
// second, 48 ms apart) and its acknowledgement for the next frame, so it
// reads 30 to 50 ms (docs/client-window.md).
const localPingNote = "on a local server the ping is packet pacing (cl_maxpackets), not network"

// drawIntermission draws the end of the match over the whole screen:
// the winner and the final scoreboard.
func (hp *hudPainter) drawIntermission(screen *ebiten.Image, g *cgame.CGame, f *Frame, fv *frameView) {
	w, h := hp.w, hp.h
	b := &hp.b
	b.vgrad(0, 0, float32(w), float32(h), rgbaOf(color.RGBA{0x06, 0x08, 0x12, 0xff}, 0.9), rgbaOf(color.RGBA{0x14, 0x08, 0x1c, 0xff}, 0.95))
	b.flush(screen)
	hp.centreText(screen, "MATCH OVER", w/2, 56, 4, colWhite)
	sc := &g.Scores
	if sc.Count > 0 {
		win := &sc.Players[0]
		name := f.Name(win.Client)
		if name == "" {
			name = "?"
		}
		c := mix(PlayerColour(win.Client), colWhite, 0.3)
		line := "wins with"
		if win.Client == g.Predicted.ClientNum {
			name, line = "You", "win with"
		}
		frags := numText(win.Score)
		const s = 3.0
		gap := hp.textWidth(" ", s)
		nw, lw, fw := hp.textWidth(name, s), hp.textWidth(line, s), hp.textWidth(frags, s)
		tw := hp.textWidth("frags", s)
		x0 := w/2 - (nw+lw+fw+tw+3*gap)/2
		hp.text(screen, name, x0, 100, s, c)
		hp.text(screen, line, x0+nw+gap, 100, s, colArmor)
		hp.text(screen, frags, x0+nw+lw+2*gap, 100, s, colWhite)
		hp.text(screen, "frags", x0+nw+lw+fw+3*gap, 100, s, colArmor)
	}
	rows := max(sc.Count, 1)
	y := 160.0
	rowH := min(30, max(24, (h-y-100)/float64(rows)))
	pw := min(720, w-40)
	ph := float64(rows)*rowH + 60
	x := (w - pw) / 2
	hp.panel(float32(x), float32(y), float32(pw), float32(ph), 0.7)
	hp.b.flush(screen)
	hp.scoreTable(screen, g, f, x+10, y+16, pw-20, rowH)
	if rank := hp.rank(g); rank > 0 {
		yy := math.Min(h-30, y+ph+26)
		pw := hp.textWidth("you placed ", 2)
		ow := hp.textWidth(ordinals[rank], 2)
		hp.text(screen, "you placed ", w/2-(pw+ow)/2, yy, 2, colArmor)
		hp.text(screen, ordinals[rank], w/2-(pw+ow)/2+pw, yy, 2, colWhite)
	}
}
