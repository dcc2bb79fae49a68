package browser

import (
	"net"
	"net/netip"
	"time"
)

// BroadcastAddrs returns the IPv4 broadcast address of every up
// interface that can broadcast: each of its IPv4 networks' address with
// every host bit set (addr | ^mask). Networks of one or two addresses
// (/31, /32) have none.
func BroadcastAddrs() []netip.Addr {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, ifi := range ifs {
		if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagBroadcast == 0 {
			continue
		}
		addrs, err := ifi.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			in, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if bc, ok := broadcast(in.IP, in.Mask); ok && !contains(out, bc) {
				out = append(out, bc)
			}
		}
	}
	return out
}

// broadcast returns the broadcast address of the IPv4 network of ip and
// mask, if it has one.
func broadcast(ip net.IP, mask net.IPMask) (netip.Addr, bool) {
	ip4 := ip.To4()
	if ip4 == nil {
		return netip.Addr{}, false
	}
	if len(mask) == net.IPv6len {
		mask = mask[12:]
	}
	if len(mask) != net.IPv4len {
		return netip.Addr{}, false
	}
	if ones, _ := mask.Size(); ones > 30 || ones == 0 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i := range b {
		b[i] = ip4[i] | ^mask[i]
	}
	return netip.AddrFrom4(b), true
}

func contains(as []netip.Addr, a netip.Addr) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// ownAddrs returns this machine's interface addresses.
func ownAddrs() map[netip.Addr]bool {
	own := make(map[netip.Addr]bool)
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return own
	}
	for _, a := range addrs {
		if in, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(in.IP); ok {
				own[ip.Unmap()] = true
			}
		}
	}
	return own
}

// prefixOf returns the network of a broadcast address: the addresses
// whose answers a query to it may bring. The mask is not kept, so it is
// the broadcast's /8 to /30 read back from its trailing one bits.
func prefixOf(bc netip.Addr) netip.Prefix {
	b := bc.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	host := 0
	for host < 32 && v&(1<<host) != 0 {
		host++
	}
	p, _ := bc.Prefix(32 - host)
	return p
}

// startLAN clears nothing (start did) and queues the LAN refresh's
// queries: each port at every broadcast address, at 127.0.0.1 and at
// the IPv6 group, each with a challenge of its own.
func (b *Browser) startLAN(now time.Time) {
	b.targets = b.targets[:0]
	b.own = ownAddrs()
	add := func(t target) {
		if len(b.targets) < maxLANTargets {
			t.challenge = newChallenge()
			b.targets = append(b.targets, t)
		}
	}
	var dests []netip.Addr
	if b.conn4 != nil {
		dests = b.cfg.Interfaces()
	}
	for p := range b.cfg.LANPorts {
		port := uint16(b.cfg.LANPort + p)
		if b.conn4 != nil && !b.noLoopback {
			add(target{addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port)})
		}
		for _, bc := range dests {
			add(target{addr: netip.AddrPortFrom(bc, port), within: prefixOf(bc)})
		}
		if b.conn6 != nil {
			add(target{addr: netip.AddrPortFrom(Multicast6, port), multicast: true})
		}
	}
	for i := range b.targets {
		b.queue = append(b.queue, sendItem{src: LAN, index: i, gen: b.gen[LAN]})
	}
	if len(b.targets) == 0 {
		b.lists[LAN].status.Note = "no network to search"
	}
	b.lanEnd = time.Time{}
}

// isLocal reports whether a is an address of this machine.
func (b *Browser) isLocal(a netip.Addr) bool { return a.IsLoopback() || b.own[a] }

// lanAnswer files a LAN answer. A server on this machine answers both the
// query to 127.0.0.1 and the broadcast (from one of this machine's
// addresses): it is listed once, at 127.0.0.1 when that answered.
func (b *Browser) lanAnswer(from netip.AddrPort, si *serverInfo, rtt time.Duration) {
	l := &b.lists[LAN]
	i, ok := l.byAddr[from]
	if !ok && b.isLocal(from.Addr()) {
		for j := range l.entries {
			a := l.entries[j].Addr
			if a.Port() == from.Port() && b.isLocal(a.Addr()) {
				i, ok = j, true
				if from.Addr().IsLoopback() && from.Addr().Is4() && !a.Addr().IsLoopback() {
					delete(l.byAddr, a)
					l.entries[j].Addr, l.entries[j].Label = from, from.String()
					l.byAddr[from] = j
				}
				break
			}
		}
	}
	if !ok {
		if i = b.add(LAN, from, ""); i < 0 {
			return
		}
	}
	e := &l.entries[i]
	ping := e.Ping
	fill(e, si, rtt)
	if ok && ping < e.Ping {
		e.Ping = ping // a second answer of the same server: keep the better path
	}
	b.changed()
}
