package browser

import (
	"net/netip"
	"testing"
	"time"

	"tremor/net/oob"
	"tremor/net/srclimit"
)

// FuzzParseInfo checks that any info string gives fields within their
// bounds: printable names no longer than MaxTextLen, counts in [0,
// maxCount], and no more humans and bots than the clients said.
func FuzzParseInfo(f *testing.F) {
	f.Add(`\challenge\abc\protocol\3\hostname\Tremor\mapname\arena1\clients\5\g_humanplayers\2\sv_maxclients\16\gametype\0`)
	f.Add(`\clients\-1\g_humanplayers\99\sv_maxclients\1e9`)
	f.Add("\\hostname\\\xff\x00\x7f")
	f.Add(`\\\\\\`)
	f.Fuzz(func(t *testing.T, info string) {
		si := parseInfo(info)
		for _, s := range []string{si.hostName, si.mapName} {
			if len(s) > MaxTextLen {
				t.Fatalf("name of %d bytes", len(s))
			}
			for i := 0; i < len(s); i++ {
				if s[i] < ' ' || s[i] > '~' {
					t.Fatalf("byte %#x in %q", s[i], s)
				}
			}
		}
		for _, n := range []int{si.humans, si.bots, si.max, si.gameType, si.protocol} {
			if n < 0 || n > maxCount {
				t.Fatalf("count %d out of bounds: %+v", n, si)
			}
		}
		if si.humans+si.bots > maxCount {
			t.Fatalf("players %d: %+v", si.humans+si.bots, si)
		}
	})
}

// FuzzReceive hands a browser in the middle of a LAN, Internet and
// Favorites refresh arbitrary packets from a master's, a favourite's and
// a LAN address: nothing panics, and the lists stay within MaxEntries.
func FuzzReceive(f *testing.F) {
	f.Add([]byte(oob.Packet(oob.FormatInfoResponse(`\challenge\x\hostname\h`))), uint8(0))
	f.Add(oob.AppendServersResponse(nil, true, []netip.AddrPort{netip.MustParseAddrPort("10.2.0.1:27960")}, true), uint8(1))
	f.Add(oob.AppendServersResponse(nil, false, []netip.AddrPort{netip.MustParseAddrPort("10.2.0.2:1")}, false), uint8(1))
	f.Add([]byte("\xff\xff\xff\xffgetserversExtResponse/\x00"), uint8(1))
	f.Add([]byte("\xff\xff\xff\xffinfoResponse\n\\challenge\\"), uint8(2))
	f.Add([]byte{}, uint8(3))
	froms := []netip.AddrPort{
		netip.MustParseAddrPort("192.168.1.20:27960"),
		netip.MustParseAddrPort("10.1.1.1:27950"),
		netip.MustParseAddrPort("10.0.0.1:27960"),
		netip.MustParseAddrPort("127.0.0.1:27960"),
	}
	f.Fuzz(func(t *testing.T, p []byte, who uint8) {
		c := newFakeConn("192.168.1.10:40000")
		clk := newClock()
		b := New(Config{LANPort: 27960, LANPorts: 1, MaxEntries: 8, Masters: []string{"10.1.1.1"}, Clock: clk.Now,
			Interfaces: func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("192.168.1.255")} }}, c, c)
		defer b.Close()
		b.AddFavorite("10.0.0.1")
		b.Refresh(LAN)
		b.Refresh(Internet)
		b.Frame(clk.Now())
		// The packet as sent, and with the first LAN challenge in place
		// of "x", so that it can reach past the challenge check.
		for _, q := range [][]byte{p, withChallenge(p, b.targets[0].challenge)} {
			b.recv.push(q, froms[int(who)%len(froms)], clk.Now())
			b.Frame(clk.Add(10 * time.Millisecond))
		}
		for s := range NumSources {
			if n := len(b.Entries(s)); n > 8 {
				t.Fatalf("%v: %d entries", s, n)
			}
		}
	})
}

func withChallenge(p []byte, ch string) []byte {
	var out []byte
	for i := 0; i < len(p); i++ {
		if p[i] == 'x' {
			out = append(out, ch...)
			continue
		}
		out = append(out, p[i])
	}
	return out
}

// FuzzMasterList hands a browser in an Internet refresh an arbitrary
// getserversExtResponse from its master, a master on the internet, on
// a private network, on the link or on this machine, and runs the
// refresh out with no server answering. Whatever the list, every
// getinfo goes to a nonzero port of an address the master's scope may
// list (never a mapped address, never the machine's broadcast), no host
// (srclimit.Source) gets more than 2*HostPorts, the refresh no more
// than 2*MaxPinged, and no address is listed twice.
func FuzzMasterList(f *testing.F) {
	var rogue []netip.AddrPort
	rogue = append(rogue, portsOf("127.0.0.1", 1000, 196)...)
	for _, s := range refusedAddrs {
		rogue = append(rogue, netip.MustParseAddrPort(s))
	}
	rogue = append(rogue, portsOf("198.51.100.20", 27960, 6)...)
	name := len(oob.Marker + oob.CmdGetServersExtResponse)
	for _, p := range serversPackets(rogue[:100]) {
		f.Add(p[name:], uint8(0))
	}
	for _, p := range serversPackets(rogue[100:]) {
		f.Add(p[name:], uint8(0))
		f.Add(p[name:], uint8(1))
		f.Add(p[name:], uint8(2))
		f.Add(p[name:], uint8(3))
	}
	f.Add([]byte(`\EOT`), uint8(0))
	f.Add([]byte("/\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x7f\x00\x00\x01\x6d\x38"), uint8(0))
	masters := []string{"198.51.100.7:27950", "10.1.1.1:27950", "169.254.3.3:27950", "127.0.0.1:27950"}
	f.Fuzz(func(t *testing.T, list []byte, who uint8) {
		master := netip.MustParseAddrPort(masters[int(who)%len(masters)])
		c := newFakeConn("192.168.1.10:40000")
		clk := newClock()
		b := New(Config{Masters: []string{master.String()}, PacketsPerSecond: 10000, Timeout: 100 * time.Millisecond, MaxEntries: 256, Clock: clk.Now,
			Interfaces: func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("192.168.1.255")} }}, c, c)
		defer b.Close()
		b.Refresh(Internet)
		b.Frame(clk.Now())
		b.recv.push(append([]byte(oob.Marker+oob.CmdGetServersExtResponse), list...), master, clk.Now())
		for range 20 {
			b.Frame(clk.Add(50 * time.Millisecond))
		}
		mc := classify(master.Addr())
		perHost := map[netip.Addr]int{}
		total := 0
		for _, p := range c.packets() {
			if p.to == master {
				continue
			}
			total++
			perHost[srclimit.Source(p.to)]++
			if p.to.Port() == 0 || p.to.Addr().Is4In6() || p.to.Addr() == netip.MustParseAddr("192.168.1.255") || !mayList(mc, classify(p.to.Addr())) {
				t.Fatalf("getinfo to %v (%v) from a %v master's list", p.to, classify(p.to.Addr()), mc)
			}
			if n := perHost[srclimit.Source(p.to)]; n > 2*HostPorts {
				t.Fatalf("%d getinfos to %v", n, srclimit.Source(p.to))
			}
		}
		if total > 2*MaxPinged {
			t.Fatalf("%d getinfos in one refresh", total)
		}
		seen := map[netip.AddrPort]bool{}
		for _, e := range b.Entries(Internet) {
			if seen[e.Addr] {
				t.Fatalf("%v listed twice", e.Addr)
			}
			seen[e.Addr] = true
		}
	})
}
