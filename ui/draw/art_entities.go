package draw

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/bg"
	"tremor/cgame"
	"tremor/cgame/fx"
	"tremor/ui/draw/view"
)

// This file draws the entities: items and their respawn spots,
// missiles, and the players as small figures.

// drawPlayer adds a player figure whose origin (the centre of its box)
// is at screen (x, y): legs that stride with its speed, a body in its
// colour, a head looking where it aims, an arm holding its weapon along
// the aim, and its state (dead, spawn protection, quad).
func (r *worldPainter) drawPlayer(client, eflags, aim, weapon, powerups int32, vx, vy, x, y float32, worldX, t float64) {
	b, gl := &r.world, &r.glow
	sc := float32(r.view.Scale)
	hw, hh := playerHalf()
	w, h := float32(hw)*sc, float32(hh)*sc
	c := r.playerColour(client)
	dark := shade(c, 0.45)
	outline := rgbaOf(color.RGBA{0x0a, 0x0c, 0x14, 0xff}, 0.9)
	if r.ntags < len(r.tags) {
		r.tags[r.ntags] = nameTag{client: client, x: float64(x), y: float64(y - h - 14*sc), dead: eflags&bg.EFDead != 0}
		r.ntags++
	}
	feet := y + h
	// Contact shadow.
	b.ellipse(x, feet, w*1.1, 3*sc, rgbaOf(artShadowBlack, 0.45), rgbaOf(artShadowBlack, 0))

	if eflags&bg.EFDead != 0 {
		// Lying on its back, greyed, arms out.
		body := mix(c, colDead, 0.6)
		by := feet - 6*sc
		b.rect(x-h*0.7-1, by-5*sc-1, h*1.2+2, 10*sc+2, outline)
		b.rect(x-h*0.7, by-5*sc, h*1.2, 10*sc, rgbaOf(body, 1))
		b.circle(x+h*0.62, by-1*sc, 7*sc+1, outline)
		b.circle(x+h*0.62, by-1*sc, 7*sc, rgbaOf(mix(body, colWhite, 0.3), 1))
		b.line(x+h*0.55, by-4*sc, x+h*0.69, by+2*sc, 1.5*sc, outline)
		b.line(x+h*0.69, by-4*sc, x+h*0.55, by+2*sc, 1.5*sc, outline)
		return
	}

	dx, dy := view.AimVector(aim)
	facing := float32(1)
	if dx < 0 {
		facing = -1
	}
	// Legs: a stride driven by the distance run, tucked in the air.
	hip := y + 6*sc
	speed := float32(math.Abs(float64(vx)))
	airborne := math.Abs(float64(vy)) > 40
	swing := float32(math.Sin(worldX/bg.UnitsPerPixel/9)) * min(1, speed/200) * 7 * sc
	lc := rgbaOf(dark, 1)
	if airborne {
		b.line(x-4*sc, hip, x-7*sc*facing, feet-6*sc, 5*sc, lc)
		b.line(x+4*sc, hip, x+2*sc*facing, feet-4*sc, 5*sc, lc)
	} else {
		b.line(x-3*sc, hip, x-3*sc+swing, feet, 5*sc, lc)
		b.line(x+3*sc, hip, x+3*sc-swing, feet, 5*sc, lc)
		b.rect(x-3*sc+swing-3*sc, feet-2*sc, 6*sc, 2*sc, outline)
		b.rect(x+3*sc-swing-3*sc, feet-2*sc, 6*sc, 2*sc, outline)
	}
	// Body.
	top, bot := y-9*sc, hip+2*sc
	b.rect(x-w*0.72-1, top-1, w*1.44+2, bot-top+2, outline)
	b.vgrad(x-w*0.72, top, w*1.44, bot-top, rgbaOf(shade(c, 1.15), 1), rgbaOf(shade(c, 0.8), 1))
	b.rect(x-w*0.72, bot-4*sc, w*1.44, 2*sc, rgbaOf(dark, 1)) // belt
	// Head with a visor on the side it looks.
	hx, hy := x+facing*1*sc, top-7*sc
	b.circle(hx, hy, 7*sc+1, outline)
	b.circle(hx, hy, 7*sc, rgbaOf(mix(c, colWhite, 0.35), 1))
	vx0 := hx
	if facing < 0 {
		vx0 = hx - 7*sc
	}
	b.rect(vx0, hy-3*sc+float32(dy)*2*sc, 7*sc, 3.5*sc, rgbaOf(color.RGBA{0x10, 0x18, 0x28, 0xff}, 1))
	// Arm and weapon along the aim.
	sx, sy := x, y-4*sc
	ax, ay := float32(dx), float32(dy)
	wl, ww := weaponShape(weapon)
	wc := weaponColour(weapon)
	b.line(sx, sy, sx+ax*9*sc, sy+ay*9*sc, 4*sc, rgbaOf(shade(c, 0.7), 1))
	gx, gy := sx+ax*6*sc, sy+ay*6*sc
	ex, ey := gx+ax*wl*sc, gy+ay*wl*sc
	b.line(gx, gy, ex, ey, ww*sc+2, outline)
	b.line(gx, gy, ex, ey, ww*sc, rgbaOf(shade(wc, 0.8), 1))
	b.line(gx, gy, gx+ax*wl*0.5*sc, gy+ay*wl*0.5*sc, ww*0.5*sc, rgbaOf(mix(wc, colWhite, 0.4), 1))
	if eflags&bg.EFFiring != 0 && weapon == bg.WPMachinegun && int(t*30)%2 == 0 {
		gl.radial(ex+ax*4*sc, ey+ay*4*sc, 10*sc, rgbaOf(colSpark, 0.9), rgbaOf(colExplosion, 0))
	}
	// States.
	if powerups&(1<<bg.PWQuad) != 0 {
		gl.radial(x, y, 40*sc, rgbaOf(color.RGBA{0x50, 0x70, 0xff, 0xff}, 0.55), rgbaOf(color.RGBA{0x30, 0x40, 0xff, 0xff}, 0))
	}
	if eflags&bg.EFSpawnProtect != 0 {
		pulse := float32(0.5 + 0.5*math.Sin(t*10))
		gl.ellipse(x, y-4*sc, w+10*sc, h+10*sc, rgbaOf(colWhite, 0), rgbaOf(colRail, 0.1+0.15*pulse))
		for k := 0; k < 4; k++ {
			a := float32(t*4) + float32(k)*math.Pi/2
			s, co := math.Sincos(float64(a))
			px, py := x+float32(co)*(w+8*sc), y-4*sc+float32(s)*(h+6*sc)
			gl.radial(px, py, 4*sc, rgbaOf(colWhite, 0.8), rgbaOf(colRail, 0))
		}
	}
	if eflags&bg.EFTalk != 0 {
		b.circle(x+14*sc, top-20*sc, 6*sc, rgbaOf(colWhite, 0.9))
		b.tri(x+9*sc, top-17*sc, x+13*sc, top-15*sc, x+8*sc, top-11*sc, rgbaOf(colWhite, 0.9))
	}
}

// weaponShape returns a weapon's length and thickness, in pixels.
func weaponShape(w int32) (length, width float32) {
	switch w {
	case bg.WPGauntlet:
		return 9, 7
	case bg.WPMachinegun:
		return 18, 4
	case bg.WPGrenadeLauncher:
		return 17, 7
	case bg.WPRocketLauncher:
		return 22, 8
	case bg.WPRailgun:
		return 26, 4
	}
	return 10, 3
}

// drawMissile adds a rocket or a grenade and its smoke.
func (r *worldPainter) drawMissile(es *bg.EntityState, at cgame.Point, x, y, sc float32, t float64, dt float32) {
	b, gl := &r.world, &r.glow
	wx, wy := at.Px()
	dx, dy := float32(es.Pos.Delta.X), float32(es.Pos.Delta.Y)
	l := float32(math.Hypot(float64(dx), float64(dy)))
	ux, uy := float32(1), float32(0)
	if l > 0 {
		ux, uy = dx/l, dy/l
	}
	switch es.Weapon {
	case bg.WPRocketLauncher:
		tx, ty := x-ux*10*sc, y-uy*10*sc
		gl.radial(tx, ty, 22*sc, rgbaOf(colExplosion, 0.8), rgbaOf(colExplosion, 0))
		flick := float32(0.8 + 0.4*math.Sin(t*60))
		b.line(tx, ty, tx-ux*14*sc*flick, ty-uy*14*sc*flick, 5*sc, rgbaOf(colSpark, 0.9))
		b.line(x-ux*10*sc, y-uy*10*sc, x+ux*8*sc, y+uy*8*sc, 6*sc, rgbaOf(color.RGBA{0x50, 0x54, 0x60, 0xff}, 1))
		b.line(x+ux*3*sc, y+uy*3*sc, x+ux*10*sc, y+uy*10*sc, 4*sc, rgbaOf(colLow, 1))
		// Smoke, about one puff per 12 ms.
		for n := r.puffs(dt * 80); n > 0; n-- {
			r.smoke.Add(fx.Particle{
				X: float32(wx) - ux*14, Y: float32(wy) - uy*14,
				VX: r.rnd.Range(-15, 15) - ux*40, VY: r.rnd.Range(-15, 15) - uy*40,
				Size: 3, Grow: 14, Gravity: -20, Drag: 1.5, Life: r.rnd.Range(0.5, 0.9), Kind: fx.ParticleSmoke,
			})
		}
	case bg.WPGrenadeLauncher:
		gl.radial(x, y, 14*sc, rgbaOf(weaponColour(bg.WPGrenadeLauncher), 0.35), rgbaOf(colHealth, 0))
		b.circle(x, y, 6*sc+1, rgbaOf(artShadowBlack, 0.9))
		b.circle(x, y, 6*sc, rgbaOf(color.RGBA{0x38, 0x70, 0x30, 0xff}, 1))
		b.circle(x-2*sc, y-2*sc, 2*sc, rgbaOf(colWhite, 0.5))
		if int(t*6)%2 == 0 {
			gl.radial(x+2*sc, y+2*sc, 5*sc, rgbaOf(colLow, 1), rgbaOf(colLow, 0))
		}
		if r.puffs(dt*30) > 0 {
			r.smoke.Add(fx.Particle{X: float32(wx), Y: float32(wy), VY: -10, Size: 2, Grow: 6, Drag: 1, Life: 0.4, Kind: fx.ParticleSmoke})
		}
	default:
		c := weaponColour(es.Weapon)
		gl.radial(x, y, 12*sc, rgbaOf(c, 0.6), rgbaOf(c, 0))
		b.circle(x, y, 4*sc, rgbaOf(c, 1))
	}
}

// itemLook returns an item's colour and size in pixels.
func itemLook(it *bg.Item) (color.RGBA, float32) {
	switch it.Type {
	case bg.ITHealth:
		if it.Quantity >= 100 {
			return color.RGBA{0x40, 0x90, 0xff, 0xff}, 26
		}
		return colHealth, 20
	case bg.ITArmor:
		if it.Quantity < 25 {
			return colArmor, 14
		}
		return colArmor, 26
	case bg.ITWeapon:
		return weaponColour(it.Tag), 28
	case bg.ITAmmo:
		return weaponColour(it.Tag), 16
	case bg.ITPowerup:
		return color.RGBA{0x80, 0x50, 0xff, 0xff}, 28
	}
	return colWhite, 16
}

// drawItem adds item number item centred on (x, y); alpha below 1 draws
// the ghost of an item waiting to respawn.
func (r *worldPainter) drawItem(item int32, x, y, sc float32, t float64, alpha float32) {
	if item <= 0 || int(item) >= len(bg.Items) {
		return
	}
	b, gl := &r.world, &r.glow
	it := &bg.Items[item]
	c, size := itemLook(it)
	s := size * sc
	ol := rgbaOf(artShadowBlack, 0.85*alpha)
	if alpha >= 1 {
		gl.radial(x, y, s*1.1, rgbaOf(c, 0.35), rgbaOf(c, 0))
	}
	switch it.Type {
	case bg.ITHealth:
		b.rect(x-s/2-1, y-s/2-1, s+2, s+2, ol)
		b.vgrad(x-s/2, y-s/2, s, s, rgbaOf(colWhite, alpha), rgbaOf(color.RGBA{0xc0, 0xc8, 0xd0, 0xff}, alpha))
		a, k := s*0.16, s*0.36
		b.rect(x-a, y-k, 2*a, 2*k, rgbaOf(c, alpha))
		b.rect(x-k, y-a, 2*k, 2*a, rgbaOf(c, alpha))
	case bg.ITArmor:
		// A shield: a box with a pointed bottom.
		hw := s / 2
		b.quad(x-hw-1, y-hw-1, x+hw+1, y-hw-1, x+hw+1, y+hw*0.2, x-hw-1, y+hw*0.2, ol, ol, ol, ol)
		b.tri(x-hw-1, y+hw*0.2, x+hw+1, y+hw*0.2, x, y+hw+2, ol)
		top, bot := rgbaOf(mix(c, colWhite, 0.4), alpha), rgbaOf(shade(c, 0.7), alpha)
		b.vgrad(x-hw, y-hw, 2*hw, hw*1.2, top, rgbaOf(c, alpha))
		b.tri(x-hw, y+hw*0.2, x+hw, y+hw*0.2, x, y+hw, bot)
		b.rect(x-1*sc, y-hw+2*sc, 2*sc, hw*1.5, rgbaOf(colWhite, 0.5*alpha))
	case bg.ITWeapon:
		// A gun: body, barrel, grip.
		hw := s / 2
		b.rect(x-hw-1, y-4*sc-1, s+2, 8*sc+2, ol)
		b.vgrad(x-hw, y-4*sc, s*0.6, 8*sc, rgbaOf(mix(c, colWhite, 0.3), alpha), rgbaOf(shade(c, 0.7), alpha))
		b.rect(x-hw+s*0.6, y-2*sc, s*0.4, 4*sc, rgbaOf(shade(c, 0.9), alpha))
		b.rect(x-hw+3*sc, y+4*sc, 5*sc, 7*sc, rgbaOf(shade(c, 0.5), alpha))
	case bg.ITAmmo:
		hw := s / 2
		b.rect(x-hw-1, y-hw*0.4-1, s+2, hw*1.4+2, ol)
		b.vgrad(x-hw, y-hw*0.4, s, hw*1.4, rgbaOf(c, alpha), rgbaOf(shade(c, 0.6), alpha))
		for k := float32(-1); k <= 1; k++ {
			b.rect(x+k*hw*0.6-1.5*sc, y-hw, 3*sc, hw*0.6, rgbaOf(colArmor, alpha))
		}
	case bg.ITPowerup:
		spin := float32(math.Cos(t * 3))
		hw := s / 2 * (0.35 + 0.65*float32(math.Abs(float64(spin))))
		b.quad(x, y-s/2-1, x+hw+1, y, x, y+s/2+1, x-hw-1, y, ol, ol, ol, ol)
		b.quad(x, y-s/2, x+hw, y, x, y+s/2, x-hw, y, rgbaOf(mix(c, colWhite, 0.5), alpha), rgbaOf(c, alpha), rgbaOf(shade(c, 0.6), alpha), rgbaOf(c, alpha))
		if alpha >= 1 {
			gl.radial(x, y, s*1.6, rgbaOf(c, 0.4), rgbaOf(c, 0))
		}
	}
}

// puffs returns how many puffs of smoke to add for an expected n, 0
// without particles.
func (r *worldPainter) puffs(n float32) int {
	if r.smoke == nil || r.rnd == nil {
		return 0
	}
	return int(n + r.rnd.Float())
}

// drawItemSpots adds the ghost and timer ring of every item waiting to
// respawn in view.
func (l *level) drawItemSpots(screen *ebiten.Image, g *cgame.CGame) {
	r := l.world
	v := r.view
	sc := float32(v.Scale)
	t := float64(g.RealTime) / 1000
	for i := range l.spots.Spots {
		sp := &l.spots.Spots[i]
		if !sp.Known || sp.Present {
			continue
		}
		sx, sy := v.ToScreen(sp.X, sp.Y)
		x, y := float32(sx), float32(sy)
		if !r.visible(x, y, 40) {
			continue
		}
		r.world.room(screen, 400)
		r.drawItem(sp.Item, x, y, sc, t, 0.22)
		rad := 19 * sc
		const top = -math.Pi / 2
		if f, ok := sp.RespawnFraction(g.Time); ok {
			r.world.ring(x, y, rad, 3*sc, rgbaOf(artShadowBlack, 0.35))
			c, _ := itemLook(&bg.Items[sp.Item])
			r.world.arc(x, y, rad, 3*sc, top, top+float32(f)*2*math.Pi, rgbaOf(c, 0.35), rgbaOf(c, 0.9))
		} else {
			// Start unknown: a slow dashed ring.
			for k := 0; k < 6; k++ {
				a := float32(t) + float32(k)*math.Pi/3
				r.world.arc(x, y, rad, 2*sc, a, a+0.5, rgbaOf(colWhite, 0.3), rgbaOf(colWhite, 0.3))
			}
		}
	}
}
