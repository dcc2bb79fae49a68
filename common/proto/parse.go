package proto

import (
	"errors"
	"fmt"

	"tremor/bg"
	"tremor/net/msg"
)

// This file holds the one reader of each direction's messages: the walk
// of a server→client message (ParseServerMessage) that the client engine,
// its demo playback and the packet inspector all use, and the walk of a
// client→server message (ParseClientMessage) the inspector uses. What a
// receiver keeps and decides (which snapshot is a delta's base, whether a
// command is new, how to unscramble) is its Handler's; what a tracer
// wants to see (where each operation and field starts and ends) goes to
// an Observer, which costs nothing when nil.

// ErrNoEOF is the error for a message whose bits end before its eof op.
var ErrNoEOF = errors.New("proto: message ends without eof")

// ErrCommandWindow is the error for a reliable command more than
// MaxReliableCommands past the last one its receiver executed: its sender
// never holds that many unacknowledged, so it is garbage (a message read
// with the wrong scramble setting, for one).
var ErrCommandWindow = errors.New("proto: reliable command beyond the window")

// CheckCommandWindow returns an error wrapping ErrCommandWindow if a
// reliable command of sequence seq cannot follow the last executed one,
// last.
func CheckCommandWindow(seq, last int32) error {
	if seq-last > MaxReliableCommands {
		return fmt.Errorf("%w: %d after %d", ErrCommandWindow, seq, last)
	}
	return nil
}

// Part says what an Event reports.
type Part uint8

// The parts of a message a parser reports to its Observer. Start is the
// bit where the part starts, End where it ends (the reader's position at
// the event). Events with Begin set come before a delta read, with its
// base, so that an observer can set the reader's field trace
// (msg.Reader.SetFieldTrace) for it; the same part follows without Begin
// once it is read.
const (
	// PartReliableAck is a server message's reliable acknowledge (Seq).
	PartReliableAck Part = iota + 1
	// PartClientHeader is a client message's header (Client; Marks: the
	// ends of its server id and its message acknowledge).
	PartClientHeader
	// PartOp is an operation code (Op), read from Start to End; its body
	// follows.
	PartOp
	// PartOpEnd ends the operation (Op) that began at Start, with the
	// error that ends the message if any (Err).
	PartOpEnd
	// PartServerCommand is an SvcServerCommand's sequence and text.
	PartServerCommand
	// PartClientCommand is a ClcClientCommand's sequence and text.
	PartClientCommand
	// PartGamestateSequence is a gamestate's command sequence (Seq).
	PartGamestateSequence
	// PartConfigstring is one configstring of a gamestate (Index, Text),
	// its SvcConfigstring code included.
	PartConfigstring
	// PartBaseline is one baseline of a gamestate (Index), its
	// SvcBaseline code included; the Begin event has no base (the zero
	// entity).
	PartBaseline
	// PartGamestateEnd is a gamestate's SvcEOF, client number and
	// checksum feed.
	PartGamestateEnd
	// PartSnapshotHeader is a snapshot's header (Header; Marks: the ends
	// of DeltaNum and Flags), before ServerHandler.SnapshotBase resolves
	// its time.
	PartSnapshotHeader
	// PartPlayerState is a snapshot's player-state delta (FromPS: its
	// base, nil for none).
	PartPlayerState
	// PartEntity is one entity delta of a snapshot, its number included
	// (Index: the number; FromEnt: its base, the previous snapshot's
	// entity or, if Added, its baseline; Removed after the read).
	PartEntity
	// PartEntitiesEnd is the number that ends a snapshot's entities.
	PartEntitiesEnd
	// PartMoveCount is a usercmd packet's count (Index), whether its
	// first command is coded from a UsercmdBase (Based), its time run
	// (TimeStep, TimeWidth) and its key (Key).
	PartMoveCount
	// PartUsercmd is one usercmd delta of a packet (Index: its place;
	// FromCmd: the command before it, or the first one's base: the
	// UsercmdBase or the zero command).
	PartUsercmd
	// PartAck is an SvcAck's or ClcAck's packet acks (Seq: ack; Key:
	// ackBits).
	PartAck
	// PartMessages is an SvcMessages' or ClcMessages' block (Index: its
	// length; Block: its bytes, valid during the event).
	PartMessages
	// PartMessageBase is an SvcMessageBase's id (Seq).
	PartMessageBase
	// PartFrames is an SvcFrames' input lead (Seq) and frames message,
	// after the handler read it.
	PartFrames
	// PartWholeState is an SvcWholeState's whole-state message, after
	// the handler read it.
	PartWholeState
	// PartFrameRequest is a ClcFrameRequest (Seq: the frame; Added: a
	// whole state is asked for).
	PartFrameRequest
)

// Event is one step of a parse, for an Observer. Which fields are set
// depends on Part; the base pointers point into the receiver's state and
// must not be kept or written.
type Event struct {
	Part       Part
	Begin      bool   // before a delta read (see Part)
	Start, End int    // bit positions in the body
	Marks      [2]int // bit positions inside a header (see Part)

	Op      uint8  // operation code (PartOp, PartOpEnd)
	Seq     int32  // a sequence: acknowledge, command, gamestate's command sequence
	Text    string // a command's text, a configstring's value
	Index   int32  // configstring index, baseline or entity number, usercmd count or place
	Key     uint32 // usercmd key
	Removed bool   // the entity delta removed the entity
	Added   bool   // the entity came from its baseline
	Based   bool   // the first usercmd is coded from a UsercmdBase
	Block   []byte // a message block (PartMessages)
	// TimeStep is a usercmd packet's time run's step (PartMoveCount),
	// -1 when its commands' times are coded each in its delta;
	// TimeWidth the bits of each command's increment less the step.
	TimeStep  int32
	TimeWidth int
	Err       error // what ended the message (PartOpEnd)

	Header  SnapshotHeader  // PartSnapshotHeader
	Client  ClientHeader    // PartClientHeader
	FromPS  *bg.PlayerState // the base of a player-state delta, nil for none
	FromEnt *bg.EntityState // the base of an entity delta, nil for none
	FromCmd *bg.UserCmd     // the base of a usercmd delta
}

// Observer watches a parse: cl_shownet's lines, the inspector's
// operations and field bits. It may read, and set the field trace of,
// the reader being parsed, but not move it.
type Observer interface {
	Observe(e Event)
}

// ServerHandler is what a receiver of server messages keeps and decides,
// for ParseServerMessage: Quake III's clc state behind
// CL_ParseServerMessage. An error a method returns ends the message and
// is returned by the parse.
type ServerHandler interface {
	// ReliableAcknowledge is given the message's reliable acknowledge
	// (the last client command the server had); it checks it, and
	// unscrambles body in place (ScrambleServerMessage) if the message is
	// scrambled, which it reports.
	ReliableAcknowledge(seq uint32, ack int32, body []byte) (unscrambled bool, err error)
	// ServerCommand receives a reliable server command
	// (CL_ParseCommandString).
	ServerCommand(seq int32, text string) error
	// GamestateBuffer returns the Gamestate an SvcGamestate is read into.
	GamestateBuffer() *Gamestate
	// Gamestate receives the gamestate read into the buffer, or the
	// error that stopped the reading (CL_ParseGamestate).
	Gamestate(gs *Gamestate, err error) error
	// SnapshotBase is given a snapshot's header and returns what to read
	// its body with, and the header with its time resolved
	// (ResolveTime) from the base it picks.
	SnapshotBase(h SnapshotHeader) SnapshotBase
	// Snapshot receives the snapshot read (CL_ParseSnapshot): what
	// SnapshotBase returned, and the entities or the error that stopped
	// the reading.
	Snapshot(b SnapshotBase, ents []bg.EntityState, err error) error
	// DownloadBuffer returns where an SvcDownload's data bytes are read.
	DownloadBuffer() *[DownloadBlockSize]byte
	// Download receives an SvcDownload block (CL_ParseDownload), its Data
	// pointing into DownloadBuffer, or the error that stopped the
	// reading.
	Download(d *Download, err error) error
	// StateHashBuffer returns where an SvcStateHash is read.
	StateHashBuffer() *StateHash
	// StateHash receives an SvcStateHash read into StateHashBuffer (the
	// hashes of the snapshot before it in the message), or the error
	// that stopped the reading.
	StateHash(sh *StateHash, err error) error
}

// SnapshotBase is what a snapshot's body is read with: the base's player
// state and entities (nil for a full snapshot, or a base the receiver
// does not have: the bits are read all the same, so the message stays
// aligned), the baselines, and where the result goes (the player state,
// and the entities appended to Out[:0], which should have capacity
// MaxSnapshotEntities). Base and Valid are the handler's, for its
// Snapshot.
type SnapshotBase struct {
	Header SnapshotHeader
	// Base is the message number of the base, -1 for a full snapshot.
	Base int32
	// Valid says what is read will be the snapshot: it needs no base, or
	// the receiver has it.
	Valid     bool
	PS        *bg.PlayerState
	Entities  []bg.EntityState
	Baselines *[msg.MaxEntities]bg.EntityState
	IntoPS    *bg.PlayerState
	Out       []bg.EntityState
}

// ParseServerMessage reads one server→client message body (Quake III's
// CL_ParseServerMessage, with the reading parts of CL_ParseGamestate and
// CL_ParseSnapshot): the reliable acknowledge, then operations up to
// SvcEOF, each handed to h. seq is the message's netchan sequence, for
// h's unscrambling. obs, if not nil, sees every part. It returns the
// error that ended the message early.
func ParseServerMessage(r *msg.Reader, body []byte, seq uint32, h ServerHandler, obs Observer) error {
	r.Reset(body, msg.Huffman)
	ack := ReadReliableAck(r)
	if r.Err() != nil {
		return r.Err()
	}
	if obs != nil {
		obs.Observe(Event{Part: PartReliableAck, End: r.BitPos(), Seq: ack})
	}
	unscrambled, err := h.ReliableAcknowledge(seq, ack, body)
	if err != nil {
		return err
	}
	if unscrambled {
		r.Reset(body, msg.Huffman)
		ReadReliableAck(r)
	}
	return readOps(r, SvcEOF, SvcNop, obs, func(op uint8) error {
		switch op {
		case SvcServerCommand:
			return readCommand(r, obs, PartServerCommand, ReadServerCommand, h.ServerCommand)
		case SvcGamestate:
			gs := h.GamestateBuffer()
			readGamestate(r, gs, obs)
			return h.Gamestate(gs, r.Err())
		case SvcSnapshot:
			return parseSnapshot(r, h, obs)
		case SvcDownload:
			var d Download
			ReadDownload(r, &d, h.DownloadBuffer())
			return h.Download(&d, r.Err())
		case SvcStateHash:
			sh := h.StateHashBuffer()
			ReadStateHash(r, sh)
			return h.StateHash(sh, r.Err())
		case SvcAck, SvcMessages, SvcMessageBase:
			return readAckOp(r, h, op, obs, "server")
		case SvcFrames, SvcWholeState:
			return readFrameOp(r, h, op, obs, "server")
		}
		return fmt.Errorf("%w %d in a server message", ErrBadOp, op)
	})
}

// parseSnapshot reads an SvcSnapshot body for ParseServerMessage.
func parseSnapshot(r *msg.Reader, h ServerHandler, obs Observer) error {
	sh := readSnapshotHeader(r, obs)
	if r.Err() != nil {
		return r.Err()
	}
	b := h.SnapshotBase(sh)
	if obs != nil {
		obs.Observe(Event{Part: PartPlayerState, Begin: true, Start: r.BitPos(), End: r.BitPos(), FromPS: b.PS})
	}
	start := r.BitPos()
	bg.PlayerStateTable.ReadDeltaPlayerState(r, b.PS, b.IntoPS)
	if obs != nil {
		obs.Observe(Event{Part: PartPlayerState, Start: start, End: r.BitPos(), FromPS: b.PS})
	}
	ents := readPacketEntities(r, b.Entities, b.Baselines, b.Out, b.Header.TimeIncrement, obs)
	return h.Snapshot(b, ents, r.Err())
}

// ClientHandler is what a receiver of client messages keeps and decides,
// for ParseClientMessage: the reading side of Quake III's
// SV_ExecuteClientMessage. An error a method returns ends the message and
// is returned by the parse.
type ClientHandler interface {
	// ClientHeader is given the message's header; it unscrambles body in
	// place (ScrambleClientMessage) if the message is scrambled, which it
	// reports.
	ClientHeader(h ClientHeader, body []byte) (unscrambled bool, err error)
	// ClientCommand receives a reliable client command
	// (SV_ClientCommand).
	ClientCommand(seq int32, text string) error
	// MoveKey returns the key a usercmd packet is read with (UsercmdKey),
	// where its commands go and, if based, the UsercmdBase of the
	// acknowledged snapshot its first command is coded from (an error,
	// wrapping ErrNoUsercmdBase, if it has none; nil if not based). The
	// base is only read, during the parse.
	MoveKey(based bool) (key uint32, base *bg.UserCmd, cmds *[MaxPacketUsercmds]bg.UserCmd, err error)
	// Move receives a usercmd packet's commands (SV_UserMove), or the
	// error that stopped reading them. It follows MoveKey: a packet
	// whose count and header cannot be read ends the message without
	// either.
	Move(cmds []bg.UserCmd, noDelta bool, err error) error
}

// ParseClientMessage reads one client→server message body (the reading
// part of Quake III's SV_ExecuteClientMessage): the header, then
// operations up to ClcEOF, each handed to h. obs, if not nil, sees every
// part. It returns the error that ended the message early.
func ParseClientMessage(r *msg.Reader, body []byte, h ClientHandler, obs Observer) error {
	r.Reset(body, msg.Huffman)
	ch, marks := readClientHeader(r)
	if r.Err() != nil {
		return r.Err()
	}
	if obs != nil {
		obs.Observe(Event{Part: PartClientHeader, End: r.BitPos(), Marks: marks, Client: ch})
	}
	unscrambled, err := h.ClientHeader(ch, body)
	if err != nil {
		return err
	}
	if unscrambled {
		r.Reset(body, msg.Huffman)
		ReadClientHeader(r)
	}
	return readOps(r, ClcEOF, ClcNop, obs, func(op uint8) error {
		switch op {
		case ClcClientCommand:
			return readCommand(r, obs, PartClientCommand, ReadClientCommand, h.ClientCommand)
		case ClcMove, ClcMoveNoDelta:
			mh, start := readMoveCount(r)
			if r.Err() != nil {
				return r.Err() // no count: Move has nothing to take
			}
			key, base, cmds, err := h.MoveKey(mh.based)
			if err != nil {
				return err
			}
			if obs != nil {
				e := Event{Part: PartMoveCount, Start: start, End: r.BitPos(), Index: int32(mh.n), Based: mh.based, Key: key, TimeStep: -1}
				if mh.run {
					e.TimeStep, e.TimeWidth = int32(mh.step), mh.width
				}
				obs.Observe(e)
			}
			n := readMoveCmds(r, key, base, &mh, cmds[:], obs)
			return h.Move(cmds[:n], op == ClcMoveNoDelta, r.Err())
		case ClcAck, ClcMessages:
			return readAckOp(r, h, op, obs, "client")
		case ClcFrameRequest:
			return readFrameOp(r, h, op, obs, "client")
		}
		return fmt.Errorf("%w %d in a client message", ErrBadOp, op)
	})
}

// readCommand reads a reliable command of either direction with read
// (ReadServerCommand, ReadClientCommand), shows it to obs as part, and
// hands it to handle.
func readCommand(r *msg.Reader, obs Observer, part Part, read func(*msg.Reader) (int32, string), handle func(int32, string) error) error {
	seq, text := read(r)
	if r.Err() != nil {
		return r.Err()
	}
	if obs != nil {
		obs.Observe(Event{Part: part, End: r.BitPos(), Seq: seq, Text: text})
	}
	return handle(seq, text)
}

// readOps reads the operations of a message body up to its eof op, for
// either direction (eof and nop are the direction's codes); body reads
// every other op's body. The reader's error, or body's, ends the walk.
func readOps(r *msg.Reader, eof, nop uint8, obs Observer, body func(op uint8) error) error {
	for {
		start := r.BitPos()
		op := r.ReadUint8()
		if r.Err() != nil {
			return fmt.Errorf("%w: %w", ErrNoEOF, r.Err())
		}
		if obs != nil {
			obs.Observe(Event{Part: PartOp, Start: start, End: r.BitPos(), Op: op})
		}
		var err error
		if op != eof && op != nop {
			err = body(op)
		}
		if err == nil {
			err = r.Err()
		}
		if obs != nil {
			obs.Observe(Event{Part: PartOpEnd, Start: start, End: r.BitPos(), Op: op, Err: err})
		}
		if err != nil || op == eof {
			return err
		}
	}
}
