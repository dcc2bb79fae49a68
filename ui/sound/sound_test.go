package sound

import (
	"testing"

	"tremor/cgame/fx"
)

// A machine without a device gets a silent Player that takes every call.
func TestSilentPlayer(t *testing.T) {
	p := New(Options{Volume: 2, Device: func() bool { return false }})
	if p.Enabled() {
		t.Fatal("Enabled with no device")
	}
	if p.Volume() != 1 {
		t.Errorf("Volume = %v, want 1 (clamped)", p.Volume())
	}
	p.SetVolume(-1)
	if p.Volume() != 0 {
		t.Errorf("Volume = %v, want 0 (clamped)", p.Volume())
	}
	p.Play(fx.SoundExplosion)
	p.PlayCues([]fx.Cue{{Sound: fx.SoundHit, Volume: 1}, {Sound: fx.NumSounds, Volume: 1}})

	var nilPlayer *Player
	nilPlayer.Play(fx.SoundJump)
	nilPlayer.SetVolume(1)
	if nilPlayer.Enabled() || nilPlayer.Volume() != 0 {
		t.Errorf("nil Player enabled")
	}
}

func TestHasDeviceOverride(t *testing.T) {
	t.Setenv("TREMOR_NOSOUND", "1")
	if HasDevice() {
		t.Errorf("HasDevice with TREMOR_NOSOUND set")
	}
}
