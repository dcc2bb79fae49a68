package netchan

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// A dual-stack socket that joined the group receives what is sent to the
// group at its port: a server found on an IPv6-only LAN.
func TestJoinMulticast6(t *testing.T) {
	u, err := ListenUDP("[::]:0")
	if err != nil {
		t.Skip("no IPv6 socket here:", err)
	}
	defer u.Close()
	n, err := JoinMulticast6(u, Multicast6)
	if err != nil {
		t.Skip("cannot join an IPv6 group here:", err)
	}
	t.Logf("joined %v on %d interfaces", Multicast6, n)

	s, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6zero})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	to := netip.AddrPortFrom(Multicast6, u.LocalAddr().Port())
	if _, err := s.WriteToUDPAddrPort([]byte("getinfo x"), to); err != nil {
		t.Skip("no route to the group here:", err)
	}
	if err := u.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	got, from, err := u.ReadFrom(buf)
	if err != nil {
		t.Fatalf("nothing received through the group: %v", err)
	}
	if string(buf[:got]) != "getinfo x" || from.Port() != uint16(s.LocalAddr().(*net.UDPAddr).Port) {
		t.Fatalf("received %q from %v", buf[:got], from)
	}
}

func TestJoinMulticast6Refuses(t *testing.T) {
	u4, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer u4.Close()
	if _, err := JoinMulticast6(u4, Multicast6); err == nil {
		t.Error("an IPv4 socket joined an IPv6 group")
	}
	if _, err := JoinMulticast6(u4, netip.MustParseAddr("::1")); err == nil {
		t.Error("joined a unicast address")
	}
}
