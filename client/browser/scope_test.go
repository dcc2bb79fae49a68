package browser

import (
	"net/netip"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr string
		want addrClass
	}{
		// IPv4, every class and the edges of each range.
		{"0.0.0.0", classUnspecified},
		{"0.1.2.3", classUnspecified}, // "this network"
		{"127.0.0.1", classLoopback},
		{"127.255.255.254", classLoopback},
		{"169.254.0.1", classLinkLocal},
		{"169.255.0.1", classGlobal},
		{"10.0.0.1", classPrivate},
		{"10.255.255.255", classPrivate}, // may be a /8's broadcast: private anyway
		{"172.16.0.1", classPrivate},
		{"172.31.255.254", classPrivate},
		{"172.32.0.1", classGlobal},
		{"172.15.255.255", classGlobal},
		{"192.168.1.20", classPrivate},
		{"100.64.0.1", classPrivate}, // RFC 6598 shared space (carrier NAT)
		{"100.127.255.254", classPrivate},
		{"100.128.0.1", classGlobal},
		{"8.8.8.8", classGlobal},
		{"203.0.113.9", classGlobal},    // documentation: routes nowhere, harms nobody
		{"198.51.100.255", classGlobal}, // x.y.z.255 is a host address in any network wider than /24
		{"224.0.0.1", classMulticast},
		{"239.255.255.255", classMulticast},
		{"240.0.0.1", classReserved},
		{"255.255.255.254", classReserved},
		{"255.255.255.255", classBroadcast},
		// IPv4-mapped IPv6: the IPv4 address decides.
		{"::ffff:127.0.0.1", classLoopback},
		{"::ffff:10.1.2.3", classPrivate},
		{"::ffff:255.255.255.255", classBroadcast},
		{"::ffff:224.0.0.1", classMulticast},
		{"::ffff:0.0.0.0", classUnspecified},
		{"::ffff:8.8.8.8", classGlobal},
		// IPv6.
		{"::", classUnspecified},
		{"::1", classLoopback},
		{"::127.0.0.1", classReserved}, // IPv4-compatible, deprecated
		{"::2", classReserved},
		{"100::1", classReserved}, // discard-only
		{"fe80::1", classLinkLocal},
		{"fe80::1%eth0", classLinkLocal},
		{"febf::1", classLinkLocal},
		{"fec0::1", classPrivate}, // old site-local
		{"fc00::1", classPrivate},
		{"fd12:3456::1", classPrivate},
		{"ff02::1", classMulticast},
		{"ff04::696f:7175:616b:6533", classMulticast}, // the LAN group
		{"ff0e::1", classMulticast},
		{"2001:db8::1", classGlobal},
		{"2a00:1450::1", classGlobal},
		{"64:ff9b::808:808", classGlobal},    // NAT64 of 8.8.8.8
		{"64:ff9b::7f00:1", classReserved},   // NAT64 of 127.0.0.1
		{"64:ff9b::c0a8:114", classReserved}, // NAT64 of 192.168.1.20
		{"2002:808:808::1", classGlobal},     // 6to4 of 8.8.8.8
		{"2002:7f00:1::1", classReserved},    // 6to4 of 127.0.0.1
		{"2002:ffff:ffff::1", classReserved}, // 6to4 of the broadcast
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := classify(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("classify(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
	if got := classify(netip.Addr{}); got != classInvalid {
		t.Errorf("classify(zero) = %v, want invalid", got)
	}
}

func TestMayList(t *testing.T) {
	all := []addrClass{classInvalid, classUnspecified, classLoopback, classLinkLocal, classPrivate, classGlobal, classBroadcast, classMulticast, classReserved}
	// The server classes each master class may list.
	want := map[addrClass][]addrClass{
		classGlobal:    {classGlobal},
		classPrivate:   {classPrivate, classGlobal},
		classLinkLocal: {classLinkLocal, classPrivate, classGlobal},
		classLoopback:  {classLoopback, classLinkLocal, classPrivate, classGlobal},
		// A master cannot answer from these; if one seems to, it is
		// treated as on the internet.
		classBroadcast: {classGlobal},
		classMulticast: {classGlobal},
		classInvalid:   {classGlobal},
	}
	for m, ok := range want {
		for _, s := range all {
			exp := false
			for _, c := range ok {
				exp = exp || c == s
			}
			if got := mayList(m, s); got != exp {
				t.Errorf("mayList(master %v, server %v) = %v, want %v", m, s, got, exp)
			}
		}
	}
}

// FuzzClassify holds classify to net/netip's own predicates on any
// address: what netip calls loopback, multicast, link-local, private or
// unspecified is never global, a mapped address is classified as the
// IPv4 address it carries, and only global, private, link-local and
// loopback addresses can ever be listed.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::ffff:127.0.0.1", "10.0.0.1", "fd00::1", "fe80::1", "ff02::1", "255.255.255.255", "8.8.8.8", "2001:db8::1", "64:ff9b::7f00:1", "::"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(raw))
		c := classify(a)
		u := a.Unmap()
		if c != classify(u) {
			t.Fatalf("%v is %v, unmapped %v is %v", a, c, u, classify(u))
		}
		switch {
		case u.IsLoopback() && c != classLoopback,
			u.IsMulticast() && c != classMulticast,
			u.IsUnspecified() && c != classUnspecified,
			u.IsLinkLocalUnicast() && c != classLinkLocal,
			u.IsPrivate() && c != classPrivate:
			t.Fatalf("%v classified %v against netip's predicates", a, c)
		}
		if c == classGlobal && !u.IsGlobalUnicast() {
			t.Fatalf("%v global, but not a global unicast address to netip", a)
		}
		if c.reach() == 0 {
			for _, m := range []addrClass{classLoopback, classLinkLocal, classPrivate, classGlobal} {
				if mayList(m, c) {
					t.Fatalf("%v (%v) listable by a %v master", a, c, m)
				}
			}
		}
	})
}
