package oob

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestHeartbeat(t *testing.T) {
	if got, want := string(Packet(FormatHeartbeat(HeartbeatDarkPlaces))), "\xff\xff\xff\xffheartbeat DarkPlaces\n\x00"; got != want {
		t.Errorf("heartbeat packet = %q, want %q", got, want)
	}
	tests := []struct {
		text, want, wantErr string
	}{
		{"heartbeat QuakeArena-1\n", "QuakeArena-1", ""},
		{"heartbeat DarkPlaces\n", "DarkPlaces", ""},
		{"HEARTBEAT DarkPlaces extra", "DarkPlaces", ""},
		{"heartbeat", "", "oob: heartbeat protocol string is empty"},
		{"heartbeat \"a b\"", "", "oob: heartbeat protocol string contains byte 0x20"},
		{"heartbeat " + strings.Repeat("x", MaxNameLen+1), "", "oob: heartbeat protocol string is 65 bytes, limit 64"},
		{"getinfo x", "", `oob: command is "getinfo", want "heartbeat"`},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ParseHeartbeat(tt.text)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseHeartbeat = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestGetServers(t *testing.T) {
	tests := []struct {
		name, text string
		q          GetServers
	}{
		{"quake3", "getservers 3 empty full", GetServers{Protocol: 3, Empty: true, Full: true}},
		{"quake3 bare", "getservers 68", GetServers{Protocol: 68}},
		{"dpmaster", "getservers Tremor 3 full", GetServers{Game: "Tremor", Protocol: 3, Full: true}},
		{"ext", "getserversExt Tremor 3 ipv6 empty", GetServers{Ext: true, Game: "Tremor", Protocol: 3, IPv6: true, Empty: true}},
		{"ext all", "getserversExt Tremor 3 ipv4 ipv6 empty full", GetServers{Ext: true, Game: "Tremor", Protocol: 3, IPv4: true, IPv6: true, Empty: true, Full: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatGetServers(tt.q); got != tt.text {
				t.Errorf("FormatGetServers = %q, want %q", got, tt.text)
			}
			got, err := ParseGetServers(tt.text)
			if err != nil || got != tt.q {
				t.Errorf("ParseGetServers = %+v, %v; want %+v", got, err, tt.q)
			}
		})
	}
}

func TestParseGetServersLenient(t *testing.T) {
	tests := []struct {
		text string
		q    GetServers
	}{
		// qstat's request, with its line feed.
		{"getservers 3 empty full\n", GetServers{Protocol: 3, Empty: true, Full: true}},
		{"GETSERVERS 67 ffa EMPTY gametype=4", GetServers{Protocol: 67, Empty: true}},
		// ipv4/ipv6 mean nothing in a plain getservers.
		{"getservers Tremor 3 ipv6", GetServers{Game: "Tremor", Protocol: 3}},
		// A numeric game name is possible only in the Ext form.
		{"getserversExt 7 3", GetServers{Ext: true, Game: "7", Protocol: 3}},
	}
	for _, tt := range tests {
		got, err := ParseGetServers(tt.text)
		if err != nil || got != tt.q {
			t.Errorf("ParseGetServers(%q) = %+v, %v; want %+v", tt.text, got, err, tt.q)
		}
	}
}

func TestParseGetServersErrors(t *testing.T) {
	tests := []struct{ text, wantErr string }{
		{"getservers", "oob: getservers without protocol"},
		{"getservers Tremor", "oob: getservers without protocol"},
		{"getserversExt 3", "oob: getserversExt without protocol"},
		{"getservers Tremor x", `oob: getservers protocol "x" is not a non-negative 32-bit integer`},
		{"getservers -1", `oob: getservers protocol "-1" is not a non-negative 32-bit integer`},
		{"getservers Tremor 99999999999", `oob: getservers protocol "99999999999" is not a non-negative 32-bit integer`},
		{"getservers \"a b\" 3", "oob: getservers game name contains byte 0x20"},
		{"getinfo 3", `oob: command is "getinfo", want "getservers" or "getserversExt"`},
		{"getservers " + strings.Repeat("x", 1100), "oob: getservers line is 1111 bytes, limit 1024"},
	}
	for _, tt := range tests {
		_, err := ParseGetServers(tt.text)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("ParseGetServers(%.40q): err = %v, want %s", tt.text, err, tt.wantErr)
		}
	}
}

func TestWantsFamilies(t *testing.T) {
	tests := []struct {
		q            GetServers
		want4, want6 bool
	}{
		{GetServers{}, true, false},
		{GetServers{IPv6: true}, true, false},
		{GetServers{Ext: true}, true, true},
		{GetServers{Ext: true, IPv4: true}, true, false},
		{GetServers{Ext: true, IPv6: true}, false, true},
		{GetServers{Ext: true, IPv4: true, IPv6: true}, true, true},
	}
	for _, tt := range tests {
		if tt.q.WantsIPv4() != tt.want4 || tt.q.WantsIPv6() != tt.want6 {
			t.Errorf("%+v: WantsIPv4, WantsIPv6 = %v, %v; want %v, %v", tt.q, tt.q.WantsIPv4(), tt.q.WantsIPv6(), tt.want4, tt.want6)
		}
	}
}

func TestServersResponseBytes(t *testing.T) {
	addrs := []netip.AddrPort{
		netip.MustParseAddrPort("1.2.3.4:2048"),
		netip.MustParseAddrPort("[2001:db8::1]:27960"),
		netip.MustParseAddrPort("[::ffff:10.0.0.1]:27961"),
	}
	got := string(AppendServersResponse(nil, false, addrs, true))
	want := "\xff\xff\xff\xffgetserversResponse\\\x01\x02\x03\x04\x08\x00\\\x0a\x00\x00\x01\x6d\x39\\EOT\x00\x00\x00"
	if got != want {
		t.Errorf("getserversResponse = %q\nwant %q", got, want)
	}
	got = string(AppendServersResponse(nil, true, addrs, false))
	want = "\xff\xff\xff\xffgetserversExtResponse\\\x01\x02\x03\x04\x08\x00" +
		"/\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x6d\x38" +
		"\\\x0a\x00\x00\x01\x6d\x39"
	if got != want {
		t.Errorf("getserversExtResponse = %q\nwant %q", got, want)
	}
}

func TestSplitServersResponse(t *testing.T) {
	var addrs []netip.AddrPort
	for i := range 500 {
		addrs = append(addrs, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), uint16(27960+i%4)))
		if i%3 == 0 {
			addrs = append(addrs, netip.AddrPortFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: byte(i)}), 27960))
		}
	}
	for _, ext := range []bool{false, true} {
		for _, maxLen := range []int{0, 100, 1} {
			t.Run(fmt.Sprintf("ext=%v/max=%d", ext, maxLen), func(t *testing.T) {
				packets := SplitServersResponse(ext, addrs, maxLen)
				limit := maxLen
				switch maxLen {
				case 0:
					limit = MaxPacketLen
				case 1:
					limit = len(Marker) + len(CmdGetServersExtResponse) + ServerEntry6Len + 7
					if !ext {
						limit = len(Marker) + len(CmdGetServersResponse) + ServerEntry6Len + 7
					}
				}
				var got []netip.AddrPort
				for i, p := range packets {
					if len(p) > limit {
						t.Fatalf("packet %d is %d bytes, limit %d", i, len(p), limit)
					}
					r, err := ParseServersResponse(p)
					if err != nil {
						t.Fatalf("packet %d: %v", i, err)
					}
					if r.Ext != ext || r.EOT != (i == len(packets)-1) {
						t.Fatalf("packet %d of %d: Ext %v EOT %v", i, len(packets), r.Ext, r.EOT)
					}
					got = append(got, r.Addrs...)
				}
				var want []netip.AddrPort
				for _, a := range addrs {
					if ext || a.Addr().Is4() {
						want = append(want, a)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %d servers back, want %d", len(got), len(want))
				}
				if maxLen == 0 && len(packets) < 2 {
					t.Fatalf("%d servers in %d packets", len(want), len(packets))
				}
			})
		}
	}
	packets := SplitServersResponse(false, nil, 0)
	if len(packets) != 1 || string(packets[0]) != "\xff\xff\xff\xffgetserversResponse\\EOT\x00\x00\x00" {
		t.Errorf("empty list = %q", packets)
	}
}

func TestParseServersResponse(t *testing.T) {
	tests := []struct {
		name, packet string
		want         ServersResponse
		wantErr      string
	}{
		{"eot without NULs", "\xff\xff\xff\xffgetserversResponse\\\x01\x02\x03\x04\x08\x00\\EOT",
			ServersResponse{Addrs: []netip.AddrPort{netip.MustParseAddrPort("1.2.3.4:2048")}, EOT: true}, ""},
		{"no eot", "\xff\xff\xff\xffgetserversResponse\\\x01\x02\x03\x04\x08\x00",
			ServersResponse{Addrs: []netip.AddrPort{netip.MustParseAddrPort("1.2.3.4:2048")}}, ""},
		{"empty", "\xff\xff\xff\xffgetserversExtResponse", ServersResponse{Ext: true}, ""},
		{"no marker", "getserversResponse", ServersResponse{}, "oob: packet does not start with the connectionless marker"},
		{"other command", "\xff\xff\xff\xffgetinfo 1", ServersResponse{}, "oob: not a getserversResponse or getserversExtResponse"},
		{"truncated", "\xff\xff\xff\xffgetserversResponse\\\x01\x02\x03", ServersResponse{}, "oob: getserversResponse: truncated IPv4 server at offset 22"},
		{"truncated ipv6", "\xff\xff\xff\xffgetserversExtResponse/\x01\x02\x03", ServersResponse{}, "oob: getserversExtResponse: truncated IPv6 server at offset 25"},
		{"ipv6 in plain", "\xff\xff\xff\xffgetserversResponse/" + strings.Repeat("\x01", 18), ServersResponse{}, "oob: getserversResponse: unexpected byte 0x2f at offset 22"},
		{"port 0", "\xff\xff\xff\xffgetserversResponse\\\x01\x02\x03\x04\x00\x00", ServersResponse{}, "oob: getserversResponse: server 1.2.3.4 port 0 at offset 22"},
		{"after eot", "\xff\xff\xff\xffgetserversResponse\\EOT\x00\x00\x00\\", ServersResponse{}, "oob: getserversResponse: server 69.79.84.0 port 0 at offset 22"},
		{"unspecified", "\xff\xff\xff\xffgetserversResponse\\\x00\x00\x00\x00\x01\x00", ServersResponse{}, "oob: getserversResponse: server 0.0.0.0 port 256 at offset 22"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseServersResponse([]byte(tt.packet))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseServersResponse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func FuzzParseServersResponse(f *testing.F) {
	addrs := []netip.AddrPort{
		netip.MustParseAddrPort("1.2.3.4:2048"),
		netip.MustParseAddrPort("[2001:db8::1]:27960"),
	}
	f.Add(AppendServersResponse(nil, false, addrs, true))
	f.Add(AppendServersResponse(nil, true, addrs, true))
	f.Add(AppendServersResponse(nil, true, addrs, false))
	f.Add([]byte("\xff\xff\xff\xffgetserversResponse\\EOT"))
	f.Add([]byte("\xff\xff\xff\xffgetserversExtResponse/\x01"))
	f.Fuzz(func(t *testing.T, packet []byte) {
		r, err := ParseServersResponse(packet)
		if err != nil {
			return
		}
		again := AppendServersResponse(nil, r.Ext, r.Addrs, r.EOT)
		r2, err := ParseServersResponse(again)
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip of %+v: %+v, %v", r, r2, err)
		}
		if len(again) > len(packet)+3 {
			t.Fatalf("re-encoding grew %d bytes to %d", len(packet), len(again))
		}
	})
}

func FuzzParseMasterRequests(f *testing.F) {
	for _, s := range []string{
		"heartbeat QuakeArena-1\n",
		"heartbeat DarkPlaces\n",
		"getservers 3 empty full\n",
		"getservers Tremor 3 full",
		"getserversExt Tremor 3 ipv4 ipv6 empty full",
		"getserversExt \"\" 3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if p, err := ParseHeartbeat(text); err == nil {
			if got, err := ParseHeartbeat(FormatHeartbeat(p)); err != nil || got != p {
				t.Fatalf("heartbeat round trip of %q: %q, %v", p, got, err)
			}
		}
		if q, err := ParseGetServers(text); err == nil {
			if got, err := ParseGetServers(FormatGetServers(q)); err != nil || got != q {
				t.Fatalf("getservers round trip of %+v (%q): %+v, %v", q, FormatGetServers(q), got, err)
			}
		}
	})
}
