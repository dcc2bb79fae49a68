package main

import (
	"context"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/net/oob"
)

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRun starts the master with a +set command line, checks that it
// applied it, answers a heartbeat and a getservers on its socket, and
// stops with status 0 when its context ends.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	stdinR, stdinW := net.Pipe()
	defer stdinW.Close()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0", "+set", "master_timeout", "5", "+map", "x"}, stdinR, &out)
	}()
	re := regexp.MustCompile(`listening on (\S+) \(timeout 5s, at most 4096 servers, 32 per address\)`)
	var addr netip.AddrPort
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = netip.MustParseAddrPort(m[1])
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no listening line with the +set values:\n%s", out.String())
		}
	}
	if !strings.Contains(out.String(), `ignoring "map x"`) {
		t.Errorf("a non-set line was not reported:\n%s", out.String())
	}

	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 2048)
	ask := func(text string) string {
		t.Helper()
		if _, err := c.WriteToUDPAddrPort(oob.Packet(text), addr); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, _, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatalf("no answer to %q: %v", text, err)
		}
		return string(buf[:n])
	}
	if got := ask(oob.FormatHeartbeat(oob.HeartbeatDarkPlaces)); !strings.HasPrefix(got, oob.Marker+"getinfo ") {
		t.Errorf("heartbeat answered with %q", got)
	}
	if got := ask("getservers 3 empty full"); got != oob.Marker+"getserversResponse\\EOT\x00\x00\x00" {
		t.Errorf("getservers answered with %q", got)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d\n%s", code, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	if !strings.Contains(out.String(), "master stopped: 0 servers listed, 1 heartbeats, 1 getservers") {
		t.Errorf("log:\n%s", out.String())
	}
}
