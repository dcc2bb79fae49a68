// Package synth makes the Tremor client's sounds from nothing: each
// fx.Sound is a few oscillators, filtered noise and envelopes computed at
// startup, so the game ships no sound files (and owes no licence for
// any). It imports no audio library; package sound plays what it makes.
package synth

import (
	"encoding/binary"
	"math"

	"tremor/cgame/fx"
)

// SampleRate is the rate the client plays at, in samples per second.
const SampleRate = 44100

// MaxDuration bounds every sound, in seconds.
const MaxDuration = 1.5

// voice is the state of one synthesis: a buffer and a noise generator.
type voice struct {
	rate float64
	buf  []float32
	rnd  fx.Rand
}

func (v *voice) n(sec float64) int { return int(sec * v.rate) }

// noise returns white noise in [-1, 1).
func (v *voice) noise() float64 { return float64(v.rnd.Float())*2 - 1 }

// tone adds an oscillator from start (s) for dur (s) whose frequency
// sweeps exponentially from f0 to f1 Hz, shaped by an attack (s) and an
// exponential decay time constant (s), with wave shape w.
func (v *voice) tone(start, dur, f0, f1, amp, attack, decay float64, w wave) {
	i0, n := v.n(start), v.n(dur)
	phase := 0.0
	for i := 0; i < n && i0+i < len(v.buf); i++ {
		t := float64(i) / v.rate
		f := f0 * math.Pow(f1/f0, t/dur)
		phase += f / v.rate
		phase -= math.Floor(phase)
		v.buf[i0+i] += float32(amp * env(t, dur, attack, decay) * w(phase))
	}
}

// hiss adds noise through a one-pole low-pass whose cut-off sweeps from
// c0 to c1 Hz.
func (v *voice) hiss(start, dur, c0, c1, amp, attack, decay float64) {
	i0, n := v.n(start), v.n(dur)
	y := 0.0
	for i := 0; i < n && i0+i < len(v.buf); i++ {
		t := float64(i) / v.rate
		c := c0 * math.Pow(c1/c0, t/dur)
		a := 1 - math.Exp(-2*math.Pi*c/v.rate)
		y += a * (v.noise() - y)
		v.buf[i0+i] += float32(amp * env(t, dur, attack, decay) * y * (1 + c/4000))
	}
}

// env is an attack ramp, an exponential decay and a short release at
// the end so nothing clicks.
func env(t, dur, attack, decay float64) float64 {
	e := 1.0
	if attack > 0 && t < attack {
		e = t / attack
	}
	if decay > 0 {
		e *= math.Exp(-t / decay)
	}
	if r := dur - t; r < 0.005 {
		e *= max(r, 0) / 0.005
	}
	return e
}

type wave func(phase float64) float64

func sine(p float64) float64   { return math.Sin(2 * math.Pi * p) }
func square(p float64) float64 { return math.Copysign(0.6, 0.5-p) }
func saw(p float64) float64    { return 2*p - 1 }
func tri(p float64) float64    { return 4*math.Abs(p-0.5) - 1 }

// recipes make each sound; the voice's buffer is as long as the sound.
var recipes = [fx.NumSounds]struct {
	dur  float64
	make func(v *voice)
}{
	fx.SoundGauntlet: {0.3, func(v *voice) {
		v.tone(0, 0.3, 95, 80, 0.5, 0.01, 0.2, saw)
		v.tone(0, 0.3, 190, 160, 0.25, 0.01, 0.15, square)
	}},
	fx.SoundMachinegun: {0.12, func(v *voice) {
		v.hiss(0, 0.12, 6000, 900, 0.9, 0.001, 0.025)
		v.tone(0, 0.1, 160, 60, 0.6, 0.001, 0.03, sine)
	}},
	fx.SoundGrenadeLauncher: {0.35, func(v *voice) {
		v.tone(0, 0.3, 240, 70, 0.8, 0.002, 0.08, sine)
		v.hiss(0, 0.35, 1500, 300, 0.5, 0.002, 0.06)
	}},
	fx.SoundRocketLauncher: {0.55, func(v *voice) {
		v.hiss(0, 0.55, 900, 2500, 0.7, 0.03, 0.18)
		v.tone(0, 0.4, 320, 90, 0.5, 0.005, 0.1, tri)
	}},
	fx.SoundRailgun: {0.8, func(v *voice) {
		v.tone(0, 0.25, 2400, 180, 0.5, 0.001, 0.08, saw)
		v.tone(0, 0.8, 880, 860, 0.3, 0.002, 0.25, sine)
		v.tone(0, 0.8, 1320, 1300, 0.15, 0.002, 0.2, sine)
		v.hiss(0, 0.3, 8000, 2000, 0.25, 0.001, 0.05)
	}},
	fx.SoundExplosion: {1.1, func(v *voice) {
		v.hiss(0, 1.1, 2500, 120, 1.0, 0.003, 0.3)
		v.tone(0, 0.7, 110, 35, 0.8, 0.003, 0.2, sine)
	}},
	fx.SoundBounce: {0.08, func(v *voice) {
		v.tone(0, 0.08, 520, 380, 0.5, 0.001, 0.02, tri)
	}},
	fx.SoundPickup: {0.2, func(v *voice) {
		v.tone(0, 0.08, 660, 660, 0.35, 0.002, 0.05, square)
		v.tone(0.07, 0.13, 990, 990, 0.35, 0.002, 0.06, square)
	}},
	fx.SoundWeaponPickup: {0.4, func(v *voice) {
		v.hiss(0, 0.05, 5000, 2000, 0.4, 0.001, 0.01)
		v.tone(0.04, 0.1, 440, 440, 0.3, 0.002, 0.06, square)
		v.tone(0.12, 0.1, 554, 554, 0.3, 0.002, 0.06, square)
		v.tone(0.2, 0.2, 659, 659, 0.3, 0.002, 0.1, square)
	}},
	fx.SoundQuad: {1.0, func(v *voice) {
		v.tone(0, 1.0, 110, 112, 0.35, 0.05, 0.45, saw)
		v.tone(0, 1.0, 165, 166, 0.25, 0.05, 0.45, saw)
		v.tone(0, 1.0, 220, 221, 0.2, 0.05, 0.4, square)
	}},
	fx.SoundItemRespawn: {0.3, func(v *voice) {
		v.tone(0, 0.3, 400, 1200, 0.3, 0.05, 0.12, sine)
	}},
	fx.SoundJump: {0.1, func(v *voice) {
		v.tone(0, 0.1, 260, 480, 0.25, 0.005, 0.05, tri)
	}},
	fx.SoundLand: {0.12, func(v *voice) {
		v.hiss(0, 0.12, 600, 150, 0.7, 0.001, 0.03)
		v.tone(0, 0.1, 120, 60, 0.4, 0.001, 0.03, sine)
	}},
	fx.SoundJumpPad: {0.35, func(v *voice) {
		v.tone(0, 0.35, 180, 900, 0.3, 0.005, 0.15, square)
		v.hiss(0, 0.25, 800, 3000, 0.25, 0.02, 0.1)
	}},
	fx.SoundTeleport: {0.6, func(v *voice) {
		v.tone(0, 0.6, 300, 1500, 0.25, 0.02, 0.25, sine)
		v.tone(0, 0.6, 303, 1520, 0.25, 0.02, 0.25, sine)
		v.hiss(0, 0.5, 3000, 6000, 0.2, 0.05, 0.15)
	}},
	fx.SoundPain: {0.25, func(v *voice) {
		v.tone(0, 0.25, 190, 120, 0.5, 0.01, 0.1, saw)
		v.hiss(0, 0.1, 1200, 500, 0.3, 0.002, 0.04)
	}},
	fx.SoundDeath: {0.7, func(v *voice) {
		v.tone(0, 0.7, 230, 60, 0.5, 0.01, 0.3, saw)
		v.tone(0, 0.7, 115, 40, 0.3, 0.01, 0.3, square)
	}},
	fx.SoundHit: {0.05, func(v *voice) {
		v.tone(0, 0.05, 1800, 1700, 0.45, 0.0005, 0.012, sine)
		v.tone(0, 0.05, 3600, 3500, 0.15, 0.0005, 0.008, sine)
	}},
	fx.SoundNoAmmo: {0.04, func(v *voice) {
		v.hiss(0, 0.04, 4000, 2000, 0.5, 0.0005, 0.006)
	}},
	fx.SoundWeaponChange: {0.12, func(v *voice) {
		v.hiss(0, 0.04, 3000, 1500, 0.45, 0.0005, 0.008)
		v.hiss(0.07, 0.05, 2000, 1000, 0.45, 0.0005, 0.01)
	}},
}

// Generate returns sound s as mono samples at rate Hz, each in [-1, 1];
// nil for SoundNone or an unknown sound. The same arguments give the same
// samples.
func Generate(s fx.Sound, rate int) []float32 {
	if s >= fx.NumSounds || recipes[s].make == nil || rate <= 0 {
		return nil
	}
	r := &recipes[s]
	v := &voice{rate: float64(rate), buf: make([]float32, int(min(r.dur, MaxDuration)*float64(rate)))}
	v.rnd = fx.Rand{}
	for i := uint32(0); i <= uint32(s); i++ {
		v.rnd.Uint32() // a different noise for every sound
	}
	r.make(v)
	peak := float32(0)
	for _, x := range v.buf {
		peak = max(peak, x, -x)
	}
	if peak > 0.9 { // leave headroom for the mix
		k := 0.9 / peak
		for i := range v.buf {
			v.buf[i] *= k
		}
	}
	return v.buf
}

// StereoF32LE returns mono as interleaved stereo 32-bit little-endian
// floats, the format of Ebitengine's NewPlayerF32FromBytes.
func StereoF32LE(mono []float32) []byte {
	b := make([]byte, 8*len(mono))
	for i, x := range mono {
		u := math.Float32bits(x)
		binary.LittleEndian.PutUint32(b[8*i:], u)
		binary.LittleEndian.PutUint32(b[8*i+4:], u)
	}
	return b
}

// Duration returns how long sound s lasts, in seconds (0 for none).
func Duration(s fx.Sound) float64 {
	if s >= fx.NumSounds || recipes[s].make == nil {
		return 0
	}
	return min(recipes[s].dur, MaxDuration)
}
