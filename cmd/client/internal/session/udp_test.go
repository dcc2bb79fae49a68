//go:build !js

// The tests and helpers here need the session's UDP side (lan.go), which
// the browser build does not have; udp_js_test.go stands in for them there.

package session

import (
	"net"
	"testing"
)

// A connect nobody answers ends idle, saying so.
func TestIdleAfterAFailedConnect(t *testing.T) {
	s, tbl := newIdleSession(t)
	// A bound socket that never answers.
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if err := s.Connect(pc.LocalAddr().String()); err != nil {
		t.Fatal(err)
	}
	if idle, _ := s.Idle(); idle {
		t.Fatal("idle while connecting")
	}
	runUntil(t, s, tbl, "giving up", func() bool { idle, _ := s.Idle(); return idle })
	if _, reason := s.Idle(); reason == "" {
		t.Error("a failed connect gives no reason")
	} else {
		t.Logf("reason: %s", reason)
	}
}

// connect is s.Connect, for tests that also compile for the browser.
func connect(s *Session, addr string) error { return s.Connect(addr) }
