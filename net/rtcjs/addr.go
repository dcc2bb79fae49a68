package rtcjs

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"tremor/net/netchan"
)

// Server is a Tremor server as a page reaches it: where its offers go
// and the address the client engine knows it by.
type Server struct {
	// URL is where the page POSTs its offer: SCHEME://HOST:PORT/rtc.
	URL string
	// Addr is the address the client engine gives the server: the IP
	// literal of URL's host, 127.0.0.1 for localhost, or NameAddr of
	// another name. Packets from the server come from it.
	Addr netip.AddrPort
	// Label is HOST:PORT as the player wrote it, the host lower-cased
	// ([v6]:PORT for an IPv6 address): what connect and the server
	// browser show.
	Label string
}

// MaxHostLen is the longest host name ParseServer takes, as DNS.
const MaxHostLen = 253

// nameNet is the network of the synthetic addresses NameAddr gives host
// names: an IPv6 unique local /64 whose first bytes spell "tremo" after
// the fd prefix, so nobody mistakes one for a real address.
var nameNet = [8]byte{0xfd, 0x74, 0x72, 0x65, 0x6d, 0x6f, 0, 0}

// NameAddr returns the synthetic address a page gives the host name
// name, which it cannot resolve: the fd74:7265:6d6f::/64 unique local
// address whose low 64 bits are the FNV-1a hash of the lower-cased
// name. The same name always maps to the same address, in every run and
// every page, so the engine's messages and its server-address checks
// see one stable address per server.
func NameAddr(name string) netip.Addr {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(name)))
	var b [16]byte
	copy(b[:8], nameNet[:])
	v := h.Sum64()
	for i := range 8 {
		b[15-i] = byte(v >> (8 * i))
	}
	return netip.AddrFrom16(b)
}

// IsNameAddr reports whether a is one of NameAddr's addresses.
func IsNameAddr(a netip.Addr) bool {
	b := a.As16()
	return a.Is6() && [8]byte(b[:8]) == nameNet
}

// ParseServer reads a server's web address as connect takes it:
// "host", "host:port", "[v6]", "[v6]:port" or a bare IPv6 address, or a
// URL "http://host:port/..." whose path is ignored. scheme ("http" or
// "https", a URL's own overriding it) and defaultPort (when the address
// has none) complete it. The host is an IP address without a zone or a
// host name of letters, digits, '-' and '.'; anything else is refused,
// so nothing but a host reaches the URL.
func ParseServer(addr, scheme string, defaultPort uint16) (Server, error) {
	s := strings.TrimSpace(addr)
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, s = strings.ToLower(s[:i]), s[i+3:]
		if j := strings.IndexAny(s, "/?#"); j >= 0 {
			s = s[:j]
		}
	}
	if scheme != "http" && scheme != "https" {
		return Server{}, fmt.Errorf("rtcjs: %q: a server's web address is http or https, not %q", addr, scheme)
	}
	host, port := s, defaultPort
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return Server{}, fmt.Errorf("rtcjs: %q: bad port %q", addr, p)
		}
		host, port = h, uint16(n)
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	} else if strings.Count(s, ":") == 1 {
		return Server{}, fmt.Errorf("rtcjs: %q: %v", addr, err)
	}
	if port == 0 {
		return Server{}, fmt.Errorf("rtcjs: %q: no port", addr)
	}
	var ip netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Server{}, fmt.Errorf("rtcjs: %q: a page cannot reach a zoned address", addr)
		}
		ip = a.Unmap()
		host = ip.String()
	} else {
		if err := checkHostName(host); err != nil {
			return Server{}, fmt.Errorf("rtcjs: %q: %w", addr, err)
		}
		host = strings.ToLower(host)
		if host == "localhost" {
			ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		} else {
			ip = NameAddr(host)
		}
	}
	hp := net.JoinHostPort(host, strconv.Itoa(int(port)))
	return Server{URL: scheme + "://" + hp + "/rtc", Addr: netip.AddrPortFrom(ip, port), Label: hp}, nil
}

// ParseConnect is ParseServer for a connect argument: its port is
// netchan.DefaultPort (27960, a server's default web port) when it has
// none, and its scheme the page's pageScheme ("http:" or "https:", as
// location.protocol gives it), so that a page fetched over HTTPS does
// not ask for plain HTTP, which the browser would block.
func ParseConnect(addr, pageScheme string) (Server, error) {
	scheme := "http"
	if strings.EqualFold(strings.TrimSuffix(pageScheme, ":"), "https") {
		scheme = "https"
	}
	return ParseServer(addr, scheme, netchan.DefaultPort)
}

// ParseOrigin returns the server of a page's own origin: its
// location.protocol ("http:" or "https:") and location.host ("host" or
// "host:port"), the port the scheme's when the host has none.
func ParseOrigin(protocol, host string) (Server, error) {
	scheme := strings.ToLower(strings.TrimSuffix(protocol, ":"))
	port := uint16(80)
	if scheme == "https" {
		port = 443
	}
	if host == "" {
		return Server{}, errors.New("rtcjs: the page has no host (opened from a file?)")
	}
	return ParseServer(host, scheme, port)
}

// checkHostName refuses what is not a host name.
func checkHostName(h string) error {
	if h == "" {
		return errors.New("no host")
	}
	if len(h) > MaxHostLen {
		return errors.New("host name too long")
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return fmt.Errorf("%q is not a host name", h)
		}
	}
	if h[0] == '.' || h[0] == '-' || strings.Contains(h, "..") {
		return fmt.Errorf("%q is not a host name", h)
	}
	return nil
}
