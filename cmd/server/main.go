// Command server is the Tremor dedicated server: it runs the game at
// sv_fps, builds delta-compressed snapshots for each client and answers
// LAN browser queries. It builds without cgo, a window or a display.
//
// Usage, Quake style:
//
//	server [+set NAME VALUE]... [+map NAME] [+addbot [COUNT|NAME [SKILL]]] [+exec FILE] ...
//
// +set lines run before the server starts (net_ip and net_port choose the
// socket, default port 27960); the other commands run once it is up, in
// order (exec reads FILE.cfg from sv_configdir, by default the working
// directory: +set sv_configdir /etc/tremor +exec server). map NAME
// loads NAME.map from sv_mapdir, by default maps/ under the working
// directory, before the embedded arenas, and sends it to clients that lack
// it (+set sv_mapdir maps/examples +map courtyard; docs/download.md).
// Without a map or exec command it loads arena1. The console reads
// commands from standard input (map, map_restart, status, serverinfo,
// kick, addbot, say, set, cvarlist, exec, quit, help...); they run in the
// one console table the server's cvars and commands live in, which rcon
// uses too. Every log line is timestamped. SIGINT or SIGTERM sends every client "disconnect" and
// exits with status 0. +set journal 1 records the event journal (every
// packet, frame time and console line the server consumes, with the
// game's hash after every server frame); +set journal 2 +set
// journal_file FILE replays one with no network and exits, 0 when every
// frame is as recorded (docs/journal.md). +set cpuprofile FILE writes a
// CPU profile for go tool pprof, from start-up until the server stops
// (PROFILE=DIR make servercpu uses it). As each client leaves, a
// "reliable client=N carrier=..." line gives what its reliable commands
// cost on the way down (logCarrier; make carriers reads it).
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"tremor/common/console"
	"tremor/lessons"
	"tremor/net/cmdargs"
	"tremor/net/netchan"
	"tremor/server"
	"tremor/server/rtc"
)

// netCvars choose the socket; they are read once, at start-up.
var netCvars = []console.Decl{
	{Name: "net_ip", Default: "", Flags: console.Init, Help: "address the server listens on (empty: every address)"},
	{Name: "net_port", Default: strconv.Itoa(netchan.DefaultPort), Flags: console.Init | console.Integral,
		Min: 0, Max: 65535, Help: "UDP port the server listens on (0: any free port)"},
	{Name: "sv_webICEPort", Default: "0", Flags: console.Init | console.Integral, Min: 0, Max: 65535,
		Help: "UDP port of browser players' ICE (0: the game port, shared with UDP players; docs/protocol.md 4.7)"},
}

// profileCvars choose a CPU profile; they are read once, at start-up.
var profileCvars = []console.Decl{
	{Name: "cpuprofile", Default: "", Flags: console.Init,
		Help: "file to write a CPU profile (go tool pprof) to, from start-up until the server stops (empty: none)"},
}

// newTable returns a console table that prints to out, with every cvar
// of the program declared: the server's, the socket's, the profile's and
// the journal's. A journal's replay builds the same.
func newTable(out io.Writer) *console.Table {
	t := console.NewTable()
	t.SetOutput(out)
	t.Register(netCvars...)
	t.Register(profileCvars...)
	t.Register(journalCvars...)
	server.DeclareCvars(t)
	return t
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout))
}

func run(args []string, stdin io.Reader, stdout io.Writer) int {
	logw := &stampWriter{w: stdout}
	// One console table: the server binds its cvars and adds its commands
	// to it, and runs it on its goroutine. The command line, standard
	// input and rcon all go through it.
	t := newTable(logw)

	early, rest := console.SplitCommandLine(args)
	t.ExecuteCommandLine(early)
	if path := t.Get("cpuprofile").Value(); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintf(logw, "server: %v\n", err)
			return 1
		}
		defer stop()
	}
	jmode := t.Get("journal").Int()
	if jmode == 2 {
		return replayMain(t, logw)
	}

	addr := net.JoinHostPort(t.Get("net_ip").Value(), strconv.Itoa(t.Get("net_port").Int()))
	conn, err := netchan.ListenUDP(addr)
	if err != nil {
		fmt.Fprintf(logw, "server: %v\n", err)
		return 1
	}
	// Join the IPv6 group LAN browsers query (as ioquake3's servers
	// did), so that a server on an IPv6-only network is found too.
	if n, err := netchan.JoinMulticast6(conn, netchan.Multicast6); err == nil {
		fmt.Fprintf(logw, "server: LAN browsers reach it through %v on %d interface(s)\n", netchan.Multicast6, n)
	} else if !conn.LocalAddr().Addr().Is4() {
		fmt.Fprintf(logw, "server: IPv6 LAN browsers will not find it: %v\n", err)
	}
	cfg := server.DefaultConfig()
	if jmode == 1 {
		cfg.Seed = journalSeed()
	}
	// Browser players: the page and WebRTC signalling on the web port
	// (sv_webPort), ICE on the game port.
	srvConn, web, webLine, err := rtc.StartWith(conn, rtc.StartOptions{
		WebPort: t.Get("sv_webPort").Int(), WebDir: t.Get("sv_webDir").Value(), ICEPort: t.Get("sv_webICEPort").Int()},
		func(format string, args ...any) { fmt.Fprintf(logw, format+"\n", args...) })
	if err != nil {
		fmt.Fprintf(logw, "server: %v\n", err)
	}
	if web != nil {
		defer web.Close()
	}
	srv, err := server.New(srvConn, cfg, logw, server.WithConsole(t), server.WithExecFallback(lessons.FS()))
	if err != nil {
		fmt.Fprintf(logw, "server: %v\n", err)
		return 1
	}
	defer srv.Close()
	srv.OnDrop = func(n int, _ string) { logCarrier(logw, srv.Client(n)) }
	exec := srv.Exec
	if jmode == 1 {
		jr, err := startRecorder(srv, cfg.Seed, journalPath(t.Get("journal_file").Value()), logw)
		if err != nil {
			fmt.Fprintf(logw, "server: %v\n", err)
			return 1
		}
		defer jr.Close()
		exec = jr.Exec
	}
	fmt.Fprintf(logw, "Tremor server listening on %s\n", srv.Addr())
	if webLine != "" {
		fmt.Fprintf(logw, "%s\n", webLine)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if !startsMatch(rest) {
		exec("map arena1")
	}
	for _, line := range rest {
		exec(line)
	}
	go readConsole(stdin, exec)

	if err := srv.Run(ctx); err != nil {
		fmt.Fprintf(logw, "%v\n", err)
		return 1
	}
	fmt.Fprintln(logw, "server stopped")
	return 0
}

// logCarrier logs, as a client leaves, what its reliable commands cost
// on the way down, one parseable line (.ci/carriers.sh reads it):
//
//	reliable client=N carrier=q3|acks commands_bytes=B ack_bytes=B bytes_out=B packets_out=N name="NAME"
//
// commands_bytes are the server commands in every message, copies and
// resends included; ack_bytes the acks carrier's packet acks; bytes_out
// and packets_out everything the netchan sent the client.
func logCarrier(w io.Writer, ci server.ClientInfo) {
	if ci.Bot {
		return
	}
	fmt.Fprintf(w, "reliable client=%d carrier=%s commands_bytes=%d ack_bytes=%d bytes_out=%d packets_out=%d name=%s\n",
		ci.Num, ci.Reliable, ci.ReliableBits/8, ci.AckBits/8, ci.Netchan.BytesOut, ci.Netchan.PacketsOut, strconv.Quote(ci.Name))
}

// startCPUProfile starts writing a CPU profile to path; stop ends it and
// closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// startsMatch reports whether the command line loads a map (or runs a
// config file that may).
func startsMatch(lines []string) bool {
	for _, l := range lines {
		switch strings.ToLower(cmdargs.Tokenize(l).Argv(0)) {
		case "map", "exec":
			return true
		}
	}
	return false
}

// readConsole queues every line of standard input on the console, which
// the server goroutine runs.
func readConsole(r io.Reader, exec func(string)) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			exec(line)
		}
	}
}

// stampWriter prefixes every line with the date and time. It is safe for
// concurrent use.
type stampWriter struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b []byte
	for _, c := range p {
		if !s.midLine {
			b = time.Now().AppendFormat(b, "2006-01-02 15:04:05.000 ")
			s.midLine = true
		}
		b = append(b, c)
		if c == '\n' {
			s.midLine = false
		}
	}
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
