package synth

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"tremor/cgame/fx"
)

func TestGenerate(t *testing.T) {
	for s := fx.SoundNone + 1; s < fx.NumSounds; s++ {
		t.Run(s.String(), func(t *testing.T) {
			b := Generate(s, SampleRate)
			if want := int(Duration(s) * SampleRate); len(b) != want || len(b) == 0 {
				t.Fatalf("%d samples, want %d (> 0)", len(b), want)
			}
			var sum float64
			for i, x := range b {
				if !(x >= -1 && x <= 1) {
					t.Fatalf("sample %d = %v, outside [-1, 1]", i, x)
				}
				sum += float64(x) * float64(x)
			}
			if rms := math.Sqrt(sum / float64(len(b))); rms < 0.01 {
				t.Errorf("RMS %.4f: silent", rms)
			}
			if last := b[len(b)-1]; math.Abs(float64(last)) > 0.01 {
				t.Errorf("ends at %v: would click", last)
			}
			if !slices.Equal(b, Generate(s, SampleRate)) {
				t.Errorf("two generations differ")
			}
		})
	}
	if Generate(fx.SoundNone, SampleRate) != nil || Generate(fx.NumSounds, SampleRate) != nil || Generate(fx.SoundHit, 0) != nil {
		t.Errorf("Generate made samples for no sound or no rate")
	}
}

func TestStereoF32LE(t *testing.T) {
	b := StereoF32LE([]float32{0.5, -1})
	if len(b) != 16 {
		t.Fatalf("%d bytes, want 16", len(b))
	}
	for i, want := range []float32{0.5, 0.5, -1, -1} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])); got != want {
			t.Errorf("value %d = %v, want %v", i, got, want)
		}
	}
}
