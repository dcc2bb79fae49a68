package netsim

import (
	"net/netip"
	"testing"

	"tremor/net/netchan"
)

// sizedLoopback is a loopback Conn that gives every peer the WebRTC
// fragment size.
type sizedLoopback struct{ *netchan.LoopbackConn }

func (sizedLoopback) FragmentSize(netip.AddrPort) int { return netchan.WebRTCFragmentSize }

// TestWrapPassesFragmentSize checks that a chan over a wrapped Conn gets
// the fragment size the inner Conn gives, and FragmentSize over a plain
// one.
func TestWrapPassesFragmentSize(t *testing.T) {
	a, b := netchan.NewLoopback()
	defer b.Close()
	sized := Wrap(sizedLoopback{a}, Config{}, 1)
	defer sized.Close()
	if got := netchan.New(sized, b.LocalAddr(), netchan.ServerSide, 1).FragmentSize(); got != netchan.WebRTCFragmentSize {
		t.Errorf("over a FragmentSizer: fragment size %d, want %d", got, netchan.WebRTCFragmentSize)
	}
	c, d := netchan.NewLoopback()
	defer d.Close()
	plain := Wrap(c, Config{}, 1)
	defer plain.Close()
	if got := netchan.New(plain, d.LocalAddr(), netchan.ServerSide, 1).FragmentSize(); got != netchan.FragmentSize {
		t.Errorf("over a plain Conn: fragment size %d, want %d", got, netchan.FragmentSize)
	}
}
