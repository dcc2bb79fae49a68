package client

import (
	"path/filepath"
	"strconv"
	"strings"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// DemoDir returns where demos live in the data directory dataDir:
// dataDir/demos.
func DemoDir(dataDir string) string { return filepath.Join(dataDir, "demos") }

// AddRecordCommands registers record and stoprecord on t, acting on the
// client get returns (nil: none), with demos in DemoDir(dataDir). The
// program gives each client it makes the value of its
// cl_autoRecordDemo, and every change of it (SetAutoRecordDemo).
//
//	record [NAME]   start recording (a name by date and map without NAME)
//	stoprecord      end it
func AddRecordCommands(t *console.Table, dataDir string, get func() *Client) {
	dir := DemoDir(dataDir)
	t.AddCommand("record", "record a demo: record [NAME]", func(a *cmdargs.Args) {
		c := get()
		if c == nil {
			t.Printf("record: not connected\n")
			return
		}
		p, err := c.RecordTo(dir, a.Argv(1))
		if err != nil {
			t.Printf("record: %v\n", err)
			return
		}
		t.Printf("recording to %s\n", p)
	})
	t.AddCommand("stoprecord", "stop recording a demo", func(*cmdargs.Args) {
		c := get()
		if c == nil {
			t.Printf("stoprecord: not recording\n")
			return
		}
		info, err := c.StopRecording()
		if err != nil {
			t.Printf("stoprecord: %v\n", err)
			return
		}
		t.Printf("stopped recording %s: %d messages, %d key frames, %d bytes\n", info.Name, info.Messages, info.KeyFrames, info.Bytes)
	})
}

// AddPlaybackCommands registers the playback controls on t, acting on
// the playback get returns (nil: no demo playing):
//
//	demo_pause              pause or resume
//	demo_timescale [X]      show or set the speed, 0.1 to 4
//	demo_step / demo_stepback   one snapshot forward / back (pauses)
//	demo_seek SECONDS       to that many seconds from the start
//	demo_seekpct PERCENT    to that percentage of the demo
//	demo_nextfrag / demo_prevfrag   to the next / previous kill
//	demo_info               the demo's summary
func AddPlaybackCommands(t *console.Table, get func() *Playback) {
	with := func(name string, fn func(p *Playback, a *cmdargs.Args) error) func(*cmdargs.Args) {
		return func(a *cmdargs.Args) {
			p := get()
			if p == nil {
				t.Printf("%s: no demo playing\n", name)
				return
			}
			if err := fn(p, a); err != nil {
				t.Printf("%s: %v\n", name, err)
			}
		}
	}
	t.AddCommand("demo_pause", "pause or resume the demo", with("demo_pause", func(p *Playback, _ *cmdargs.Args) error {
		p.SetPaused(!p.Paused())
		return nil
	}))
	t.AddCommand("demo_timescale", "demo speed: demo_timescale [0.1-4]", with("demo_timescale", func(p *Playback, a *cmdargs.Args) error {
		if a.Argc() < 2 {
			t.Printf("demo_timescale is %g\n", p.Timescale())
			return nil
		}
		f, err := strconv.ParseFloat(a.Argv(1), 64)
		if err != nil {
			return err
		}
		p.SetTimescale(f)
		return nil
	}))
	t.AddCommand("demo_step", "one snapshot forward", with("demo_step", func(p *Playback, _ *cmdargs.Args) error {
		p.StepForward()
		return nil
	}))
	t.AddCommand("demo_stepback", "one snapshot back", with("demo_stepback", func(p *Playback, _ *cmdargs.Args) error {
		return p.StepBack()
	}))
	t.AddCommand("demo_seek", "seek to SECONDS from the start", with("demo_seek", func(p *Playback, a *cmdargs.Args) error {
		f, err := strconv.ParseFloat(strings.TrimSuffix(a.Argv(1), "s"), 64)
		if err != nil {
			return err
		}
		first, _, err := p.span()
		if err != nil {
			return err
		}
		return p.SeekTime(first + int32(f*1000))
	}))
	t.AddCommand("demo_seekpct", "seek to PERCENT of the demo", with("demo_seekpct", func(p *Playback, a *cmdargs.Args) error {
		f, err := strconv.ParseFloat(strings.TrimSuffix(a.Argv(1), "%"), 64)
		if err != nil {
			return err
		}
		return p.SeekPercent(f)
	}))
	frag := func(name string, next bool) func(*cmdargs.Args) {
		return with(name, func(p *Playback, _ *cmdargs.Args) error {
			var ok bool
			var err error
			if next {
				ok, err = p.NextFrag()
			} else {
				ok, err = p.PrevFrag()
			}
			if err == nil && !ok {
				t.Printf("%s: no more frags\n", name)
			}
			return err
		})
	}
	t.AddCommand("demo_nextfrag", "seek to the next kill", frag("demo_nextfrag", true))
	t.AddCommand("demo_prevfrag", "seek to the previous kill", frag("demo_prevfrag", false))
	t.AddCommand("demo_info", "the demo's summary", with("demo_info", func(p *Playback, _ *cmdargs.Args) error {
		s, err := p.Summary()
		if s != nil {
			for _, l := range strings.Split(s.String(), "\n") {
				t.Printf("%s\n", l)
			}
		}
		return err
	}))
}
