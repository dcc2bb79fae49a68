// Package input turns one frame's sample of the keyboard and mouse into a
// usercmd. It knows no window system, so it is tested without a display.
package input

import (
	"tremor/bg"
	"tremor/cgame/draw/view"
)

// Input is one frame's sample of the controls, independent of the
// window system so that it can be tested.
type Input struct {
	Left, Right, Jump, Drop, Fire bool
	// AimX, AimY is the direction from the drawn local player to the
	// cursor, in screen pixels.
	AimX, AimY float64
	// Weapon is a weapon key pressed this frame (1–5), or 0.
	Weapon int32
	// Wheel is +1 or -1 for a wheel step this frame, else 0.
	Wheel int
}

// State is what input keeps between frames: the weapon asked for and
// the last aim (kept when the cursor sits on the player).
type State struct {
	weapon int32
	aim    int32
}

// Command turns a sample into a usercmd. ps is the predicted player state
// (its weapons and current weapon choose the wheel's next weapon); nil
// before the game. The engine sets ServerTime.
func (s *State) Command(in Input, ps *bg.PlayerState) bg.UserCmd {
	var cmd bg.UserCmd
	if in.Right {
		cmd.RightMove += 127
	}
	if in.Left {
		cmd.RightMove -= 127
	}
	switch {
	case in.Jump:
		cmd.UpMove = 127
	case in.Drop:
		cmd.UpMove = -127
	}
	if in.Fire {
		cmd.Buttons |= bg.ButtonAttack
	}
	if in.AimX != 0 || in.AimY != 0 {
		s.aim = view.AimAngle(in.AimX, in.AimY)
	}
	cmd.Aim = s.aim
	if in.Weapon > bg.WPNone && in.Weapon < bg.NumWeapons {
		s.weapon = in.Weapon
	}
	if in.Wheel != 0 && ps != nil {
		s.weapon = NextWeapon(ps.Stats[bg.StatWeapons], ps.Weapon, in.Wheel)
	}
	cmd.Weapon = s.weapon
	return cmd
}

// NextWeapon returns the weapon held (in the bit mask owned) after cur in
// direction dir (+1 or -1), or cur if there is none.
func NextWeapon(owned, cur int32, dir int) int32 {
	w := cur
	for range bg.NumWeapons - 1 {
		w += int32(dir)
		if w <= bg.WPNone {
			w = bg.NumWeapons - 1
		} else if w >= bg.NumWeapons {
			w = bg.WPNone + 1
		}
		if owned&(1<<w) != 0 {
			return w
		}
	}
	return cur
}
