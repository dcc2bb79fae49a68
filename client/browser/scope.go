package browser

import "net/netip"

// addrClass is what kind of destination an address is, for deciding
// whether a master's list may send the browser there. A master is a
// stranger: what it lists is pinged from the player's own address, so a
// rogue master could otherwise aim the browser at the player's own
// machine, their network, a broadcast, or one victim many times over.
type addrClass uint8

// Address classes. Loopback, link-local, private and global are the
// scopes a server can be in, from the narrowest to the widest; the
// others are never pinged from a list.
const (
	classInvalid     addrClass = iota // the zero netip.Addr
	classUnspecified                  // 0.0.0.0/8 ("this network"), ::
	classLoopback                     // 127.0.0.0/8, ::1
	classLinkLocal                    // 169.254.0.0/16, fe80::/10
	classPrivate                      // 10/8, 172.16/12, 192.168/16 (RFC 1918), 100.64/10 (RFC 6598 shared, carrier NAT), fc00::/7 (ULA), fec0::/10 (old site-local)
	classGlobal                       // everything else
	classBroadcast                    // 255.255.255.255, and the broadcast address of one of this machine's networks
	classMulticast                    // 224.0.0.0/4, ff00::/8
	classReserved                     // 240.0.0.0/4; ::/8 but :: and ::1 (IPv4-compatible, unassigned); 100::/64 (discard); NAT64 64:ff9b::/96 and 6to4 2002::/16 around an IPv4 address that is not global
)

var classNames = [...]string{"invalid", "unspecified", "loopback", "link-local", "private", "global", "broadcast", "multicast", "reserved"}

// String returns the class's name, as the tests and notes show it.
func (c addrClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "?"
}

// reach orders the scopes a server can be in: 1 loopback (this
// machine), 2 link-local (this link), 3 private (this site or this
// provider's network), 4 global. Other classes have none (0): nothing
// may list them.
func (c addrClass) reach() int {
	switch c {
	case classLoopback:
		return 1
	case classLinkLocal:
		return 2
	case classPrivate:
		return 3
	case classGlobal:
		return 4
	}
	return 0
}

// mayList reports whether a master of class master may send the browser
// to a server of class server: the server's scope must be as wide as the
// master's or wider. A master on the internet lists only global
// servers; a master on the player's own network (a LAN party's, a
// school's) also private ones; a master on the link also link-local
// ones; a master on this machine (make master, the tests) anything
// but the classes that are never pinged. A master of no scope (it
// cannot answer from a broadcast or multicast address) counts as
// global.
func mayList(master, server addrClass) bool {
	m := master.reach()
	if m == 0 {
		m = classGlobal.reach()
	}
	s := server.reach()
	return s != 0 && s >= m
}

// Prefixes of the classes, IPv4 then IPv6, as netip.Prefix.Contains
// reads them.
var (
	prefixThisNet4   = netip.MustParsePrefix("0.0.0.0/8")
	prefixLoopback4  = netip.MustParsePrefix("127.0.0.0/8")
	prefixLinkLocal4 = netip.MustParsePrefix("169.254.0.0/16")
	prefixPrivate4   = [...]netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
	}
	prefixMulticast4 = netip.MustParsePrefix("224.0.0.0/4")
	prefixReserved4  = netip.MustParsePrefix("240.0.0.0/4")
	limitedBcast4    = netip.AddrFrom4([4]byte{255, 255, 255, 255})

	prefixZero6      = netip.MustParsePrefix("::/8")
	prefixDiscard6   = netip.MustParsePrefix("100::/64")
	prefixNAT64      = netip.MustParsePrefix("64:ff9b::/96")
	prefix6to4       = netip.MustParsePrefix("2002::/16")
	prefixLinkLocal6 = netip.MustParsePrefix("fe80::/10")
	prefixSiteLocal6 = netip.MustParsePrefix("fec0::/10")
	prefixULA6       = netip.MustParsePrefix("fc00::/7")
	prefixMulticast6 = netip.MustParsePrefix("ff00::/8")
)

// classify returns a's class. An IPv4-mapped IPv6 address
// (::ffff:a.b.c.d) is classified as the IPv4 address it carries, and a
// zone is ignored. It knows nothing of this machine's networks: the
// broadcast addresses of those are the caller's to add.
func classify(a netip.Addr) addrClass {
	if !a.IsValid() {
		return classInvalid
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return classify4(a)
	}
	switch {
	case a.IsUnspecified():
		return classUnspecified
	case a.IsLoopback():
		return classLoopback
	case prefixNAT64.Contains(a): // inside ::/8: first
		b := a.As16()
		return embedded4(netip.AddrFrom4([4]byte(b[12:16])))
	case prefixZero6.Contains(a), prefixDiscard6.Contains(a):
		return classReserved
	case prefix6to4.Contains(a):
		b := a.As16()
		return embedded4(netip.AddrFrom4([4]byte(b[2:6])))
	case prefixMulticast6.Contains(a):
		return classMulticast
	case prefixLinkLocal6.Contains(a):
		return classLinkLocal
	case prefixULA6.Contains(a), prefixSiteLocal6.Contains(a):
		return classPrivate
	}
	return classGlobal
}

// classify4 returns the class of the IPv4 address a.
func classify4(a netip.Addr) addrClass {
	switch {
	case a == limitedBcast4:
		return classBroadcast
	case prefixThisNet4.Contains(a):
		return classUnspecified
	case prefixLoopback4.Contains(a):
		return classLoopback
	case prefixLinkLocal4.Contains(a):
		return classLinkLocal
	case prefixMulticast4.Contains(a):
		return classMulticast
	case prefixReserved4.Contains(a):
		return classReserved
	}
	for _, p := range prefixPrivate4 {
		if p.Contains(a) {
			return classPrivate
		}
	}
	return classGlobal
}

// embedded4 classifies an IPv6 address that a translator or relay turns
// into the IPv4 address v4 (NAT64, 6to4): global if v4 is, else
// reserved, so that a list cannot reach the relay's own loopback or
// network through it.
func embedded4(v4 netip.Addr) addrClass {
	if classify4(v4) == classGlobal {
		return classGlobal
	}
	return classReserved
}
