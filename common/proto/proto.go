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
// increments from the base. Version 4 (docs/protocol.md) codes message
// headers as low bits against a window, entity numbers as gaps, moving
// fields as residuals from a prediction (msg.Field.Diff, Table.Predict)
// and the last-changed count in as few bits as the table needs. Version 5
// codes the first usercmd of a packet from the player state of the
// snapshot the client acknowledges (UsercmdBase), a usercmd's time in
// fewer bits, and an entity's aim in 1024 steps (bg.EntityAim). Version
// 6 predicts a falling player's vertical velocity (bg.Gravity, now a
// whole number of units a millisecond, is part of the protocol).
const Version = 6

// MinDemoVersion is the oldest protocol version whose demos this version
// plays: a demo holds only server messages, so a version that changes
// only what clients send keeps it; version 6 changed how a falling
// player's velocity is coded.
const MinDemoVersion = 6

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

// Time limits. Server times are int32 milliseconds, so a clock that ran
// for 2^31 ms (24.8 days) would wrap negative. Quake III restarted its
// server before svs.time reached 0x70000000 rather than check for a wrap
// everywhere; Tremor does the same without dropping anyone: at
// RestartTime the server restarts the map with its clock back at 0,
// keeping every client connected (as map_restart does), and the new
// gamestate makes each client start its clock again. A client never
// accepts a server time outside [0, MaxServerTime], so every sum of a
// server time and a bounded duration (a command's msec, a time nudge,
// MaxCommandMsec, a lagometer span) stays below 2^31 - 1, and every
// difference of two such times is exact.
const (
	// RestartTime is the server time at which a server restarts its map
	// and its clock (Quake III's 0x70000000, 21.7 days).
	RestartTime int32 = 0x70000000
	// MaxServerTime is the latest server time a client accepts in a
	// snapshot: a server whose times go past it is dropped. The 2^24 ms
	// (4.7 hours) above it are the room every bounded sum needs.
	MaxServerTime int32 = 0x7F000000
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

// SnapFlagBits is the width of a snapshot's flags on the wire (raw bits
// since protocol 5; Quake III sent a byte).
const SnapFlagBits = 3

// Errors the readers stick on a msg.Reader.
var (
	ErrEntityOrder     = errors.New("proto: bad entity number")
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

// Widths of the header fields of a message, coded as the low bits of a
// number both ends can place: the receiver knows the newest value the
// sender can mean (ResolveWindowed), so the high bits never travel.
// Quake III sent each as a 32-bit long.
const (
	// ReliableAckBits carries a reliable acknowledge: the last command
	// of the receiver's own that its peer executed. The peer cannot
	// acknowledge a command that was not sent, nor lag more than
	// MaxReliableCommands behind (the sender drops the connection first),
	// so twice the ring suffices.
	ReliableAckBits = 7
	// MessageAckBits carries the client's message acknowledge (the last
	// server message it received): the server places it at or before its
	// last sent message, within netchan.MaxSequenceJump.
	MessageAckBits = 14
	// ServerIDBits carries the low bits of the server id of the
	// client's gamestate. Server ids change by one per map, so a client
	// would have to miss 256 maps for an old id to pass as the current.
	ServerIDBits = 8
	// ServerIDOther is or-ed into a received server id whose low bits
	// are not the current map's: it equals no server id.
	ServerIDOther = 1 << 30
)

// ResolveWindowed returns the number v ≤ ref closest to ref whose low
// n bits are low: the value a header field coded in n bits means, given
// ref, the newest value the sender can mean.
func ResolveWindowed(low uint32, n int, ref int32) int32 {
	return ref - int32((uint32(ref)-low)&(1<<n-1))
}

// WriteReliableAck writes the reliable acknowledge that starts a server
// message: the last client command the server executed, in
// ReliableAckBits raw bits.
func WriteReliableAck(w *msg.Writer, ack int32) {
	w.WriteRawBits(uint32(ack), ReliableAckBits)
}

// ReadReliableAck reads what WriteReliableAck wrote: the low
// ReliableAckBits bits of the acknowledge, for ResolveReliableAck.
func ReadReliableAck(r *msg.Reader) int32 {
	return int32(r.ReadRawBits(ReliableAckBits))
}

// ResolveReliableAck places the low bits of a reliable acknowledge
// against reliableSequence, the receiver's last reliable command sent.
func ResolveReliableAck(low, reliableSequence int32) int32 {
	return ResolveWindowed(uint32(low), ReliableAckBits, reliableSequence)
}

// WriteClientHeader writes h: a download bit (1 when h.ServerID is a
// DownloadServerID), the low ServerIDBits of the server id (of its
// gamestate's id while downloading), the low MessageAckBits of the
// message acknowledge and the low ReliableAckBits of the reliable
// acknowledge, all raw.
func WriteClientHeader(w *msg.Writer, h ClientHeader) {
	id, dl := h.ServerID, uint32(0)
	if id < 0 {
		id, dl = DownloadServerID(id), 1
	}
	w.WriteRawBits(dl, 1)
	w.WriteRawBits(uint32(id), ServerIDBits)
	w.WriteRawBits(uint32(h.MessageAcknowledge), MessageAckBits)
	w.WriteRawBits(uint32(h.ReliableAcknowledge), ReliableAckBits)
}

// ReadClientHeader reads a ClientHeader as it travels: the low bits of
// each field (a download id as the negated low bits with bit
// ServerIDBits set, so that it is negative even when they are 0), for
// Resolve.
func ReadClientHeader(r *msg.Reader) ClientHeader {
	h, _ := readClientHeader(r)
	return h
}

// readClientHeader is ReadClientHeader that also returns the ends of the
// server id and the message acknowledge.
func readClientHeader(r *msg.Reader) (h ClientHeader, marks [2]int) {
	dl := r.ReadRawBits(1)
	h.ServerID = int32(r.ReadRawBits(ServerIDBits))
	if dl == 1 {
		// Bit ServerIDBits keeps a download id of low bits 0 negative.
		h.ServerID = DownloadServerID(h.ServerID | 1<<ServerIDBits)
	}
	marks[0] = r.BitPos()
	h.MessageAcknowledge = int32(r.ReadRawBits(MessageAckBits))
	marks[1] = r.BitPos()
	h.ReliableAcknowledge = int32(r.ReadRawBits(ReliableAckBits))
	return h, marks
}

// Resolve returns the header a client meant, from the one
// ReadClientHeader read, given the server's current server id (0 if
// none), the last message it sent the client and its last reliable
// command sent. A server id whose low bits are not the current one's
// comes back with ServerIDOther set (negated while downloading).
func (h ClientHeader) Resolve(serverID, lastMessage, reliableSequence int32) ClientHeader {
	var ids []int32
	if serverID > 0 {
		ids = []int32{serverID}
	}
	return ClientHeader{
		ServerID:            h.ResolveServerID(ids...),
		MessageAcknowledge:  ResolveWindowed(uint32(h.MessageAcknowledge), MessageAckBits, lastMessage),
		ReliableAcknowledge: ResolveWindowed(uint32(h.ReliableAcknowledge), ReliableAckBits, reliableSequence),
	}
}

// ResolveServerID returns the server id the header's (as
// ReadClientHeader read it) means among ids, the ones the reader knows:
// the first whose low ServerIDBits bits it carries, else those bits with
// ServerIDOther set; negated (DownloadServerID) while downloading.
func (h ClientHeader) ResolveServerID(ids ...int32) int32 {
	const mask = 1<<ServerIDBits - 1
	id, dl := h.ServerID, false
	if id < 0 {
		id, dl = DownloadServerID(id), true
	}
	id &= mask
	resolved := id | ServerIDOther
	for _, known := range ids {
		if known&mask == id {
			resolved = known
			break
		}
	}
	if dl {
		resolved = DownloadServerID(resolved)
	}
	return resolved
}

// UsercmdBaseBackup is how many of the latest messages to a client the
// server keeps the usercmd base of (UsercmdBase), and UsercmdBaseMsec how
// long after its arrival a client still bases its usercmds on a snapshot:
// at the highest sv_fps (250) the server sends at most 125 messages in
// that time, so the base is still kept when the packet arrives. A power
// of two.
const (
	UsercmdBaseBackup = 256
	UsercmdBaseMsec   = 500
)

// UsercmdBase returns the command the first usercmd of a based usercmd
// packet is delta-coded from: the player state ps of the snapshot the
// packet's header acknowledges, as its client decoded it and its server
// built it. Its time is the last command the server had run, its aim and
// weapon that command's; the client's next commands usually differ from
// it by a round trip of time and a little aim. Quake III coded the first
// command from a zero one, paying its 32-bit time and 16-bit aim in full.
func UsercmdBase(ps *bg.PlayerState) bg.UserCmd {
	return bg.UserCmd{ServerTime: ps.CommandTime, Aim: ps.Aim, Weapon: ps.Weapon}
}

// Time runs (protocol 5): the commands after a packet's first usually
// follow one another by one client frame, 14 to 19 ms at 60 frames a
// second. When a packet holds at least MinTimeRun commands and every one
// after the first grew by step to step+2^width-1 milliseconds (step below
// 2^TimeRunStepBits, width at most 2^TimeRunWidthBits-1), their times go
// once, in the move's header, as a run: step, width, then each command's
// increment less step in width bits. Coded each in its delta they took 7
// bits each (bg.UserCmdTable's 6-bit increment).
const (
	MinTimeRun       = 3
	TimeRunStepBits  = 6
	TimeRunWidthBits = 2
)

// timeRun reports whether the times of cmds form a run, and its step and
// width.
func timeRun(cmds []bg.UserCmd) (run bool, step uint32, width int) {
	if len(cmds) < MinTimeRun {
		return false, 0, 0
	}
	lo, hi := int32(1<<TimeRunStepBits), int32(-1)
	for i := 1; i < len(cmds); i++ {
		d := cmds[i].ServerTime - cmds[i-1].ServerTime
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 0 || lo >= 1<<TimeRunStepBits {
		return false, 0, 0
	}
	for width = 0; hi-lo >= 1<<width; width++ {
		if width == 1<<TimeRunWidthBits-1 {
			return false, 0, 0
		}
	}
	return true, uint32(lo), width
}

// WriteMove writes a usercmd packet: the op, the count, a bit saying
// whether the first command is coded from base (UsercmdBase of the
// acknowledged snapshot; nil for a zero command), with MinTimeRun
// commands or more a bit saying whether the later commands' times go as
// a run and the run, then the commands, each delta-coded from the one
// before under key. noDelta asks the server for a full snapshot.
func WriteMove(w *msg.Writer, key uint32, base *bg.UserCmd, cmds []bg.UserCmd, noDelta bool) {
	if noDelta {
		w.WriteUint8(ClcMoveNoDelta)
	} else {
		w.WriteUint8(ClcMove)
	}
	w.WriteUint8(uint8(len(cmds)))
	from := &zeroUserCmd
	if base != nil {
		from = base
	}
	if len(cmds) > 0 {
		w.WriteRawBits(b2u(base != nil), 1)
	}
	run, step, width := timeRun(cmds)
	if len(cmds) >= MinTimeRun {
		w.WriteRawBits(b2u(run), 1)
		if run {
			w.WriteRawBits(step, TimeRunStepBits)
			w.WriteRawBits(uint32(width), TimeRunWidthBits)
			for i := 1; width > 0 && i < len(cmds); i++ {
				w.WriteRawBits(uint32(cmds[i].ServerTime-cmds[i-1].ServerTime)-step, width)
			}
		}
	}
	for i := range cmds {
		if run && i > 0 {
			bg.UserCmdTable.WriteDeltaUsercmdTimeKnown(w, key, from, &cmds[i])
		} else {
			bg.UserCmdTable.WriteDeltaUsercmd(w, key, from, &cmds[i])
		}
		from = &cmds[i]
	}
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// ReadMove reads the body of a ClcMove or ClcMoveNoDelta into out and
// returns how many commands it held; base is the UsercmdBase of the
// acknowledged snapshot, used if the packet says its first command is
// coded from it (nil: such a packet is an error, ErrNoUsercmdBase).
func ReadMove(r *msg.Reader, key uint32, base *bg.UserCmd, out *[MaxPacketUsercmds]bg.UserCmd) int {
	h, _ := readMoveCount(r)
	return readMoveCmds(r, key, base, &h, out[:], nil)
}

// ErrNoUsercmdBase is the error of a usercmd packet coded from a base the
// reader does not have: it no longer keeps the acknowledged message's,
// or that message carried no snapshot.
var ErrNoUsercmdBase = errors.New("proto: usercmds coded from a snapshot the reader does not keep")

// zeroUserCmd is the base of a packet's first usercmd when it has none.
// It is never written.
var zeroUserCmd bg.UserCmd

// moveHeader is what a usercmd packet says before its commands.
type moveHeader struct {
	n     int  // commands
	based bool // the first is coded from a UsercmdBase
	run   bool // the later ones' times are a run: step, width, incs
	step  uint32
	width int
	incs  [MaxPacketUsercmds]uint8 // incs[i]: command i's increment less step
}

// readMoveCount reads a usercmd packet's count, whether its first command
// is coded from a UsercmdBase, and its time run if it has one; start is
// where the count began.
func readMoveCount(r *msg.Reader) (h moveHeader, start int) {
	start = r.BitPos()
	h.n = int(r.ReadUint8())
	if h.n > MaxPacketUsercmds && r.Err() == nil {
		r.Fail(fmt.Errorf("%w: %d", ErrTooManyCommands, h.n))
	}
	if h.n > 0 && r.Err() == nil {
		h.based = r.ReadRawBits(1) == 1
	}
	if h.n >= MinTimeRun && r.Err() == nil && r.ReadRawBits(1) == 1 {
		h.run = true
		h.step = r.ReadRawBits(TimeRunStepBits)
		h.width = int(r.ReadRawBits(TimeRunWidthBits))
		for i := 1; h.width > 0 && i < h.n; i++ {
			h.incs[i] = uint8(r.ReadRawBits(h.width))
		}
	}
	if r.Err() != nil {
		return moveHeader{}, start
	}
	return h, start
}

// readMoveCmds reads the commands of a usercmd packet with header h into
// out[:h.n] and returns how many it read. The first is coded from base
// if the header says so (a nil base is then ErrNoUsercmdBase, stuck on
// r), else from a zero command.
func readMoveCmds(r *msg.Reader, key uint32, base *bg.UserCmd, h *moveHeader, out []bg.UserCmd, obs Observer) int {
	out = out[:h.n]
	from := &zeroUserCmd
	switch {
	case !h.based:
	case base == nil:
		r.Fail(ErrNoUsercmdBase)
		return 0
	default:
		from = base
	}
	for i := 0; i < len(out) && r.Err() == nil; i++ {
		start := r.BitPos()
		if obs != nil {
			obs.Observe(Event{Part: PartUsercmd, Begin: true, Start: start, End: start, Index: int32(i), FromCmd: from})
		}
		if h.run && i > 0 {
			t := uint32(out[i-1].ServerTime) + h.step + uint32(h.incs[i])
			bg.UserCmdTable.ReadDeltaUsercmdTimeKnown(r, key, from, &out[i], t)
		} else {
			bg.UserCmdTable.ReadDeltaUsercmd(r, key, from, &out[i])
		}
		if obs != nil {
			obs.Observe(Event{Part: PartUsercmd, Start: start, End: r.BitPos(), Index: int32(i), FromCmd: from})
		}
		from = &out[i]
	}
	if r.Err() != nil {
		return 0
	}
	return len(out)
}
