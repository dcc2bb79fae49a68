package oob

// The master server protocol, as dpmaster documents it (doc/techinfo.txt)
// and Quake III, ioquake3 and qstat speak it: a server announces itself
// with a heartbeat, the master checks it with a getinfo challenge, and a
// browser asks the master for the list with getservers or getserversExt.

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// Master server command names. Like the others, they are matched
// ignoring case.
const (
	CmdHeartbeat             = "heartbeat"
	CmdGetServers            = "getservers"
	CmdGetServersExt         = "getserversExt"
	CmdGetServersResponse    = "getserversResponse"
	CmdGetServersExtResponse = "getserversExtResponse"
)

// Master protocol constants.
const (
	// MasterPort is the UDP port a master listens on unless told
	// otherwise (dpmaster's and Quake III's 27950).
	MasterPort = 27950

	// GameName is Tremor's game name in the dpmaster protocol: the
	// "gamename" of its infoResponse and the game of its getservers
	// requests.
	GameName = "Tremor"

	// HeartbeatQuake3 is the protocol string of Quake III's heartbeat,
	// "heartbeat QuakeArena-1".
	HeartbeatQuake3 = "QuakeArena-1"

	// HeartbeatDarkPlaces is the protocol string of dpmaster's own
	// protocol, in which the infoResponse must carry a gamename. Tremor
	// servers send it.
	HeartbeatDarkPlaces = "DarkPlaces"

	// MaxNameLen is the longest heartbeat protocol string or getservers
	// game name accepted.
	MaxNameLen = 64

	// ServerEntryLen is the size of one IPv4 server in a
	// getserversResponse: '\', 4 address bytes, 2 port bytes.
	ServerEntryLen = 1 + 4 + 2

	// ServerEntry6Len is the size of one IPv6 server in a
	// getserversExtResponse: '/', 16 address bytes, 2 port bytes.
	ServerEntry6Len = 1 + 16 + 2
)

// eot is the fake IPv4 server that ends the last packet of a server list
// ("End Of Transmission"), after its '\'.
const eot = "EOT\x00\x00\x00"

// checkName checks a heartbeat protocol string or a game name: 1 to
// MaxNameLen printable ASCII bytes other than space, so that it is one
// token and safe to log.
func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("oob: %s is empty", what)
	}
	if len(s) > MaxNameLen {
		return fmt.Errorf("oob: %s is %d bytes, limit %d", what, len(s), MaxNameLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' {
			return fmt.Errorf("oob: %s contains byte %#02x", what, c)
		}
	}
	return nil
}

// FormatHeartbeat returns the text of a heartbeat, "heartbeat
// <protocol>\n", with the line feed Quake III and DarkPlaces end it with.
// protocol is [HeartbeatQuake3] or [HeartbeatDarkPlaces] (what dpmaster
// recognises); it must pass the checks of [ParseHeartbeat].
func FormatHeartbeat(protocol string) string {
	return CmdHeartbeat + " " + protocol + "\n"
}

// ParseHeartbeat reads a heartbeat and returns its protocol string: one
// token of 1 to [MaxNameLen] printable ASCII bytes. Further tokens are
// ignored. A heartbeat without a protocol string is an error.
func ParseHeartbeat(text string) (protocol string, err error) {
	line, err := expect(text, CmdHeartbeat)
	if err != nil {
		return "", err
	}
	protocol = argv1(line)
	if err := checkName("heartbeat protocol string", protocol); err != nil {
		return "", err
	}
	return protocol, nil
}

// GetServers is a server list request: Quake III's "getservers PROTOCOL
// [options]", dpmaster's "getservers GAME PROTOCOL [options]" or
// "getserversExt GAME PROTOCOL [options]". Options are "empty" and "full"
// (list empty and full servers too) and, in getserversExt, "ipv4" and
// "ipv6" (list only servers of the named address families; naming
// neither lists both). Other options, such as dpmaster's gametype
// filters, are ignored.
type GetServers struct {
	// Ext is true for getserversExt, which is answered with a
	// getserversExtResponse that can carry IPv6 servers.
	Ext bool
	// Game is the game name, "" in the Quake III form of getservers. It
	// is required in getserversExt.
	Game string
	// Protocol is the protocol version the servers must speak.
	Protocol int
	// Empty and Full ask for empty and full servers as well as the
	// others.
	Empty, Full bool
	// IPv4 and IPv6 are the address families asked for in a
	// getserversExt; both false means both.
	IPv4, IPv6 bool
}

// WantsIPv4 reports whether the request lists IPv4 servers: a getservers
// always does, a getserversExt unless it names only "ipv6".
func (q GetServers) WantsIPv4() bool { return !q.Ext || q.IPv4 || !q.IPv6 }

// WantsIPv6 reports whether the request lists IPv6 servers: only a
// getserversExt does, unless it names only "ipv4".
func (q GetServers) WantsIPv6() bool { return q.Ext && (q.IPv6 || !q.IPv4) }

// FormatGetServers returns the text of q: "getservers 3 empty full" for
// Quake III's form (Game empty), "getservers Tremor 3 full" for
// dpmaster's, "getserversExt Tremor 3 ipv6 empty" for the extended form.
// Options are written in the order ipv4, ipv6, empty, full. The game
// name, when present, must pass the checks of [ParseGetServers].
func FormatGetServers(q GetServers) string {
	var b strings.Builder
	if q.Ext {
		b.WriteString(CmdGetServersExt)
	} else {
		b.WriteString(CmdGetServers)
	}
	if q.Game != "" || q.Ext {
		b.WriteByte(' ')
		b.WriteString(q.Game)
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(q.Protocol))
	for _, o := range []struct {
		on   bool
		name string
	}{{q.Ext && q.IPv4, "ipv4"}, {q.Ext && q.IPv6, "ipv6"}, {q.Empty, "empty"}, {q.Full, "full"}} {
		if o.on {
			b.WriteByte(' ')
			b.WriteString(o.name)
		}
	}
	return b.String()
}

// ParseGetServers reads a getservers or getserversExt request. In a
// getservers, a first argument that is a decimal number is the protocol
// (Quake III's form); otherwise it is the game name and the protocol
// follows (dpmaster's form). A getserversExt always has the game name
// first. The protocol is a non-negative 32-bit decimal integer; the game
// name 1 to [MaxNameLen] printable ASCII bytes. Option names are matched
// ignoring case; unknown options are ignored.
func ParseGetServers(text string) (GetServers, error) {
	var q GetServers
	line, _ := firstLine(text)
	if len(line) > cmdargs.MaxStringChars {
		return q, fmt.Errorf("oob: getservers line is %d bytes, limit %d", len(line), cmdargs.MaxStringChars)
	}
	cmd := Command(line)
	switch {
	case infostr.EqualFold(cmd, CmdGetServersExt):
		q.Ext = true
	case infostr.EqualFold(cmd, CmdGetServers):
	default:
		return q, fmt.Errorf("oob: command is %q, want %q or %q", cmd, CmdGetServers, CmdGetServersExt)
	}
	name := cmd
	_, next, _ := cmdargs.NextToken(line, 0)
	arg, next, ok := cmdargs.NextToken(line, next)
	if !ok {
		return q, fmt.Errorf("oob: %s without protocol", name)
	}
	if _, err := strconv.Atoi(arg); err != nil || q.Ext {
		if err := checkName(name+" game name", arg); err != nil {
			return q, err
		}
		q.Game = arg
		if arg, next, ok = cmdargs.NextToken(line, next); !ok {
			return q, fmt.Errorf("oob: %s without protocol", name)
		}
	}
	p, err := strconv.ParseInt(arg, 10, 32)
	if err != nil || p < 0 {
		return q, fmt.Errorf("oob: %s protocol %q is not a non-negative 32-bit integer", name, arg)
	}
	q.Protocol = int(p)
	for {
		arg, next, ok = cmdargs.NextToken(line, next)
		if !ok {
			break
		}
		switch {
		case infostr.EqualFold(arg, "empty"):
			q.Empty = true
		case infostr.EqualFold(arg, "full"):
			q.Full = true
		case q.Ext && infostr.EqualFold(arg, "ipv4"):
			q.IPv4 = true
		case q.Ext && infostr.EqualFold(arg, "ipv6"):
			q.IPv6 = true
		}
	}
	return q, nil
}

// AppendServersResponse appends one getserversResponse packet (or, when
// ext is true, one getserversExtResponse packet) to dst and returns the
// extended slice: the marker, the command name, each server of addrs in
// order, and the EOT marker if eot is true. An IPv4 server (or an
// IPv4-mapped IPv6 one) is written as '\', 4 address bytes and the port,
// big-endian; an IPv6 server as '/', 16 address bytes and the port, and
// only when ext is true: a getserversResponse cannot carry IPv6, so those
// are left out of it. AppendServersResponse writes all of addrs whatever
// the size; [SplitServersResponse] keeps each packet within a limit.
func AppendServersResponse(dst []byte, ext bool, addrs []netip.AddrPort, eot bool) []byte {
	dst = append(dst, Marker...)
	if ext {
		dst = append(dst, CmdGetServersExtResponse...)
	} else {
		dst = append(dst, CmdGetServersResponse...)
	}
	for _, a := range addrs {
		dst = appendServer(dst, ext, a)
	}
	if eot {
		dst = appendEOT(dst)
	}
	return dst
}

func appendEOT(dst []byte) []byte {
	dst = append(dst, '\\')
	return append(dst, eot...)
}

// entryLen returns the bytes a in a response takes, 0 if it cannot be
// written.
func entryLen(ext bool, a netip.AddrPort) int {
	switch ip := a.Addr(); {
	case ip.Is4() || ip.Is4In6():
		return ServerEntryLen
	case ext && ip.Is6():
		return ServerEntry6Len
	}
	return 0
}

func appendServer(dst []byte, ext bool, a netip.AddrPort) []byte {
	ip := a.Addr().Unmap()
	switch {
	case ip.Is4():
		dst = append(dst, '\\')
		b := ip.As4()
		dst = append(dst, b[:]...)
	case ext && ip.Is6():
		dst = append(dst, '/')
		b := ip.As16()
		dst = append(dst, b[:]...)
	default:
		return dst
	}
	return append(dst, byte(a.Port()>>8), byte(a.Port()))
}

// SplitServersResponse returns the packets of a server list answering a
// getservers (ext false) or getserversExt (ext true): addrs in order,
// as many per packet as fit in maxLen bytes, the last packet ending with
// the EOT marker, as dpmaster 2 does. maxLen of 0 means [MaxPacketLen];
// a maxLen too small for one server and the EOT marker is raised to fit
// them. An empty list is one packet holding only the EOT marker. Servers
// a getserversResponse cannot carry (IPv6 when ext is false) and invalid
// addresses are left out.
func SplitServersResponse(ext bool, addrs []netip.AddrPort, maxLen int) [][]byte {
	head := len(Marker) + len(CmdGetServersResponse)
	if ext {
		head = len(Marker) + len(CmdGetServersExtResponse)
	}
	if maxLen <= 0 {
		maxLen = MaxPacketLen
	}
	maxLen = max(maxLen, head+ServerEntry6Len+1+len(eot))
	var packets [][]byte
	for {
		p := AppendServersResponse(make([]byte, 0, maxLen), ext, nil, false)
		for len(addrs) > 0 {
			n := entryLen(ext, addrs[0])
			if len(p)+n > maxLen {
				break
			}
			p = appendServer(p, ext, addrs[0])
			addrs = addrs[1:]
		}
		if len(addrs) == 0 && len(p)+1+len(eot) <= maxLen {
			return append(packets, appendEOT(p))
		}
		packets = append(packets, p)
	}
}

// ServersResponse is one parsed getserversResponse or
// getserversExtResponse packet.
type ServersResponse struct {
	// Ext is true for a getserversExtResponse.
	Ext bool
	// Addrs are the servers in the packet, in order.
	Addrs []netip.AddrPort
	// EOT is true if the packet ends with the EOT marker: it is the last
	// of the list.
	EOT bool
}

// ParseServersResponse reads a received getserversResponse or
// getserversExtResponse packet, marker included (these packets are
// binary, so they do not go through [Parse]). After the command name
// come servers: '\' and 6 bytes for IPv4, and in the Ext form '/' and 18
// bytes for IPv6. The list may end with the EOT marker '\' "EOT", which
// some masters follow with up to three NUL bytes and nothing else. A
// server with port 0 or an unspecified address, a truncated server, an
// unknown separator, anything after the EOT marker or a packet over
// [MaxReceivedLen] bytes is an error, and the packet should be dropped.
func ParseServersResponse(packet []byte) (ServersResponse, error) {
	var r ServersResponse
	if !IsConnectionless(packet) {
		return r, errNoMarker
	}
	if len(packet) > MaxReceivedLen {
		return r, fmt.Errorf("oob: packet of %d bytes exceeds the %d-byte limit", len(packet), MaxReceivedLen)
	}
	body := packet[len(Marker):]
	name := CmdGetServersResponse
	switch {
	case hasPrefixFold(body, CmdGetServersExtResponse):
		r.Ext, name = true, CmdGetServersExtResponse
	case hasPrefixFold(body, CmdGetServersResponse):
	default:
		return r, errors.New("oob: not a getserversResponse or getserversExtResponse")
	}
	pos := len(Marker) + len(name)
	body = packet[pos:]
	for len(body) > 0 {
		switch sep := body[0]; {
		case sep == '\\' && isEOT(body[1:]):
			r.EOT = true
			return r, nil
		case sep == '\\':
			if len(body) < ServerEntryLen {
				return ServersResponse{}, fmt.Errorf("oob: %s: truncated IPv4 server at offset %d", name, pos)
			}
			ip := netip.AddrFrom4([4]byte(body[1:5]))
			if err := r.add(ip, body[5:7], name, pos); err != nil {
				return ServersResponse{}, err
			}
			body, pos = body[ServerEntryLen:], pos+ServerEntryLen
		case sep == '/' && r.Ext:
			if len(body) < ServerEntry6Len {
				return ServersResponse{}, fmt.Errorf("oob: %s: truncated IPv6 server at offset %d", name, pos)
			}
			// An IPv4-mapped address is the IPv4 server, unmapped as
			// every address the package returns is.
			ip := netip.AddrFrom16([16]byte(body[1:17])).Unmap()
			if err := r.add(ip, body[17:19], name, pos); err != nil {
				return ServersResponse{}, err
			}
			body, pos = body[ServerEntry6Len:], pos+ServerEntry6Len
		default:
			return ServersResponse{}, fmt.Errorf("oob: %s: unexpected byte %#02x at offset %d", name, sep, pos)
		}
	}
	return r, nil
}

func (r *ServersResponse) add(ip netip.Addr, port []byte, name string, pos int) error {
	p := uint16(port[0])<<8 | uint16(port[1])
	if p == 0 || ip.IsUnspecified() {
		return fmt.Errorf("oob: %s: server %v port %d at offset %d", name, ip, p, pos)
	}
	r.Addrs = append(r.Addrs, netip.AddrPortFrom(ip, p))
	return nil
}

// isEOT reports whether b, what follows a '\', is the EOT marker ending
// the packet: "EOT" and up to three NUL bytes.
func isEOT(b []byte) bool {
	if len(b) < 3 || string(b[:3]) != "EOT" || len(b) > len(eot) {
		return false
	}
	for _, c := range b[3:] {
		if c != 0 {
			return false
		}
	}
	return true
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && infostr.EqualFold(string(b[:len(prefix)]), prefix)
}
