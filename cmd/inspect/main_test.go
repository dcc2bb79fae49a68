package main

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"tremor/internal/testutil"
	"tremor/net/netchan"
	"tremor/net/oob"
	"tremor/server"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-server", "not an address"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if got := run(context.Background(), args, io.Discard, io.Discard, nil); got != 2 {
				t.Errorf("exit status %d, want 2", got)
			}
		})
	}
}

// TestProxyGetinfo runs the command between a real server and a UDP
// socket that asks for the server's info through it.
func TestProxyGetinfo(t *testing.T) {
	sconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 1
	srv, err := server.New(sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(ctx) }()
	defer func() { cancel(); <-srvDone }()

	var out testutil.LockedBuffer
	addrs := make(chan netip.AddrPort, 1)
	done := make(chan int, 1)
	pctx, pcancel := context.WithCancel(context.Background())
	go func() {
		done <- run(pctx, []string{"-listen", "127.0.0.1:0", "-server", srv.Addr().String()}, &out, io.Discard,
			func(a netip.AddrPort) { addrs <- a })
	}()
	proxy := <-addrs

	c, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteTo(oob.Packet(oob.FormatGetInfo("xyz")), proxy); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	n, from, err := c.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if from != proxy {
		t.Errorf("answer from %v, want the proxy %v", from, proxy)
	}
	text, err := oob.Parse(buf[:n])
	if err != nil || !strings.HasPrefix(text, "infoResponse") {
		t.Fatalf("answer %q, %v; want an infoResponse", text, err)
	}
	pcancel()
	if got := <-done; got != 0 {
		t.Errorf("exit status %d", got)
	}
	s := out.String()
	for _, want := range []string{"c>s", "oob getinfo xyz", "s>c", "infoResponse", "mapname", "arena1", "challenge"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
