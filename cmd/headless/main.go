// Command headless runs windowless Tremor clients against a server: each
// one a real client engine with prediction, playing with a bot's input at
// a real frame rate, chatting, and counting everything. It builds without
// cgo, a window or a display.
//
// Usage:
//
//	headless [-clients N] [-duration D] [-json FILE] [-log FILE] [-chat-every D]
//	         [-seed N] [-record NAME] [-webrtc URL] [+set CVAR VALUE]... +connect HOST[:PORT]
//	headless -timedemo FILE [-timedemo-step D]
//	headless -demoinfo FILE
//	headless -demodump FILE [-shownet N]
//
// Demos (docs/demos.md): -record NAME (or +record NAME) records each
// client's session to NAME.tdm (NAME-<i>.tdm with several clients), from
// the moment it is in a level until it leaves. -timedemo (or +timedemo
// FILE) plays a demo as fast as possible through the client engine and
// cgame, the demo clock advancing -timedemo-step (50 ms, as Quake III)
// per frame, and prints "N frames S seconds F fps min/avg/max/stddev ms":
// a rendering-free client benchmark. -demoinfo prints a demo's summary
// (map, duration, players, messages, bytes, full and delta snapshots,
// frags); -demodump prints every message decoded as cl_shownet N (4 by
// default: every field with its value) shows it, then the summary.
//
// Each client i is named NAME<i> (the name cvar, "Headless" by default)
// and says "client <i> line <n>" every -chat-every once every client is
// in the game. -log writes one JSON object per line for every event
// (chat_sent, server_command, snapshot, state, disconnect). At the end the
// report (per client and totals) goes to standard output and to -json.
// The exit status is 1 if a client failed to connect or was dropped
// without being told to go, 2 for a usage error.
//
// -webrtc http://HOST:PORT/ joins every client as a browser page does,
// over a WebRTC DataChannel signalled at that web port's /rtc (package
// server/rtc/page: pion in place of the browser), instead of over UDP;
// +connect still names the game address. Offers refused for the rate
// (429) or a full server (503) are retried every second, before the
// clients start playing. It measures a server's browser players with
// real client engines (docs/PERFORMANCE.md).
//
// Lines typed on standard input are console commands: "set cl_packetloss
// 10" changes every client at once. The cvars (see cvars.go) are the
// client's Quake III ones, plus cl_packetloss, cl_packetjitter,
// cl_packetduplicate and cl_packetreorder for the simulated network.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tremor/client/headless"
	"tremor/common/console"
	"tremor/common/safetext"
	"tremor/net/cmdargs"
	"tremor/net/netchan"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("headless", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clients := fs.Int("clients", 1, "number of clients")
	duration := fs.Duration("duration", 30*time.Second, "how long the clients play (0: until interrupted)")
	jsonFile := fs.String("json", "", "also write the final report to this file")
	logFile := fs.String("log", "", "write JSON lines events to this file")
	chatEvery := fs.Duration("chat-every", time.Second, "interval between each client's chat lines (0: no chat)")
	seed := fs.Uint64("seed", 1, "seed of the clients' qports, network simulation and bots")
	record := fs.String("record", "", "record each client's demo to NAME.tdm (NAME-<i>.tdm with several clients)")
	timedemo := fs.String("timedemo", "", "play this demo as fast as possible and print the frame rate")
	timedemoStep := fs.Duration("timedemo-step", 50*time.Millisecond, "demo time per timedemo frame")
	demoInfo := fs.String("demoinfo", "", "print this demo's summary")
	demoDump := fs.String("demodump", "", "print this demo's messages as cl_shownet does, then its summary")
	shownet := fs.Int("shownet", 4, "cl_shownet level of -demodump (1-4, -1)")
	webrtcURL := fs.String("webrtc", "", "join as browser pages over WebRTC, signalled at this web port URL (http://HOST:PORT/), instead of over UDP")
	mapDir := fs.String("mapdir", "maps", "directory of the clients' maps: NAME.map is read there before the embedded arenas, and a map the server has and the clients lack is downloaded into its downloads folder as NAME-CHECKSUM.map (empty: no download)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: headless [flags] [+set CVAR VALUE]... +connect HOST[:PORT]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *clients < 1 || *clients > 256 {
		fmt.Fprintln(stderr, "headless: -clients must be 1 to 256")
		return 2
	}

	t := console.NewTable()
	t.SetOutput(stderr)
	t.SetFS(os.DirFS("."))
	// r is made once the command line has run; from then on a change of
	// an engine cvar reaches every client at its next frame.
	var r *headless.Runner
	st := settings{mapDir: *mapDir}
	bindCvars(t, &st, func() {
		if r != nil {
			r.SetClientConfig(st.clientConfig())
		}
	})
	var server string
	t.AddCommand("connect", "choose the server: connect HOST[:PORT]", func(a *cmdargs.Args) { server = a.Argv(1) })
	t.AddCommand("record", "record each client's demo: record NAME", func(a *cmdargs.Args) { *record = a.Argv(1) })
	t.AddCommand("timedemo", "benchmark a demo: timedemo FILE", func(a *cmdargs.Args) { *timedemo = a.Argv(1) })
	early, rest := console.SplitCommandLine(fs.Args())
	t.ExecuteCommandLine(early)
	for _, l := range rest {
		t.ExecuteString(l)
	}
	switch {
	case *timedemo != "":
		return runTimeDemo(*timedemo, *timedemoStep, st.cgameConfig(stderr), stdout, stderr)
	case *demoInfo != "":
		return runDemoInfo(*demoInfo, stdout, stderr)
	case *demoDump != "":
		return runDemoDump(*demoDump, *shownet, stdout, stderr)
	}
	if server == "" {
		fmt.Fprintln(stderr, "headless: no server: give +connect HOST[:PORT]")
		fs.Usage()
		return 2
	}
	addr, err := netchan.ResolveAddr(server)
	if err != nil {
		fmt.Fprintf(stderr, "headless: %v\n", err)
		return 2
	}

	var logw io.Writer
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			fmt.Fprintf(stderr, "headless: %v\n", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	cgcfg := st.cgameConfig(stderr)
	var listen func(int) (netchan.Conn, error)
	if *webrtcURL != "" {
		listen, err = webrtcListen(ctx, *webrtcURL, addr)
		if err != nil {
			fmt.Fprintf(stderr, "headless: -webrtc: %v\n", err)
			return 2
		}
	}
	r = headless.New(headless.Config{
		Server:     addr,
		Clients:    *clients,
		Duration:   *duration,
		ChatEvery:  *chatEvery,
		FPS:        st.client.MaxFPS,
		Client:     st.clientConfig(),
		CGame:      &cgcfg,
		BotSkill:   st.botSkill,
		NamePrefix: st.client.Name,
		Seed:       *seed,
		Log:        logw,
		Console:    stderr, // diagnostics and download progress
		Record:     recorder(*record, *clients),
		Listen:     listen,
	})
	go readConsole(ctx, t, stdin)

	rep, err := r.Run(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "headless: %v\n", err)
		return 1
	}
	out, _ := json.MarshalIndent(rep, "", "  ")
	out = append(out, '\n')
	stdout.Write(out)
	if *jsonFile != "" {
		if err := os.WriteFile(*jsonFile, out, 0o644); err != nil {
			fmt.Fprintf(stderr, "headless: %v\n", err)
			return 1
		}
	}
	if rep.Failed() {
		for _, c := range rep.Clients {
			if c.Failed {
				// The reason quotes the server: shown, never obeyed.
				fmt.Fprintf(stderr, "headless: client %d failed: %s (%s)\n", c.Client, safetext.Line(c.DisconnectReason), c.FinalState)
			}
		}
		return 1
	}
	return 0
}

// readConsole runs the lines typed on stdin as console commands.
func readConsole(ctx context.Context, t *console.Table, stdin io.Reader) {
	if stdin == nil {
		return
	}
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if ctx.Err() != nil {
			return
		}
		t.Append(sc.Text())
		t.Execute()
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Printf("headless: console: %v\n", err)
	}
}
