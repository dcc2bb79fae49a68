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
// directory: +set sv_configdir /etc/tremor +exec server). Without a
// map or exec command it loads arena1. The console reads
// commands from standard input (map, map_restart, status, serverinfo,
// kick, addbot, say, set, cvarlist, exec, quit, help...). Every log line
// is timestamped. SIGINT or SIGTERM sends every client "disconnect" and
// exits with status 0.
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"tremor/internal/console"
	"tremor/internal/server"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// serverCommands are the console commands the server runs; the console
// forwards them as typed.
var serverCommands = [][2]string{
	{"map", "load a map: map NAME"},
	{"map_restart", "restart the match on the same map"},
	{"status", "list the clients"},
	{"serverinfo", "print the serverinfo string"},
	{"systeminfo", "print the systeminfo string"},
	{"kick", "drop a client: kick NAME|NUM|allbots|all"},
	{"clientkick", "drop a client by number"},
	{"addbot", "add bots: addbot [COUNT | NAME [SKILL]]"},
	{"say", "chat to every client as the server"},
}

// netCvars choose the socket; they are read once, at start-up.
var netCvars = []console.Decl{
	{Name: "net_ip", Default: "", Flags: console.Init, Help: "address the server listens on (empty: every address)"},
	{Name: "net_port", Default: strconv.Itoa(netchan.DefaultPort), Flags: console.Init | console.Integral,
		Min: 0, Max: 65535, Help: "UDP port the server listens on (0: any free port)"},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout))
}

func run(args []string, stdin io.Reader, stdout io.Writer) int {
	logw := &stampWriter{w: stdout}
	t := console.NewTable()
	t.SetOutput(logw)
	t.SetFS(os.DirFS("."))
	t.Register(netCvars...)
	t.Register(server.CvarDecls()...)

	early, rest := console.SplitCommandLine(args)
	t.ExecuteCommandLine(early)

	cfg := server.ConfigFromCvars(t, logw)
	addr := net.JoinHostPort(t.Get("net_ip").Value(), strconv.Itoa(t.Get("net_port").Int()))
	conn, err := netchan.ListenUDP(addr)
	if err != nil {
		fmt.Fprintf(logw, "server: %v\n", err)
		return 1
	}
	srv, err := server.New(conn, cfg, logw)
	if err != nil {
		fmt.Fprintf(logw, "server: %v\n", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(logw, "Tremor server listening on %s\n", srv.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// The console table and the server keep the same cvar values: a set
	// on the console goes to the server, a change on the server (rcon)
	// comes back.
	for _, ci := range server.Cvars() {
		t.Get(ci.Name).OnChange(func(c *console.Cvar) {
			srv.Exec("set " + c.Name() + " " + oob.Quote(c.Value()))
		})
	}
	srv.OnCvar = func(name, value string) { _ = t.ForceSet(name, value) }
	for _, c := range serverCommands {
		t.AddCommand(c[0], c[1], func(a *oob.Args) { srv.Exec(a.Raw()) })
	}
	// quit goes through the server's queue, so the commands queued before
	// it (from the command line or the console) run first.
	t.AddCommand("quit", "disconnect every client and stop the server", func(*oob.Args) {
		go srv.Do(ctx, stop)
	})

	if !startsMatch(rest) {
		t.Append("map arena1")
	}
	for _, line := range rest {
		t.Append(line)
	}

	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	go readConsole(stdin, t)

	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				fmt.Fprintf(logw, "%v\n", err)
				return 1
			}
			fmt.Fprintln(logw, "server stopped")
			return 0
		case <-tick.C:
			t.Execute()
		}
	}
}

// startsMatch reports whether the command line loads a map (or runs a
// config file that may).
func startsMatch(lines []string) bool {
	for _, l := range lines {
		switch strings.ToLower(oob.Tokenize(l).Argv(0)) {
		case "map", "exec":
			return true
		}
	}
	return false
}

// readConsole queues every line of standard input on the console.
func readConsole(r io.Reader, t *console.Table) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			t.Append(line)
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
