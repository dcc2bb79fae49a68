//go:build !js

package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"tremor/net/cmdargs"
)

// cpuProfile is a CPU profile being written (cpuprofile command). Its
// timer stops it from another goroutine, hence the lock.
type cpuProfile struct {
	mu   sync.Mutex
	f    *os.File
	stop *time.Timer
}

// DefaultProfileSeconds is how long cpuprofile profiles without a
// duration.
const DefaultProfileSeconds = 10

// addProfileCommand adds cpuprofile, which writes a Go CPU profile of
// the client (the game loop, the embedded server and its bots, building
// the draw lists; not the renderer's own threads, which are C):
//
//	cpuprofile FILE [SECONDS]   start; it stops by itself after SECONDS (10)
//	cpuprofile stop             stop now
//
// Read it with go tool pprof FILE. docs/PERFORMANCE.md, "Client frame
// time", shows how it was used.
func (g *game) addProfileCommand() {
	var p cpuProfile
	// stopFile stops the profile being written to f; nil: any.
	stopFile := func(f *os.File) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.f == nil || f != nil && f != p.f {
			return // a profile the timer was not for
		}
		pprof.StopCPUProfile()
		p.stop.Stop()
		if err := p.f.Close(); err != nil {
			g.t.Printf("cpuprofile: %v\n", err)
		} else {
			g.t.Printf("cpuprofile: wrote %s\n", p.f.Name())
		}
		p.f = nil
	}
	stop := func() { stopFile(nil) }
	g.t.AddCommand("cpuprofile", "write a Go CPU profile: cpuprofile FILE [SECONDS] (default 10), or cpuprofile stop", func(a *cmdargs.Args) {
		name := a.Argv(1)
		switch name {
		case "":
			g.t.Printf("usage: cpuprofile FILE [SECONDS] | cpuprofile stop\n")
			return
		case "stop":
			stop()
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.f != nil {
			g.t.Printf("cpuprofile: already writing %s\n", p.f.Name())
			return
		}
		secs := DefaultProfileSeconds
		if a.Argc() > 2 {
			n, err := strconv.Atoi(a.Argv(2))
			if err != nil || n <= 0 {
				g.t.Printf("cpuprofile: %q is not a number of seconds\n", a.Argv(2))
				return
			}
			secs = n
		}
		f, err := os.Create(name)
		if err != nil {
			g.t.Printf("cpuprofile: %v\n", err)
			return
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			g.t.Printf("cpuprofile: %v\n", err)
			return
		}
		p.f = f
		p.stop = time.AfterFunc(time.Duration(secs)*time.Second, func() { stopFile(f) })
		g.t.Printf("cpuprofile: writing %s for %d s\n", name, secs)
	})
	g.profileStop = stop
}
