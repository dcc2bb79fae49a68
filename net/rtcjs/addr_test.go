package rtcjs

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseConnect(t *testing.T) {
	example := NameAddr("tremor.example.org")
	for _, tc := range []struct {
		in, scheme string
		url, label string
		addr       netip.AddrPort
	}{
		{"192.168.1.20", "http:", "http://192.168.1.20:27960/rtc", "192.168.1.20:27960", netip.MustParseAddrPort("192.168.1.20:27960")},
		{"192.168.1.20:8080", "http:", "http://192.168.1.20:8080/rtc", "192.168.1.20:8080", netip.MustParseAddrPort("192.168.1.20:8080")},
		{" 10.0.0.1:27961 ", "https:", "https://10.0.0.1:27961/rtc", "10.0.0.1:27961", netip.MustParseAddrPort("10.0.0.1:27961")},
		{"[::1]:27970", "http:", "http://[::1]:27970/rtc", "[::1]:27970", netip.MustParseAddrPort("[::1]:27970")},
		{"[fd00::5]", "http:", "http://[fd00::5]:27960/rtc", "[fd00::5]:27960", netip.MustParseAddrPort("[fd00::5]:27960")},
		{"fd00::5", "http:", "http://[fd00::5]:27960/rtc", "[fd00::5]:27960", netip.MustParseAddrPort("[fd00::5]:27960")},
		{"::ffff:10.1.2.3", "http:", "http://10.1.2.3:27960/rtc", "10.1.2.3:27960", netip.MustParseAddrPort("10.1.2.3:27960")},
		{"LocalHost", "http:", "http://localhost:27960/rtc", "localhost:27960", netip.MustParseAddrPort("127.0.0.1:27960")},
		{"Tremor.Example.org:443", "http:", "http://tremor.example.org:443/rtc", "tremor.example.org:443", netip.AddrPortFrom(example, 443)},
		{"https://tremor.example.org:27960/index.html?+connect", "http:", "https://tremor.example.org:27960/rtc", "tremor.example.org:27960", netip.AddrPortFrom(example, 27960)},
		{"http://192.168.1.20/", "https:", "http://192.168.1.20:27960/rtc", "192.168.1.20:27960", netip.MustParseAddrPort("192.168.1.20:27960")},
	} {
		s, err := ParseConnect(tc.in, tc.scheme)
		if err != nil {
			t.Errorf("ParseConnect(%q, %q): %v", tc.in, tc.scheme, err)
			continue
		}
		if s.URL != tc.url || s.Label != tc.label || s.Addr != tc.addr {
			t.Errorf("ParseConnect(%q, %q) = %+v, want URL %s, label %s, address %v", tc.in, tc.scheme, s, tc.url, tc.label, tc.addr)
		}
	}
}

func TestParseConnectRefuses(t *testing.T) {
	for _, in := range []string{
		"", ":27960", "host:", "host:0", "host:65536", "host:x", "ftp://host",
		"[fe80::1%eth0]:27960", "a/b", "a b", "a@b", "evil.org#x", "ho\x00st", ".host", "-host",
		"a..b", strings.Repeat("a", MaxHostLen+1), "[::1", "javascript:alert(1)",
	} {
		if s, err := ParseConnect(in, "http:"); err == nil {
			t.Errorf("ParseConnect(%q) = %+v, want an error", in, s)
		}
	}
}

func TestParseOrigin(t *testing.T) {
	for _, tc := range []struct {
		protocol, host, url string
		addr                netip.AddrPort
	}{
		{"http:", "192.168.1.20:27960", "http://192.168.1.20:27960/rtc", netip.MustParseAddrPort("192.168.1.20:27960")},
		{"http:", "192.168.1.20", "http://192.168.1.20:80/rtc", netip.MustParseAddrPort("192.168.1.20:80")},
		{"https:", "[2001:db8::7]", "https://[2001:db8::7]:443/rtc", netip.MustParseAddrPort("[2001:db8::7]:443")},
		{"http:", "localhost:8080", "http://localhost:8080/rtc", netip.MustParseAddrPort("127.0.0.1:8080")},
	} {
		s, err := ParseOrigin(tc.protocol, tc.host)
		if err != nil || s.URL != tc.url || s.Addr != tc.addr {
			t.Errorf("ParseOrigin(%q, %q) = %+v, %v; want URL %s, address %v", tc.protocol, tc.host, s, err, tc.url, tc.addr)
		}
	}
	for _, tc := range [][2]string{{"file:", ""}, {"file:", "x"}, {"http:", ""}, {"data:", "x"}} {
		if s, err := ParseOrigin(tc[0], tc[1]); err == nil {
			t.Errorf("ParseOrigin(%q, %q) = %+v, want an error", tc[0], tc[1], s)
		}
	}
}

// Names map to distinct, stable synthetic addresses that no real
// address takes, whatever their case.
func TestNameAddr(t *testing.T) {
	a, b := NameAddr("teacher.lan"), NameAddr("TEACHER.lan")
	if a != b {
		t.Errorf("NameAddr differs by case: %v, %v", a, b)
	}
	if c := NameAddr("teacher2.lan"); c == a {
		t.Errorf("two names share %v", a)
	}
	if !IsNameAddr(a) || !a.Is6() || !a.IsPrivate() {
		t.Errorf("NameAddr = %v, want a unique local address of the name network", a)
	}
	if want := "fd74:7265:6d6f:0:"; !strings.HasPrefix(a.String(), want) {
		t.Errorf("NameAddr = %v, want it in %s:/64", a, want)
	}
	for _, s := range []string{"127.0.0.1", "::1", "fd00::1", "192.168.1.20"} {
		if IsNameAddr(netip.MustParseAddr(s)) {
			t.Errorf("IsNameAddr(%s) = true", s)
		}
	}
}
