package browser

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"tremor/net/oob"
)

// TestLANFlood is the flood: four real servers answer a LAN
// refresh once each, and a host on the LAN answers every query it hears
// 500 times. Every real server is listed, and the flooder once per
// address and port it answered from with a query's own port. Before, the flood filled the queue of received packets and
// the answers behind it were dropped: 2 of 4 servers were missing.
func TestLANFlood(t *testing.T) {
	real := []string{"192.168.1.20:27960", "192.168.1.21:27961", "127.0.0.1:27962", "[fd00::20]:27963"}
	floods := []struct {
		name string
		// from returns the source of the flooder's n-th answer to a
		// query to port.
		from func(port uint16, n int) netip.AddrPort
		// before: the whole flood arrives before the real answers (the
		// worst order), else they are interleaved with it.
		before bool
		// entries is how many entries the flood makes: one per port
		// when it answers from the query's port, else none.
		entries int
	}{
		{"one address, the query's port, before", func(port uint16, n int) netip.AddrPort {
			return netip.AddrPortFrom(netip.MustParseAddr("192.168.1.66"), port)
		}, true, 4},
		{"one address, the query's port, interleaved", func(port uint16, n int) netip.AddrPort {
			return netip.AddrPortFrom(netip.MustParseAddr("192.168.1.66"), port)
		}, false, 4},
		{"one address, rotating ports", func(port uint16, n int) netip.AddrPort {
			return netip.AddrPortFrom(netip.MustParseAddr("192.168.1.66"), uint16(1024+n))
		}, true, 0},
		{"one IPv6 address, the query's port", func(port uint16, n int) netip.AddrPort {
			return netip.AddrPortFrom(netip.MustParseAddr("fd00::66"), port)
		}, true, 4},
		{"one IPv6 address, rotating ports", func(port uint16, n int) netip.AddrPort {
			return netip.AddrPortFrom(netip.MustParseAddr("fd00::66"), uint16(1024+n))
		}, true, 0},
	}
	for _, fl := range floods {
		t.Run(fl.name, func(t *testing.T) {
			r := newRig(t, Config{LANPort: 27960, LANPorts: 4})
			r.b.Refresh(LAN)
			r.frame()
			queries := r.conn.packets()
			if len(queries) != 12 {
				t.Fatalf("%d LAN queries, want 12", len(queries))
			}
			// hears reports whether the server at a hears query q:
			// 127.0.0.1's own, the IPv6 group for an IPv6 server, the
			// broadcast for one on the LAN.
			hears := func(q sentPacket, a netip.AddrPort) bool {
				switch {
				case q.to.Port() != a.Port():
					return false
				case a.Addr().IsLoopback():
					return q.to.Addr() == a.Addr()
				case a.Addr().Is6():
					return q.to.Addr() == Multicast6
				}
				return q.to.Addr() == netip.MustParseAddr("192.168.1.255")
			}
			pushed, n := 0, 0
			// The flooder hears the queries its address family's way: the
			// broadcast, or the IPv6 group.
			flood := func(q sentPacket) {
				if !hears(q, netip.AddrPortFrom(fl.from(0, 0).Addr(), q.to.Port())) {
					return
				}
				p := oob.Packet(oob.FormatInfoResponse(info(challengeOf(t, q.text), "Flood", "arena1", 0, 0, 8)))
				for range 500 {
					r.b.recv.push(p, fl.from(q.to.Port(), n), r.clk.Now())
					n++
				}
			}
			answerReal := func(q sentPacket) {
				for _, s := range real {
					if hears(q, netip.MustParseAddrPort(s)) {
						r.answer(s, 5*time.Millisecond, info(challengeOf(t, q.text), "Real "+s, "arena1", 1, 1, 8))
						pushed++
					}
				}
			}
			for _, q := range queries {
				flood(q)
				if !fl.before {
					answerReal(q)
				}
			}
			if fl.before {
				for _, q := range queries {
					answerReal(q)
				}
			}
			if pushed != len(real) {
				t.Fatalf("%d real answers pushed, want %d", pushed, len(real))
			}
			r.frame()
			es := r.b.Entries(LAN)
			seen := map[netip.AddrPort]bool{}
			found, flooder := 0, 0
			for _, e := range es {
				if seen[e.Addr] {
					t.Errorf("%v listed twice", e.Addr)
				}
				seen[e.Addr] = true
				switch e.HostName {
				case "Real " + e.Addr.String():
					found++
				case "Flood":
					flooder++
				}
			}
			if found != len(real) {
				t.Errorf("%d of %d real servers listed: %+v", found, len(real), es)
			}
			if flooder != fl.entries || len(es) != len(real)+fl.entries {
				t.Errorf("%d entries, %d of them the flooder's, want %d of %d", len(es), flooder, fl.entries, len(real)+fl.entries)
			}
			t.Logf("%d flood answers: %d entries, %d of %d real servers listed", n, len(es), found, len(real))
		})
	}
}

// The queue of received packets keeps every source's first packets when
// one source floods it, and drops the flood's newest.
func TestRecvQueueFair(t *testing.T) {
	q := newRecvQueue(8)
	at := time.Unix(0, 0)
	flood := netip.MustParseAddrPort("10.0.0.66:27960")
	for i := range 20 {
		q.push([]byte{byte(i)}, flood, at)
	}
	for i := range 3 {
		if !q.push([]byte{100 + byte(i)}, netip.MustParseAddrPort(fmt.Sprintf("10.0.0.%d:27960", i+1)), at) {
			t.Errorf("real packet %d dropped", i)
		}
	}
	// A second packet from a real source gets in too; a flood packet
	// does not take its place back.
	q.push([]byte{103}, netip.MustParseAddrPort("10.0.0.1:27960"), at)
	if q.push([]byte{21}, flood, at) {
		t.Error("a flood packet displaced another source's")
	}
	var got []byte
	buf := make([]byte, 8)
	for {
		n, _, _, ok := q.pop(buf)
		if !ok {
			break
		}
		got = append(got, buf[:n]...)
	}
	// The flood's first four, in order, then the real ones in order.
	want := []byte{0, 1, 2, 3, 100, 101, 102, 103}
	if string(got) != string(want) {
		t.Errorf("popped %v, want %v", got, want)
	}
	if len(q.flows) != 0 || len(q.sources) != 0 {
		t.Errorf("counts left after emptying: %v %v", q.flows, q.sources)
	}
}
