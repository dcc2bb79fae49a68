package client

import (
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// dropConn drops what it is told to, for a fake server that loses
// packets on purpose.
type dropConn struct {
	netchan.Conn
	lose    atomic.Bool
	sent    atomic.Uint64 // packets that went out
	packets [][]byte      // copies of every packet written, lost ones too
}

func (d *dropConn) WriteTo(p []byte, to netip.AddrPort) error {
	d.packets = append(d.packets, append([]byte(nil), p...))
	if d.lose.Load() {
		return nil
	}
	d.sent.Add(1)
	return d.Conn.WriteTo(p, to)
}

// resend writes packet i (counting from 0) again: a duplicate, or a
// late packet if newer ones went out since.
func (d *dropConn) resend(i int, to netip.AddrPort) {
	d.sent.Add(1)
	_ = d.Conn.WriteTo(d.packets[i], to)
}

// frame is what the fake server sent in one message, for deltas and
// comparisons.
type frame struct {
	messageNum int32
	serverTime int32
	flags      uint8
	ps         bg.PlayerState
	ents       []bg.EntityState
}

// clientMsg is one client message as the fake server parsed it.
type clientMsg struct {
	header   proto.ClientHeader
	commands []string // reliable commands carried (seq order)
	firstCmd int32    // sequence of commands[0]
	moveOp   int      // 0, proto.ClcMove or proto.ClcMoveNoDelta
	moves    []bg.UserCmd
}

// fakeServer is a minimal Tremor server built from proto and netchan: it
// answers the handshake, sends gamestates, snapshots and reliable
// commands, and records what the client sends. It runs on the test's
// goroutine.
type fakeServer struct {
	t      *testing.T
	conn   *dropConn
	client netip.AddrPort
	ch     *netchan.Chan

	challenge  int32
	qport      uint16
	userinfo   string
	scramble   bool // sv_scramble: on once the gamestate has gone out
	scrambleOn bool
	answer     bool   // answer the handshake
	ignoreConn bool   // answer getchallenge but not connect
	refuse     string // answer connect with this print instead
	getchLens  []int  // length of every getchallenge packet

	gs proto.Gamestate

	reliableSeq int32 // server commands queued
	reliableAck int32 // acknowledged by the client
	commands    [proto.MaxReliableCommands]string

	clientSeq  int32 // last client command executed
	clientCmds [proto.MaxReliableCommands]string
	executed   []string // client commands executed, in order
	cmdGaps    int

	frames  [proto.PacketBackup]frame
	history map[int32]frame // every frame sent, by message number
	msgs    []clientMsg
	oobs    []string
	read    uint64 // packets read
	buf     [MaxReceivedPacket]byte
	wbuf    [netchan.MaxMsgLen]byte
	moveBuf [proto.MaxPacketUsercmds]bg.UserCmd
}

func newFakeServer(t *testing.T, conn netchan.Conn) *fakeServer {
	s := &fakeServer{t: t, conn: &dropConn{Conn: conn}, challenge: -559038737, answer: true}
	s.gs.Reset()
	m, err := arenas.Load("arena1")
	if err != nil {
		t.Fatal(err)
	}
	s.gs.Configstrings[bg.CSServerInfo] = `\sv_hostname\fake\mapname\arena1`
	s.gs.Configstrings[bg.CSSystemInfo] = `\sv_serverid\77`
	s.gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(m.Checksum), 10)
	s.gs.ClientNum = 3
	s.gs.ChecksumFeed = 0x1234567
	for i := 100; i < 110; i++ {
		s.gs.Baselines[i] = bg.EntityState{Number: int32(i), EType: bg.ETItem, ModelIndex: int32(i % 7),
			Pos: bg.Trajectory{Base: bg.Vec{X: int32(i * 512), Y: 4096}}}
	}
	return s
}

// newPair returns a client and a fake server joined by a loopback pair.
func newPair(t *testing.T, cfg Config) (*Client, *fakeServer) {
	t.Helper()
	a, b := netchan.NewLoopback()
	c := New(a, cfg)
	t.Cleanup(func() { c.Close() })
	s := newFakeServer(t, b)
	return c, s
}

func (s *fakeServer) addr() netip.AddrPort { return s.conn.LocalAddr() }

// poll reads every packet the client has sent so far and handles it.
func (s *fakeServer) poll(c *Client) {
	s.t.Helper()
	want := c.Stats().PacketsUp
	for s.read < want {
		s.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, from, err := s.conn.ReadFrom(s.buf[:])
		if err != nil {
			s.t.Fatalf("fake server: waiting for packet %d of %d: %v", s.read+1, want, err)
		}
		s.read++
		s.handle(from, s.buf[:n])
	}
}

func (s *fakeServer) sendOOB(text string) {
	_ = s.conn.WriteTo(oob.Packet(text), s.client)
}

func (s *fakeServer) handle(from netip.AddrPort, p []byte) {
	if oob.IsConnectionless(p) {
		text, err := oob.Parse(p)
		if err != nil {
			s.t.Fatal(err)
		}
		s.oobs = append(s.oobs, text)
		s.client = from
		if oob.Command(text) == oob.CmdGetChallenge {
			s.getchLens = append(s.getchLens, len(p))
		}
		if !s.answer {
			return
		}
		switch oob.Command(text) {
		case oob.CmdGetChallenge:
			// As the real server: a request shorter than the reply gets
			// no answer.
			clientCh, err := oob.ParseGetChallenge(text)
			if err != nil {
				s.t.Fatal(err)
			}
			reply := oob.FormatChallengeResponse(s.challenge, clientCh)
			if len(oob.Packet(reply)) > len(p) {
				s.t.Errorf("fake server: %d-byte getchallenge for a %d-byte reply", len(p), len(oob.Packet(reply)))
				return
			}
			s.sendOOB(reply)
		case oob.CmdConnect:
			if s.ignoreConn {
				return
			}
			if s.refuse != "" {
				s.sendOOB(oob.FormatPrint(s.refuse))
				return
			}
			info, err := oob.ParseConnect(text)
			if err != nil {
				s.t.Fatal(err)
			}
			if infostr.ValueForKey(info, "challenge") != strconv.Itoa(int(s.challenge)) {
				s.sendOOB(oob.FormatPrint(oob.BadChallengePrint))
				return
			}
			s.userinfo = info
			q, _ := strconv.Atoi(infostr.ValueForKey(info, "qport"))
			s.qport = uint16(q)
			if s.ch == nil {
				s.ch = netchan.New(s.conn, from, netchan.ServerSide, s.qport)
				s.ch.Encode = func(seq uint32, m []byte) {
					if s.scrambleOn {
						proto.ScrambleServerMessage(m, uint32(s.challenge), seq, s.clientCmds[s.clientSeq&(proto.MaxReliableCommands-1)])
					}
				}
			}
			s.sendOOB(oob.FormatConnectResponse(s.challenge))
		}
		return
	}
	if s.ch == nil {
		s.t.Fatalf("fake server: sequenced packet before connect")
	}
	body, ok, err := s.ch.Process(p)
	if err != nil {
		s.t.Fatal(err)
	}
	if !ok {
		return
	}
	s.parse(body)
}

// parse reads a client message the way a server does.
func (s *fakeServer) parse(body []byte) {
	r := msg.NewReader(body, msg.Huffman)
	resolve := func(h proto.ClientHeader) proto.ClientHeader {
		return h.Resolve(s.serverID(), int32(s.ch.OutgoingSequence())-1, s.reliableSeq)
	}
	h := resolve(proto.ReadClientHeader(r))
	if s.scramble && h.ServerID == s.serverID() {
		proto.ScrambleClientMessage(body, uint32(s.challenge), s.commands[h.ReliableAcknowledge&(proto.MaxReliableCommands-1)])
		r = msg.NewReader(body, msg.Huffman)
		h = resolve(proto.ReadClientHeader(r))
	}
	if r.Err() != nil {
		s.t.Fatal(r.Err())
	}
	m := clientMsg{header: h}
	if h.ReliableAcknowledge > s.reliableAck {
		s.reliableAck = h.ReliableAcknowledge
	}
	for {
		op := r.ReadUint8()
		if r.Err() != nil {
			s.t.Fatalf("fake server: client message: %v", r.Err())
		}
		switch op {
		case proto.ClcEOF:
			s.msgs = append(s.msgs, m)
			return
		case proto.ClcClientCommand:
			seq, text := proto.ReadClientCommand(r)
			if len(m.commands) == 0 {
				m.firstCmd = seq
			}
			m.commands = append(m.commands, text)
			if seq > s.clientSeq+1 {
				s.cmdGaps++
			}
			if seq > s.clientSeq {
				s.clientSeq = seq
				s.clientCmds[seq&(proto.MaxReliableCommands-1)] = text
				s.executed = append(s.executed, text)
			}
		case proto.ClcMove, proto.ClcMoveNoDelta:
			key := proto.UsercmdKey(uint32(s.gs.ChecksumFeed), uint32(h.MessageAcknowledge),
				s.commands[h.ReliableAcknowledge&(proto.MaxReliableCommands-1)])
			var base *bg.UserCmd
			if f, ok := s.history[h.MessageAcknowledge]; ok {
				b := proto.UsercmdBase(&f.ps)
				base = &b
			}
			n := proto.ReadMove(r, key, base, &s.moveBuf)
			m.moveOp = int(op)
			m.moves = append([]bg.UserCmd(nil), s.moveBuf[:n]...)
		default:
			s.t.Fatalf("fake server: op %d", op)
		}
	}
}

func (s *fakeServer) mapChecksum() uint32 {
	n, _ := strconv.ParseUint(s.gs.Configstrings[bg.CSMapChecksum], 10, 32)
	return uint32(n)
}

func (s *fakeServer) serverID() int32 {
	id, _ := strconv.Atoi(infostr.ValueForKey(s.gs.Configstrings[bg.CSSystemInfo], "sv_serverid"))
	return int32(id)
}

// command queues a reliable server command.
func (s *fakeServer) command(text string) {
	s.reliableSeq++
	s.commands[s.reliableSeq&(proto.MaxReliableCommands-1)] = text
}

// begin starts a message: the reliable acknowledge and every command the
// client has not acknowledged.
func (s *fakeServer) begin() *msg.Writer {
	w := msg.NewWriter(s.wbuf[:], msg.Huffman)
	proto.WriteReliableAck(w, s.clientSeq)
	for i := s.reliableAck + 1; i <= s.reliableSeq; i++ {
		proto.WriteServerCommand(w, i, s.commands[i&(proto.MaxReliableCommands-1)])
	}
	return w
}

// end finishes and sends a message.
func (s *fakeServer) end(w *msg.Writer) {
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		s.t.Fatal(w.Err())
	}
	if err := s.ch.Transmit(w.Bytes()); err != nil {
		s.t.Fatal(err)
	}
	if err := s.ch.Flush(); err != nil {
		s.t.Fatal(err)
	}
}

// sendCommands sends a message with only the unacknowledged commands.
func (s *fakeServer) sendCommands() { s.end(s.begin()) }

func (s *fakeServer) sendGamestate() {
	w := s.begin()
	s.gs.CommandSequence = s.reliableSeq
	proto.WriteGamestate(w, &s.gs)
	s.end(w)
	// As the real server: the gamestate message goes plain, what follows
	// with the gamestate's setting.
	s.scrambleOn = s.scramble
}

// sendSnapshot sends a snapshot delta-coded from the message delta back
// (0: full) and returns its message number.
func (s *fakeServer) sendSnapshot(serverTime int32, ps bg.PlayerState, ents []bg.EntityState, delta int, flags uint8) int32 {
	seq := int32(s.ch.OutgoingSequence())
	w := s.begin()
	h := proto.SnapshotHeader{ServerTime: serverTime, DeltaNum: uint8(delta), Flags: flags}
	var fromPS *bg.PlayerState
	var fromEnts []bg.EntityState
	if delta > 0 {
		f := &s.frames[(seq-int32(delta))&proto.PacketMask]
		fromPS, fromEnts = &f.ps, f.ents
		h.BaseTime, h.BaseFlags = f.serverTime, f.flags
	}
	proto.WriteSnapshot(w, h, fromPS, &ps, fromEnts, ents, &s.gs.Baselines)
	s.frames[seq&proto.PacketMask] = frame{messageNum: seq, serverTime: serverTime, flags: flags, ps: ps, ents: append([]bg.EntityState(nil), ents...)}
	if s.history == nil {
		s.history = make(map[int32]frame)
	}
	s.history[seq] = s.frames[seq&proto.PacketMask]
	s.end(w)
	return seq
}

// deltaFor returns the delta a server would use for its next snapshot:
// from the message the client last acknowledged, or none when it asked
// for a full snapshot.
func (s *fakeServer) deltaFor() int {
	m := s.lastMsg()
	d := int32(s.ch.OutgoingSequence()) - m.header.MessageAcknowledge
	if m.moveOp != proto.ClcMove || d >= proto.PacketBackup-3 {
		return 0
	}
	return int(d)
}

// lastMsg returns the last client message parsed.
func (s *fakeServer) lastMsg() clientMsg {
	s.t.Helper()
	if len(s.msgs) == 0 {
		s.t.Fatal("fake server: no client message yet")
	}
	return s.msgs[len(s.msgs)-1]
}

// sync waits until the client's reader has queued every packet the fake
// server has sent.
func waitPackets(t *testing.T, c *Client, s *fakeServer) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for c.received.Load() < s.conn.sent.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("client received %d of %d packets", c.received.Load(), s.conn.sent.Load())
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// step waits for the server's packets, runs a client frame at now ms and
// lets the fake server read what the client sent.
func step(t *testing.T, c *Client, s *fakeServer, now int32, cmd bg.UserCmd) {
	t.Helper()
	waitPackets(t, c, s)
	c.Frame(time.Duration(now)*time.Millisecond, cmd)
	s.poll(c)
}

// handshake connects c to s and drives the handshake up to Connected at
// time *now, advanced in 10 ms frames.
func handshake(t *testing.T, c *Client, s *fakeServer, now *int32) {
	t.Helper()
	c.Connect(s.addr())
	for i := 0; c.State() < Connected; i++ {
		if i > 10 {
			t.Fatalf("handshake stuck in %v", c.State())
		}
		step(t, c, s, *now, bg.UserCmd{})
		*now += 10
	}
}

// connect drives the handshake up to Active at time *now (advanced in
// 10 ms frames) and returns the first snapshot's time.
func connect(t *testing.T, c *Client, s *fakeServer, now *int32) {
	t.Helper()
	handshake(t, c, s, now)
	s.sendGamestate()
	step(t, c, s, *now, bg.UserCmd{})
	*now += 10
	if c.State() != Primed {
		t.Fatalf("after the gamestate: %v (%v, %v)", c.State(), c.LastError(), c.conn.dropReason)
	}
	s.sendSnapshot(1000, bg.PlayerState{CommandTime: 1000, ClientNum: 3}, nil, 0, 0)
	step(t, c, s, *now, bg.UserCmd{})
	*now += 10
	if c.State() != Active {
		t.Fatalf("after the first snapshot: %v", c.State())
	}
}
