package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/netip"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
	"tremor/net/srclimit"
)

// Limits of connectionless packets (Quake III's SVC_RateLimit, keyed by
// source as Source says: IPv4 address or IPv6 /64, never the port).
// docs/security.md explains each and what it leaves an attacker.
const (
	// QueryBurst and QueryPeriod limit getinfo and getstatus per source:
	// QueryBurst answers at once, then one every QueryPeriod
	// milliseconds. A browser asks a server once or twice a refresh
	// (qstat run twice in a second is still answered at once); a spoofed
	// flood aimed at one victim gets it two answers a second.
	QueryBurst  = 4
	QueryPeriod = 500
	// QueryFloodPackets queries a second, from all sources together,
	// make a flood: then the answers of a second add up to no more bytes
	// than its queries (srclimit.FloodBudget). Below it, answers spend
	// QueryQuietBurst bytes at once and QueryQuietRate a second.
	QueryFloodPackets = 50
	QueryQuietBurst   = 8 << 10
	QueryQuietRate    = 8 << 10
	// MaxQuerySources bounds the per-source query table; when it is
	// full of sources still limited, new sources are not answered.
	MaxQuerySources = 16384
	// RefusalBurst and RefusalPeriod limit the prints that refuse a
	// connect (bad challenge, server full...) per source. The answers a
	// join needs, challengeResponse and connectResponse, have no limit.
	RefusalBurst  = 8
	RefusalPeriod = 250

	// RconBurst and RconPeriod limit rcon packets per source, whatever
	// their password (commands cost the server work).
	RconBurst  = 10
	RconPeriod = 100
	// RconFreeFailures is how many wrong passwords in a row a source may
	// send before it backs off: its next attempt is ignored, without
	// being compared, for RconBackoff ms, doubling with each further
	// failure up to RconMaxBackoff. A right password clears the count.
	RconFreeFailures = 3
	RconBackoff      = 1000
	RconMaxBackoff   = 60_000
	// RconFailureMemory is how long, in ms, a source's failures are
	// remembered after its last one.
	RconFailureMemory = 10 * 60_000
	// RconGlobalFailures a second, from all sources together, switch
	// off the free failures: while more arrive, every source backs off
	// from its first wrong password (a guesser rotating through many
	// addresses gets one guess per address). A source with no failure,
	// such as an admin sending the right password, is always heard.
	RconGlobalFailures = 20
	// MaxRconSources bounds the table of sources with failures.
	MaxRconSources = 65536

	// ReconnectLimit is how long, in milliseconds, after a connect the
	// same client's next connect is ignored (Quake III's
	// sv_reconnectlimit), so that a late duplicate of a connect packet
	// cannot reset a connection in use.
	ReconnectLimit = 3000
)

// connectionless handles an out-of-band packet (SV_ConnectionlessPacket).
//
// Every reply to a handshake packet (getchallenge, connect) is no longer
// than the packet it answers, so a spoofed source gains nothing by
// asking, and the handshake needs no rate limit that a flood could use
// up: a join works whatever else arrives. Queries (getinfo, getstatus),
// whose answers are larger, are limited per source and in total bytes.
func (s *Server) connectionless(from netip.AddrPort, data []byte) {
	text, err := oob.Parse(data)
	if err != nil {
		s.svs.stats.BadPackets++
		return
	}
	line, _, _ := strings.Cut(text, "\n")
	s.args.Tokenize(line)
	switch cmd := s.args.Argv(0); {
	case strings.EqualFold(cmd, oob.CmdGetStatus):
		s.svs.queryBudget.Received(s.svs.now, len(data))
		if s.allowQuery(from) {
			s.statusResponse(from, text)
		}
	case strings.EqualFold(cmd, oob.CmdGetInfo):
		s.svs.queryBudget.Received(s.svs.now, len(data))
		// A master's getinfo skips the per-source limit, which forged
		// getinfos from the master's address could use up.
		if s.isMaster(from) || s.allowQuery(from) {
			s.infoResponse(from, text)
		}
	case strings.EqualFold(cmd, oob.CmdGetChallenge):
		s.getChallenge(from, text, len(data))
	case strings.EqualFold(cmd, oob.CmdConnect):
		s.directConnect(from, text, len(data))
	case strings.EqualFold(cmd, "rcon"):
		s.remoteCommand(from, line, len(data))
	default:
		// "disconnect" from a client that restarted, or garbage: ignored.
		s.svs.stats.BadPackets++
	}
}

// allowQuery reports whether a query from from may be answered now.
func (s *Server) allowQuery(from netip.AddrPort) bool {
	if s.svs.queryLimit.Allow(srclimit.Source(from), s.svs.now) {
		return true
	}
	s.svs.stats.QueriesLimited++
	return false
}

// sendQueryReply sends the answer to a getinfo or getstatus within the
// query byte budget.
func (s *Server) sendQueryReply(to netip.AddrPort, text string) {
	if len(text) > oob.MaxTextLen {
		text = text[:oob.MaxTextLen]
	}
	p := oob.Packet(text)
	if !s.svs.queryBudget.Spend(s.svs.now, len(p)) {
		s.svs.stats.QueriesLimited++
		return
	}
	s.svs.stats.OOBBytesOut += int64(len(p))
	_ = s.out.WriteTo(p, to)
}

// sendSmallReply sends a reply to an unverified source only if it is no
// longer than the request (requestLen bytes) it answers.
func (s *Server) sendSmallReply(to netip.AddrPort, text string, requestLen int) {
	p := oob.Packet(text)
	if len(p) > requestLen {
		s.svs.stats.RepliesTooLarge++
		return
	}
	s.svs.stats.OOBBytesOut += int64(len(p))
	_ = s.out.WriteTo(p, to)
}

// sendOOB sends a connectionless packet to a verified peer (a client with
// a connection, or the source of a right rcon password).
func (s *Server) sendOOB(to netip.AddrPort, text string) {
	if len(text) > oob.MaxTextLen {
		text = text[:oob.MaxTextLen]
	}
	p := oob.Packet(text)
	s.svs.stats.OOBBytesOut += int64(len(p))
	_ = s.out.WriteTo(p, to)
}

// getChallenge answers getchallenge (SV_GetChallenge) with the sender's
// stateless challenge and the client's own challenge echoed, provided the
// answer is no longer than the request (clients pad it to
// oob.MinChallengeRequestLen bytes).
func (s *Server) getChallenge(from netip.AddrPort, text string, requestLen int) {
	clientChallenge, err := oob.ParseGetChallenge(text)
	if err != nil {
		s.svs.stats.BadPackets++
		return
	}
	ch := s.svs.challenger.make(from, s.svs.now)
	s.sendSmallReply(from, oob.FormatChallengeResponse(ch, clientChallenge), requestLen)
}

// directConnect answers connect (SV_DirectConnect). The userinfo must
// carry the protocol version, the client's qport and the challenge of
// the sender's address. A connect from the exact address (IP and port)
// of an existing connection reuses its slot; a connect seen again before
// the client used its connection is only answered again. Replies are no
// longer than the request: an unverified source learns little and gets
// nothing larger than it sent.
func (s *Server) directConnect(from netip.AddrPort, text string, requestLen int) {
	reply := func(msg string) {
		// Refusals only inform: limited per source, so that a flood of
		// spoofed connects does not make the server a reflector.
		if s.svs.refusalLimit.Allow(srclimit.Source(from), s.svs.now) {
			s.sendSmallReply(from, oob.FormatPrint(msg), requestLen)
		}
	}
	userinfo, err := oob.ParseConnect(text)
	if err != nil {
		reply("Invalid connect request.\n")
		return
	}
	ch64, err := strconv.ParseInt(infostr.ValueForKey(userinfo, "challenge"), 10, 32)
	challenge := int32(ch64)
	if err != nil || !s.svs.challenger.valid(from, challenge, s.svs.now) {
		reply(oob.BadChallengePrint) // the client asks for a fresh challenge
		return
	}
	// From here on the sender has shown it receives at its address.
	if v := infostr.ValueForKey(userinfo, "protocol"); v != strconv.Itoa(proto.Version) {
		reply("Server uses protocol version " + strconv.Itoa(proto.Version) + ".\n")
		return
	}
	qp, err := strconv.ParseUint(infostr.ValueForKey(userinfo, "qport"), 10, 16)
	if err != nil || !netchan.ValidQport(uint16(qp)) {
		reply("Invalid qport in connect request.\n")
		return
	}
	qport := uint16(qp)
	if s.sv == nil {
		reply("Server is not running a map.\n")
		return
	}
	// The ip key is the server's: whatever the client wrote goes, and a
	// userinfo with no room for the real one is refused.
	userinfo, err = infostr.SetValueForKey(infostr.RemoveKey(userinfo, "ip"), "ip", from.String())
	if err != nil {
		reply("Userinfo too long.\n")
		return
	}

	// The same client again? Only the exact address and port find a
	// slot: another socket on the same host that copies a qport gets a
	// new slot of its own, never someone else's.
	var slot *client
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateFree || c.chan_ == nil || c.chan_.Remote() != from {
			continue
		}
		if c.state != StateZombie {
			if c.challenge == challenge && c.chan_.Qport() == qport && c.chan_.IncomingSequence() == 0 {
				// A resend or a duplicate of the connect that made
				// this connection, whose client has not used it
				// yet: answer it again, change nothing.
				s.sendSmallReply(from, connectResponse(c, challenge), requestLen)
				return
			}
			if d := s.svs.now - c.lastConnectTime; d < ReconnectLimit && d >= 0 {
				// Too soon: most likely a late duplicate of the
				// connect that made this connection. A client that
				// really reconnects tries again.
				s.logf("%s: reconnect rejected: too soon", from)
				return
			}
		}
		s.logf("%s: reconnect", from)
		slot = c
		break
	}
	if slot == nil {
		if n := s.cfg.ClientsPerIP; n > 0 && !isLocal(from) && s.clientsFrom(from) >= n {
			s.logf("%s: connection refused: %d clients from that address already", from, n)
			reply("Too many connections from your address.\n")
			return
		}
		for i := 0; i < s.sv.maxClients; i++ {
			if s.svs.clients[i].state == StateFree {
				slot = &s.svs.clients[i]
				break
			}
		}
	}
	if slot == nil {
		reply("Server is full.\n")
		return
	}

	wasConnected := slot.connected()
	slot.resetConnection()
	c := slot
	c.state = StateConnected
	c.challenge = challenge
	c.chan_ = netchan.New(s.out, from, netchan.ServerSide, qport)
	c.chan_.Encode = func(seq uint32, m []byte) {
		if c.scramble {
			proto.ScrambleServerMessage(m, uint32(c.challenge), seq,
				c.clientCommands[c.lastClientCommand&(proto.MaxReliableCommands-1)])
		}
	}
	c.applyUserinfo(userinfo)
	c.lastPacketTime = s.svs.now
	c.lastAckTime = s.svs.now
	c.lastConnectTime = s.svs.now
	c.nextSnapshotTime = s.svs.time
	if wasConnected {
		s.sv.game.ClientDisconnect(c.num)
	}
	if denied := s.sv.game.ClientConnect(c.num, userinfo, false); denied != "" {
		s.logf("%s: connection refused: %s", from, denied)
		c.resetConnection()
		reply(denied + "\n")
		return
	}
	s.logf("client %d connected from %s: %s", c.num, from, c.name)
	s.sendSmallReply(from, connectResponse(c, challenge), requestLen)
}

// connectResponse returns the reply to c's accepted connect: it states
// c's fragment size when that is not netchan.FragmentSize (a WebRTC
// peer), so that a client can check that it uses the same.
func connectResponse(c *client, challenge int32) string {
	if n := c.chan_.FragmentSize(); n != netchan.FragmentSize {
		return oob.FormatConnectResponseSize(challenge, n)
	}
	return oob.FormatConnectResponse(challenge)
}

// clientsFrom counts the connected clients (zombies included: their slot
// is still taken) whose address is the same source as addr.
func (s *Server) clientsFrom(addr netip.AddrPort) int {
	src, n := srclimit.Source(addr), 0
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state != StateFree && c.chan_ != nil && srclimit.Source(c.chan_.Remote()) == src {
			n++
		}
	}
	return n
}

// zombiePacket answers a packet from a dropped client with its
// disconnect message again, at most twice a second, so that a client
// that lost it still learns why it was dropped.
func (s *Server) zombiePacket(c *client) {
	if d := s.svs.now - c.lastZombieReply; d < 500 && d >= 0 {
		return
	}
	c.lastZombieReply = s.svs.now
	s.sendFinalMessage(c)
}

// infoResponse answers getinfo (SVC_Info) in Quake III's format, plus
// hold: the milliseconds the answer waited for the server's next send.
func (s *Server) infoResponse(from netip.AddrPort, text string) {
	ch, err := oob.ParseGetInfo(text)
	if err != nil {
		return
	}
	humans, total := s.playerCounts()
	info := ""
	set := func(k, v string) {
		if n, err := infostr.SetValueForKey(info, k, v); err == nil {
			info = n
		}
	}
	if ch != "" {
		set("challenge", ch)
	}
	set("protocol", strconv.Itoa(proto.Version))
	set("gamename", oob.GameName) // dpmaster lists a server under its game name
	set("hostname", s.cfg.Hostname)
	set("mapname", s.MapName())
	set("mapchecksum", s.MapChecksum())
	set("clients", strconv.Itoa(total))
	set("g_humanplayers", strconv.Itoa(humans))
	maxClients := s.cfg.MaxClients
	gametype := int(s.cfg.Game.GameType)
	if s.sv != nil {
		maxClients = s.sv.maxClients
		gametype = int(s.sv.game.GameType())
	}
	set("sv_maxclients", strconv.Itoa(maxClients))
	set("gametype", strconv.Itoa(gametype))
	// How long the answer waited for its batch's send (runBatched): a
	// browser takes it off the round trip it measures.
	if hold := s.svs.replyAt - s.svs.now; s.svs.replyAt != 0 && hold > 0 {
		set("hold", strconv.Itoa(int(hold)))
	}
	s.sendQueryReply(from, oob.FormatInfoResponse(info))
}

// statusResponse answers getstatus (SVC_Status): the serverinfo with the
// challenge, and a `score ping "name"` line per client.
func (s *Server) statusResponse(from netip.AddrPort, text string) {
	ch, err := oob.ParseGetStatus(text)
	if err != nil {
		return
	}
	info := s.serverInfo()
	if ch != "" {
		if n, err := infostr.SetValueForKeyBig(info, "challenge", ch); err == nil {
			info = n
		}
	}
	var players []oob.PlayerLine
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if !c.connected() {
			continue
		}
		p := oob.PlayerLine{Ping: c.ping, Name: c.name}
		if s.sv != nil {
			if i < len(s.sv.ps) {
				p.Score = int(s.sv.ps[i].Persistant[bg.PersScore])
			}
			if s.sv.game.Connected(i) {
				p.Name = s.sv.game.ClientName(i)
			}
		}
		players = append(players, p)
	}
	s.sendQueryReply(from, oob.FormatStatusResponse(info, players))
}

// playerCounts returns the number of human clients and of all clients.
func (s *Server) playerCounts() (humans, total int) {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.connected() {
			total++
			if !c.bot {
				humans++
			}
		}
	}
	return humans, total
}

// rconFailures is what the server remembers of a source that sent wrong
// rcon passwords.
type rconFailures struct {
	count int32 // wrong passwords in a row
	last  int32 // time of the last one
	until int32 // attempts before this time are ignored
}

// rconGuard keeps the wrong-password record of every source and the
// global failure rate (see RconFreeFailures and RconGlobalFailures).
type rconGuard struct {
	sources   map[netip.Addr]rconFailures
	global    srclimit.Bucket
	lastSweep int32
	// Failures not logged since the last logged one (the log is limited
	// to one line a second so that a flood cannot fill the disk).
	unlogged   int
	lastLogged int32
	logged     bool
}

// blocked reports whether src is backing off at time now.
func (g *rconGuard) blocked(src netip.Addr, now int32) bool {
	f, ok := g.sources[src]
	return ok && now-f.until < 0 && now-f.last >= 0
}

// fail records a wrong password from src at time now.
func (g *rconGuard) fail(src netip.Addr, now int32) {
	if g.sources == nil {
		g.sources = make(map[netip.Addr]rconFailures)
	}
	f, ok := g.sources[src]
	if d := now - f.last; ok && (d > RconFailureMemory || d < 0) {
		f = rconFailures{}
	}
	if !ok && len(g.sources) >= MaxRconSources {
		g.sweep(now)
	}
	f.count++
	f.last = now
	free := int32(RconFreeFailures)
	if !g.global.Allow(now, RconGlobalFailures, 1000/RconGlobalFailures) {
		free = 0 // a flood from many sources: no free guesses
	}
	if f.count > free {
		shift := min(f.count-free-1, 6)
		f.until = now + min(int32(RconBackoff)<<shift, RconMaxBackoff)
	}
	if len(g.sources) < MaxRconSources || ok {
		g.sources[src] = f
	}
}

// succeed forgets src's failures.
func (g *rconGuard) succeed(src netip.Addr) { delete(g.sources, src) }

// sweep forgets sources whose failures are old, at most every second.
func (g *rconGuard) sweep(now int32) {
	if d := now - g.lastSweep; d < 1000 && d >= 0 {
		return
	}
	g.lastSweep = now
	for k, f := range g.sources {
		if d := now - f.last; d > RconFailureMemory || d < 0 || (f.count <= RconFreeFailures && now-f.until >= 0 && now-f.last > RconMaxBackoff) {
			delete(g.sources, k)
		}
	}
}

// rconPasswordMatches compares in time that does not depend on where the
// two differ, nor on their lengths (both are hashed first).
func rconPasswordMatches(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// remoteCommand answers rcon (SVC_RemoteCommand): "rcon PASSWORD
// COMMAND...". With the right rconPassword the command runs on the
// server console and its output comes back in print packets. A source
// that sent too many wrong passwords backs off (see RconFreeFailures);
// wrong passwords are logged and answered only with a reply no longer
// than the request.
func (s *Server) remoteCommand(from netip.AddrPort, line string, requestLen int) {
	src := srclimit.Source(from)
	if !s.svs.rconLimit.Allow(src, s.svs.now) {
		return
	}
	if s.cfg.RconPassword == "" {
		s.sendSmallReply(from, oob.FormatPrint("No rconpassword set on the server.\n"), requestLen)
		return
	}
	if s.svs.rcon.blocked(src, s.svs.now) {
		s.svs.stats.RconIgnored++
		return
	}
	password, command := rconSplit(line)
	if !rconPasswordMatches(password, s.cfg.RconPassword) {
		s.svs.rcon.fail(src, s.svs.now)
		s.svs.stats.RconFailures++
		g := &s.svs.rcon
		if d := s.svs.now - g.lastLogged; !g.logged || d >= 1000 || d < 0 {
			more := ""
			if g.unlogged > 0 {
				more = " (" + strconv.Itoa(g.unlogged) + " more since the last line)"
			}
			s.logf("Bad rcon from %s: %s%s", from, command, more)
			g.unlogged, g.lastLogged, g.logged = 0, s.svs.now, true
		} else {
			g.unlogged++
		}
		s.sendSmallReply(from, oob.FormatPrint("Bad rconpassword.\n"), requestLen)
		return
	}
	s.svs.rcon.succeed(src)
	s.logf("Rcon from %s: %s", from, command)
	text := s.execRemote(command)
	if text == "" {
		text = "\n"
	}
	// Reply in chunks that fit a packet.
	const chunk = netchan.FragmentSize
	for len(text) > 0 {
		n := min(len(text), chunk)
		if n < len(text) {
			if k := strings.LastIndexByte(text[:n], '\n'); k > 0 {
				n = k + 1
			}
		}
		s.sendOOB(from, oob.FormatPrint(text[:n]))
		text = text[n:]
	}
}

// rconSplit splits the text of an rcon packet into the password (its
// second token) and the rest of the line as it was typed.
func rconSplit(line string) (password, command string) {
	rest := strings.TrimLeft(line, " \t")
	rest = strings.TrimLeft(rest[min(len(rest), len("rcon")):], " \t")
	if strings.HasPrefix(rest, `"`) {
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return rest[1:], ""
		}
		return rest[1 : 1+end], strings.TrimLeft(rest[2+end:], " \t")
	}
	i := strings.IndexAny(rest, " \t")
	if i < 0 {
		return rest, ""
	}
	return rest[:i], strings.TrimLeft(rest[i:], " \t")
}
