package rtc

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"tremor/net/netchan"
)

// Start opens a server's web port beside its UDP game socket udp, as
// sv_webPort and sv_webDir say: webPort -1 takes the game port's
// number, 0 returns udp unchanged and a nil Transport. Otherwise the
// returned Conn (the Transport's) is what the server engine must read
// and write, since ICE shares the game port; the Transport owns udp
// from then on. line is what to print: "students open URL".
func Start(udp *netchan.UDPConn, webPort int, webDir string, logf func(format string, args ...any)) (conn netchan.Conn, t *Transport, line string, err error) {
	return StartWith(udp, StartOptions{WebPort: webPort, WebDir: webDir}, logf)
}

// StartOptions are StartWith's settings.
type StartOptions struct {
	WebPort int    // sv_webPort: -1 the game port's number, 0 off
	WebDir  string // sv_webDir
	// ICEPort is sv_webICEPort: 0 (or the game port's number) runs ICE
	// over the game socket (Config.SharedPort); another number gives
	// ICE a UDP socket of its own on that port of the game socket's
	// address.
	ICEPort int
}

// StartWith is Start with a choice of ICE port.
func StartWith(udp *netchan.UDPConn, o StartOptions, logf func(format string, args ...any)) (conn netchan.Conn, t *Transport, line string, err error) {
	webPort, webDir := o.WebPort, o.WebDir
	if webPort == 0 {
		return udp, nil, "", nil
	}
	local := udp.LocalAddr()
	if webPort < 0 {
		webPort = int(local.Port())
	}
	host := ""
	if a := local.Addr(); a.IsValid() && !a.IsUnspecified() {
		host = a.String()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(webPort)))
	if err != nil {
		return udp, nil, "", fmt.Errorf("rtc: web port: %w (sv_webPort 0 goes without browser players)", err)
	}
	cfg := Config{SharedPort: true, Logf: logf}
	if o.ICEPort > 0 && o.ICEPort != int(local.Port()) {
		cfg.SharedPort = false
		cfg.ICEAddr = net.JoinHostPort(host, strconv.Itoa(o.ICEPort))
	}
	t, err = Listen(udp, cfg)
	if err != nil {
		ln.Close()
		return udp, nil, "", err
	}
	dir := webDir
	if dir == "" {
		dir = FindWebDir()
	}
	addr := t.Serve(ln, dir)
	port := webPort
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = ta.Port
	}
	where := dir
	if where == "" {
		where = "no web folder: run make web"
	}
	ice := ""
	if !cfg.SharedPort {
		ice = fmt.Sprintf(", ICE on UDP %d", t.ICEAddr().Port())
	}
	t.url = "http://" + net.JoinHostPort(LANAddr(local.Addr()).String(), strconv.Itoa(port)) + "/"
	line = fmt.Sprintf("students open %s (web port TCP %d%s, serving %s)", t.url, port, ice, where)
	return t.Conn(), t, line, nil
}

// URL returns the address students open to join from a browser
// ("http://192.168.1.20:27960/"), when Start served the page; "" for a
// transport Listen made.
func (t *Transport) URL() string { return t.url }

// LANAddr returns the address students reach a server bound to bound
// at: bound itself unless it is unspecified, else this machine's first
// private IPv4 address, else its first non-loopback one, else 127.0.0.1.
func LANAddr(bound netip.Addr) netip.Addr {
	if bound.IsValid() && !bound.IsUnspecified() {
		return bound.Unmap()
	}
	addrs, _ := net.InterfaceAddrs()
	var other netip.Addr
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(ipn.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if !ip.Is4() || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			continue
		}
		if ip.IsPrivate() {
			return ip
		}
		if !other.IsValid() {
			other = ip
		}
	}
	if other.IsValid() {
		return other
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// Sized returns c made a netchan.FragmentSizer that answers as t's Conn
// does: for a Conn that joins t's with others (the window client's
// embedded server multiplexes it with its loopback player) and would
// hide it.
func (t *Transport) Sized(c netchan.Conn) netchan.Conn { return sizedConn{c, t} }

type sizedConn struct {
	netchan.Conn
	t *Transport
}

func (s sizedConn) FragmentSize(to netip.AddrPort) int { return s.t.fragmentSize(to) }
