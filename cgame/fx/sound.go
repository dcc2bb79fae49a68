package fx

import (
	"math"

	"tremor/bg"
	"tremor/cgame"
)

// Sound names one of the client's sounds. The zero Sound is no sound.
type Sound uint8

// Sounds.
const (
	SoundNone Sound = iota
	SoundGauntlet
	SoundMachinegun
	SoundGrenadeLauncher
	SoundRocketLauncher
	SoundRailgun
	SoundExplosion
	SoundBounce
	SoundPickup
	SoundWeaponPickup
	SoundQuad
	SoundItemRespawn
	SoundJump
	SoundLand
	SoundJumpPad
	SoundTeleport
	SoundPain
	SoundDeath
	SoundHit
	SoundNoAmmo
	SoundWeaponChange
	NumSounds
)

var soundNames = [NumSounds]string{
	"none", "gauntlet", "machinegun", "grenadelauncher", "rocketlauncher", "railgun",
	"explosion", "bounce", "pickup", "weaponpickup", "quad", "itemrespawn",
	"jump", "land", "jumppad", "teleport", "pain", "death", "hit", "noammo", "weaponchange",
}

// String returns the sound's short name ("rocketlauncher").
func (s Sound) String() string {
	if s < NumSounds {
		return soundNames[s]
	}
	return "unknown"
}

// Cue is one sound to start, at a volume in [0, 1] (before the master
// volume).
type Cue struct {
	Sound  Sound
	Volume float64
}

// Hearing distances, in pixels: a sound closer to the listener than
// FullVolumeDistance plays at full volume, one farther than
// HearingDistance is not played, and the volume falls linearly in
// between down to MinVolume.
const (
	FullVolumeDistance = 320
	HearingDistance    = 1400
	MinVolume          = 0.15
)

// LandSoundSpeed is the fall speed (px/s, EvLand's parm) from which a
// landing is heard.
const LandSoundSpeed = 450

// EventSound returns the sound event e makes, SoundNone for a silent
// one. The choice depends only on the event and its parm.
func EventSound(e *cgame.Event) Sound {
	switch e.Event {
	case bg.EvFireWeapon:
		return WeaponSound(e.Parm)
	case bg.EvJump:
		return SoundJump
	case bg.EvLand:
		if e.Parm >= LandSoundSpeed {
			return SoundLand
		}
	case bg.EvJumpPad:
		return SoundJumpPad
	case bg.EvTeleportIn, bg.EvTeleportOut:
		return SoundTeleport
	case bg.EvNoAmmo:
		return SoundNoAmmo
	case bg.EvChangeWeapon:
		return SoundWeaponChange
	case bg.EvItemPickup:
		if e.Parm > 0 && int(e.Parm) < len(bg.Items) {
			switch bg.Items[e.Parm].Type {
			case bg.ITWeapon:
				return SoundWeaponPickup
			case bg.ITPowerup:
				return SoundQuad
			}
		}
		return SoundPickup
	case bg.EvItemRespawn:
		return SoundItemRespawn
	case bg.EvPain, bg.EvLavaBurn:
		return SoundPain
	case bg.EvDeath:
		return SoundDeath
	case bg.EvMissileHit, bg.EvMissileMiss, bg.EvExplosion:
		return SoundExplosion
	case bg.EvGrenadeBounce:
		return SoundBounce
	case bg.EvPowerupQuad:
		return SoundQuad
	}
	return SoundNone
}

// WeaponSound returns the firing sound of weapon w.
func WeaponSound(w int32) Sound {
	switch w {
	case bg.WPGauntlet:
		return SoundGauntlet
	case bg.WPMachinegun:
		return SoundMachinegun
	case bg.WPGrenadeLauncher:
		return SoundGrenadeLauncher
	case bg.WPRocketLauncher:
		return SoundRocketLauncher
	case bg.WPRailgun:
		return SoundRailgun
	}
	return SoundNone
}

// DistanceVolume returns the volume of a sound heard d pixels away: 1
// up to FullVolumeDistance, falling to MinVolume at HearingDistance, 0
// beyond (and for a NaN distance).
func DistanceVolume(d float64) float64 {
	switch {
	case d <= FullVolumeDistance:
		return 1
	case d <= HearingDistance:
		k := (d - FullVolumeDistance) / (HearingDistance - FullVolumeDistance)
		return 1 - k*(1-MinVolume)
	}
	return 0
}

// EventCue returns the cue of event e heard by the local player client
// standing at listener (units): its own events at full volume, the
// others' by distance. ok is false for a silent event or one too far
// away.
func EventCue(e *cgame.Event, client int32, listener cgame.Point) (c Cue, ok bool) {
	s := EventSound(e)
	if s == SoundNone {
		return Cue{}, false
	}
	if e.Entity == client && e.Source <= cgame.SourceExternal {
		return Cue{s, 1}, true
	}
	lx, ly := listener.Px()
	x, y := e.Origin.Px()
	v := DistanceVolume(math.Hypot(x-lx, y-ly))
	if v <= 0 {
		return Cue{}, false
	}
	return Cue{s, v}, true
}
