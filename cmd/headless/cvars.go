package main

import (
	"fmt"
	"io"

	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
)

// settings are the headless client's cvars, each bound to its field by
// bindCvars.
type settings struct {
	client   client.Cvars // the client engine's and prediction's (client.BindCvars)
	botSkill int          // cl_botSkill
	mapDir   string       // -mapdir: not a cvar
}

// bindCvars binds the headless client's cvars in t: the client engine's
// and prediction's (client.BindCvars, shared with the window) and the
// bots'. A change of an engine cvar runs onEngine; the others (name,
// com_maxfps, prediction's and cl_botSkill) are read once, at start.
func bindCvars(t *console.Table, s *settings, onEngine func()) {
	v := t.Bind(nil)
	client.BindCvars(v, &s.client, "Headless", client.CvarHooks{Engine: onEngine})
	v.IntVar(&s.botSkill, "cl_botSkill", 3, 1, 5, 0, "skill of the bot that plays each client")
}

// clientConfig returns the engine's settings the cvars hold, with the
// clients' map directory (-mapdir); the runner gives each client its
// own name (the name cvar is the prefix) and seed.
func (s *settings) clientConfig() client.Config {
	c := s.client.Config()
	c.MapDir = s.mapDir
	return c
}

// cgameConfig returns a copy of prediction's settings: the clients run
// on goroutines of their own.
func (s *settings) cgameConfig(stderr io.Writer) cgame.Config {
	c := s.client.CGame
	c.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	return c
}
