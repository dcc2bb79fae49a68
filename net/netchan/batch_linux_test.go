package netchan

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"
)

// WriteBatch sends every packet to its own address and ReadBatch reads
// them back, in order, with their senders, over IPv4 and over a
// dual-stack socket talking to an IPv4 peer; a read with nothing waiting
// returns at once with nothing.
func TestUDPBatch(t *testing.T) {
	for _, tc := range []struct{ name, listen string }{
		{"ipv4", "127.0.0.1:0"},
		{"dual-stack", "[::]:0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := ListenUDP(tc.listen)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			peers := []*UDPConn{listenUDP(t), listenUDP(t)}
			srvAddr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), srv.LocalAddr().Port())

			start := time.Now()
			var out []Packet
			for i := range 150 { // more than MaxBatch: several system calls
				out = append(out, Packet{Buf: fmt.Appendf(nil, "packet %d", i), Addr: peers[i%2].LocalAddr()})
			}
			n, err := srv.WriteBatch(out)
			if n != len(out) || err != nil {
				t.Fatalf("WriteBatch = %d, %v; want %d, nil", n, err, len(out))
			}
			for p, peer := range peers {
				if err := peer.SetReadDeadline(hangGuard()); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, MaxPacketLen)
				for i := p; i < len(out); i += 2 {
					n, from, err := peer.ReadFrom(buf)
					if err != nil {
						t.Fatalf("peer %d, packet %d: %v", p, i, err)
					}
					if string(buf[:n]) != string(out[i].Buf) || from != srvAddr {
						t.Fatalf("peer %d read %q from %v, want %q from %v", p, buf[:n], from, out[i].Buf, srvAddr)
					}
				}
				for i := p; i < len(out); i += 2 {
					if err := peer.WriteTo(out[i].Buf, srvAddr); err != nil {
						t.Fatal(err)
					}
				}
			}

			in := make([]Packet, 40)
			for i := range in {
				in[i].Buf = make([]byte, MaxPacketLen)
			}
			got := map[netip.AddrPort][]string{}
			deadline := time.Now().Add(10 * time.Second)
			for total := 0; total < len(out); {
				n, err := srv.ReadBatch(in)
				after := time.Now()
				if err != nil {
					t.Fatalf("ReadBatch after %d packets: %v", total, err)
				}
				if n == 0 {
					if time.Now().After(deadline) {
						t.Fatalf("ReadBatch found %d packets of %d", total, len(out))
					}
					time.Sleep(time.Millisecond)
					continue
				}
				for _, p := range in[:n] {
					got[p.Addr] = append(got[p.Addr], string(p.Buf[:p.N]))
					// Stamped when it arrived, or, while the kernel is still
					// turning arrival stamps on (just after the socket
					// asked for them), when it was read: never before the
					// test began writing nor after the read.
					if p.Time.IsZero() || p.Time.After(after) || p.Time.Before(start) {
						t.Fatalf("packet %q stamped %v, not between %v and %v", p.Buf[:p.N], p.Time, start, after)
					}
				}
				total += n
			}
			for p, peer := range peers {
				var want []string
				for i := p; i < len(out); i += 2 {
					want = append(want, string(out[i].Buf))
				}
				if fmt.Sprint(got[peer.LocalAddr()]) != fmt.Sprint(want) {
					t.Errorf("from peer %d (%v) read %q, want %q", p, peer.LocalAddr(), got[peer.LocalAddr()], want)
				}
			}
			if n, err := srv.ReadBatch(in); n != 0 || err != nil {
				t.Fatalf("ReadBatch with nothing waiting = %d, %v", n, err)
			}
		})
	}
}

// A batch of reads and a batch of writes allocate nothing.
func TestUDPBatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	a, b := listenUDP(t), listenUDP(t)
	out := make([]Packet, 8)
	for i := range out {
		out[i] = Packet{Buf: []byte("steady traffic"), Addr: b.LocalAddr()}
	}
	in := make([]Packet, 8)
	for i := range in {
		in[i].Buf = make([]byte, MaxPacketLen)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if n, err := a.WriteBatch(out); n != len(out) || err != nil {
			t.Fatalf("WriteBatch = %d, %v", n, err)
		}
		for got := 0; got < len(out); {
			n, err := b.ReadBatch(in)
			if err != nil {
				t.Fatalf("ReadBatch: %v", err)
			}
			got += n
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per write and read of a batch", allocs)
	}
}

// ReadBatch and WriteBatch on a closed conn say so.
func TestUDPBatchClosed(t *testing.T) {
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	in := []Packet{{Buf: make([]byte, 16)}}
	if _, err := c.ReadBatch(in); !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadBatch after Close: %v", err)
	}
	if _, err := c.WriteBatch([]Packet{{Buf: []byte("x"), Addr: c.LocalAddr()}}); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteBatch after Close: %v", err)
	}
}

// An IPv4 socket cannot send to an IPv6 address: WriteBatch sends the
// packets before it and says why it stopped.
func TestUDPBatchFamily(t *testing.T) {
	a, b := listenUDP(t), listenUDP(t)
	ps := []Packet{
		{Buf: []byte("first"), Addr: b.LocalAddr()},
		{Buf: []byte("second"), Addr: netip.MustParseAddrPort("[::1]:9")},
	}
	if n, err := a.WriteBatch(ps); n != 1 || !errors.Is(err, errAddrFamily) {
		t.Fatalf("WriteBatch = %d, %v; want 1, %v", n, err, errAddrFamily)
	}
	if err := b.SetReadDeadline(hangGuard()); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, _, err := b.ReadFrom(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("read %q, %v; want first", buf[:n], err)
	}
}
