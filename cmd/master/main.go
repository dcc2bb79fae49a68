// Command master is Tremor's master server: game servers send it
// heartbeats, browsers and qstat ask it for the list of servers. It
// speaks dpmaster's protocol (docs/master.md) and builds without cgo.
//
// Usage, Quake style:
//
//	master [+set NAME VALUE]...
//
// Cvars: net_ip and net_port choose the socket (default port 27950);
// master_timeout is how many seconds a server stays listed after its
// last verified heartbeat (default 900); master_maxServers and
// master_maxPerSource bound the list and what one IPv4 address or IPv6
// /64 may list, master_maxPerBlock what one IPv4 /24 or IPv6 /48 may. The limits and the timeout may also be changed with
// "set" lines on standard input while it runs. The status log, one
// timestamped line per listing, expiry or refusal (at most 20 a second),
// goes to standard output. SIGINT or SIGTERM stops it with status 0.
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tremor/common/console"
	"tremor/master"
	"tremor/net/netchan"
	"tremor/net/oob"
)

var cvars = []console.Decl{
	{Name: "net_ip", Default: "", Flags: console.Init, Help: "address the master listens on (empty: every address)"},
	{Name: "net_port", Default: strconv.Itoa(oob.MasterPort), Flags: console.Init | console.Integral,
		Min: 0, Max: 65535, Help: "UDP port the master listens on (0: any free port)"},
	{Name: "master_timeout", Default: strconv.Itoa(int(master.DefaultTimeout / time.Second)), Flags: console.Integral,
		Min: 1, Max: 86400, Help: "seconds a server stays listed after its last verified heartbeat"},
	{Name: "master_maxServers", Default: strconv.Itoa(master.DefaultMaxServers), Flags: console.Integral,
		Min: 1, Max: 1 << 20, Help: "most servers listed"},
	{Name: "master_maxPerSource", Default: strconv.Itoa(master.DefaultMaxPerSource), Flags: console.Integral,
		Min: 1, Max: 1 << 20, Help: "most servers listed from one IPv4 address or IPv6 /64"},
	{Name: "master_maxPerBlock", Default: strconv.Itoa(master.DefaultMaxPerBlock), Flags: console.Integral,
		Min: 1, Max: 1 << 20, Help: "most servers listed from one IPv4 /24 or IPv6 /48"},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout)
	stop()
	os.Exit(code)
}

// logWriter stamps each line with the date and time.
type logWriter struct{ l *log.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line != "" {
			w.l.Print(line)
		}
	}
	return len(p), nil
}

// run runs the master until ctx is done and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) int {
	logw := logWriter{log.New(stdout, "", log.Ldate|log.Ltime|log.Lmicroseconds)}
	t := console.NewTable()
	t.SetOutput(logw)
	t.Register(cvars...)
	early, rest := console.SplitCommandLine(args)
	t.ExecuteCommandLine(early)
	for _, l := range rest {
		fmt.Fprintf(logw, "master: ignoring %q: the command line takes only +set lines\n", l)
	}

	addr := net.JoinHostPort(t.Get("net_ip").Value(), strconv.Itoa(t.Get("net_port").Int()))
	conn, err := netchan.ListenUDP(addr)
	if err != nil {
		fmt.Fprintf(logw, "master: %v\n", err)
		return 1
	}
	defer conn.Close()

	config := func() master.Config {
		c := master.DefaultConfig()
		c.Timeout = time.Duration(t.Get("master_timeout").Int()) * time.Second
		c.MaxServers = t.Get("master_maxServers").Int()
		c.MaxPerSource = t.Get("master_maxPerSource").Int()
		c.MaxPerBlock = t.Get("master_maxPerBlock").Int()
		return c
	}
	mods := func() uint64 {
		var n uint64
		for _, d := range cvars {
			n += t.Get(d.Name).ModificationCount()
		}
		return n
	}
	seen := mods()
	changes := func() (master.Config, bool) {
		t.Execute()
		if n := mods(); n != seen {
			seen = n
			return config(), true
		}
		return master.Config{}, false
	}

	m := master.New(config(), func(to netip.AddrPort, p []byte) { _ = conn.WriteTo(p, to) }, logw)
	fmt.Fprintf(logw, "Tremor master server listening on %s (timeout %ds, at most %d servers, %d per address)\n",
		conn.LocalAddr(), t.Get("master_timeout").Int(), t.Get("master_maxServers").Int(), t.Get("master_maxPerSource").Int())

	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				t.Append(line + "\n")
			}
		}
	}()

	if err := m.Serve(ctx, conn, changes); err != nil {
		fmt.Fprintf(logw, "master: %v\n", err)
		return 1
	}
	s := m.Stats()
	fmt.Fprintf(logw, "master stopped: %d servers listed, %d heartbeats, %d getservers\n", len(m.Servers()), s.Heartbeats, s.Queries)
	return 0
}
