// Command webserve serves the browser build of the Tremor client (make
// web, docs/web.md) from a folder on this machine: a small static file
// server for a classroom's projector or a teacher's laptop, not for the
// Internet.
//
// Usage:
//
//	webserve [-dir build/web] [-host localhost] [-port 8080]
//
// It serves the folder's files with no caching, so that a rebuild shows
// at the next reload, and .wasm files as application/wasm (which
// WebAssembly.instantiateStreaming requires), sending NAME.wasm.gz
// instead with Content-Encoding gzip when it exists and the browser
// accepts gzip. A page opened with #report posts what it sees (its first
// frame, console lines, errors) to POST /report; webserve prints each such
// line to standard output as "report: LINE", which is how make webtest
// reads the browser. It has no game server: a page's WebRTC offer (POST
// /rtc, which a Tremor server answers) gets 204 No Content, so that a
// page opened from it plays locally (docs/web.md). The first line it prints is "webserve: serving DIR
// at URL", with the port it got when -port is 0. SIGINT or SIGTERM stops
// it with status 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("webserve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", "build/web", "folder to serve (make web builds it)")
	host := fl.String("host", "localhost", "address to listen on (0.0.0.0: every address, for a classroom's other machines)")
	port := fl.Int("port", 8080, "TCP port to listen on (0: any free port)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 || *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "usage: webserve [-dir DIR] [-host HOST] [-port PORT]\n")
		return 2
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "webserve: %s is not a folder (make web builds build/web): %v\n", *dir, err)
		return 1
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(stderr, "webserve: %v\n", err)
		return 1
	}
	srv := &http.Server{
		Handler:           newHandler(*dir, stdout),
		ReadHeaderTimeout: 10 * time.Second,
	}
	addr := ln.Addr().(*net.TCPAddr)
	urlHost := *host
	if ip := net.ParseIP(urlHost); ip != nil && ip.IsUnspecified() {
		urlHost = "localhost"
	}
	fmt.Fprintf(stdout, "webserve: serving %s at http://%s/\n", *dir, net.JoinHostPort(urlHost, strconv.Itoa(addr.Port)))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "webserve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "webserve: %v\n", err)
	}
	return 0
}
