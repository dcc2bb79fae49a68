package protospec

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
	"tremor/server"
)

// The fixed inputs of the vector connection. Everything else (the
// challenge, the server id, the checksum feed, the entities) comes from
// the server engine, seeded with VectorSeed.
const (
	// VectorSeed seeds the server: challenges, server id, checksum feed,
	// spawn points.
	VectorSeed = 1
	// VectorMap is the map the server runs.
	VectorMap = "arena2"
	// VectorBots is how many bots play: their configstrings make the
	// gamestate longer than one fragment, as on a busy server.
	VectorBots = 24
	// VectorClientChallenge is the client challenge of getchallenge.
	VectorClientChallenge = 1234567
	// VectorQport is the client's qport.
	VectorQport = 4321
	// VectorStart is the real time, in ms, of the server's first frame.
	VectorStart = 1000
	// vectorStep is how often, in ms, the server's Frame runs.
	vectorStep = 10
)

// The addresses of the vector connection (RFC 5737 documentation
// ranges): not loopback, so the server applies the client's rate and
// paces the gamestate's fragments as it would on the Internet.
var (
	VectorServerAddr = netip.MustParseAddrPort("192.0.2.1:27960")
	VectorClientAddr = netip.MustParseAddrPort("198.51.100.7:27901")
)

// VectorCommand is the reliable command the client sends (its first,
// sequence 1).
const VectorCommand = "say hello"

// VectorKeyCommand is the client's second reliable command: the chat
// line it makes the server send back holds bytes above 127 (UTF-8 "ü"
// and "ß"), so the messages that acknowledge that line are keyed with a
// text that HashKey must read as unsigned bytes (protocol.md 6.5).
const VectorKeyCommand = "say Grüße"

// vectorRunIncrements are the time increments of the usercmds after the
// first in the three moves of 8-time-runs: time runs of width 1, 2 and 3
// (protocol.md 6.6).
var vectorRunIncrements = [...][3]int32{
	{16, 17, 16}, // step 16, e = 0 1 0: width 1
	{16, 19, 17}, // step 16, e = 0 3 1: width 2
	{14, 21, 17}, // step 14, e = 0 7 3: width 3
}

// File is one generated file, its path relative to docs/vectors.
type File struct {
	Name string
	Data []byte
}

// capture is a netchan.Conn that keeps what is written to it.
type capture struct {
	addr netip.AddrPort
	out  []sent
}

type sent struct {
	to   netip.AddrPort
	data []byte
}

func (c *capture) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
}
func (c *capture) WriteTo(p []byte, to netip.AddrPort) error {
	c.out = append(c.out, sent{to: to, data: append([]byte(nil), p...)})
	return nil
}
func (c *capture) LocalAddr() netip.AddrPort       { return c.addr }
func (c *capture) SetReadDeadline(time.Time) error { return nil }
func (c *capture) Close() error                    { return net.ErrClosed }

// drain returns and forgets what was written.
func (c *capture) drain() []sent {
	out := c.out
	c.out = nil
	return out
}

// record is one packet of the connection, as the inspector decoded it.
type record struct {
	tag  string // which vector file it belongs to
	dir  inspect.Dir
	time int32
	data []byte
	msgs []inspect.Message
	// body is the netchan message the packet completed (reassembled,
	// as sent: scrambled if it was), and plain the same unscrambled;
	// both nil for a connectionless packet or a fragment that completes
	// nothing.
	body, plain []byte
	scramble    *scrambleInfo
	// key is what the usercmds of a client message were keyed with;
	// nil for a message without usercmds.
	key *keyInfo
}

// keyInfo is the usercmd key of a client message and what it is made of
// (protocol.md 6.5): checksumFeed XOR messageAcknowledge XOR
// HashKey(text, 32).
type keyInfo struct {
	key          uint32
	checksumFeed int32
	messageAck   int32
	text         string
}

// scrambleInfo is what a scrambled body was scrambled with.
type scrambleInfo struct {
	offsetBit int // where the fields the key uses end, in bits
	key       uint32
	keyDesc   string
	text      string
}

// session is a connection between the real server engine and a client
// written here with the codec. The client keeps what a Tremor client
// keeps to build its messages, learning it from the inspector's decoding
// of the server's messages.
type session struct {
	scramble bool
	// acks is the acks session's client carrier (acks.go), nil in the
	// sessions on the rings.
	acks *acksClient
	// fs is the frame-sync session's client (framesync.go), nil in the
	// others.
	fs      *frameSyncClient
	now     int32
	srv     *server.Server
	sconn   *capture
	cconn   *capture
	ch      *netchan.Chan
	insp    *inspect.Inspector
	tag     string
	records []record

	challenge     int32
	serverID      int32
	checksumFeed  int32
	scrambleOn    bool
	serverMessage int32 // last server message received
	serverCmdSeq  int32 // last server command received
	serverCmds    [proto.MaxReliableCommands]string
	reliableSeq   int32 // last client command sent
	reliableCmds  [proto.MaxReliableCommands]string
	lastServerMsg *inspect.Message
	// nextKey is the usercmd key of the message being sent, for its
	// record.
	nextKey *keyInfo
	// firstErr is the first packet the inspector could not decode: the
	// client learns the gamestate from its decoding, so it explains a
	// step that did not happen.
	firstErr string
}

// record appends r, noting the first decoding error.
func (s *session) record(r record) {
	for _, m := range r.msgs {
		if (m.Err != "" || m.CannotDecode) && s.firstErr == "" {
			s.firstErr = fmt.Sprintf("packet %d (%v) does not decode: %s", len(s.records)+1, r.dir, m.Err)
		}
	}
	s.records = append(s.records, r)
}

// fail returns the error of a step of the vector connection that did not
// happen.
func (s *session) fail(step string) error {
	if s.firstErr != "" {
		return fmt.Errorf("%w: %s; first: %s", errVector, step, s.firstErr)
	}
	return fmt.Errorf("%w: %s", errVector, step)
}

// newAcksSession starts the server for the acks session, sv_scramble 0,
// its client asking for the acks carrier.
func newAcksSession() (*session, error) {
	s, err := newSession(false)
	if err != nil {
		return nil, err
	}
	s.acks = &acksClient{sentIn: map[uint16][]uint16{}}
	return s, nil
}

// newSession starts the server with sv_scramble set as scramble.
func newSession(scramble bool) (*session, error) {
	return startSession(scramble, VectorBots, func(*server.Config) {})
}

// startSession starts the server with sv_scramble set as scramble and
// bots bots, its configuration changed by set.
func startSession(scramble bool, bots int, set func(*server.Config)) (*session, error) {
	s := &session{
		scramble: scramble,
		now:      VectorStart,
		sconn:    &capture{addr: VectorServerAddr},
		cconn:    &capture{addr: VectorClientAddr},
		insp:     inspect.New(),
	}
	cfg := server.DefaultConfig()
	cfg.Seed = VectorSeed
	cfg.Scramble = scramble
	cfg.Hostname = "Tremor vectors"
	cfg.MaxClients = VectorBots + 8
	set(&cfg)
	srv, err := server.New(s.sconn, cfg, nil)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	if err := srv.Map(VectorMap); err != nil {
		return nil, err
	}
	srv.Exec("addbot " + strconv.Itoa(bots))
	srv.Frame(s.now)
	s.serverOutput()
	return s, nil
}

// clientSend records the packets the client wrote and hands them to the
// server.
func (s *session) clientSend() {
	for _, p := range s.cconn.drain() {
		r := record{tag: s.tag, dir: inspect.ClientToServer, time: s.now, data: slices.Clone(p.data)}
		r.msgs = s.insp.Feed(inspect.ClientToServer, VectorClientAddr, VectorServerAddr, slices.Clone(p.data), time.Duration(s.now)*time.Millisecond)
		if !oob.IsConnectionless(p.data) {
			s.clientBody(&r)
			r.key, s.nextKey = s.nextKey, nil
		}
		s.record(r)
		s.srv.Packet(s.now, VectorClientAddr, p.data)
		s.serverOutput()
	}
}

// clientBody fills r's body and, when the message was scrambled, its
// plain form and scramble inputs.
func (s *session) clientBody(r *record) {
	h, err := netchan.PeekHeader(r.data, netchan.ServerSide)
	if err != nil || h.Fragment {
		return
	}
	r.body = r.data[h.Len():]
	r.plain = r.body
	if !s.scrambleOn {
		return
	}
	var ch proto.ClientHeader
	end := -1
	var rd msg.Reader
	_ = proto.ParseClientMessage(&rd, append([]byte(nil), r.body...), stopClient{&ch}, observeEnd{proto.PartClientHeader, &end})
	text := s.serverCmds[ch.ReliableAcknowledge&(proto.MaxReliableCommands-1)]
	r.plain = append([]byte(nil), r.body...)
	proto.ScrambleClientMessage(r.plain, uint32(s.challenge), text)
	r.scramble = &scrambleInfo{
		offsetBit: end,
		key:       netchan.ClientKey(uint32(s.challenge), uint32(ch.ServerID), uint32(ch.MessageAcknowledge)),
		keyDesc: fmt.Sprintf("challenge %d ^ serverId %d ^ messageAcknowledge %d",
			s.challenge, ch.ServerID, ch.MessageAcknowledge),
		text: text,
	}
}

// serverOutput records what the server sent and lets the client take it.
func (s *session) serverOutput() {
	for _, p := range s.sconn.drain() {
		if p.to != VectorClientAddr {
			continue
		}
		r := record{tag: s.tag, dir: inspect.ServerToClient, time: s.now, data: slices.Clone(p.data)}
		r.msgs = s.insp.Feed(inspect.ServerToClient, VectorServerAddr, VectorClientAddr, slices.Clone(p.data), time.Duration(s.now)*time.Millisecond)
		if oob.IsConnectionless(p.data) {
			s.clientConnectionless(p.data)
		} else if s.ch != nil {
			if body, ok, err := s.ch.Process(p.data); err == nil && ok {
				r.body = append([]byte(nil), body...)
				s.serverBody(&r)
			}
		}
		s.record(r)
	}
}

// serverBody unscrambles r's body if the client applies scrambling, and
// takes from the inspector's decoding what the client keeps.
func (s *session) serverBody(r *record) {
	seq := s.ch.IncomingSequence()
	r.plain = r.body
	if s.scrambleOn {
		ack := int32(-1)
		end := -1
		var rd msg.Reader
		_ = proto.ParseServerMessage(&rd, append([]byte(nil), r.body...), seq, stopServer{&ack}, observeEnd{proto.PartReliableAck, &end})
		text := s.reliableCmds[ack&(proto.MaxReliableCommands-1)]
		r.plain = append([]byte(nil), r.body...)
		proto.ScrambleServerMessage(r.plain, uint32(s.challenge), seq, text)
		r.scramble = &scrambleInfo{
			offsetBit: end,
			key:       netchan.ServerKey(uint32(s.challenge), seq),
			keyDesc:   fmt.Sprintf("challenge %d ^ sequence %d", s.challenge, seq),
			text:      text,
		}
	}
	s.serverMessage = int32(seq)
	for i := range r.msgs {
		m := &r.msgs[i]
		if m.Kind != inspect.KindMessage {
			continue
		}
		s.lastServerMsg = m
		if s.acks != nil {
			s.acks.serverOps(m, seq)
		}
		if s.fs != nil {
			s.fs.serverOps(m)
		}
		for _, op := range m.Ops {
			switch {
			case op.Command != nil && op.Name == inspect.OpServerCommand:
				if op.Command.Sequence > s.serverCmdSeq {
					s.serverCmdSeq = op.Command.Sequence
					s.serverCmds[s.serverCmdSeq&(proto.MaxReliableCommands-1)] = op.Command.Text
				}
			case op.Gamestate != nil:
				g := op.Gamestate
				s.serverCmdSeq = max(s.serverCmdSeq, g.CommandSequence)
				s.serverID, s.checksumFeed, s.scrambleOn = g.ServerID, g.ChecksumFeed, g.Scramble
			}
		}
	}
}

// clientConnectionless follows the handshake's answers.
func (s *session) clientConnectionless(p []byte) {
	text, err := oob.Parse(p)
	if err != nil {
		return
	}
	switch oob.Command(text) {
	case oob.CmdChallengeResponse:
		if ch, _, _, err := oob.ParseChallengeResponse(text); err == nil {
			s.challenge = ch
		}
	case oob.CmdConnectResponse:
		if ch, ok, err := oob.ParseConnectResponse(text); err == nil && ok && ch == s.challenge {
			s.ch = netchan.New(s.cconn, VectorServerAddr, netchan.ClientSide, VectorQport)
			s.ch.Encode = func(_ uint32, m []byte) {
				if s.scrambleOn {
					proto.ScrambleClientMessage(m, uint32(s.challenge), s.serverCmds[s.serverCmdSeq&(proto.MaxReliableCommands-1)])
				}
			}
		}
	}
}

// sendOOB sends a connectionless packet from the client.
func (s *session) sendOOB(text string) {
	_ = s.cconn.WriteTo(oob.Packet(text), VectorServerAddr)
	s.clientSend()
}

// usercmdBase returns the usercmd base of the snapshot the last server
// message carried, if it carried a valid one, else nil (a zero base).
func (s *session) usercmdBase() *bg.UserCmd {
	if s.lastServerMsg == nil || s.lastServerMsg.Sequence != uint32(s.serverMessage) {
		return nil
	}
	for _, op := range s.lastServerMsg.Ops {
		if op.Snapshot != nil && op.Snapshot.Valid {
			b := proto.UsercmdBase(&op.Snapshot.PS)
			return &b
		}
	}
	return nil
}

// sendMessage sends a client message: the header, the reliable
// commands not yet acknowledged, the usercmds, eof.
func (s *session) sendMessage(cmds []bg.UserCmd, noDelta bool) error {
	var buf [netchan.MaxMsgLen]byte
	w := msg.NewWriter(buf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{
		ServerID:            s.serverID,
		MessageAcknowledge:  s.serverMessage,
		ReliableAcknowledge: s.serverCmdSeq,
	})
	for i := s.reliableAcked() + 1; i <= s.reliableSeq; i++ {
		proto.WriteClientCommand(w, i, s.reliableCmds[i&(proto.MaxReliableCommands-1)])
	}
	if s.acks != nil && s.acks.on {
		s.acks.write(w, s.ch.OutgoingSequence(), s.now)
	}
	if s.fs != nil {
		s.fs.write(w, cmds)
	}
	if len(cmds) > 0 {
		text := s.serverCmds[s.serverCmdSeq&(proto.MaxReliableCommands-1)]
		key := proto.UsercmdKey(uint32(s.checksumFeed), uint32(s.serverMessage), text)
		proto.WriteMove(w, key, s.usercmdBase(), cmds, noDelta)
		s.nextKey = &keyInfo{key: key, checksumFeed: s.checksumFeed, messageAck: s.serverMessage, text: text}
	}
	w.WriteUint8(proto.ClcEOF)
	if w.Err() != nil {
		return w.Err()
	}
	if err := s.ch.Transmit(w.Bytes()); err != nil {
		return err
	}
	s.clientSend()
	return nil
}

// reliableAcked is the last client command the server acknowledged, as
// the last server message said.
func (s *session) reliableAcked() int32 {
	if s.lastServerMsg == nil {
		return 0
	}
	for _, op := range s.lastServerMsg.Ops {
		if op.Name == inspect.OpReliableAck && len(op.Fields) > 0 {
			n, err := strconv.Atoi(op.Fields[0].Value)
			if err == nil {
				return int32(n)
			}
		}
	}
	return 0
}

// frames runs the server for ms milliseconds in vectorStep steps, or
// until done reports true after a step.
func (s *session) frames(ms int32, done func() bool) bool {
	for end := s.now + ms; s.now < end; {
		s.now += vectorStep
		s.srv.Frame(s.now)
		s.serverOutput()
		if done != nil && done() {
			return true
		}
	}
	return false
}

// lastHas reports whether the newest server message has an op for
// which has is true.
func (s *session) lastHas(has func(op *inspect.Op) bool) func() bool {
	n := len(s.records)
	return func() bool {
		for i := n; i < len(s.records); i++ {
			r := &s.records[i]
			if r.dir != inspect.ServerToClient {
				continue
			}
			for j := range r.msgs {
				for k := range r.msgs[j].Ops {
					if has(&r.msgs[j].Ops[k]) {
						return true
					}
				}
			}
		}
		return false
	}
}

// errVector reports a step of the vector connection that did not happen.
var errVector = errors.New("protospec: vector connection")

// run plays the connection: handshake, gamestate, usercmds, a full
// snapshot, a reliable command, a delta snapshot (in the frame-sync
// session, runFrameSync's steps after the gamestate).
func (s *session) run() error {
	if err := s.connect(); err != nil {
		return err
	}
	if s.fs != nil {
		return s.runFrameSync()
	}
	return s.runSnapshots()
}

// connect plays the handshake and the gamestate.
func (s *session) connect() error {
	s.tag = "1-handshake"
	s.sendOOB(oob.FormatGetChallenge(VectorClientChallenge))
	if s.challenge == 0 {
		return s.fail("no challengeResponse")
	}
	info := ""
	for _, kv := range [...][2]string{
		{"name", "Vector"}, {"rate", "25000"}, {"snaps", "20"},
		{"protocol", strconv.Itoa(proto.Version)},
		{"qport", strconv.Itoa(VectorQport)},
		{"challenge", strconv.Itoa(int(s.challenge))},
	} {
		if kv[0] == "challenge" && s.acks != nil {
			var err error
			if info, err = infostr.SetValueForKey(info, proto.ReliableKey, proto.ReliableAcks); err != nil {
				return err
			}
		}
		var err error
		if info, err = infostr.SetValueForKey(info, kv[0], kv[1]); err != nil {
			return err
		}
	}
	text, err := oob.FormatConnect(info)
	if err != nil {
		return err
	}
	s.sendOOB(text)
	if s.ch == nil {
		return s.fail("no connectResponse")
	}
	// The client's first message, before it has a gamestate: server id
	// 0, nothing acknowledged. The server answers with the gamestate.
	s.tag = "2-gamestate"
	if err := s.sendMessage(nil, false); err != nil {
		return err
	}
	if s.serverID == 0 && !s.frames(2000, func() bool { return s.serverID != 0 }) {
		return s.fail("no gamestate")
	}
	return nil
}

// runSnapshots plays the connection after the gamestate on the rings or
// the acks carrier: usercmds, a full snapshot, reliable commands, delta
// snapshots.
func (s *session) runSnapshots() error {
	// The first message with the server id: the server enters the
	// client into the game. Its usercmds ask for a full snapshot.
	s.tag = "3-usercmds"
	t := s.srv.Time()
	if err := s.sendMessage([]bg.UserCmd{
		{ServerTime: t - 16, Aim: 0x4000, RightMove: 127},
		{ServerTime: t, Aim: 0x4010, RightMove: 127, Buttons: 1},
	}, true); err != nil {
		return err
	}
	s.tag = "4-snapshot-full"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.Snapshot != nil && op.Snapshot.Base < 0 })) {
		return s.fail("no full snapshot")
	}
	// Usercmds that allow a delta, and the client's first reliable
	// command: on the acks carrier its first two, by id.
	s.tag = "5-command"
	if s.acks != nil {
		return s.runAcks()
	}
	s.reliableSeq++
	s.reliableCmds[s.reliableSeq&(proto.MaxReliableCommands-1)] = VectorCommand
	t = s.srv.Time()
	if err := s.sendMessage([]bg.UserCmd{
		{ServerTime: t - 32, Aim: 0x4010, RightMove: 127},
		{ServerTime: t - 16, Aim: 0x4020, RightMove: 127, UpMove: -127},
		{ServerTime: t, Aim: 0x4020, UpMove: -127, Weapon: 1},
	}, false); err != nil {
		return err
	}
	s.tag = "6-snapshot-delta"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.Snapshot != nil && op.Snapshot.Base >= 0 })) {
		return s.fail("no delta snapshot")
	}
	// The client acknowledges what the delta snapshot brought.
	s.tag = "7-ack"
	t = s.srv.Time()
	if err := s.sendMessage([]bg.UserCmd{{ServerTime: t, Aim: 0x4020, Weapon: 1}}, false); err != nil {
		return err
	}
	// Three moves of four usercmds whose later times form runs of width
	// 1, 2 and 3, each sent after the next snapshot, as a client sends
	// one a frame.
	s.tag = "8-time-runs"
	for _, incs := range vectorRunIncrements {
		if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.Snapshot != nil })) {
			return s.fail("no snapshot before a time run")
		}
		cmds := make([]bg.UserCmd, len(incs)+1)
		cmds[len(incs)].ServerTime = s.srv.Time()
		for i := len(incs) - 1; i >= 0; i-- {
			cmds[i].ServerTime = cmds[i+1].ServerTime - incs[i]
		}
		for i := range cmds {
			cmds[i].Aim, cmds[i].RightMove, cmds[i].Weapon = 0x4020+int32(i)*8, 127, 1
		}
		if err := s.sendMessage(cmds, false); err != nil {
			return err
		}
	}
	// A chat line with bytes above 127 comes back as a server command;
	// the message acknowledging it is keyed with its text.
	s.tag = "9-key-text"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.Snapshot != nil })) {
		return s.fail("no snapshot before the second reliable command")
	}
	s.reliableSeq++
	s.reliableCmds[s.reliableSeq&(proto.MaxReliableCommands-1)] = VectorKeyCommand
	t = s.srv.Time()
	if err := s.sendMessage([]bg.UserCmd{{ServerTime: t, Aim: 0x4040, Weapon: 1}}, false); err != nil {
		return err
	}
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool {
		return op.Command != nil && op.Name == inspect.OpServerCommand && hasHighByte(op.Command.Text)
	})) {
		return s.fail("no server command with the chat line")
	}
	t = s.srv.Time()
	return s.sendMessage([]bg.UserCmd{{ServerTime: t, Aim: 0x4040, Weapon: 1}}, false)
}

// hasHighByte reports whether s holds a byte above 127.
func hasHighByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 127 {
			return true
		}
	}
	return false
}

// timeRun is the time run of a move as its bits say (protocol.md 6.6):
// count usercmds; if run, their later times are step + e[i] after the
// one before.
type timeRun struct {
	count       int
	run         bool
	step, width int
	e           []uint32 // e[i-1] is usercmd i's
}

// readTimeRun reads the header of the move in a plain (unscrambled)
// client message body, with the layout of protocol.md 6.6 and nothing
// but msg.Reader's primitives: the 30-bit header, any client commands,
// then the move's count, based bit, run bit, step, width and the e_i,
// all before the first usercmd. ok is false when the message has no
// move.
func readTimeRun(body []byte) (tr timeRun, ok bool) {
	r := msg.NewReader(body, msg.Huffman)
	r.ReadRawBits(1 + proto.ServerIDBits + proto.MessageAckBits + proto.ReliableAckBits)
	for r.Err() == nil {
		switch r.ReadUint8() {
		case proto.ClcNop:
		case proto.ClcClientCommand:
			r.ReadLong()
			r.ReadString()
		case proto.ClcMove, proto.ClcMoveNoDelta:
			tr.count = int(r.ReadUint8())
			if tr.count > 0 {
				r.ReadRawBits(1) // based
			}
			if tr.count >= proto.MinTimeRun && r.ReadRawBits(1) == 1 {
				tr.run = true
				tr.step = int(r.ReadRawBits(proto.TimeRunStepBits))
				tr.width = int(r.ReadRawBits(proto.TimeRunWidthBits))
				for i := 1; i < tr.count; i++ {
					e := uint32(0)
					if tr.width > 0 {
						e = r.ReadRawBits(tr.width)
					}
					tr.e = append(tr.e, e)
				}
			}
			return tr, r.Err() == nil
		default:
			return tr, false
		}
	}
	return tr, false
}

// stopServer is a proto.ServerHandler that keeps the reliable
// acknowledge and stops there.
type stopServer struct{ ack *int32 }

var errStop = errors.New("stop")

func (h stopServer) ReliableAcknowledge(_ uint32, ack int32, _ []byte) (bool, error) {
	*h.ack = ack
	return false, errStop
}
func (stopServer) ServerCommand(int32, string) error                    { return errStop }
func (stopServer) GamestateBuffer() *proto.Gamestate                    { return new(proto.Gamestate) }
func (stopServer) Gamestate(*proto.Gamestate, error) error              { return errStop }
func (stopServer) SnapshotBase(proto.SnapshotHeader) proto.SnapshotBase { return proto.SnapshotBase{} }
func (stopServer) Snapshot(proto.SnapshotBase, []bg.EntityState, error) error {
	return errStop
}
func (stopServer) DownloadBuffer() *[proto.DownloadBlockSize]byte {
	return new([proto.DownloadBlockSize]byte)
}
func (stopServer) Download(*proto.Download, error) error   { return errStop }
func (stopServer) StateHashBuffer() *proto.StateHash       { return new(proto.StateHash) }
func (stopServer) StateHash(*proto.StateHash, error) error { return errStop }

// stopClient is a proto.ClientHandler that keeps the header and stops
// there.
type stopClient struct{ h *proto.ClientHeader }

func (c stopClient) ClientHeader(h proto.ClientHeader, _ []byte) (bool, error) {
	*c.h = h
	return false, errStop
}
func (stopClient) ClientCommand(int32, string) error { return errStop }
func (stopClient) MoveKey(bool) (uint32, *bg.UserCmd, *[proto.MaxPacketUsercmds]bg.UserCmd, error) {
	return 0, nil, nil, errStop
}
func (stopClient) Move([]bg.UserCmd, bool, error) error { return errStop }

// observeEnd notes where a part ends, in bits.
type observeEnd struct {
	part proto.Part
	end  *int
}

func (o observeEnd) Observe(e proto.Event) {
	if e.Part == o.part {
		*o.end = e.End
	}
}

// runAcks plays the acks session from its step 5: the client's two
// commands by id in one block with usercmds that allow a delta, the
// server's answer, which brings the chat lines by id and acknowledges
// the client's packet, and the client's message acknowledging it.
func (s *session) runAcks() error {
	for _, c := range VectorAcksCommands {
		s.acks.queue(c)
	}
	t := s.srv.Time()
	if err := s.sendMessage([]bg.UserCmd{
		{ServerTime: t - 32, Aim: 0x4010, RightMove: 127},
		{ServerTime: t - 16, Aim: 0x4020, RightMove: 127, UpMove: -127},
		{ServerTime: t, Aim: 0x4020, UpMove: -127, Weapon: 1},
	}, false); err != nil {
		return err
	}
	s.tag = "6-messages"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool {
		if op.Name != inspect.OpMessages {
			return false
		}
		for _, m := range op.Sub {
			for _, f := range m.Fields {
				if strings.Contains(f.Value, "Vector: Grüße") {
					return true
				}
			}
		}
		return false
	})) {
		return s.fail("no server message with the chat lines by id")
	}
	if len(s.acks.pending) != 0 {
		return s.fail("the client's commands by id were not acknowledged")
	}
	s.tag = "7-ack"
	t = s.srv.Time()
	return s.sendMessage([]bg.UserCmd{{ServerTime: t, Aim: 0x4020, Weapon: 1}}, false)
}
