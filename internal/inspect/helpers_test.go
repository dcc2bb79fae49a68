package inspect

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// capture is a netchan.Conn that keeps what is written to it.
type capture struct{ pkts [][]byte }

func (c *capture) WriteTo(p []byte, _ netip.AddrPort) error {
	c.pkts = append(c.pkts, bytes.Clone(p))
	return nil
}
func (c *capture) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, errors.New("capture: no reads")
}
func (c *capture) LocalAddr() netip.AddrPort       { return netip.AddrPort{} }
func (c *capture) SetReadDeadline(time.Time) error { return nil }
func (c *capture) Close() error                    { return nil }

func (c *capture) take() [][]byte {
	p := c.pkts
	c.pkts = nil
	return p
}

var (
	clientAddr = netip.MustParseAddrPort("10.0.0.2:5000")
	serverAddr = netip.MustParseAddrPort("10.0.0.1:27960")
)

const (
	testChallenge = 19088743
	testQport     = 777
	testFeed      = 99
	testServerID  = 42
)

// packet is one packet of a synthetic session.
type packet struct {
	dir  Dir
	data []byte
}

// session is a hand-made connection, written with the same packages
// the server and client use: handshake, a gamestate, scrambled messages
// both ways, a full and a delta snapshot, a fragmented message.
type session struct {
	pkts []packet
	// What was written, to compare with what is decoded.
	gs         *proto.Gamestate
	cmds       []bg.UserCmd
	cmds2      []bg.UserCmd // based on ps2's usercmd base
	ps1, ps2   bg.PlayerState
	ents1      []bg.EntityState
	ents2      []bg.EntityState
	bigCommand string
	fragments  int // packets of the fragmented message
}

// newSession writes the session; big makes message 3's command long
// enough to be fragmented.
func newSession(big bool) *session {
	s := &session{}
	oobPkt := func(d Dir, text string) { s.pkts = append(s.pkts, packet{d, oob.Packet(text)}) }
	oobPkt(ClientToServer, "getchallenge")
	oobPkt(ServerToClient, oob.FormatChallengeResponse(testChallenge, 0))
	connect, _ := oob.FormatConnect(`\name\Tester\protocol\3\qport\777\challenge\19088743`)
	oobPkt(ClientToServer, connect)
	oobPkt(ServerToClient, oob.CmdConnectResponse+" 19088743")

	down, up := &capture{}, &capture{}
	sch := netchan.New(down, clientAddr, netchan.ServerSide, testQport)
	cch := netchan.New(up, serverAddr, netchan.ClientSide, testQport)
	var buf [netchan.MaxMsgLen]byte
	w := msg.NewWriter(buf[:], msg.Huffman)
	scramble := false
	lastClientCmd := ""
	sch.Encode = func(seq uint32, m []byte) {
		if scramble {
			proto.ScrambleServerMessage(m, testChallenge, seq, lastClientCmd)
		}
	}
	lastServerCmd := ""
	cch.Encode = func(_ uint32, m []byte) {
		if scramble {
			proto.ScrambleClientMessage(m, testChallenge, lastServerCmd)
		}
	}
	flush := func(d Dir, c *capture) {
		for _, p := range c.take() {
			s.pkts = append(s.pkts, packet{d, p})
		}
	}

	// Message 1, server→client: a command and the gamestate, plain.
	gs := new(proto.Gamestate)
	gs.Reset()
	gs.CommandSequence = 1
	gs.Configstrings[bg.CSServerInfo] = `\mapname\arena1\sv_hostname\Test`
	gs.Configstrings[bg.CSSystemInfo] = `\sv_serverid\42\sv_scramble\1`
	gs.Baselines[5] = bg.EntityState{Number: 5, EType: 2, ModelIndex: 7, Pos: bg.Trajectory{Base: bg.Vec{X: 160, Y: -320}}}
	gs.Baselines[9] = bg.EntityState{Number: 9, EType: 2, ModelIndex: 3}
	gs.ClientNum = 0
	gs.ChecksumFeed = testFeed
	s.gs = gs
	w.Reset(buf[:], msg.Huffman)
	proto.WriteReliableAck(w, 0)
	proto.WriteServerCommand(w, 1, "print hello")
	proto.WriteGamestate(w, gs)
	w.WriteUint8(proto.SvcEOF)
	sch.Transmit(w.Bytes())
	flush(ServerToClient, down)
	scramble = true
	lastServerCmd = "print hello"

	// Message 1, client→server: a command and three usercmds.
	s.cmds = []bg.UserCmd{
		{ServerTime: 1000, Aim: 300, RightMove: 127},
		{ServerTime: 1016, Aim: 310, RightMove: 127, Buttons: 1},
		{ServerTime: 1033, Aim: 320, RightMove: -127, UpMove: 127, Weapon: 2},
	}
	w.Reset(buf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: testServerID, MessageAcknowledge: 1, ReliableAcknowledge: 1})
	proto.WriteClientCommand(w, 1, "say hi there")
	proto.WriteMove(w, proto.UsercmdKey(testFeed, 1, lastServerCmd), nil, s.cmds, true)
	w.WriteUint8(proto.ClcEOF)
	cch.Transmit(w.Bytes())
	flush(ClientToServer, up)
	lastClientCmd = "say hi there"

	// Message 2, server→client: a full snapshot.
	s.ps1 = bg.PlayerState{CommandTime: 1033, Origin: bg.Vec{X: 1000, Y: -50}, Velocity: bg.Vec{X: 200}, Aim: 320, ClientNum: 0, Weapon: 2}
	s.ps1.Stats[0] = 100
	s.ents1 = []bg.EntityState{
		{Number: 5, EType: 2, ModelIndex: 7, Pos: bg.Trajectory{Base: bg.Vec{X: 160, Y: -320}}},
		{Number: 9, EType: 2, ModelIndex: 3, Aim: 5 << bg.EntityAimShift},
		{Number: 12, EType: 1, ClientNum: 1, Pos: bg.Trajectory{Base: bg.Vec{X: -40, Y: 80}}},
	}
	w.Reset(buf[:], msg.Huffman)
	proto.WriteReliableAck(w, 1)
	proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 2000}, nil, &s.ps1, nil, s.ents1, &gs.Baselines)
	w.WriteUint8(proto.SvcEOF)
	sch.Transmit(w.Bytes())
	flush(ServerToClient, down)

	// Message 3, server→client: a long command (fragments) and a delta
	// snapshot: time as an increment, entity 5 removed, 9 changed, 12
	// unchanged, 20 added.
	s.bigCommand = "print \"short\""
	if big {
		s.bigCommand = "print \"" + strings.Repeat("abcdefghij", 300) + "\""
	}
	s.ps2 = s.ps1
	s.ps2.CommandTime += 50
	s.ps2.Origin.X += 13 // 3 past where its velocity takes it
	s.ps2.Stats[0] = 90
	s.ents2 = []bg.EntityState{
		{Number: 9, EType: 2, ModelIndex: 3, Aim: 6 << bg.EntityAimShift},
		s.ents1[2],
		{Number: 20, EType: 3, Pos: bg.Trajectory{Type: 1, Time: 2040, Base: bg.Vec{X: 5, Y: 6}, Delta: bg.Vec{X: -300}}},
	}
	w.Reset(buf[:], msg.Huffman)
	proto.WriteReliableAck(w, 1)
	proto.WriteServerCommand(w, 2, s.bigCommand)
	proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 2050, DeltaNum: 1, BaseTime: 2000},
		&s.ps1, &s.ps2, s.ents1, s.ents2, &gs.Baselines)
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		panic(w.Err())
	}
	sch.Transmit(w.Bytes())
	sch.Flush()
	s.fragments = len(down.pkts)
	flush(ServerToClient, down)

	// Message 2, client→server: usercmds coded from the delta
	// snapshot's player state, which the header acknowledges (message
	// 3).
	s.cmds2 = []bg.UserCmd{
		{ServerTime: 1100, Aim: 330, RightMove: 127, Weapon: 2},
		{ServerTime: 1116, Aim: 331, RightMove: 127, Weapon: 2},
	}
	base := proto.UsercmdBase(&s.ps2)
	w.Reset(buf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: testServerID, MessageAcknowledge: 3, ReliableAcknowledge: 2})
	lastServerCmd = s.bigCommand
	proto.WriteMove(w, proto.UsercmdKey(testFeed, 3, lastServerCmd), &base, s.cmds2, false)
	w.WriteUint8(proto.ClcEOF)
	cch.Transmit(w.Bytes())
	flush(ClientToServer, up)
	return s
}

// feed feeds packets to in and returns the messages.
func feed(in *Inspector, pkts []packet) []Message {
	var out []Message
	for i, p := range pkts {
		from, to := clientAddr, serverAddr
		if p.dir == ServerToClient {
			from, to = to, from
		}
		out = append(out, in.Feed(p.dir, from, to, p.data, time.Duration(i)*time.Millisecond)...)
	}
	return out
}
