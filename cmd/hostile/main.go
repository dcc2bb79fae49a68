// Command hostile attacks a Tremor server over UDP the way issue 11 asks
// the server to withstand, or, as a hostile server, a Tremor client the
// way issue 23 asks the client to withstand, and prints what happened as
// one JSON line: what it sent, what came back, and the counts a test
// asserts on. It builds without cgo. The scenario tests in
// internal/e2e/hostile run it against the real server and headless
// binaries (make hostile).
//
// Usage:
//
//	hostile statusflood    -server ADDR [-ports 64] [-duration 5s] [-rate 1000]
//	hostile challengeflood -server ADDR [-count 1100] [-rate 0] [-join]
//	hostile renameflood    -server ADDR [-count 300] [-enter] [-watch 5s]
//	hostile rconflood      -server ADDR -password P [-wrong 5000] [-addrs 127.0.0.2-127.0.0.250] [-admin-every 250ms]
//	hostile rcon           -server ADDR -password P CMD...
//	hostile rtcoffers      -url http://HOST:PORT/ [-rate 1000] [-duration 10s] [-addrs A[-B]] [-workers 32] [-conns 4]
//	hostile server         -attack NAME [-listen 127.0.0.1:27960] [-duration 30s] [-clients 1] [-idle 3s]
//
// statusflood sends getstatus from -ports sockets in turn, -rate packets a
// second for -duration, and counts the UDP payload bytes sent and received
// (the amplification a spoofed flood would get).
//
// challengeflood sends -count padded getchallenge packets, each from a new
// socket (a new source port). With -join it first gets a challenge on a
// socket of its own, and after the flood connects with it: the join a
// flood of challenges must not break.
//
// renameflood is a minimal client: handshake, gamestate (server id and
// sv_scramble), with -enter usercmds until it is in the game, then ONE
// netchan message carrying -count `userinfo "\name\X<n>..."` client
// commands; it then plays for -watch and reports whether the server
// dropped it and why, and how many of the renames it saw executed.
//
// rconflood sends -wrong rcon packets with wrong passwords from sockets
// bound to each address of -addrs in turn (127/8 all reaches lo on Linux;
// it falls back to rotating ports on one address if binding fails), while
// an admin socket sends "rcon PASSWORD status" every -admin-every and
// counts the requests answered.
//
// rcon sends one rcon command and prints the reply.
//
// rtcoffers posts browser-like SDP offers (one unordered DataChannel,
// fresh ICE credentials and fingerprint each, so pion accepts them) to
// a server's web port at -rate a second for -duration, from each
// address of -addrs in turn (the TCP dialer bound to it, -conns
// keep-alive connections each, -workers offers in flight), and counts
// the answers by HTTP status (200 answered, 429 the per-source limit,
// 503 the pending or total bound) and the offers that got none (the
// connection limits reset them).
//
// server is a hostile server: it listens on -listen (port 0: any; it
// says where on stderr), answers getchallenge and connect, sends a
// gamestate of arena1, and full snapshots every 50 ms once the client is
// in the game, and performs the attack -attack names:
//
//   - timewrap: server times from 2^31-3000 ms, 50 ms a snapshot, the
//     player state's CommandTime with them; they wrap negative after 3 s.
//   - timelimit: server times from 1 s below the latest a client accepts
//     (0x7F000000 ms), 50 ms a snapshot, up past it.
//   - timeback: server times that advance for 1 s, then run backwards
//     50 ms a snapshot, within one map.
//   - escape: terminal escape sequences (ESC ] 0 ; TITLE BEL, ESC [ 2 J,
//     ESC [ 6 n, the 8-bit CSI, CR, BS) in a connectionless print, the
//     hostname, player names, print, chat, tchat, cp and cs commands,
//     and the reason of a reliable disconnect.
//   - escapeprint: the same, but it ends with a connectionless print,
//     3.5 s of silence and a connectionless disconnect, so that the
//     print becomes the client's reason.
//   - shadowmap: its arena1 is another map (the built-in duel1 with a
//     line of its own, so another checksum), which the client downloads;
//     once the client is in the game, a reliable disconnect.
//
// It serves one client at a time and ends once -clients sessions have
// ended (the client said disconnect, or was silent for -idle) or after
// -duration; the result lists each session: the times sent, when the
// first time a client must refuse went out and how long after it the
// client left, the downloads, the texts sent.
//
// The exit status is 0 when the attack ran (whatever the server did), 1
// when it could not (no socket, no handshake), 2 for a usage error.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"

	"tremor/net/netchan"
)

// errUsage marks a usage error: the flag package has already said why.
var errUsage = errors.New("usage")

// command is one subcommand: it parses its flags and runs.
type command struct {
	name, args, help string
	run              func(args []string, stdout, stderr io.Writer) (any, error)
}

var commands = []command{
	{"statusflood", "-server ADDR [-ports 64] [-duration 5s] [-rate 1000]",
		"getstatus from many source ports; counts bytes out and back", runStatusFlood},
	{"challengeflood", "-server ADDR [-count 1100] [-rate 0] [-join]",
		"padded getchallenge packets, each from a new source port", runChallengeFlood},
	{"renameflood", "-server ADDR [-count 300] [-enter] [-watch 5s]",
		"a client sending -count userinfo renames in one message", runRenameFlood},
	{"rconflood", "-server ADDR -password P [-wrong 5000] [-addrs A-B] [-admin-every 250ms]",
		"wrong rcon passwords from many addresses while an admin uses the right one", runRconFlood},
	{"rcon", "-server ADDR -password P CMD...",
		"one rcon command; prints the reply", runRcon},
	{"rtcoffers", "-url http://HOST:PORT/ [-rate 1000] [-duration 10s] [-addrs 127.0.0.2-127.0.0.250] [-workers 32] [-conns 4]",
		"WebRTC offers to a server's web port (/rtc), from one address or many; counts the answers by status", runRTCOffers},
	{"server", "-attack NAME [-listen ADDR] [-duration 30s] [-clients 1] [-idle 3s]",
		"a hostile server for a client to join: " + serverAttackNames(), runServer},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		res, err := c.run(args[1:], stdout, stderr)
		if errors.Is(err, errUsage) {
			return 2
		}
		if err != nil {
			fmt.Fprintf(stderr, "hostile %s: %v\n", c.name, err)
			return 1
		}
		if err := printJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "hostile %s: writing the result: %v\n", c.name, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "hostile: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hostile COMMAND [flags]; each prints one JSON line")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n  %-14s   %s\n", c.name, c.args, "", c.help)
	}
	fmt.Fprintln(w, "hostile COMMAND -h lists a command's flags.")
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// newFlags returns the flag set of a subcommand, with -server.
func newFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("hostile "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "", "server address HOST[:PORT] (port 27960 if omitted)")
	return fs, server
}

// parseFlags parses args and resolves -server.
func parseFlags(fs *flag.FlagSet, server *string, args []string) (netip.AddrPort, error) {
	if err := fs.Parse(args); err != nil {
		return netip.AddrPort{}, errUsage
	}
	if *server == "" {
		fmt.Fprintf(fs.Output(), "%s: -server is required\n", fs.Name())
		fs.Usage()
		return netip.AddrPort{}, errUsage
	}
	addr, err := netchan.ResolveAddr(*server)
	if err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return netip.AddrPort{}, errUsage
	}
	return addr, nil
}

// localFor returns the address to bind a socket that talks to server: the
// IPv4 or IPv6 loopback for a loopback server, else any address.
func localFor(server netip.AddrPort) string {
	switch {
	case server.Addr().Is4() && server.Addr().IsLoopback():
		return "127.0.0.1:0"
	case server.Addr().IsLoopback():
		return "[::1]:0"
	}
	return ":0"
}

// listen opens a UDP socket on addr, saying what failed.
func listen(addr string) (*netchan.UDPConn, error) {
	c, err := netchan.ListenUDP(addr)
	if err != nil {
		return nil, fmt.Errorf("opening a UDP socket on %s: %w", addr, err)
	}
	return c, nil
}
