package client

import (
	"net/netip"
	"testing"

	"tremor/net/netchan"
)

// sizedConn is a transport with a fragment size of its own, as the
// browser build's WebRTC channel.
type sizedConn struct{ netchan.Conn }

func (sizedConn) FragmentSize(netip.AddrPort) int { return netchan.WebRTCFragmentSize }

// The channel to the server gets the transport's fragment size through
// the client's counting and impairment layers, so that it reassembles the
// server's WebRTC fragments; a UDP-like transport keeps FragmentSize.
func TestChannelTakesTheTransportsFragmentSize(t *testing.T) {
	server := netip.MustParseAddrPort("127.0.0.1:27960")
	for _, tc := range []struct {
		name string
		wrap func(netchan.Conn) netchan.Conn
		want int
	}{
		{"webrtc", func(c netchan.Conn) netchan.Conn { return sizedConn{c} }, netchan.WebRTCFragmentSize},
		{"udp", func(c netchan.Conn) netchan.Conn { return c }, netchan.FragmentSize},
	} {
		a, b := netchan.NewLoopback()
		c := New(tc.wrap(a), Config{})
		ch := netchan.New(c.out, server, netchan.ClientSide, c.qport)
		if got := ch.FragmentSize(); got != tc.want {
			t.Errorf("%s: the client's channel cuts fragments of %d bytes, want %d", tc.name, got, tc.want)
		}
		c.Close()
		b.Close()
	}
}
