package netchan

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"
)

// hangGuard is a read deadline far enough away that it only fires if a
// test is broken; no test passes or fails on timing.
func hangGuard() time.Time { return time.Now().Add(10 * time.Second) }

func listenUDP(t *testing.T) *UDPConn {
	t.Helper()
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestUDP(t *testing.T) {
	a, b := listenUDP(t), listenUDP(t)
	if !a.LocalAddr().Addr().Is4() || a.LocalAddr().Port() == 0 {
		t.Fatalf("LocalAddr %v", a.LocalAddr())
	}
	if err := a.WriteTo([]byte("hello"), b.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if err := b.SetReadDeadline(hangGuard()); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxPacketLen)
	n, from, err := b.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if string(buf[:n]) != "hello" || from != a.LocalAddr() {
		t.Fatalf("got %q from %v, want hello from %v", buf[:n], from, a.LocalAddr())
	}

	if err := b.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	b.Close()
	if _, _, err := b.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestListenUDPError(t *testing.T) {
	if _, err := ListenUDP("127.0.0.1:notaport"); err == nil {
		t.Fatal("no error for a bad address")
	}
}

func TestUnmap(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[::ffff:127.0.0.1]:27960", "127.0.0.1:27960"},
		{"127.0.0.1:5", "127.0.0.1:5"},
		{"[::1]:5", "[::1]:5"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := unmap(netip.MustParseAddrPort(tt.in)); got != netip.MustParseAddrPort(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoopbackAddrs(t *testing.T) {
	a, b := NewLoopback()
	c, d := NewLoopback()
	addrs := []netip.AddrPort{a.LocalAddr(), b.LocalAddr(), c.LocalAddr(), d.LocalAddr()}
	seen := map[netip.AddrPort]bool{}
	for _, addr := range addrs {
		if seen[addr] {
			t.Errorf("address %v used twice", addr)
		}
		seen[addr] = true
		if !IsLoopbackAddr(addr) {
			t.Errorf("IsLoopbackAddr(%v) = false", addr)
		}
	}
	if a.RemoteAddr() != b.LocalAddr() || b.RemoteAddr() != a.LocalAddr() {
		t.Error("RemoteAddr is not the peer's LocalAddr")
	}
	if IsLoopbackAddr(netip.MustParseAddrPort("127.0.0.1:27960")) {
		t.Error("IsLoopbackAddr(127.0.0.1:27960) = true")
	}
}

func TestLoopbackSendReceive(t *testing.T) {
	a, b := NewLoopback()
	buf := make([]byte, 64)
	for _, dir := range []struct {
		name     string
		from, to *LoopbackConn
	}{{"a to b", a, b}, {"b to a", b, a}} {
		t.Run(dir.name, func(t *testing.T) {
			msg := []byte("packet one")
			if err := dir.from.WriteTo(msg, dir.to.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			copy(msg, "XXXXXX") // the conn copied the packet
			if err := dir.from.WriteTo([]byte("two"), dir.to.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"packet one", "two"} {
				n, from, err := dir.to.ReadFrom(buf)
				if err != nil {
					t.Fatal(err)
				}
				if string(buf[:n]) != want || from != dir.from.LocalAddr() {
					t.Fatalf("got %q from %v, want %q from %v", buf[:n], from, want, dir.from.LocalAddr())
				}
			}
		})
	}
	t.Run("truncate", func(t *testing.T) {
		if err := a.WriteTo([]byte("0123456789"), b.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		n, _, err := b.ReadFrom(buf[:4])
		if err != nil || string(buf[:n]) != "0123" {
			t.Fatalf("got %q %v", buf[:n], err)
		}
	})
	t.Run("wrong address", func(t *testing.T) {
		if err := a.WriteTo([]byte("x"), a.LocalAddr()); !errors.Is(err, ErrLoopbackAddr) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		if err := a.WriteTo(make([]byte, MaxLoopbackPacket+1), b.LocalAddr()); !errors.Is(err, ErrPacketTooLarge) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestLoopbackQueueFull(t *testing.T) {
	a, b := NewLoopback()
	for i := range LoopbackQueueLen + 10 {
		if err := a.WriteTo([]byte{byte(i)}, b.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 4)
	for i := range LoopbackQueueLen {
		n, _, err := b.ReadFrom(buf)
		if err != nil || n != 1 || buf[0] != byte(i) {
			t.Fatalf("packet %d: %v % x", i, err, buf[:n])
		}
	}
	b.SetReadDeadline(time.Now().Add(-time.Second))
	if _, _, err := b.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("packets beyond the queue were kept: %v", err)
	}
}

func TestLoopbackDeadline(t *testing.T) {
	t.Run("past", func(t *testing.T) {
		a, b := NewLoopback()
		a.WriteTo([]byte("x"), b.LocalAddr())
		b.SetReadDeadline(time.Now().Add(-time.Second))
		// Like a UDP socket: a passed deadline wins over waiting packets.
		if _, _, err := b.ReadFrom(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
		var ne net.Error
		_, _, err := b.ReadFrom(make([]byte, 4))
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("%v is not a timeout net.Error", err)
		}
		b.SetReadDeadline(time.Time{})
		if n, _, err := b.ReadFrom(make([]byte, 4)); err != nil || n != 1 {
			t.Fatalf("after clearing the deadline: %d %v", n, err)
		}
	})
	t.Run("set while blocked", func(t *testing.T) {
		_, b := NewLoopback()
		errc := make(chan error)
		go func() {
			_, _, err := b.ReadFrom(make([]byte, 4))
			errc <- err
		}()
		// Whether the reader is already blocked or not, it must time out.
		b.SetReadDeadline(time.Now().Add(-time.Second))
		if err := <-errc; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("future", func(t *testing.T) {
		_, b := NewLoopback()
		b.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, _, err := b.ReadFrom(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestLoopbackBlockingRead(t *testing.T) {
	a, b := NewLoopback()
	got := make(chan string)
	go func() {
		buf := make([]byte, 16)
		n, _, err := b.ReadFrom(buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	if err := a.WriteTo([]byte("wake"), b.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "wake" {
		t.Fatalf("got %q", s)
	}
}

func TestLoopbackClose(t *testing.T) {
	a, b := NewLoopback()
	errc := make(chan error)
	go func() {
		_, _, err := b.ReadFrom(make([]byte, 4))
		errc <- err
	}()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("blocked read: %v", err)
	}
	if err := b.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if err := b.WriteTo([]byte("x"), a.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
	if err := b.SetReadDeadline(time.Time{}); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetReadDeadline after Close: %v", err)
	}
	// Writing to a closed peer is silently dropped, as UDP would.
	if err := a.WriteTo([]byte("x"), b.LocalAddr()); err != nil {
		t.Errorf("write to closed peer: %v", err)
	}
}

// TestLoopbackConcurrent moves packets with several writers and readers
// at once; run it with -race.
func TestLoopbackConcurrent(t *testing.T) {
	a, b := NewLoopback()
	const writers, perWriter = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				a.WriteTo([]byte{byte(w), byte(i)}, b.LocalAddr())
			}
		}()
	}
	var mu sync.Mutex
	received := 0
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			buf := make([]byte, 4)
			for {
				if _, _, err := b.ReadFrom(buf); err != nil {
					return
				}
				mu.Lock()
				received++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.Close() // stops the readers; packets still queued are discarded
	readers.Wait()
	if received > writers*perWriter {
		t.Fatalf("received %d packets, more than sent", received)
	}
}

// TestNetchanOverLoopback runs a client and a server Chan over a loopback
// pair, the way an embedded server would, with scrambling in both
// directions and a fragmented gamestate-sized message.
func TestNetchanOverLoopback(t *testing.T) {
	cconn, sconn := NewLoopback()
	client := New(cconn, sconn.LocalAddr(), ClientSide, 0x7777)
	server := New(sconn, cconn.LocalAddr(), ServerSide, 0x7777)
	const challenge = 0x5eed
	client.Encode = func(seq uint32, msg []byte) { Scramble(msg, ClientKey(challenge, 1, 0), "") }
	server.Encode = func(seq uint32, msg []byte) { Scramble(msg, ServerKey(challenge, seq), "") }
	for _, c := range []*LoopbackConn{cconn, sconn} {
		c.SetReadDeadline(hangGuard())
	}
	buf := make([]byte, MaxPacketLen)

	// Client to server: the server finds the client by address and qport.
	hello := []byte("clc_move and a client command")
	if err := client.Transmit(hello); err != nil {
		t.Fatal(err)
	}
	n, from, err := sconn.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	h, err := PeekHeader(buf[:n], ServerSide)
	if err != nil || from != cconn.LocalAddr() || h.Qport != 0x7777 {
		t.Fatalf("peek: %+v from %v: %v", h, from, err)
	}
	msg, ok, err := server.Process(buf[:n])
	if err != nil || !ok {
		t.Fatalf("server Process: ok=%v %v", ok, err)
	}
	Scramble(msg, ClientKey(challenge, 1, 0), "")
	if !bytes.Equal(msg, hello) {
		t.Fatalf("server got %q", msg)
	}

	// Server to client: a fragmented message then a small one, paced one
	// packet per call.
	big, small := makeMsg(9000, 3), []byte("snapshot")
	if err := server.Transmit(big); err != nil {
		t.Fatal(err)
	}
	if err := server.Transmit(small); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for {
		n, from, err := cconn.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		if from != sconn.LocalAddr() {
			t.Fatalf("packet from %v", from)
		}
		msg, ok, err := client.Process(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			Scramble(msg, ServerKey(challenge, client.IncomingSequence()), "")
			got = append(got, bytes.Clone(msg))
		}
		if !server.HasUnsentFragments() {
			if len(got) == 2 {
				break
			}
			continue
		}
		if err := server.TransmitNextFragment(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got[0], big) || !bytes.Equal(got[1], small) {
		t.Fatal("client messages differ")
	}
	if s := client.Stats(); s.IncomingSequence != 2 || s.PacketsDropped != 0 || s.FragmentsReceived != 7 {
		t.Errorf("client stats %+v", s)
	}
}

func TestTransportAllocs(t *testing.T) {
	ua, ub := listenUDP(t), listenUDP(t)
	ub.SetReadDeadline(hangGuard())
	la, lb := NewLoopback()
	tests := []struct {
		name string
		a, b Conn
	}{{"udp", ua, ub}, {"loopback", la, lb}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := makeMsg(200, 1)
			buf := make([]byte, MaxPacketLen)
			to := tt.b.LocalAddr()
			// The loopback keeps one buffer per queue slot: warm them all.
			for range LoopbackQueueLen {
				tt.a.WriteTo(p, to)
				tt.b.ReadFrom(buf)
			}
			allocs := testing.AllocsPerRun(100, func() {
				if err := tt.a.WriteTo(p, to); err != nil {
					t.Fatal(err)
				}
				if n, _, err := tt.b.ReadFrom(buf); err != nil || n != len(p) {
					t.Fatalf("read %d: %v", n, err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocs per packet, want 0", allocs)
			}
		})
	}
}

func TestResolveAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":       "127.0.0.1:27960",
		"127.0.0.1:1234":  "127.0.0.1:1234",
		"[::1]":           "[::1]:27960",
		"localhost:27961": "127.0.0.1:27961",
	} {
		got, err := ResolveAddr(in)
		if err != nil || (got.String() != want && !(in == "localhost:27961" && got.Port() == 27961)) {
			t.Errorf("ResolveAddr(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
}
