// Command inspect is Tremor's packet inspector: a UDP proxy between
// clients and a server that forwards every packet unchanged and prints
// what each one carries, bit by bit.
//
// Usage:
//
//	inspect [-listen ADDR] [-server ADDR] [-json] [-brief]
//
// Point clients at the proxy (+connect 127.0.0.1:27961) instead of the
// server. For every packet it prints one summary line (time, direction,
// addresses, size, netchan sequence, qport, fragment, the operations)
// and, unless -brief, an indented breakdown: each operation and each
// field with its value and the bits it took. -json prints one JSON
// object per packet instead (internal/inspect.Message). It follows the
// handshake, reassembles fragments, unscrambles (sv_scramble) and
// delta-decodes snapshots and usercmds as the two ends do, and frame
// sync's frames, whole states and frame requests; see docs/inspect.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"tremor/internal/inspect"
	"tremor/net/netchan"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// run is the whole program; it returns the exit status. ready, if not
// nil, gets the proxy's listening address once it listens.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(netip.AddrPort)) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", ":27961", "address the clients connect to")
	serverAddr := fs.String("server", fmt.Sprintf("127.0.0.1:%d", netchan.DefaultPort), "the server's address")
	asJSON := fs.Bool("json", false, "print one JSON object per packet")
	brief := fs.Bool("brief", false, "print only the summary line of each packet")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "inspect: unexpected arguments %q\n", fs.Args())
		return 2
	}
	srv, err := netip.ParseAddrPort(*serverAddr)
	if err != nil {
		fmt.Fprintf(stderr, "inspect: -server: %v\n", err)
		return 2
	}
	conn, err := netchan.ListenUDP(*listen)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer conn.Close()
	p := inspect.NewProxy(conn, srv)
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	p.OnMessage = func(m inspect.Message) {
		var err error
		if *asJSON {
			err = enc.Encode(&m)
		} else {
			err = m.WriteText(stdout, !*brief)
		}
		if err != nil {
			fmt.Fprintln(stderr, "inspect:", err)
		}
	}
	fmt.Fprintf(stderr, "inspect: proxying %s -> %s\n", conn.LocalAddr(), srv)
	if ready != nil {
		ready(conn.LocalAddr())
	}
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "inspect:", err)
		return 1
	}
	return 0
}
