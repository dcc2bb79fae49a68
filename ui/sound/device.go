//go:build !js

package sound

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// HasDevice reports whether this machine seems to have an audio output.
// On Linux that is an ALSA playback device node this process can open,
// or a PulseAudio or PipeWire server (they bring their own ALSA
// plug-in); elsewhere the system always has one. Set TREMOR_NOSOUND=1 to
// say no anyway.
//
// It matters: once an audio context exists, Ebitengine ends the game
// with the driver's error if the device cannot be opened, so New must
// not create one on a machine without sound.
func HasDevice() bool {
	if os.Getenv("TREMOR_NOSOUND") != "" {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	devs, _ := filepath.Glob("/dev/snd/pcmC*D*p")
	for _, d := range devs {
		// A device node we may open: a card is there and is ours.
		if f, err := os.OpenFile(d, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
			return true
		}
	}
	if os.Getenv("PULSE_SERVER") != "" {
		return true
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		for _, s := range []string{"pulse/native", "pipewire-0"} {
			if _, err := os.Stat(filepath.Join(d, s)); err == nil {
				return true
			}
		}
	}
	return false
}
