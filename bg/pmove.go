package bg

import "tremor/bg/tilemap"

// World is what Pmove needs to know of the map: the tile at a tile
// coordinate (outside the map is solid), and the jump pads and teleporters.
// *tilemap.Map implements it.
type World interface {
	At(x, y int) tilemap.Tile
	PadAt(x, y int) (tilemap.JumpPad, bool)
	TeleporterAt(x, y int) (tilemap.Teleporter, bool)
}

// Params are the movement tunables, in units, units/s and units/s².
// Both sides must use the same values: they are part of the protocol.
type Params struct {
	MaxSpeed       int32 // running speed
	Accelerate     int32 // ground acceleration factor (Quake III's pm_accelerate)
	AirAccelerate  int32 // air control factor
	Friction       int32 // ground friction factor
	StopSpeed      int32 // below this speed friction acts as if at this speed
	JumpVelocity   int32 // upward speed of a jump
	Gravity        int32 // downward acceleration
	MaxFallSpeed   int32 // terminal falling speed
	MaxVelocity    int32 // hard cap on each velocity component (fits the wire)
	StepHeight     int32 // ledges this high are climbed without jumping
	SpectatorSpeed int32
	Mins, Maxs     Vec // the player's box relative to its origin
}

// DefaultParams are Tremor's movement values: a 24×44 px player running at
// 320 px/s and jumping 96 px (three tiles) high.
var DefaultParams = Params{
	MaxSpeed:       Px(320),
	Accelerate:     10,
	AirAccelerate:  4,
	Friction:       6,
	StopSpeed:      Px(100),
	JumpVelocity:   Px(590),
	Gravity:        Gravity,
	MaxFallSpeed:   Px(1600),
	MaxVelocity:    Px(4000),
	StepHeight:     Px(32),
	SpectatorSpeed: Px(600),
	Mins:           Vec{Px(-12), Px(-22)},
	Maxs:           Vec{Px(12), Px(22)},
}

// MaxPmoveMsec is the longest single movement step when pmove_fixed is
// off (Quake III chopped at 66 ms); MaxCommandMsec the most time one
// command may cover (older time is skipped, as Quake III did past 1000 ms).
const (
	MaxPmoveMsec   = 66
	MaxCommandMsec = 1000
)

// Pmove is one player movement: the state to advance, the command to
// advance it by, and the world to move in (Quake III's pmove_t). Run
// advances PS.CommandTime to Cmd.ServerTime. There are no package globals:
// everything Pmove reads or writes is here.
type Pmove struct {
	PS     *PlayerState
	Cmd    UserCmd
	World  World
	Params *Params // nil means DefaultParams
	// FixedMsec, when > 0, chops the command into steps of exactly this
	// many milliseconds (the last one shorter): pmove_fixed/pmove_msec.
	// 0 chops at MaxPmoveMsec, the variable default.
	FixedMsec int32

	// per-step state (Quake III's pml)
	p        *Params
	msec     int32
	grounded bool
}

// Run executes the command (Quake III's Pmove): it splits the time from
// PS.CommandTime to Cmd.ServerTime into steps and runs one movement step
// for each. A command older than the state does nothing.
func (pm *Pmove) Run() {
	for pm.Step() > 0 {
	}
}

// Step runs the next movement step of the command, split as Run splits
// it, and returns its length in milliseconds, 0 when the command has no
// time left: the step began at PS.CommandTime minus that. A command more than
// MaxCommandMsec ahead of the state starts MaxCommandMsec before its end;
// one older than the state does nothing (the server drops such
// commands). The server game calls Step rather than Run to act between
// steps (pickups, hazards, shots), and so runs exactly the steps the
// client's prediction runs.
func (pm *Pmove) Step() int32 {
	ps := pm.PS
	pm.p = pm.Params
	if pm.p == nil {
		pm.p = &DefaultParams
	}
	final := pm.Cmd.ServerTime
	// The span is taken in 64 bits: a sum such as CommandTime +
	// MaxCommandMsec in int32 wraps negative near 2^31, and a state
	// reset on every step then never reaches final (Run would spin).
	// Any two int32 times give a span that fits, and every step
	// moves CommandTime towards final without passing it.
	span := int64(final) - int64(ps.CommandTime)
	if span <= 0 {
		return 0
	}
	if span > MaxCommandMsec {
		ps.CommandTime = final - MaxCommandMsec
		span = MaxCommandMsec
	}
	msec := int32(span)
	if pm.FixedMsec > 0 {
		msec = min(msec, pm.FixedMsec)
	} else {
		msec = min(msec, MaxPmoveMsec)
	}
	pm.step(msec)
	return msec
}

// step runs one movement step of msec milliseconds (PmoveSingle).
func (pm *Pmove) step(msec int32) {
	ps, cmd := pm.PS, &pm.Cmd
	pm.msec = msec
	ps.CommandTime += msec
	ps.Aim = cmd.Aim & 0xffff

	if ps.PmTime > 0 {
		ps.PmTime -= msec
		if ps.PmTime <= 0 {
			ps.PmTime = 0
			ps.PmFlags &^= PMFTimeKnockback
		}
	}

	switch ps.PmType {
	case PMIntermission:
		return
	case PMSpectator:
		pm.flyMove()
		return
	}

	right, up := cmd.RightMove, cmd.UpMove
	if ps.PmType == PMDead {
		right, up = 0, 0
	}
	if up <= 0 {
		ps.PmFlags &^= PMFJumpHeld
	}
	drop := up < 0

	pm.grounded = ps.Velocity.Y >= 0 && pm.onGround(drop)
	if pm.grounded && up > 0 && ps.PmFlags&PMFJumpHeld == 0 {
		ps.Velocity.Y = -pm.p.JumpVelocity
		ps.PmFlags |= PMFJumpHeld
		pm.grounded = false
		AddPredictableEvent(ps, EvJump, 0)
	}

	wish := clamp(right, -127, 127) * pm.p.MaxSpeed / 127
	if pm.grounded {
		if ps.PmFlags&PMFTimeKnockback == 0 {
			pm.friction()
		}
		pm.accelerate(wish, pm.p.Accelerate)
	} else {
		pm.accelerate(wish, pm.p.AirAccelerate)
	}

	// Gravity acts over the step: move at the mean of the start and end
	// velocities, so the fall does not depend on how time was chopped more
	// than rounding makes it.
	vy0 := ps.Velocity.Y
	vy1 := vy0
	if !pm.grounded {
		vy1 = vy0 + pm.p.Gravity*msec/1000
		if vy1 > pm.p.MaxFallSpeed {
			vy1 = pm.p.MaxFallSpeed
		}
	}
	ps.Velocity.X = clamp(ps.Velocity.X, -pm.p.MaxVelocity, pm.p.MaxVelocity)
	ps.Velocity.Y = clamp(vy1, -pm.p.MaxVelocity, pm.p.MaxVelocity)

	pm.slideMove(scaleMs(ps.Velocity.X, int64(msec)), scaleMs((vy0+vy1)/2, int64(msec)), drop)

	pm.grounded = ps.Velocity.Y >= 0 && pm.onGround(drop)
	if pm.grounded {
		ps.PmFlags |= PMFOnGround
		ps.GroundEntity = EntityNumWorld
	} else {
		ps.PmFlags &^= PMFOnGround
		ps.GroundEntity = EntityNumNone
	}
	pm.touchTriggers()
	pm.weapon()
}

// accelerate adds speed towards wish (a signed horizontal speed), at most
// accel·|wish|·t, never beyond |wish| (PM_Accelerate in one dimension).
func (pm *Pmove) accelerate(wish, accel int32) {
	if wish == 0 {
		return
	}
	v := &pm.PS.Velocity.X
	dir, speed := int32(1), wish
	if wish < 0 {
		dir, speed = -1, -wish
	}
	add := speed - *v*dir
	if add <= 0 {
		return
	}
	a := int32(int64(accel) * int64(pm.msec) * int64(speed) / 1000)
	if a > add {
		a = add
	}
	*v += a * dir
}

// friction slows horizontal movement on the ground (PM_Friction).
func (pm *Pmove) friction() {
	v := &pm.PS.Velocity.X
	speed := abs(*v)
	if speed == 0 {
		return
	}
	control := max(speed, pm.p.StopSpeed)
	drop := int32(int64(control) * int64(pm.p.Friction) * int64(pm.msec) / 1000)
	if drop < 1 {
		drop = 1
	}
	ns := max(speed-drop, 0)
	if *v < 0 {
		ns = -ns
	}
	*v = ns
}

// flyMove moves a spectator freely through the map.
func (pm *Pmove) flyMove() {
	ps, cmd := pm.PS, &pm.Cmd
	ps.Velocity.X = clamp(cmd.RightMove, -127, 127) * pm.p.SpectatorSpeed / 127
	ps.Velocity.Y = -clamp(cmd.UpMove, -127, 127) * pm.p.SpectatorSpeed / 127
	const limit = 1<<19 - 1
	ps.Origin.X = clamp(ps.Origin.X+scaleMs(ps.Velocity.X, int64(pm.msec)), -limit, limit)
	ps.Origin.Y = clamp(ps.Origin.Y+scaleMs(ps.Velocity.Y, int64(pm.msec)), -limit, limit)
}

// slideMove moves the box by (dx, dy): horizontally first, climbing a
// ledge up to StepHeight when on the ground (PM_StepSlideMove), then
// vertically, landing on floors and platforms or bumping a ceiling.
func (pm *Pmove) slideMove(dx, dy int32, drop bool) {
	ps := pm.PS
	start := ps.Origin
	if blocked := pm.moveX(dx); blocked && pm.grounded && pm.p.StepHeight > 0 {
		plain := ps.Origin
		ps.Origin = start
		pm.moveY(-pm.p.StepHeight, drop)
		pm.moveX(dx)
		pm.moveY(pm.p.StepHeight, drop)
		stepped := ps.Origin
		// Keep the step only if it got further and ended on ground.
		if abs(stepped.X-start.X) > abs(plain.X-start.X) && pm.onGround(drop) {
			if h := start.Y - stepped.Y; h > 0 {
				AddPredictableEvent(ps, EvStep, h/UnitsPerPixel)
			}
		} else {
			ps.Origin = plain
		}
	}
	if pm.PS.Origin.X-start.X != dx {
		ps.Velocity.X = 0
	}
	if moved := pm.moveY(dy, drop); moved != dy {
		if dy > 0 {
			if fall := ps.Velocity.Y; fall > Px(300) {
				AddPredictableEvent(ps, EvLand, fall/UnitsPerPixel)
			}
		}
		ps.Velocity.Y = 0
	}
}

// moveX moves the box horizontally by up to dx, stopping at solid tiles,
// and reports whether it was stopped.
func (pm *Pmove) moveX(dx int32) bool {
	o := &pm.PS.Origin
	top, bottom := o.Y+pm.p.Mins.Y, o.Y+pm.p.Maxs.Y
	switch {
	case dx > 0:
		right := o.X + pm.p.Maxs.X
		target := right + dx
		for c := TileOf(right-1) + 1; c <= TileOf(target-1); c++ {
			if pm.columnSolid(c, top, bottom) {
				target = int32(c) * TileUnits
				break
			}
		}
		o.X = target - pm.p.Maxs.X
		return target != right+dx
	case dx < 0:
		left := o.X + pm.p.Mins.X
		target := left + dx
		for c := TileOf(left) - 1; c >= TileOf(target); c-- {
			if pm.columnSolid(c, top, bottom) {
				target = int32(c+1) * TileUnits
				break
			}
		}
		o.X = target - pm.p.Mins.X
		return target != left+dx
	}
	return false
}

// moveY moves the box vertically by up to dy and returns how far it went.
// Moving down it stops on solid tiles and, unless drop is set, on the top
// of platforms it was above; moving up only solid tiles stop it.
func (pm *Pmove) moveY(dy int32, drop bool) int32 {
	o := &pm.PS.Origin
	left, right := o.X+pm.p.Mins.X, o.X+pm.p.Maxs.X
	switch {
	case dy > 0:
		bottom := o.Y + pm.p.Maxs.Y
		target := bottom + dy
		for r := TileOf(bottom-1) + 1; r <= TileOf(target-1); r++ {
			if pm.rowBlocksFall(r, left, right, drop) {
				target = int32(r) * TileUnits
				break
			}
		}
		o.Y = target - pm.p.Maxs.Y
		return target - bottom
	case dy < 0:
		top := o.Y + pm.p.Mins.Y
		target := top + dy
		for r := TileOf(top) - 1; r >= TileOf(target); r-- {
			if pm.rowSolid(r, left, right) {
				target = int32(r+1) * TileUnits
				break
			}
		}
		o.Y = target - pm.p.Mins.Y
		return target - top
	}
	return 0
}

// onGround reports whether the box stands on a floor or (unless dropping)
// a platform: its bottom lies on a tile boundary above one.
func (pm *Pmove) onGround(drop bool) bool {
	o := pm.PS.Origin
	bottom := o.Y + pm.p.Maxs.Y
	if bottom%TileUnits != 0 {
		return false
	}
	return pm.rowBlocksFall(TileOf(bottom), o.X+pm.p.Mins.X, o.X+pm.p.Maxs.X, drop)
}

func (pm *Pmove) columnSolid(c int, top, bottom int32) bool {
	for r := TileOf(top); r <= TileOf(bottom-1); r++ {
		if pm.World.At(c, r) == tilemap.Solid {
			return true
		}
	}
	return false
}

func (pm *Pmove) rowSolid(r int, left, right int32) bool {
	for c := TileOf(left); c <= TileOf(right-1); c++ {
		if pm.World.At(c, r) == tilemap.Solid {
			return true
		}
	}
	return false
}

func (pm *Pmove) rowBlocksFall(r int, left, right int32, drop bool) bool {
	for c := TileOf(left); c <= TileOf(right-1); c++ {
		switch pm.World.At(c, r) {
		case tilemap.Solid:
			return true
		case tilemap.Platform:
			if !drop {
				return true
			}
		}
	}
	return false
}

// touchTriggers fires the jump pads and teleporters the box overlaps
// (Quake III did this in the game and predicted it in cgame; with tiles
// both sides know the triggers, so Pmove does it and predicts it exactly).
func (pm *Pmove) touchTriggers() {
	ps := pm.PS
	if ps.PmType != PMNormal {
		return
	}
	o := ps.Origin
	left, right := TileOf(o.X+pm.p.Mins.X), TileOf(o.X+pm.p.Maxs.X-1)
	top, bottom := TileOf(o.Y+pm.p.Mins.Y), TileOf(o.Y+pm.p.Maxs.Y-1)
	onPad := false
	for r := top; r <= bottom; r++ {
		for c := left; c <= right; c++ {
			if t, ok := pm.World.TeleporterAt(c, r); ok {
				pm.teleport(t)
				return
			}
			if p, ok := pm.World.PadAt(c, r); ok && !onPad {
				onPad = true
				ps.Velocity = Vec{Px(int32(p.VX)), Px(int32(p.VY))}
				ps.PmFlags &^= PMFOnGround
				ps.GroundEntity = EntityNumNone
				if ps.PmFlags&PMFOnPad == 0 {
					AddPredictableEvent(ps, EvJumpPad, 0)
				}
			}
		}
	}
	if onPad {
		ps.PmFlags |= PMFOnPad
	} else {
		ps.PmFlags &^= PMFOnPad
	}
}

// teleport moves the player to t's destination tile, feet on its floor,
// keeping its velocity, and toggles EFTeleportBit so clients snap instead
// of interpolating across the jump.
func (pm *Pmove) teleport(t tilemap.Teleporter) {
	ps := pm.PS
	ps.Origin = TileFeet(t.Dest.X, t.Dest.Y, pm.p)
	ps.EFlags ^= EFTeleportBit
	ps.PmFlags &^= PMFOnGround | PMFOnPad
	ps.GroundEntity = EntityNumNone
	AddPredictableEvent(ps, EvTeleportIn, 0)
}

// TileFeet returns the origin of a player standing with its feet on the
// bottom edge of tile (x, y), centred in it: where spawns and teleporters
// put players.
func TileFeet(x, y int, p *Params) Vec {
	if p == nil {
		p = &DefaultParams
	}
	return Vec{int32(x)*TileUnits + TileUnits/2, int32(y+1)*TileUnits - p.Maxs.Y}
}

// weapon runs weapon timing, switching and firing (PM_Weapon). Firing only
// records EvFireWeapon and spends ammo; the game makes the shot.
func (pm *Pmove) weapon() {
	ps, cmd := pm.PS, &pm.Cmd
	if ps.PmType != PMNormal {
		ps.EFlags &^= EFFiring
		return
	}
	attack := cmd.Buttons&ButtonAttack != 0
	if ps.PmFlags&PMFRespawned != 0 {
		if attack {
			return
		}
		ps.PmFlags &^= PMFRespawned
	}
	if attack && ps.Weapon != WPNone {
		ps.EFlags |= EFFiring
	} else {
		ps.EFlags &^= EFFiring
	}
	if ps.WeaponTime > 0 {
		ps.WeaponTime -= pm.msec
	}
	if ps.WeaponTime > 0 {
		return
	}
	want := cmd.Weapon
	if want != ps.Weapon && want > WPNone && want < NumWeapons &&
		ps.Stats[StatWeapons]&(1<<want) != 0 && ps.WeaponState != WeaponDropping {
		ps.WeaponState = WeaponDropping
		ps.WeaponTime += WeaponDropTime
		AddPredictableEvent(ps, EvChangeWeapon, 0)
		return
	}
	if ps.WeaponState == WeaponDropping {
		if want > WPNone && want < NumWeapons && ps.Stats[StatWeapons]&(1<<want) != 0 {
			ps.Weapon = want
		}
		ps.WeaponState = WeaponRaising
		ps.WeaponTime += WeaponRaiseTime
		return
	}
	if ps.WeaponState == WeaponRaising {
		ps.WeaponState = WeaponReady
		return
	}
	if !attack || ps.Weapon <= WPNone || ps.Weapon >= NumWeapons {
		ps.WeaponTime = 0
		ps.WeaponState = WeaponReady
		return
	}
	if ps.Ammo[ps.Weapon] == 0 {
		AddPredictableEvent(ps, EvNoAmmo, 0)
		ps.WeaponTime += 500
		return
	}
	if ps.Ammo[ps.Weapon] > 0 {
		ps.Ammo[ps.Weapon]--
	}
	AddPredictableEvent(ps, EvFireWeapon, ps.Weapon)
	ps.WeaponState = WeaponFiring
	ps.WeaponTime += Weapons[ps.Weapon].FireTime
}

// TileOf returns the index of the tile containing unit coordinate u
// (floor division, correct for negative coordinates).
func TileOf(u int32) int {
	if u >= 0 {
		return int(u / TileUnits)
	}
	return int((u - TileUnits + 1) / TileUnits)
}

func clamp(v, lo, hi int32) int32 {
	return min(max(v, lo), hi)
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}
