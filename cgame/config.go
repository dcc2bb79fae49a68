package cgame

import "tremor/bg"

// Config holds the cgame cvars. CGame keeps a pointer to it and reads the
// fields at every Frame, so a change made between frames (from the
// console) takes effect at the next frame. It must not change while Frame
// runs.
type Config struct {
	// NoPredict is cl_nopredict — Quake III's cg_nopredict; the two names
	// are one cvar. When set, the local player is not predicted: it is
	// drawn where the snapshots put it, interpolated like everybody else,
	// and its events play when the snapshots bring them.
	NoPredict bool
	// ErrorDecay is cg_errorDecay in milliseconds (default 100): a
	// misprediction is not snapped away but drawn as an offset that
	// shrinks linearly to zero over this time. 0 snaps at once.
	ErrorDecay int32
	// ShowMiss is cg_showmiss: 1 reports every misprediction, changed
	// predicted event and lost command window through Logf; 2 also
	// reports every frame's replay.
	ShowMiss int
	// PmoveFixed and PmoveMsec are pmove_fixed and pmove_msec (8 to 33):
	// movement in fixed steps, command times rounded up to a multiple of
	// the step. Both sides must agree: Tremor's server runs variable
	// steps (PmoveFixed false), and so must its clients.
	PmoveFixed bool
	PmoveMsec  int32
	// Params are the movement tunables; nil means bg.DefaultParams. They
	// must be the server's.
	Params *bg.Params
	// Logf receives the cg_showmiss reports; nil discards them.
	Logf func(format string, args ...any)
}

// DefaultConfig returns the settings a client starts with: prediction on,
// cg_errorDecay 100, cg_showmiss 0, pmove_fixed 0, pmove_msec 8.
func DefaultConfig() Config {
	return Config{ErrorDecay: 100, PmoveMsec: 8}
}

// fixedMsec returns the Pmove step for pmove_fixed, or 0 for variable
// steps.
func (c *Config) fixedMsec() int32 {
	if !c.PmoveFixed {
		return 0
	}
	return min(max(c.PmoveMsec, 8), 33)
}

// showMiss reports whether cg_showmiss asks for reports of this level.
// Callers test it before calling Logf, so that the arguments are not
// boxed (and allocated) when nobody listens.
func (c *Config) showMiss(level int) bool {
	return c.ShowMiss >= level && c.Logf != nil
}
