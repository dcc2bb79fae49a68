package sound

import "os"

// HasDevice reports whether this machine seems to have an audio output.
// In a browser it always has one: Web Audio is part of the page, and the
// browser starts it at the player's first click or key (Ebitengine
// resumes the context then), so there is no device to probe. Set
// TREMOR_NOSOUND=1 to say no anyway.
func HasDevice() bool {
	return os.Getenv("TREMOR_NOSOUND") == ""
}
