package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"tremor/cgame"
	"tremor/client"
	"tremor/common/demo"
)

// recorder returns the headless.Config.Record of -record NAME: client i
// records to NAME.tdm, or NAME-<i>.tdm when there are several clients.
func recorder(name string, clients int) func(i int) (io.WriteCloser, error) {
	if name == "" {
		return nil
	}
	name = strings.TrimSuffix(name, demo.Extension)
	return func(i int) (io.WriteCloser, error) {
		p := name + demo.Extension
		if clients > 1 {
			p = fmt.Sprintf("%s-%d%s", name, i, demo.Extension)
		}
		return os.Create(p)
	}
}

// demoFile adds the extension to a demo name that lacks it and has no
// file of its own.
func demoFile(name string) string {
	if _, err := os.Stat(name); err != nil && !strings.HasSuffix(name, demo.Extension) {
		return name + demo.Extension
	}
	return name
}

// runTimeDemo plays a demo as fast as possible through the client
// engine and cgame and prints Quake III's timedemo line.
func runTimeDemo(name string, step time.Duration, cg cgame.Config, stdout, stderr io.Writer) int {
	p, err := client.OpenDemo(demoFile(name), client.PlaybackConfig{CGame: &cg})
	if err != nil {
		fmt.Fprintf(stderr, "headless: timedemo: %v\n", err)
		return 1
	}
	defer p.Close()
	res := p.TimeDemo(step, nil)
	fmt.Fprintln(stdout, res.String())
	if res.Err != nil {
		fmt.Fprintf(stderr, "headless: timedemo: the demo ended early: %v\n", res.Err)
		return 1
	}
	return 0
}

// runDemoInfo prints a demo's summary.
func runDemoInfo(name string, stdout, stderr io.Writer) int {
	s, err := client.ReadSummary(demoFile(name), client.Config{})
	if s != nil {
		fmt.Fprintln(stdout, s.String())
	}
	if err != nil {
		fmt.Fprintf(stderr, "headless: demoinfo: %v\n", err)
		return 1
	}
	return 0
}

// runDemoDump prints every message of a demo as cl_shownet level shows
// it, then the summary.
func runDemoDump(name string, level int, stdout, stderr io.Writer) int {
	logf := func(format string, args ...any) { fmt.Fprintf(stdout, format+"\n", args...) }
	s, err := client.DumpDemo(demoFile(name), client.Config{}, level, logf)
	if s != nil {
		fmt.Fprintln(stdout, s.String())
	}
	if err != nil {
		fmt.Fprintf(stderr, "headless: demodump: %v\n", err)
		return 1
	}
	return 0
}
