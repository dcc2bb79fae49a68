// Package proto is the in-band message format Tremor's server and client
// engines share: the operations of a server→client and a client→server
// message, the gamestate, snapshots with the dual-cursor entity merge,
// usercmd packets, and the keys that scramble them. Quake III kept this in
// msg.c, sv_snapshot.c, cl_parse.c and cl_input.c; here both directions
// live in one package so the writer and the reader of every field sit side
// by side.
//
// Every reader takes hostile input: it bounds every count and index,
// never panics, and reports problems through the msg.Reader's sticky
// error, which the caller checks once per message.
package proto

import (
	"errors"
	"fmt"

	"tremor/bg"
	"tremor/net/msg"
	"tremor/net/netchan"
)

// Version is the protocol version a client sends in connect and a server
// checks (Quake III's PROTOCOL_VERSION was 68). Version 2 shipped the
// Huffman table trained on real Tremor traffic; version 3 sends a delta
// snapshot's server time and the player state's command time as short
// increments from the base.
const Version = 3

// Limits of the protocol.
const (
	// MaxReliableCommands is the size of each side's reliable command ring
	// (MAX_RELIABLE_COMMANDS). A power of two.
	MaxReliableCommands = 64
	// PacketBackup is how many outgoing snapshots or usercmd packets each
	// side remembers (PACKET_BACKUP).
	PacketBackup = netchan.PacketBackup
	// PacketMask masks a message number into a PacketBackup ring.
	PacketMask = PacketBackup - 1
	// MaxPacketUsercmds is the most usercmds one client packet carries.
	MaxPacketUsercmds = 32
	// MaxSnapshotEntities is the most entities one snapshot carries.
	MaxSnapshotEntities = 256
	// EntityEnd is the entity number that ends a list of entity deltas.
	EntityEnd = msg.MaxEntities - 1
)

// Server→client operations (Quake III's svc_ops_e).
const (
	SvcBad = iota
	SvcNop
	SvcGamestate
	SvcConfigstring // only inside a gamestate
	SvcBaseline     // only inside a gamestate
	SvcServerCommand
	SvcSnapshot
	SvcEOF
)

// Client→server operations (clc_ops_e).
const (
	ClcBad = iota
	ClcNop
	ClcMove        // usercmds; the server may delta the next snapshot
	ClcMoveNoDelta // usercmds; the client wants a full snapshot
	ClcClientCommand
	ClcEOF
)

// Snapshot flags (SNAPFLAG_*).
const (
	// SnapRateDelayed: the server held this snapshot back for the
	// client's rate; the lagometer marks it.
	SnapRateDelayed = 1 << iota
	// SnapNotActive: the client is not yet in the game.
	SnapNotActive
	// SnapServerCount: toggled on every map change or restart, so the
	// client knows not to interpolate across it.
	SnapServerCount
)

// Errors the readers stick on a msg.Reader.
var (
	ErrEntityOrder     = errors.New("proto: entity numbers out of order")
	ErrTooManyEntities = errors.New("proto: too many entities in a snapshot")
	ErrBadConfigstring = errors.New("proto: configstring index out of range")
	ErrBadBaseline     = errors.New("proto: baseline number out of range")
	ErrTooManyCommands = errors.New("proto: too many usercmds in a packet")
	ErrBadOp           = errors.New("proto: unknown operation")
)

// HashKey hashes the first maxlen bytes of s (Quake III's MSG_HashKey):
// part of the key of usercmd deltas.
func HashKey(s string, maxlen int) uint32 {
	var h uint32
	for i := 0; i < maxlen && i < len(s) && s[i] != 0; i++ {
		h += uint32(s[i]) * uint32(119+i)
	}
	return h ^ h>>10 ^ h>>20
}

// UsercmdKey is the key usercmds are XORed with: the gamestate's checksum
// feed, the last server message the client received, and a hash of the
// last server command it received. The server computes it from the
// acknowledgements in the same packet.
func UsercmdKey(checksumFeed, serverMessage uint32, lastServerCommand string) uint32 {
	return checksumFeed ^ serverMessage ^ HashKey(lastServerCommand, 32)
}

// WriteServerCommand writes one reliable server command.
func WriteServerCommand(w *msg.Writer, seq int32, text string) {
	w.WriteUint8(SvcServerCommand)
	w.WriteLong(seq)
	w.WriteBigString(text)
}

// ReadServerCommand reads the body of an SvcServerCommand.
func ReadServerCommand(r *msg.Reader) (seq int32, text string) {
	seq = r.ReadLong()
	text = r.ReadBigString()
	return seq, text
}

// WriteClientCommand writes one reliable client command.
func WriteClientCommand(w *msg.Writer, seq int32, text string) {
	w.WriteUint8(ClcClientCommand)
	w.WriteLong(seq)
	w.WriteString(text)
}

// ReadClientCommand reads the body of a ClcClientCommand.
func ReadClientCommand(r *msg.Reader) (seq int32, text string) {
	seq = r.ReadLong()
	text = r.ReadString()
	return seq, text
}

// ClientHeader starts every client→server message.
type ClientHeader struct {
	ServerID            int32 // the server id of the gamestate the client has
	MessageAcknowledge  int32 // last server message received
	ReliableAcknowledge int32 // last server command received
}

// WriteClientHeader writes h.
func WriteClientHeader(w *msg.Writer, h ClientHeader) {
	w.WriteLong(h.ServerID)
	w.WriteLong(h.MessageAcknowledge)
	w.WriteLong(h.ReliableAcknowledge)
}

// ReadClientHeader reads a ClientHeader.
func ReadClientHeader(r *msg.Reader) ClientHeader {
	h, _ := readClientHeader(r)
	return h
}

// readClientHeader is ReadClientHeader that also returns the ends of the
// server id and the message acknowledge.
func readClientHeader(r *msg.Reader) (h ClientHeader, marks [2]int) {
	h.ServerID = r.ReadLong()
	marks[0] = r.BitPos()
	h.MessageAcknowledge = r.ReadLong()
	marks[1] = r.BitPos()
	h.ReliableAcknowledge = r.ReadLong()
	return h, marks
}

// WriteMove writes a usercmd packet: the op, the count, and the commands,
// each delta-coded from the one before (the first from a zero command)
// under key. noDelta asks the server for a full snapshot.
func WriteMove(w *msg.Writer, key uint32, cmds []bg.UserCmd, noDelta bool) {
	if noDelta {
		w.WriteUint8(ClcMoveNoDelta)
	} else {
		w.WriteUint8(ClcMove)
	}
	w.WriteUint8(uint8(len(cmds)))
	var from bg.UserCmd
	for i := range cmds {
		bg.UserCmdTable.WriteDeltaUsercmd(w, key, &from, &cmds[i])
		from = cmds[i]
	}
}

// ReadMove reads the body of a ClcMove or ClcMoveNoDelta into out and
// returns how many commands it held.
func ReadMove(r *msg.Reader, key uint32, out *[MaxPacketUsercmds]bg.UserCmd) int {
	return readMove(r, key, out, nil)
}

// zeroUserCmd is the base of a packet's first usercmd. It is never
// written.
var zeroUserCmd bg.UserCmd

// readMove is ReadMove with an Observer.
func readMove(r *msg.Reader, key uint32, out *[MaxPacketUsercmds]bg.UserCmd, obs Observer) int {
	start := r.BitPos()
	n := int(r.ReadUint8())
	if obs != nil {
		obs.Observe(Event{Part: PartMoveCount, Start: start, End: r.BitPos(), Index: int32(n), Key: key})
	}
	if r.Err() != nil {
		return 0
	}
	if n > MaxPacketUsercmds {
		r.Fail(fmt.Errorf("%w: %d", ErrTooManyCommands, n))
		return 0
	}
	for i := 0; i < n && r.Err() == nil; i++ {
		from := &zeroUserCmd
		if i > 0 {
			from = &out[i-1]
		}
		start := r.BitPos()
		if obs != nil {
			obs.Observe(Event{Part: PartUsercmd, Begin: true, Start: start, End: start, Index: int32(i), FromCmd: from})
		}
		bg.UserCmdTable.ReadDeltaUsercmd(r, key, from, &out[i])
		if obs != nil {
			obs.Observe(Event{Part: PartUsercmd, Start: start, End: r.BitPos(), Index: int32(i), FromCmd: from})
		}
	}
	if r.Err() != nil {
		return 0
	}
	return n
}
