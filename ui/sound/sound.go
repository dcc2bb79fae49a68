// Package sound plays the Tremor client's sounds through Ebitengine's
// audio: the sounds of package synth, made once at startup, started by
// the fx.Cue values cgame/fx picks from each frame's events.
//
// A machine without an audio device (a CI runner, Xvfb, a server room)
// gets a silent Player: New looks for a device first and, finding none,
// never creates the audio context, so the game neither fails nor waits
// on a sound system that is not there.
package sound

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2/audio"

	"tremor/cgame/fx"
	"tremor/ui/sound/synth"
)

// Limits of the mixer.
const (
	// MaxVoices is how many sounds play at once; a cue beyond it is
	// dropped (Quake III's MAX_CHANNELS, much smaller: a 2D arena is
	// rarely louder than this).
	MaxVoices = 12
	// VoicesPerSound is how many copies of one sound overlap; the next
	// one restarts the oldest (a machinegun does not stack up).
	VoicesPerSound = 3
)

// Options configure New.
type Options struct {
	// Volume is the master volume in [0, 1] (s_volume).
	Volume float64
	// Device reports whether the machine can play sound; nil means
	// HasDevice. A Player made with a Device that says false is silent.
	Device func() bool
}

type voice struct {
	p   *audio.Player
	end time.Time // when it stops playing
}

// Player plays sounds. Its methods return at once, never fail and may be
// called on a nil or silent Player. Not safe for concurrent use: call it
// from the game loop.
type Player struct {
	ctx    *audio.Context
	voices [fx.NumSounds][VoicesPerSound]voice
	length [fx.NumSounds]time.Duration
	volume float64
	now    func() time.Time
}

// New makes the sounds and, when the machine has an audio device, an
// audio context at synth.SampleRate. It must be called at most once per
// process (Ebitengine has one audio context), before or while the game
// runs.
func New(o Options) *Player {
	p := &Player{volume: clamp(o.Volume), now: time.Now}
	dev := o.Device
	if dev == nil {
		dev = HasDevice
	}
	if !dev() {
		return p
	}
	p.ctx = audio.NewContext(synth.SampleRate)
	for s := fx.SoundNone + 1; s < fx.NumSounds; s++ {
		b := synth.StereoF32LE(synth.Generate(s, synth.SampleRate))
		if len(b) == 0 {
			continue
		}
		p.length[s] = time.Duration(synth.Duration(s) * float64(time.Second))
		for i := range p.voices[s] {
			p.voices[s][i].p = p.ctx.NewPlayerF32FromBytes(b)
		}
	}
	return p
}

// Enabled reports whether the Player makes any sound.
func (p *Player) Enabled() bool { return p != nil && p.ctx != nil }

// SetVolume sets the master volume, clamped to [0, 1].
func (p *Player) SetVolume(v float64) {
	if p != nil {
		p.volume = clamp(v)
	}
}

// Volume returns the master volume.
func (p *Player) Volume() float64 {
	if p == nil {
		return 0
	}
	return p.volume
}

// Play starts sound s at full volume.
func (p *Player) Play(s fx.Sound) { p.PlayCue(fx.Cue{Sound: s, Volume: 1}) }

// PlayCues starts every cue of cs, in order.
func (p *Player) PlayCues(cs []fx.Cue) {
	for _, c := range cs {
		p.PlayCue(c)
	}
}

// PlayCue starts c.Sound at c.Volume times the master volume, unless
// MaxVoices are playing already.
func (p *Player) PlayCue(c fx.Cue) {
	if !p.Enabled() || c.Sound == fx.SoundNone || c.Sound >= fx.NumSounds || p.volume <= 0 || !(c.Volume > 0) {
		return
	}
	vs := &p.voices[c.Sound]
	if vs[0].p == nil {
		return
	}
	now := p.now()
	busy := 0
	for s := range p.voices {
		for i := range p.voices[s] {
			if p.voices[s][i].end.After(now) {
				busy++
			}
		}
	}
	oldest := 0
	for i := range vs {
		if vs[i].end.Before(vs[oldest].end) {
			oldest = i
		}
	}
	v := &vs[oldest]
	if busy >= MaxVoices && !v.end.After(now) {
		return // every voice taken: drop the cue
	}
	v.p.SetVolume(p.volume * min(c.Volume, 1))
	_ = v.p.Rewind()
	v.p.Play()
	v.end = now.Add(p.length[c.Sound])
}

func clamp(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}
