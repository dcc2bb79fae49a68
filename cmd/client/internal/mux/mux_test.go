package mux

import (
	"errors"
	"net"
	"os"
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
