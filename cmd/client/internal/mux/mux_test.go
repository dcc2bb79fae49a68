package mux

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"tremor/net/netchan"
)

func TestMux(t *testing.T) {
	lo, peer := netchan.NewLoopback()
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Skipf("no UDP: %v", err)
	}
	lan, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Skipf("no UDP: %v", err)
	}
	defer lan.Close()
	defer peer.Close()
	c := New(lo, udp)
	if c.LocalAddr() != lo.LocalAddr() || c.UDPAddr() != udp.LocalAddr() {
		t.Fatalf("addresses %v %v", c.LocalAddr(), c.UDPAddr())
	}
	buf := make([]byte, 100)
	deadline := time.Now().Add(5 * time.Second)
	if err := c.SetReadDeadline(deadline); err != nil {
		t.Fatal(err)
	}

	t.Run("loopback", func(t *testing.T) {
		if err := peer.WriteTo([]byte("local"), lo.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		n, from, err := c.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "local" || from != peer.LocalAddr() {
			t.Fatalf("read %q from %v, %v", buf[:n], from, err)
		}
		if err := c.WriteTo([]byte("back"), from); err != nil {
			t.Fatal(err)
		}
		_ = peer.SetReadDeadline(deadline)
		n, _, err = peer.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "back" {
			t.Fatalf("peer read %q, %v", buf[:n], err)
		}
	})
	t.Run("udp", func(t *testing.T) {
		if err := lan.WriteTo([]byte("lan"), udp.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		n, from, err := c.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "lan" || from != lan.LocalAddr() {
			t.Fatalf("read %q from %v, %v", buf[:n], from, err)
		}
		if err := c.WriteTo([]byte("reply"), from); err != nil {
			t.Fatal(err)
		}
		_ = lan.SetReadDeadline(deadline)
		n, _, err = lan.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "reply" {
			t.Fatalf("lan read %q, %v", buf[:n], err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		_ = c.SetReadDeadline(time.Now())
		if _, _, err := c.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past the deadline: %v", err)
		}
	})
	t.Run("close", func(t *testing.T) {
		_ = c.SetReadDeadline(time.Time{})
		done := make(chan error, 1)
		go func() {
			_, _, err := c.ReadFrom(buf)
			done <- err
		}()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("blocked read after Close: %v", err)
		}
		if err := c.Close(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("second Close: %v", err)
		}
	})
}

// scriptConn is a UDP end that receives a fixed list of packets, then
// blocks until closed.
type scriptConn struct {
	in     chan scripted
	closed chan struct{}
	once   sync.Once
}

type scripted struct {
	data string
	from netip.AddrPort
}

func newScriptConn(pkts ...scripted) *scriptConn {
	c := &scriptConn{in: make(chan scripted, len(pkts)), closed: make(chan struct{})}
	for _, p := range pkts {
		c.in <- p
	}
	return c
}

func (c *scriptConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	select {
	case p := <-c.in:
		return copy(b, p.data), p.from, nil
	case <-c.closed:
		return 0, netip.AddrPort{}, net.ErrClosed
	}
}
func (c *scriptConn) WriteTo([]byte, netip.AddrPort) error { return nil }
func (c *scriptConn) LocalAddr() netip.AddrPort            { return netip.MustParseAddrPort("192.0.2.1:27960") }
func (c *scriptConn) SetReadDeadline(time.Time) error      { return nil }
func (c *scriptConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// A UDP packet claiming a loopback-pair source is dropped; real
// addresses of this machine are not.
func TestUDPLoopbackSourceDropped(t *testing.T) {
	lo, peer := netchan.NewLoopback()
	defer peer.Close()
	udp := newScriptConn(
		scripted{"forged local player", peer.LocalAddr()},
		scripted{"forged pair", netip.MustParseAddrPort("[100::1234]:1")},
		scripted{"same machine v4", netip.MustParseAddrPort("127.0.0.1:27961")},
		scripted{"same machine v6", netip.MustParseAddrPort("[::1]:27962")},
		scripted{"lan", netip.MustParseAddrPort("192.168.1.5:27960")},
	)
	c := New(lo, udp)
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 100)
	for _, want := range []string{"same machine v4", "same machine v6", "lan"} {
		n, from, err := c.ReadFrom(buf)
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("read %q from %v, %v; want %q", buf[:n], from, err, want)
		}
	}
	if got := c.SpoofedLoopback(); got != 2 {
		t.Fatalf("SpoofedLoopback %d, want 2", got)
	}
	// The loopback end still carries the local player.
	if err := peer.WriteTo([]byte("local"), lo.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	n, from, err := c.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "local" || from != peer.LocalAddr() {
		t.Fatalf("read %q from %v, %v", buf[:n], from, err)
	}
}
