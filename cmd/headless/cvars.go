package main

import (
	"fmt"
	"io"

	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
)

// cvars are the headless client's cvars: the client engine's and
// prediction's (client.Cvars, shared with the window) and the bots'.
var cvars = append(client.Cvars("Headless"), console.Decl{
	Name: "cl_botSkill", Default: "3", Flags: console.Integral, Min: 1, Max: 5,
	Help: "skill of the bot that plays each client"})

// clientConfig reads the engine's settings from the cvars, with mapDir
// the clients' map directory (-mapdir); the runner gives each client its
// own name (the name cvar is the prefix) and seed.
func clientConfig(t *console.Table, mapDir string) client.Config {
	c := client.ConfigFromCvars(t)
	c.MapDir = mapDir
	return c
}

// cgameConfig reads prediction's settings from the cvars.
func cgameConfig(t *console.Table, stderr io.Writer) cgame.Config {
	c := cgame.DefaultConfig()
	client.CGameConfigFromCvars(&c, t, func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) })
	return c
}
