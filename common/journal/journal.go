// Package journal is the event journal: a file of every event an engine
// consumed — the time of each frame, the usercmd the input produced, the
// packets each engine read and in which order, the console lines run, the
// random seeds — from which a session replays bit-exactly, with no
// network and no real time (Quake III's journal, which its Sys_GetEvent
// wrote and read back with "journal 1" and "journal 2").
//
// The package knows the file and the replay, not the engines: a Writer
// appends records with a size cap, a Reader returns them one by one and
// rejects a corrupt or truncated file with an error that names the
// offset, and a Replay plays a journal into a Program — the one replay
// loop of the dedicated server (cmd/server) and the window client's
// session (cmd/client/internal/session), which each implement Program —
// checking every frame's states and stopping at the first Divergence.
// Replayed is the one list of the cvars a replay leaves alone. Each
// program records its own journal through its engines' hooks.
//
// # Format
//
// A file is a header then records, all integers little-endian:
//
//	header:  "TJNL" (4 bytes), version (uint16, Version)
//	record:  kind (1 byte), length (uvarint, at most MaxRecord), payload (length bytes)
//
// Varints are encoding/binary's: uvarint for unsigned values, varint
// (zigzag) for signed ones. Strings and byte strings inside a payload
// are a uvarint length then the bytes. The payload of each kind is
// described at its constant. A reader skips nothing: an unknown kind is
// an error, so a file from a newer version is refused rather than
// misread.
package journal

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
	"unsafe"

	"tremor/bg"
)

// Magic opens every journal file.
const Magic = "TJNL"

// Version is the format version this package writes and reads.
const Version = 1

// HeaderLen is the size of the header: Magic and the version.
const HeaderLen = 6 // len(Magic) + 2

// MaxRecord is the largest payload a record may have: a packet is at most
// a few kilobytes, so a larger length is a corrupt file.
const MaxRecord = 1 << 16

// Kind is the type of a record.
type Kind byte

// The record kinds and their payloads.
const (
	// KindStart opens a session: client seed (uint64), server seed
	// (uint64), map name, server address, client address (strings; an
	// address in netip.AddrPort's text form).
	KindStart Kind = 1
	// KindCvar is one cvar's value: after KindStart, its value when the
	// session started; before a frame, a value it took between frames
	// (set by code, not by a console line). Name, value (strings).
	KindCvar Kind = 2
	// KindFrame begins one frame: client time in nanoseconds (varint),
	// server time in milliseconds (varint), flags (1 byte: FlagScores).
	KindFrame Kind = 3
	// KindUserCmd is the frame's input: server time, aim, right move,
	// up move, buttons, weapon (varints).
	KindUserCmd Kind = 4
	// KindPacket is a packet an engine read: side (1 byte), source
	// address (string), when its reader got it in nanoseconds (varint),
	// then the packet's bytes (the rest of the payload).
	KindPacket Kind = 5
	// KindConsole is a console line executed between frames: the line
	// (the whole payload).
	KindConsole Kind = 6
	// KindHash is the hash of one side's state after its frame: side (1
	// byte), hash (uint64).
	KindHash Kind = 7
	// KindChallenge is a client challenge the client drew (varint).
	KindChallenge Kind = 8
	// KindPlayerState is the client's predicted player state after its
	// frame, against the one before in the file (the zero state for the
	// first): a mask of the changed 32-bit words (PSMaskLen bytes, bit i
	// of byte i/8 for word i), then for each changed word its difference
	// from the one before (varint).
	KindPlayerState Kind = 9
	// KindServerState is the server's players and entities after its
	// frame (ServerState), against the one before in the file (none
	// present for the first): the number of players that changed or
	// appeared (uvarint), each as its client slot (uvarint), a mask of
	// its changed words (PSMaskLen bytes) and their differences
	// (varints) from its previous state (the zero state if it appeared);
	// the number of players gone (uvarint) and their slots (uvarints);
	// then the same for the entities, by entity number, with ESMaskLen
	// bytes of mask.
	KindServerState Kind = 10
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindStart:
		return "start"
	case KindCvar:
		return "cvar"
	case KindFrame:
		return "frame"
	case KindUserCmd:
		return "usercmd"
	case KindPacket:
		return "packet"
	case KindConsole:
		return "console"
	case KindHash:
		return "hash"
	case KindChallenge:
		return "challenge"
	case KindPlayerState:
		return "playerstate"
	case KindServerState:
		return "serverstate"
	}
	return fmt.Sprintf("kind %d", byte(k))
}

// Side is the engine a packet or a hash belongs to.
type Side byte

// The sides.
const (
	Server Side = 0 // the embedded server
	Client Side = 1 // the client engine (its cgame's prediction for hashes)
)

// String names the side.
func (s Side) String() string {
	switch s {
	case Server:
		return "server"
	case Client:
		return "client"
	}
	return fmt.Sprintf("side %d", byte(s))
}

// FlagScores in a frame's flags: the frame asked for the scores (the
// wantScores argument of the session's Frame).
const FlagScores = 1

// Start is the payload of KindStart.
type Start struct {
	ClientSeed, ServerSeed uint64
	Map                    string
	ServerAddr, ClientAddr netip.AddrPort
}

// Frame is the payload of KindFrame.
type Frame struct {
	ClientTime time.Duration // the now given to the client engine
	ServerTime int32         // the now given to the server, ms
	Flags      byte
}

// Record is one record as the Reader returns it: Kind says which of the
// other fields hold its payload.
type Record struct {
	Kind      Kind
	Offset    int64 // where the record starts in the file
	Start     Start
	Name      string // KindCvar
	Value     string // KindCvar; KindConsole's line
	Frame     Frame
	Cmd       bg.UserCmd
	Side      Side           // KindPacket, KindHash
	From      netip.AddrPort // KindPacket
	At        time.Duration  // KindPacket
	Data      []byte         // KindPacket; valid until the next call of Next
	Hash      uint64
	Challenge int32
	PS        bg.PlayerState // KindPlayerState: the whole state, the differences applied
	// Server is KindServerState's whole state, the differences applied:
	// the Reader's own, valid until the next call of Next.
	Server *ServerState
}

// psWords is how many 32-bit words a PlayerState holds: it is made of
// int32s only (TestPlayerStateWords checks), so it is read and written
// as an array of words, in memory order.
const psWords = int(unsafe.Sizeof(bg.PlayerState{}) / 4)

// psView returns ps as its words.
func psView(ps *bg.PlayerState) *[psWords]uint32 {
	return (*[psWords]uint32)(unsafe.Pointer(ps))
}

// PSMaskLen is the length of a KindPlayerState record's mask.
const PSMaskLen = (psWords + 7) / 8

// ErrFull is returned by the Writer once its size cap is reached: the
// journal ends there, a valid file of everything before.
var ErrFull = errors.New("journal: size cap reached; recording stopped")
