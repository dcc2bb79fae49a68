package server

import (
	"net/netip"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/internal/proto"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// Rate limits of connectionless packets (Quake III's SVC_RateLimit).
// Each is a leaky bucket: Burst packets pass at once, then one every
// Period milliseconds.
const (
	// QueryBurst and QueryPeriod limit getinfo, getstatus, getchallenge
	// and connect per source address and port.
	QueryBurst  = 10
	QueryPeriod = 100
	// RconBurst and RconPeriod limit rcon per source IP address.
	RconBurst  = 5
	RconPeriod = 1000
	// BadRconBurst and BadRconPeriod limit the answers to wrong rcon
	// passwords, from all addresses together.
	BadRconBurst  = 10
	BadRconPeriod = 1000
	// ReplyBurst and ReplyPeriod limit every connectionless reply, from
	// all addresses together, so that spoofed requests cannot turn the
	// server into an amplifier.
	ReplyBurst  = 200
	ReplyPeriod = 5
	// ReconnectLimit is how long, in milliseconds, after a connect the
	// same client's next connect is ignored (Quake III's
	// sv_reconnectlimit), so that a late duplicate of a connect packet
	// cannot reset a connection in use.
	ReconnectLimit = 3000
)

// connectionless handles an out-of-band packet (SV_ConnectionlessPacket).
func (s *Server) connectionless(from netip.AddrPort, data []byte) {
	text, err := oob.Parse(data)
	if err != nil {
		s.svs.badPackets++
		return
	}
	line, _, _ := strings.Cut(text, "\n")
	s.args.Tokenize(line)
	switch cmd := s.args.Argv(0); {
	case strings.EqualFold(cmd, oob.CmdGetStatus):
		if s.svs.queryLimit.allow(from, s.svs.now) {
			s.statusResponse(from, text)
		}
	case strings.EqualFold(cmd, oob.CmdGetInfo):
		if s.svs.queryLimit.allow(from, s.svs.now) {
			s.infoResponse(from, text)
		}
	case strings.EqualFold(cmd, oob.CmdGetChallenge):
		if s.svs.queryLimit.allow(from, s.svs.now) {
			s.getChallenge(from)
		}
	case strings.EqualFold(cmd, oob.CmdConnect):
		if s.svs.queryLimit.allow(from, s.svs.now) {
			s.directConnect(from, text)
		}
	case strings.EqualFold(cmd, "rcon"):
		s.remoteCommand(from, line)
	default:
		// "disconnect" from a client that restarted, or garbage: ignored.
		s.svs.badPackets++
	}
}

// sendOOB sends a connectionless packet, within the global reply limit.
func (s *Server) sendOOB(to netip.AddrPort, text string) {
	if !s.svs.outLimit.allow(s.svs.now, ReplyBurst, ReplyPeriod) {
		return
	}
	if len(text) > oob.MaxTextLen {
		text = text[:oob.MaxTextLen]
	}
	_ = s.out.WriteTo(oob.Packet(text), to)
}

// getChallenge answers getchallenge (SV_GetChallenge): a random
// challenge bound to the sender's address and port, the same one again
// while it lives.
func (s *Server) getChallenge(from netip.AddrPort) {
	ch, ok := s.svs.challenges.get(from, s.svs.now)
	if !ok {
		for ch == 0 {
			ch = s.svs.rng.Int32()
		}
		s.svs.challenges.put(from, ch, s.svs.now)
	}
	s.sendOOB(from, oob.FormatChallengeResponse(ch))
}

// directConnect answers connect (SV_DirectConnect). The userinfo must
// carry the protocol version, the client's qport and the challenge this
// address was given. A client that connects again from the same address
// (same qport or same port) gets its old slot back; the same connect
// seen twice (a resend or a duplicate) is only answered again.
func (s *Server) directConnect(from netip.AddrPort, text string) {
	userinfo, err := oob.ParseConnect(text)
	if err != nil {
		s.sendOOB(from, oob.FormatPrint("Invalid connect request.\n"))
		return
	}
	if v := oob.ValueForKey(userinfo, "protocol"); v != strconv.Itoa(proto.Version) {
		s.sendOOB(from, oob.FormatPrint("Server uses protocol version "+strconv.Itoa(proto.Version)+
			" (yours is "+strconv.Quote(v)+").\n"))
		return
	}
	qp, err := strconv.ParseUint(oob.ValueForKey(userinfo, "qport"), 10, 16)
	if err != nil {
		s.sendOOB(from, oob.FormatPrint("Invalid qport in connect request.\n"))
		return
	}
	qport := uint16(qp)
	ch64, err := strconv.ParseInt(oob.ValueForKey(userinfo, "challenge"), 10, 32)
	challenge := int32(ch64)
	if err != nil || !s.svs.challenges.valid(from, challenge, s.svs.now) {
		s.sendOOB(from, oob.FormatPrint("No or bad challenge for your address.\n"))
		return
	}
	if s.sv == nil {
		s.sendOOB(from, oob.FormatPrint("Server is not running a map.\n"))
		return
	}

	// The same client again?
	var slot *client
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateFree || c.chan_ == nil {
			continue
		}
		remote := c.chan_.Remote()
		if remote.Addr() == from.Addr() && (c.chan_.Qport() == qport || remote.Port() == from.Port()) {
			if c.state != StateZombie && remote == from {
				if c.challenge == challenge && c.chan_.IncomingSequence() == 0 {
					// A resend or a duplicate of the connect that made
					// this connection, whose client has not used it
					// yet: answer it again, change nothing.
					s.sendOOB(from, oob.CmdConnectResponse)
					return
				}
				if s.svs.now-c.lastConnectTime < ReconnectLimit && s.svs.now >= c.lastConnectTime {
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
	}
	if slot == nil {
		for i := 0; i < s.sv.maxClients; i++ {
			if s.svs.clients[i].state == StateFree {
				slot = &s.svs.clients[i]
				break
			}
		}
	}
	if slot == nil {
		s.sendOOB(from, oob.FormatPrint("Server is full.\n"))
		return
	}
	if ui, err := oob.SetValueForKey(userinfo, "ip", from.String()); err == nil {
		userinfo = ui
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
		s.sendOOB(from, oob.FormatPrint(denied+"\n"))
		return
	}
	s.logf("client %d connected from %s: %s", c.num, from, c.name)
	s.sendOOB(from, oob.CmdConnectResponse)
}

// zombiePacket answers a packet from a dropped client with its
// disconnect message again, at most twice a second, so that a client
// that lost it still learns why it was dropped.
func (s *Server) zombiePacket(c *client) {
	if s.svs.now-c.lastZombieReply < 500 && s.svs.now >= c.lastZombieReply {
		return
	}
	c.lastZombieReply = s.svs.now
	s.sendFinalMessage(c)
}

// infoResponse answers getinfo (SVC_Info) in Quake III's format.
func (s *Server) infoResponse(from netip.AddrPort, text string) {
	ch, err := oob.ParseGetInfo(text)
	if err != nil {
		return
	}
	humans, total := s.playerCounts()
	info := ""
	set := func(k, v string) {
		if n, err := oob.SetValueForKey(info, k, v); err == nil {
			info = n
		}
	}
	if ch != "" {
		set("challenge", ch)
	}
	set("protocol", strconv.Itoa(proto.Version))
	set("hostname", s.cfg.Hostname)
	set("mapname", s.MapName())
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
	s.sendOOB(from, oob.FormatInfoResponse(info))
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
		if n, err := oob.SetValueForKeyBig(info, "challenge", ch); err == nil {
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
	s.sendOOB(from, oob.FormatStatusResponse(info, players))
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

// remoteCommand answers rcon (SVC_RemoteCommand): "rcon PASSWORD
// COMMAND...". With the right rconPassword the command runs on the
// server console and its output comes back in print packets. Wrong
// passwords are logged and answered at most BadRconBurst times a
// BadRconPeriod from all addresses together.
func (s *Server) remoteCommand(from netip.AddrPort, line string) {
	if !s.svs.rconLimit.allow(from.Addr(), s.svs.now) {
		return
	}
	password, command := rconSplit(line)
	if s.cfg.RconPassword == "" {
		s.sendOOB(from, oob.FormatPrint("No rconpassword set on the server.\n"))
		return
	}
	if password != s.cfg.RconPassword {
		if !s.svs.badRconLimit.allow(s.svs.now, BadRconBurst, BadRconPeriod) {
			return
		}
		s.logf("Bad rcon from %s: %s", from, command)
		s.sendOOB(from, oob.FormatPrint("Bad rconpassword.\n"))
		return
	}
	s.logf("Rcon from %s: %s", from, command)
	var out strings.Builder
	s.redirect = &out
	s.execText(command, 0)
	s.redirect = nil
	text := out.String()
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
