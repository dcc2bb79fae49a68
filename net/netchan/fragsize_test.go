package netchan

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

// sizerConn is a captureConn that is a FragmentSizer: it gives size to
// the addresses in peers and 0 (the default) to every other.
type sizerConn struct {
	captureConn
	size  int
	peers map[netip.AddrPort]bool
}

func (c *sizerConn) FragmentSize(to netip.AddrPort) int {
	if c.peers[to] {
		return c.size
	}
	return 0
}

// TestFragmentSizer sends messages of every interesting length both ways
// between two chans whose Conns give WebRTCFragmentSize for the other
// end: every packet fits one SCTP chunk (WebRTCFragmentSize plus the
// longest header) and every message arrives whole.
func TestFragmentSizer(t *testing.T) {
	const fs = WebRTCFragmentSize
	lengths := []int{0, 1, fs - 1, fs, fs + 1, 2*fs - 1, 2 * fs, 2*fs + 1, FragmentSize, FragmentSize + 1, MaxMsgLen}
	for _, dir := range []string{"c2s", "s2c"} {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/%d", dir, n), func(t *testing.T) {
				cc := &sizerConn{size: fs, peers: map[netip.AddrPort]bool{serverAddr: true}}
				sc := &sizerConn{size: fs, peers: map[netip.AddrPort]bool{clientAddr: true}}
				client := New(cc, serverAddr, ClientSide, testQport)
				server := New(sc, clientAddr, ServerSide, testQport)
				if client.FragmentSize() != fs || server.FragmentSize() != fs {
					t.Fatalf("fragment sizes %d and %d, want %d", client.FragmentSize(), server.FragmentSize(), fs)
				}
				from, conn, to := client, &cc.captureConn, server
				if dir == "s2c" {
					from, conn, to = server, &sc.captureConn, client
				}
				msg := makeMsg(n, 0x33)
				if err := from.Transmit(msg); err != nil {
					t.Fatal(err)
				}
				if err := from.Flush(); err != nil {
					t.Fatal(err)
				}
				packets := conn.take()
				want := 1
				if n >= fs {
					want = n/fs + 1
				}
				if len(packets) != want {
					t.Fatalf("%d packets, want %d", len(packets), want)
				}
				for i, p := range packets {
					if len(p) > fs+MaxHeaderLen {
						t.Errorf("packet %d: %d bytes, more than %d", i, len(p), fs+MaxHeaderLen)
					}
				}
				for i, p := range packets {
					got, ok, err := to.Process(p)
					if err != nil {
						t.Fatalf("packet %d: %v", i, err)
					}
					if ok != (i == len(packets)-1) {
						t.Fatalf("packet %d: ok=%v", i, ok)
					}
					if ok && !bytes.Equal(got, msg) {
						t.Fatalf("message differs: got %d bytes, want %d", len(got), n)
					}
				}
			})
		}
	}
}

// TestFragmentSizerOtherPeers checks that a FragmentSizer's answer is
// per address: a chan to another address through the same Conn keeps
// FragmentSize, and answers out of range mean FragmentSize too.
func TestFragmentSizerOtherPeers(t *testing.T) {
	c := &sizerConn{size: WebRTCFragmentSize, peers: map[netip.AddrPort]bool{clientAddr: true}}
	if got := New(c, serverAddr, ServerSide, testQport).FragmentSize(); got != FragmentSize {
		t.Errorf("other peer: fragment size %d, want %d", got, FragmentSize)
	}
	for _, size := range []int{-1, 0, FragmentSize + 1, MaxMsgLen} {
		c.size = size
		if got := New(c, clientAddr, ServerSide, testQport).FragmentSize(); got != FragmentSize {
			t.Errorf("answer %d: fragment size %d, want %d", size, got, FragmentSize)
		}
	}
	if got := New(&captureConn{}, clientAddr, ServerSide, testQport).FragmentSize(); got != FragmentSize {
		t.Errorf("plain Conn: fragment size %d, want %d", got, FragmentSize)
	}
}

// TestFragmentSizerMismatch shows why both ends must agree: a fragment
// of the UDP size is too long for a WebRTC peer's chan, and a fragment of
// WebRTCFragmentSize ends the message at a UDP peer's chan.
func TestFragmentSizerMismatch(t *testing.T) {
	udp := New(&captureConn{}, clientAddr, ServerSide, testQport)
	web := New(&sizerConn{size: WebRTCFragmentSize, peers: map[netip.AddrPort]bool{clientAddr: true}}, clientAddr, ServerSide, testQport)

	long := packet(Header{Sequence: 1, Fragment: true, HasQport: true, Qport: testQport, FragmentLength: FragmentSize}, make([]byte, FragmentSize))
	if _, _, err := web.Process(long); !errors.Is(err, ErrFragmentTooLong) {
		t.Errorf("UDP-sized fragment at a WebRTC chan: err %v, want ErrFragmentTooLong", err)
	}
	short := packet(Header{Sequence: 1, Fragment: true, HasQport: true, Qport: testQport, FragmentLength: WebRTCFragmentSize}, make([]byte, WebRTCFragmentSize))
	if _, ok, err := udp.Process(short); err != nil || !ok {
		t.Errorf("WebRTC-sized fragment at a UDP chan: ok=%v err=%v, want it to end the message", ok, err)
	}
	if _, ok, err := web.Process(short); err != nil || ok {
		t.Errorf("WebRTC-sized fragment at a WebRTC chan: ok=%v err=%v, want it to wait for more", ok, err)
	}
}
