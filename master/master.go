// Package master is Tremor's master server: game servers announce
// themselves to it with heartbeats, and browsers (the client's Internet
// tab, qstat) ask it for the list. It speaks dpmaster's protocol (see
// net/oob's servers.go and docs/master.md), so existing tools work.
//
// A heartbeat is answered with "getinfo CHALLENGE", sent to the
// heartbeat's source address and port; the server is listed only once an
// infoResponse from that same address and port carries the challenge, so
// nobody can list an address it does not receive packets at. Challenges
// are stateless (a keyed hash of the address, port and time, package
// net/srclimit), so a flood of forged heartbeats fills no table. A listed
// server stays listed for Config.Timeout after each verified
// infoResponse. A heartbeat from a server already listed makes the
// master ask it again, but an unanswered getinfo removes nothing: a
// server leaves the list only by timing out, as in dpmaster, because
// anyone can forge a heartbeat and may be able to keep the server's
// answer from arriving.
//
// getservers and getserversExt are answered with the listed servers that
// match, split across packets, the last ending with the EOT marker. Every
// table is bounded, heartbeats are limited per address and port, the
// other requests per source (IPv4 address or IPv6 /64), and the answers to getservers, larger than the
// requests, also spend a global budget that in a flood lets out no more
// bytes than came in, shared out by network (IPv4 /24, IPv6 /48).
//
// A Master is a state machine driven by [Master.Packet] and
// [Master.Tick] with a millisecond clock passed in; [Master.Serve] runs it
// on a socket with the wall clock.
package master

import (
	"context"
	crand "crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
	"tremor/net/srclimit"
)

// Limits. docs/master.md explains each.
const (
	// DefaultTimeout is how long a server stays listed after its last
	// verified infoResponse, as dpmaster's 15 minutes: a server
	// heartbeats every 5 minutes, so it survives two lost heartbeats.
	DefaultTimeout = 15 * time.Minute
	// DefaultMaxServers bounds the list.
	DefaultMaxServers = 4096
	// DefaultMaxPerSource bounds the servers one source (IPv4 address or
	// IPv6 /64) may list: a fleet host runs a few dozen.
	DefaultMaxPerSource = 32
	// DefaultMaxPerBlock bounds the servers one IPv4 /24 or IPv6 /48
	// (srclimit.Block) may list: four full fleet hosts. One customer's
	// IPv6 /56 or /48 holds hundreds of /64 sources, each allowed
	// DefaultMaxPerSource, and would fill the list without it; with it,
	// filling the default list takes 32 such blocks.
	DefaultMaxPerBlock = 128

	// ChallengeEpoch is the length in milliseconds of a challenge epoch:
	// a getinfo challenge is valid in its epoch and the next, so a server
	// has between 10 and 20 seconds to answer.
	ChallengeEpoch = 10_000
	// ChallengeLen is the length of a challenge: 64 bits in base64 (the
	// URL alphabet, whose characters dpmaster allows in challenges). It
	// makes a getinfo packet of 24 bytes, smaller than the heartbeats of
	// Quake III (27 bytes) and DarkPlaces (25).
	ChallengeLen = 11

	// HeartbeatBurst and HeartbeatPeriod limit heartbeats per address
	// and port: HeartbeatBurst at once (a map load, the final heartbeat
	// sent twice), then one every HeartbeatPeriod ms. Each costs one
	// getinfo no larger than itself, sent to that address and port. The
	// port counts, unlike in the other limits, so that heartbeats forged
	// from a server's address on another port cannot use up its own
	// allowance; forged ones from its very address and port only make
	// the master ask the real server, whose answer keeps it listed.
	HeartbeatBurst  = 2
	HeartbeatPeriod = 1000
	// QueryBurst and QueryPeriod limit getservers and getserversExt per
	// source: a browser asks twice a refresh (the client's Internet tab
	// sends getservers and getserversExt), then waits.
	QueryBurst  = 2
	QueryPeriod = 2000
	// AnswerPackets is the most packets of one answer sent at once, and
	// then a second (from Tick) while the rest of a long list waits: a
	// forged getservers brings its victim at most AnswerPackets packets
	// a second. 8 packets hold 1568 IPv4 servers, so every list shorter
	// than that goes at once.
	AnswerPackets = 8
	// MaxPending bounds the answers waiting to send the rest of a long
	// list; when it is full, a long answer stops after its first
	// AnswerPackets packets, without the EOT marker.
	MaxPending = 256
	// FloodPackets getservers a second, from all sources together, make
	// a flood: then the answers since it began add up to no more bytes
	// than the requests (srclimit.FloodBudget, starting even: the
	// answers before it, paid from the quiet budget, are not owed), and
	// each IPv4 /24 or IPv6 /48 (srclimit.Block) is answered once per
	// QueryPeriod, so forged requests from one network cannot spend the
	// whole budget before a browser elsewhere asks. Below it, answers
	// spend QuietBurst bytes at once and QuietRate a second.
	FloodPackets = 100
	QuietBurst   = 64 << 10
	QuietRate    = 32 << 10
	// MaxSources bounds each per-source table; when one is full of
	// sources still limited, new sources are not heard.
	MaxSources = 65536

	// LogLines is the most status log lines a second; the others are
	// counted and the count is logged with the next line.
	LogLines = 20
)

// Config holds a master's settings.
type Config struct {
	Timeout      time.Duration // how long a server stays listed after its last verified infoResponse
	MaxServers   int           // most servers listed
	MaxPerSource int           // most servers listed from one IPv4 address or IPv6 /64
	MaxPerBlock  int           // most servers listed from one IPv4 /24 or IPv6 /48
	// Key keys the challenges; nil draws a random one.
	Key []byte
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{Timeout: DefaultTimeout, MaxServers: DefaultMaxServers, MaxPerSource: DefaultMaxPerSource, MaxPerBlock: DefaultMaxPerBlock}
}

// Server is a listed server, as its last verified infoResponse described
// it.
type Server struct {
	Addr       netip.AddrPort
	Protocol   int
	Game       string // gamename; "" for a Quake III server
	Hostname   string
	Map        string
	Clients    int // clients, bots included (the "clients" key)
	MaxClients int
	GameType   int

	expires int32 // time the server leaves the list
}

// Stats counts what a master did.
type Stats struct {
	Heartbeats, Registered, Refreshed, Expired int
	Refused                                    int // heartbeats and infoResponses refused (bad, limits)
	Queries, QueriesLimited                    int // getservers received, and those refused or cut short
	BytesIn, BytesOut                          int64
	BadPackets                                 int
}

// Master is a master server's state. It is not safe for concurrent use:
// one goroutine drives it.
type Master struct {
	cfg     Config
	send    func(to netip.AddrPort, p []byte)
	log     io.Writer
	servers map[netip.AddrPort]*Server
	sources map[netip.Addr]int // listed servers per source
	blocks  map[netip.Addr]int // listed servers per block

	challenger     srclimit.Challenger
	heartbeatLimit srclimit.Limiter[netip.AddrPort] // per address and port
	queryLimit     srclimit.Limiter[netip.Addr]
	floodLimit     srclimit.Limiter[netip.Addr] // getservers per Block in a flood
	budget         srclimit.FloodBudget
	pending        []pendingAnswer // long answers still sending

	logSecond int32
	logLines  int
	unlogged  int

	stats Stats
	buf   []byte
}

// New returns a master with settings cfg that sends packets with send
// and writes its status log to log (nil: no log).
func New(cfg Config, send func(to netip.AddrPort, p []byte), log io.Writer) *Master {
	if log == nil {
		log = io.Discard
	}
	key := cfg.Key
	if key == nil {
		key = make([]byte, 32)
		_, _ = crand.Read(key)
	}
	return &Master{
		cfg:            cfg,
		send:           send,
		log:            log,
		servers:        make(map[netip.AddrPort]*Server),
		sources:        make(map[netip.Addr]int),
		blocks:         make(map[netip.Addr]int),
		challenger:     srclimit.NewChallenger(key, ChallengeEpoch),
		heartbeatLimit: srclimit.NewLimiter[netip.AddrPort](HeartbeatBurst, HeartbeatPeriod, MaxSources),
		queryLimit:     srclimit.NewLimiter[netip.Addr](QueryBurst, QueryPeriod, MaxSources),
		floodLimit:     srclimit.NewLimiter[netip.Addr](1, QueryPeriod, MaxSources),
		budget:         srclimit.FloodBudget{FloodPackets: FloodPackets, QuietBurst: QuietBurst, QuietRate: QuietRate, StartEven: true},
	}
}

// SetConfig changes the settings (a console changed a cvar). A smaller
// limit removes no listed server; it refuses new ones until the list is
// back under it. Key is ignored.
func (m *Master) SetConfig(cfg Config) {
	cfg.Key = nil
	m.cfg = cfg
}

// Stats returns the counts so far.
func (m *Master) Stats() Stats { return m.stats }

// Servers returns the listed servers, sorted by address.
func (m *Master) Servers() []Server {
	list := make([]Server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, *s)
	}
	slices.SortFunc(list, func(a, b Server) int { return a.Addr.Compare(b.Addr) })
	return list
}

// Packet handles one packet received from from at time now (ms).
func (m *Master) Packet(now int32, from netip.AddrPort, data []byte) {
	m.stats.BytesIn += int64(len(data))
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	text, err := oob.Parse(data)
	if err != nil {
		m.stats.BadPackets++
		return
	}
	switch cmd := oob.Command(text); {
	case strings.EqualFold(cmd, oob.CmdHeartbeat):
		m.heartbeat(now, from, text, len(data))
	case strings.EqualFold(cmd, oob.CmdInfoResponse):
		m.infoResponse(now, from, text)
	case strings.EqualFold(cmd, oob.CmdGetServers), strings.EqualFold(cmd, oob.CmdGetServersExt):
		m.getServers(now, from, text, len(data))
	default:
		m.stats.BadPackets++
	}
}

// Tick removes the servers whose time is up and sends the next packets
// of long answers. Call it about once a second.
func (m *Master) Tick(now int32) {
	for addr, s := range m.servers {
		if now-s.expires >= 0 {
			m.remove(addr)
			m.stats.Expired++
			m.logf(now, "%s: expired (no verified heartbeat for %v)", addr, m.cfg.Timeout)
		}
	}
	kept := m.pending[:0]
	for _, a := range m.pending {
		if d := now - a.at; d >= 1000 || d < 0 {
			a.at = now
			if !m.answer(now, &a) {
				continue
			}
		}
		kept = append(kept, a)
	}
	clear(m.pending[len(kept):])
	m.pending = kept
}

func (m *Master) remove(addr netip.AddrPort) {
	delete(m.servers, addr)
	src := srclimit.Source(addr)
	if m.sources[src]--; m.sources[src] <= 0 {
		delete(m.sources, src)
	}
	blk := srclimit.Block(addr)
	if m.blocks[blk]--; m.blocks[blk] <= 0 {
		delete(m.blocks, blk)
	}
}

// challenge returns the wire form of a challenge value.
func challengeText(v uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (m *Master) sendGetInfo(now int32, to netip.AddrPort) int {
	m.buf = oob.AppendPacket(m.buf[:0], oob.FormatGetInfo(challengeText(m.challenger.Make(to, now))))
	m.stats.BytesOut += int64(len(m.buf))
	m.send(to, m.buf)
	return len(m.buf)
}

// getInfoLen is the size of every getinfo the master sends.
const getInfoLen = len(oob.Marker) + len(oob.CmdGetInfo) + 1 + ChallengeLen + 1

func (m *Master) heartbeat(now int32, from netip.AddrPort, text string, size int) {
	m.stats.Heartbeats++
	if !m.heartbeatLimit.Allow(from, now) {
		m.refuse(now, "%s: heartbeat refused: too many from that address and port", from)
		return
	}
	protocol, err := oob.ParseHeartbeat(text)
	if err != nil {
		m.refuse(now, "%s: heartbeat refused: %v", from, err)
		return
	}
	if size < getInfoLen {
		// The getinfo goes to an address not yet verified: it may not
		// be larger than what that address sent.
		m.refuse(now, "%s: heartbeat refused: %d bytes, shorter than the %d-byte getinfo it would cause", from, size, getInfoLen)
		return
	}
	if _, ok := m.servers[from]; ok {
		// Ask again; the answer refreshes the entry, and no answer
		// leaves it to time out (a heartbeat may be forged).
		m.sendGetInfo(now, from)
		return
	}
	if err := m.room(from); err != nil {
		m.refuse(now, "%s: heartbeat %s refused: %v", from, protocol, err)
		return
	}
	m.sendGetInfo(now, from)
}

// room reports why a new server at addr cannot be listed, or nil.
func (m *Master) room(addr netip.AddrPort) error {
	if len(m.servers) >= m.cfg.MaxServers {
		return fmt.Errorf("the list is full (%d servers)", m.cfg.MaxServers)
	}
	if n := m.sources[srclimit.Source(addr)]; n >= m.cfg.MaxPerSource {
		return fmt.Errorf("%d servers listed from that address already", n)
	}
	if n := m.blocks[srclimit.Block(addr)]; n >= m.cfg.MaxPerBlock {
		return fmt.Errorf("%d servers listed from that network already", n)
	}
	return nil
}

func (m *Master) validChallenge(from netip.AddrPort, ch string, now int32) bool {
	if len(ch) != ChallengeLen {
		return false
	}
	a := challengeText(m.challenger.Make(from, now))
	b := challengeText(m.challenger.Previous(from, now))
	return subtle.ConstantTimeCompare([]byte(a), []byte(ch))|subtle.ConstantTimeCompare([]byte(b), []byte(ch)) == 1
}

func (m *Master) infoResponse(now int32, from netip.AddrPort, text string) {
	info, err := oob.ParseInfoResponse(text)
	if err != nil {
		m.refuse(now, "%s: infoResponse refused: %v", from, err)
		return
	}
	if !m.validChallenge(from, infostr.ValueForKey(info, "challenge"), now) {
		m.refuse(now, "%s: infoResponse refused: wrong or old challenge", from)
		return
	}
	s, err := parseServerInfo(from, info)
	if err != nil {
		m.refuse(now, "%s: infoResponse refused: %v", from, err)
		return
	}
	s.expires = now + int32(m.cfg.Timeout.Milliseconds())
	if old, ok := m.servers[from]; ok {
		*old = s
		m.stats.Refreshed++
		return
	}
	if err := m.room(from); err != nil {
		m.refuse(now, "%s: not listed: %v", from, err)
		return
	}
	m.servers[from] = &s
	m.sources[srclimit.Source(from)]++
	m.blocks[srclimit.Block(from)]++
	m.stats.Registered++
	m.logf(now, "%s: listed: %q, map %s, game %s, protocol %d, %d/%d clients (%d servers)",
		from, s.Hostname, s.Map, cmpOr(s.Game, "-"), s.Protocol, s.Clients, s.MaxClients, len(m.servers))
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// parseServerInfo reads what the master keeps of an infoResponse's info
// string. As dpmaster requires, protocol, clients and sv_maxclients
// (not 0) must be there; gametype defaults to 0.
func parseServerInfo(from netip.AddrPort, info string) (Server, error) {
	s := Server{Addr: from}
	num := func(key string, min int, required bool) (int, error) {
		v := infostr.ValueForKey(info, key)
		if v == "" && !required {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < min || n > 1<<20 {
			return 0, fmt.Errorf("%s %q is not a number from %d", key, v, min)
		}
		return n, nil
	}
	var err error
	if s.Protocol, err = num("protocol", 0, true); err != nil {
		return s, err
	}
	if s.Clients, err = num("clients", 0, true); err != nil {
		return s, err
	}
	if s.MaxClients, err = num("sv_maxclients", 1, true); err != nil {
		return s, err
	}
	if s.GameType, err = num("gametype", 0, false); err != nil {
		return s, err
	}
	s.Game = infostr.ValueForKey(info, "gamename")
	if strings.ContainsAny(s.Game, " \t") {
		return s, fmt.Errorf("gamename %q holds whitespace", s.Game)
	}
	s.Hostname = printable(infostr.ValueForKey(info, "hostname"), 64)
	s.Map = printable(infostr.ValueForKey(info, "mapname"), 64)
	s.Game = printable(s.Game, oob.MaxNameLen)
	return s, nil
}

// printable returns s cut to n bytes with bytes outside printable ASCII
// replaced by '?', fit for the log.
func printable(s string, n int) string {
	b := []byte(s[:min(len(s), n)])
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '?'
		}
	}
	return string(b)
}

// Matches reports whether a server is in the answer to q: same protocol;
// the same game name, ignoring case; a query without one (Quake III's
// form, qstat's) asks for Tremor, as dpmaster maps such queries to one
// game, so it lists Tremor servers and those that gave no game name,
// not the other games of the same protocol (DarkPlaces' and Xonotic's
// also use 3); not empty (no
// clients, bots counting as clients as in Quake III's "clients") unless
// q asks for empty servers, not full unless it asks for full ones; and of
// an address family q asks for.
func Matches(s *Server, q oob.GetServers) bool {
	if s.Protocol != q.Protocol {
		return false
	}
	switch {
	case q.Game != "":
		if !strings.EqualFold(s.Game, q.Game) {
			return false
		}
	case s.Game != "" && !strings.EqualFold(s.Game, oob.GameName):
		return false
	}
	if s.Clients == 0 && !q.Empty || s.Clients >= s.MaxClients && !q.Full {
		return false
	}
	if s.Addr.Addr().Is4() {
		return q.WantsIPv4()
	}
	return q.WantsIPv6()
}

func (m *Master) getServers(now int32, from netip.AddrPort, text string, size int) {
	m.stats.Queries++
	m.budget.Received(now, size)
	if !m.queryLimit.Allow(srclimit.Source(from), now) {
		m.stats.QueriesLimited++
		return
	}
	q, err := oob.ParseGetServers(text)
	if err != nil {
		m.stats.BadPackets++
		return
	}
	if m.budget.Flooding() && !m.floodLimit.Allow(srclimit.Block(from), now) {
		m.stats.QueriesLimited++
		return
	}
	a := pendingAnswer{to: from, q: q, at: now}
	if !m.answer(now, &a) {
		return
	}
	if len(m.pending) >= MaxPending {
		m.stats.QueriesLimited++ // the rest of the list is not sent
		return
	}
	m.pending = append(m.pending, a)
}

// pendingAnswer is an answer to a getservers whose list is longer than
// AnswerPackets packets.
type pendingAnswer struct {
	to   netip.AddrPort
	q    oob.GetServers
	next int   // index of the next packet to send
	at   int32 // time the last packets went
}

// answer sends the next AnswerPackets packets of a's list, as the list
// is now, and reports whether more remain. It stops, reporting false,
// when the byte budget cannot pay for a packet.
func (m *Master) answer(now int32, a *pendingAnswer) bool {
	var addrs []netip.AddrPort
	for _, s := range m.servers {
		if Matches(s, a.q) {
			addrs = append(addrs, s.Addr)
		}
	}
	slices.SortFunc(addrs, netip.AddrPort.Compare)
	packets := oob.SplitServersResponse(a.q.Ext, addrs, oob.MaxPacketLen)
	for end := min(len(packets), a.next+AnswerPackets); a.next < end; a.next++ {
		p := packets[a.next]
		if !m.budget.Spend(now, len(p)) {
			m.stats.QueriesLimited++
			return false
		}
		m.stats.BytesOut += int64(len(p))
		m.send(a.to, p)
	}
	return a.next < len(packets)
}

// refuse counts a refusal and logs it.
func (m *Master) refuse(now int32, format string, args ...any) {
	m.stats.Refused++
	m.logf(now, format, args...)
}

// logf writes a status line, at most LogLines a second; the lines left
// out are counted in the next one written.
func (m *Master) logf(now int32, format string, args ...any) {
	if sec := now / 1000; sec != m.logSecond {
		m.logSecond, m.logLines = sec, 0
	}
	if m.logLines >= LogLines {
		m.unlogged++
		return
	}
	m.logLines++
	line := fmt.Sprintf(format, args...)
	if m.unlogged > 0 {
		line += fmt.Sprintf(" (%d lines left out before this one)", m.unlogged)
		m.unlogged = 0
	}
	fmt.Fprintln(m.log, line)
}

// Serve runs the master on conn until ctx is done, with the wall clock:
// it reads packets, hands them to Packet, and calls Tick every second.
// changes, if not nil, is polled every second for new settings.
func (m *Master) Serve(ctx context.Context, conn netchan.Conn, changes func() (Config, bool)) error {
	start := time.Now()
	clock := func() int32 { return int32(time.Since(start).Milliseconds()) }
	buf := make([]byte, oob.MaxReceivedLen+1)
	nextTick := clock() + 1000
	for ctx.Err() == nil {
		_ = conn.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		n, from, err := conn.ReadFrom(buf)
		now := clock()
		switch {
		case err == nil:
			m.Packet(now, from, buf[:n])
		case errors.Is(err, os.ErrDeadlineExceeded):
		case errors.Is(err, net.ErrClosed):
			return err
		}
		if now-nextTick >= 0 {
			nextTick = now + 1000
			if changes != nil {
				if cfg, ok := changes(); ok {
					m.SetConfig(cfg)
				}
			}
			m.Tick(now)
		}
	}
	return nil
}
