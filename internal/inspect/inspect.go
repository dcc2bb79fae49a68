package inspect

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// Dir is the direction a packet travels.
type Dir uint8

const (
	// ClientToServer is a packet from a client to the server.
	ClientToServer Dir = iota
	// ServerToClient is a packet from the server to a client.
	ServerToClient
)

// String returns "c>s" or "s>c".
func (d Dir) String() string {
	if d == ServerToClient {
		return "s>c"
	}
	return "c>s"
}

// MarshalText implements encoding.TextMarshaler for -json output.
func (d Dir) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Kind says what a packet was.
type Kind string

// Packet kinds.
const (
	// KindConnectionless is an out-of-band packet (0xFFFFFFFF prefix).
	KindConnectionless Kind = "connectionless"
	// KindMessage is a packet that completed a netchan message: a whole
	// message, or the last fragment of one. Its Ops are decoded.
	KindMessage Kind = "message"
	// KindFragment is a fragment stored for reassembly.
	KindFragment Kind = "fragment"
	// KindDropped is a netchan packet the receiver would drop without an
	// error: a duplicate or out-of-order sequence, or a fragment that
	// does not continue the message being reassembled.
	KindDropped Kind = "dropped"
	// KindMalformed is a packet the receiver would reject with an error.
	KindMalformed Kind = "malformed"
)

// Message is what the inspector decoded from one packet.
type Message struct {
	Time time.Duration  `json:"time"` // as given to Feed (JSON: nanoseconds)
	Dir  Dir            `json:"dir"`
	From netip.AddrPort `json:"from"`
	To   netip.AddrPort `json:"to"`
	Size int            `json:"size"` // bytes of the packet, header included
	Kind Kind           `json:"kind"`

	// Connectionless packets.
	OOB *OOB `json:"oob,omitempty"`

	// Netchan packets: the header.
	Sequence       uint32 `json:"sequence,omitempty"`
	Fragment       bool   `json:"fragment,omitempty"`
	FragmentStart  uint16 `json:"fragmentStart,omitempty"`
	FragmentLength uint16 `json:"fragmentLength,omitempty"`
	Qport          uint16 `json:"qport,omitempty"`
	HeaderBits     int    `json:"headerBits,omitempty"`
	// Dropped is, for a completed message, how many sequences were
	// skipped before it (lost on the way to the inspector).
	Dropped uint32 `json:"dropped,omitempty"`

	// Completed messages: the body length (reassembled), whether it was
	// scrambled, and its operations in order.
	MessageLen int  `json:"messageLen,omitempty"`
	Scrambled  bool `json:"scrambled,omitempty"`
	Ops        []Op `json:"ops,omitempty"`
	// Bits is how many body bits the operations took (the rest of the
	// last byte is padding).
	Bits int `json:"bits,omitempty"`

	// Err says why decoding stopped early (the Ops read until then are
	// kept), or why the packet is malformed or dropped.
	Err string `json:"err,omitempty"`
	// CannotDecode says decoding stopped because the inspector did not
	// see something the body's decoding depends on (ErrCannotDecode):
	// not a fault of the packet.
	CannotDecode bool `json:"cannotDecode,omitempty"`
}

// OOB is a decoded connectionless packet.
type OOB struct {
	Command string  `json:"command"` // first token: getinfo, challengeResponse, ...
	Text    string  `json:"text"`
	Fields  []Field `json:"fields,omitempty"` // arguments, info-string pairs
}

// Op names.
const (
	OpReliableAck   = "reliableAck"   // server→client: last client command received
	OpServerCommand = "serverCommand" // SvcServerCommand
	OpGamestate     = "gamestate"     // SvcGamestate
	OpConfigstring  = "configstring"  // inside a gamestate
	OpBaseline      = "baseline"      // inside a gamestate
	OpGamestateEnd  = "gamestateEnd"  // client number and checksum feed
	OpSnapshot      = "snapshot"      // SvcSnapshot
	OpDownload      = "download"      // SvcDownload: one block of a map download
	OpStateHash     = "stateHash"     // SvcStateHash: the hashes of the snapshot before it (sv_hashSnapshots)
	OpPlayerState   = "playerState"   // inside a snapshot
	OpEntity        = "entity"        // inside a snapshot
	OpEntitiesEnd   = "entitiesEnd"   // inside a snapshot
	OpNop           = "nop"           // SvcNop, ClcNop
	OpEOF           = "eof"           // SvcEOF, ClcEOF
	OpClientHeader  = "clientHeader"  // client→server: server id and acknowledges
	OpClientCommand = "clientCommand" // ClcClientCommand
	OpMove          = "move"          // ClcMove
	OpMoveNoDelta   = "moveNoDelta"   // ClcMoveNoDelta
	OpUsercmd       = "usercmd"       // inside a move
	OpPacketAcks    = "packetAcks"    // SvcAck, ClcAck: the acks carrier's ack and ack bits
	OpMessages      = "messages"      // SvcMessages, ClcMessages: reliable commands by id
	OpMessage       = "message"       // inside messages: one command with its id
	OpMessageBase   = "messageBase"   // SvcMessageBase: the id the server's commands go on from
	OpFrames        = "frames"        // SvcFrames: the input lead and a run of frames (frame sync)
	OpFrame         = "frame"         // inside frames: one frame
	OpFrameInput    = "input"         // inside a frame: one client's usercmd
	OpFrameEvent    = "event"         // inside a frame: one engine call replayed
	OpWholeState    = "wholeState"    // SvcWholeState: the game's whole state after a frame
	OpFrameRequest  = "frameRequest"  // ClcFrameRequest: frames or a whole state asked for
)

// Op is one operation of a message, with the bits it took. Sub breaks
// it down further (a snapshot's player state and entities, a gamestate's
// configstrings and baselines, a move's usercmds). The typed fields
// carry the decoded values for programs and tests.
type Op struct {
	Name   string  `json:"op"`
	Bits   int     `json:"bits"`
	Fields []Field `json:"fields,omitempty"`
	Sub    []Op    `json:"sub,omitempty"`

	Command   *Command            `json:"command,omitempty"`   // server or client command
	Header    *proto.ClientHeader `json:"header,omitempty"`    // client header
	Gamestate *Gamestate          `json:"gamestate,omitempty"` // gamestate
	Snapshot  *Snapshot           `json:"snapshot,omitempty"`  // snapshot
	Move      *Move               `json:"move,omitempty"`      // move
	Entity    *EntityChange       `json:"entity,omitempty"`    // one entity of a snapshot
	// The acks carrier's (docs/protocol.md 6.7): PacketAcks of a
	// packetAcks op; MessageID of a message inside a messages op, or of a
	// messageBase op (the id the server's commands go on from).
	PacketAcks *PacketAcks `json:"packetAcks,omitempty"`
	MessageID  *uint16     `json:"messageId,omitempty"`
	// ReliableAck is a reliableAck op's sequence: the last client command
	// the server received.
	ReliableAck *int32 `json:"reliableAck,omitempty"`
	// Frame sync's (docs/protocol.md 6.8): the frames of a frames op, the
	// whole state of a wholeState op, a client's frameRequest.
	Frames       *Frames             `json:"frames,omitempty"`
	WholeState   *WholeState         `json:"wholeState,omitempty"`
	FrameRequest *proto.FrameRequest `json:"frameRequest,omitempty"`

	gs *proto.Gamestate // the whole gamestate, for the connection's state
	// inParent: the op's bits are counted in its parent's field (a frame
	// of a frames message, read in one go), so it shows none.
	inParent bool
}

// Command is a reliable command, either way.
type Command struct {
	Sequence int32  `json:"sequence"`
	Text     string `json:"text"`
	// New is false for a command the receiver has already had (every
	// unacknowledged command rides in every message).
	New bool `json:"new"`
}

// PacketAcks is an SvcAck's or ClcAck's fields: the newest netchan
// sequence (low 16 bits) the sender received, and bit n set when ack-n
// arrived.
type PacketAcks struct {
	Ack  uint16 `json:"ack"`
	Bits uint32 `json:"ackBits"`
}

// Gamestate summarises a decoded gamestate.
type Gamestate struct {
	CommandSequence int32 `json:"commandSequence"`
	ClientNum       int32 `json:"clientNum"`
	ChecksumFeed    int32 `json:"checksumFeed"`
	Configstrings   int   `json:"configstrings"`
	Baselines       int   `json:"baselines"`
	ServerID        int32 `json:"serverId"`
	Scramble        bool  `json:"scramble"`
}

// Snapshot is a decoded snapshot.
type Snapshot struct {
	MessageNum int32 `json:"messageNum"` // netchan sequence of the message
	DeltaNum   uint8 `json:"deltaNum"`   // as on the wire: messages back to the base
	// Base is the message number of the base, -1 for a full snapshot
	// (the client's SnapshotInfo.DeltaNum).
	Base  int32 `json:"base"`
	Flags uint8 `json:"flags"`
	// ServerTime is the snapshot's time; TimeIncrement is the time
	// since its base, when it came relative to it (protocol 3; the
	// expected time, protocol 5), 0 if it came whole. Step is the
	// server's time per message its header gave (protocol 5).
	ServerTime    int32 `json:"serverTime"`
	TimeIncrement int32 `json:"timeIncrement,omitempty"`
	Step          int32 `json:"step,omitempty"`
	// Valid: the base was known (or none was needed), so PS and Entities
	// are the snapshot's. An invalid snapshot was read to stay aligned,
	// as a client whose base is gone reads it, and its values are not.
	Valid    bool             `json:"valid"`
	PS       bg.PlayerState   `json:"ps"`
	Entities []bg.EntityState `json:"entities"`
	// Changed, Added, Removed and Unchanged count entities against the
	// base.
	Changed, Added, Removed, Unchanged int
}

// EntityChange is one entity written in a snapshot.
type EntityChange struct {
	Number int32 `json:"number"`
	// Change is "changed", "added" (from its baseline), "removed", or
	// "same" (written with no changes).
	Change string `json:"change"`
}

// Move is a decoded usercmd packet.
type Move struct {
	NoDelta bool `json:"noDelta"`
	// Based: the first command is coded from the acknowledged
	// snapshot's usercmd base (proto.UsercmdBase), not from zero.
	Based bool         `json:"based"`
	Key   uint32       `json:"key"`
	Cmds  []bg.UserCmd `json:"cmds"`
	// New counts the commands newer than every command before them on
	// this connection: the ones a server executes (the others were sent
	// again for loss, cl_packetdup).
	New int `json:"new"`
}

// MaxConnections bounds how many client connections an Inspector follows
// at once; the one heard from least recently is forgotten first.
const MaxConnections = 64

// Inspector decodes the packets of Tremor connections passively, as a
// proxy between clients and a server sees them. It keeps, per client
// address, what both ends keep to decode each other: the challenge, the
// netchan sequences and fragment reassembly, the reliable command rings,
// the gamestate (baselines, checksum feed, scramble setting) and the
// last PacketBackup snapshots as delta bases.
//
// An Inspector is not safe for concurrent use. It never panics on any
// input and bounds everything it keeps.
type Inspector struct {
	conns map[netip.AddrPort]*conn
	clock uint64
}

// New returns an empty Inspector.
func New() *Inspector {
	return &Inspector{conns: make(map[netip.AddrPort]*conn)}
}

// Feed decodes one packet sent in direction dir from from to to at time
// now, and returns what it carried. A client→server packet's client is
// from, a server→client packet's is to. packet is not kept.
func (in *Inspector) Feed(dir Dir, from, to netip.AddrPort, packet []byte, now time.Duration) []Message {
	m := Message{Time: now, Dir: dir, From: from, To: to, Size: len(packet)}
	clientAddr := from
	if dir == ServerToClient {
		clientAddr = to
	}
	if oob.IsConnectionless(packet) {
		in.connectionless(&m, clientAddr, packet)
		return []Message{m}
	}
	c := in.conn(clientAddr, true)
	c.packet(&m, packet)
	return []Message{m}
}

// conn returns the state kept for a client address, creating it if
// create is set (forgetting the least recently used one when full).
func (in *Inspector) conn(addr netip.AddrPort, create bool) *conn {
	in.clock++
	if c, ok := in.conns[addr]; ok {
		c.used = in.clock
		return c
	}
	if !create {
		return nil
	}
	if len(in.conns) >= MaxConnections {
		var oldest netip.AddrPort
		var at uint64 = 1<<64 - 1
		for a, c := range in.conns {
			if c.used < at {
				oldest, at = a, c.used
			}
		}
		delete(in.conns, oldest)
	}
	c := newConn()
	c.used = in.clock
	in.conns[addr] = c
	return c
}

// connectionless decodes an out-of-band packet and follows the
// handshake: challengeResponse gives the challenge, connect the qport
// (and the challenge the server will use), connectResponse starts the
// channels.
func (in *Inspector) connectionless(m *Message, clientAddr netip.AddrPort, packet []byte) {
	m.Kind = KindConnectionless
	text, err := oob.Parse(packet)
	if err != nil {
		m.Err = err.Error()
		return
	}
	o := &OOB{Command: oob.Command(text), Text: text}
	m.OOB = o
	switch {
	case eq(o.Command, oob.CmdChallengeResponse):
		ch, _, _, err := oob.ParseChallengeResponse(text)
		if err != nil {
			m.Err = err.Error()
			return
		}
		o.Fields = append(o.Fields, Field{Name: "challenge", Value: fmt.Sprint(ch)})
		if m.Dir == ServerToClient {
			c := in.conn(clientAddr, true)
			c.offeredChallenge, c.haveOffered = uint32(ch), true
		}
	case eq(o.Command, oob.CmdConnect):
		ui, err := oob.ParseConnect(text)
		if err != nil {
			m.Err = err.Error()
			return
		}
		o.Fields = infoFields(o.Fields, ui)
		if m.Dir == ClientToServer {
			c := in.conn(clientAddr, true)
			var ch int64
			if _, err := fmt.Sscan(infostr.ValueForKey(ui, "challenge"), &ch); err == nil {
				c.pendingChallenge, c.havePending = uint32(ch), true
			}
		}
	case eq(o.Command, oob.CmdConnectResponse):
		ch, ok, err := oob.ParseConnectResponse(text)
		if err != nil {
			m.Err = err.Error()
			return
		}
		if ok {
			o.Fields = append(o.Fields, Field{Name: "challenge", Value: fmt.Sprint(ch)})
		}
		if m.Dir == ServerToClient {
			c := in.conn(clientAddr, true)
			c.connect(uint32(ch), ok)
		}
	case eq(o.Command, oob.CmdInfoResponse):
		if info, err := oob.ParseInfoResponse(text); err == nil {
			o.Fields = infoFields(o.Fields, info)
		}
	case eq(o.Command, oob.CmdStatusResponse):
		if info, players, err := oob.ParseStatusResponse(text); err == nil {
			o.Fields = infoFields(o.Fields, info)
			for _, p := range players {
				o.Fields = append(o.Fields, Field{Name: "player", Value: fmt.Sprintf("%d %d %q", p.Score, p.Ping, p.Name)})
			}
		}
	case eq(o.Command, oob.CmdPrint):
		if s, err := oob.ParsePrint(text); err == nil {
			o.Fields = append(o.Fields, Field{Name: "text", Value: s})
		}
	default:
		args := cmdargs.Tokenize(text)
		for i := 1; i < args.Argc() && i <= 16; i++ {
			o.Fields = append(o.Fields, Field{Name: fmt.Sprintf("arg%d", i), Value: args.Argv(i)})
		}
	}
}

func eq(a, b string) bool { return strings.EqualFold(a, b) }

// infoFields appends the pairs of an info string (at most 64).
func infoFields(dst []Field, info string) []Field {
	n := 0
	for k, v := range infostr.PairsSeq(info) {
		if n == 64 {
			break
		}
		dst = append(dst, Field{Name: k, Value: v})
		n++
	}
	return dst
}

// errStale is the reason given for a packet the receiver drops.
var errStale = errors.New("inspect: sequence not newer than the last delivered")

// channel mirrors the receiving side of a netchan.Chan in one direction:
// the incoming sequence and fragment reassembly (Netchan_Process).
type channel struct {
	incoming uint32
	fragSeq  uint32
	fragLen  int
	fragBuf  []byte // netchan.MaxMsgLen, allocated on the first fragment
}

// resolve places a packet's wire sequence (its low netchan.SequenceBits)
// as netchan.Chan.Process does, against the last sequence delivered: a
// sequence ahead, or one at or behind it (stale). Before anything was
// delivered (an inspector attached mid-connection) the wire value is
// taken as it is.
func (ch *channel) resolve(wire uint32) uint32 {
	if ch.incoming == 0 {
		return wire
	}
	seq, ahead := netchan.ResolveSequence(wire, ch.incoming)
	if !ahead {
		return ch.incoming - seq
	}
	return seq
}

// process mirrors netchan.Chan.Process for a packet with header h and
// body body; it returns the completed message (aliasing body or the
// reassembly buffer), the kind of packet, and the sequence gap.
func (ch *channel) process(h netchan.Header, body []byte) (msg []byte, kind Kind, gap uint32, err error) {
	if h.Sequence <= ch.incoming {
		return nil, KindDropped, 0, errStale
	}
	gap = h.Sequence - (ch.incoming + 1)
	if !h.Fragment {
		if len(body) > netchan.MaxMsgLen {
			return nil, KindMalformed, 0, netchan.ErrMsgTooLong
		}
		ch.incoming = h.Sequence
		return body, KindMessage, gap, nil
	}
	if h.FragmentLength > netchan.FragmentSize {
		return nil, KindMalformed, 0, netchan.ErrFragmentTooLong
	}
	if int(h.FragmentLength) != len(body) {
		return nil, KindMalformed, 0, netchan.ErrFragmentLength
	}
	switch {
	case h.Sequence < ch.fragSeq:
		return nil, KindDropped, 0, errors.New("inspect: late fragment of an older message")
	case h.Sequence > ch.fragSeq:
		ch.fragSeq = h.Sequence
		ch.fragLen = 0
	}
	if int(h.FragmentStart) != ch.fragLen {
		return nil, KindDropped, 0, fmt.Errorf("inspect: fragment at %d, expected %d (a fragment was lost)", h.FragmentStart, ch.fragLen)
	}
	if ch.fragLen+len(body) > netchan.MaxMsgLen {
		return nil, KindMalformed, 0, netchan.ErrFragmentOverflow
	}
	if ch.fragBuf == nil {
		ch.fragBuf = make([]byte, netchan.MaxMsgLen)
	}
	ch.fragLen += copy(ch.fragBuf[ch.fragLen:], body)
	if len(body) == netchan.FragmentSize {
		return nil, KindFragment, gap, nil
	}
	ch.incoming = h.Sequence
	return ch.fragBuf[:ch.fragLen], KindMessage, gap, nil
}

// packet decodes a netchan packet of this connection.
func (c *conn) packet(m *Message, packet []byte) {
	side := netchan.ClientSide // a server→client packet, read by the client
	ch := &c.down
	if m.Dir == ClientToServer {
		side = netchan.ServerSide
		ch = &c.up
	}
	h, err := netchan.PeekHeader(packet, side)
	h.Sequence = ch.resolve(h.Sequence)
	m.Sequence, m.Fragment, m.Qport = h.Sequence, h.Fragment, h.Qport
	m.FragmentStart, m.FragmentLength = h.FragmentStart, h.FragmentLength
	if err != nil {
		m.Kind, m.Err = KindMalformed, err.Error()
		return
	}
	m.HeaderBits = 8 * h.Len()
	body, kind, gap, err := ch.process(h, packet[h.Len():])
	m.Kind = kind
	if err != nil {
		m.Err = err.Error()
		return
	}
	if kind != KindMessage {
		return
	}
	m.Dropped = gap
	m.MessageLen = len(body)
	if len(body) > len(c.scratch) {
		return // cannot happen: process bounds it
	}
	if m.Dir == ServerToClient {
		c.serverMessage(m, h.Sequence, body)
	} else {
		c.clientMessage(m, body)
	}
}
