package proto

import (
	"errors"
	"fmt"

	"tremor/net/msg"
)

// Frame sync (seed 003, sv_netmodel framesync): instead of snapshots the
// server sends each frame's fixed inputs, and every client runs the game
// itself (package game/framesync, docs/framesync.md). Three operations
// carry it, numbered after the acks carrier's so that no older code
// moves:
//
//   - SvcFrames: the client's input lead (8 bits, signed: how many
//     frames ahead of the frame the server last ran its newest input
//     was, the feedback its clock follows), then a block of frames
//     (framesync.AppendFrames): every frame the client has not
//     acknowledged, up to framesync's limit per message. Frames ride
//     redundantly until acknowledged, as usercmds do upstream. The
//     block's length is an unsigned short.
//   - SvcWholeState: a whole-state snapshot of the game at one frame
//     (framesync.AppendWholeState), for a joining client and a client
//     that resynchronises. Its length is an unsigned short.
//   - ClcFrameRequest: the client asks for frames from a frame number on
//     (it misses one), or for a whole state (its rollback would reach
//     past its ring, or its hash disagreed with the server's): the frame
//     number (32 bits) and a flag (1 bit).
//
// proto reads the blocks as bytes; their contents are framesync's, whose
// decoders check them.
const (
	// SvcFrames is a server message's block of frames.
	SvcFrames = SvcMessageBase + 1
	// SvcWholeState is a server message's whole-state snapshot.
	SvcWholeState = SvcFrames + 1
	// ClcFrameRequest is a client's request for frames or a whole state.
	ClcFrameRequest = ClcMessages + 1
)

// NetModelKey is the serverinfo key that says how the server keeps its
// clients' games: NetModelSnapshots (or none) or NetModelFrameSync.
const NetModelKey = "sv_netmodel"

// The network models, as sv_netmodel names them.
const (
	NetModelSnapshots = "snapshots"
	NetModelFrameSync = "framesync"
)

// MaxFrameBlock is the longest SvcFrames or SvcWholeState block, in
// bytes: a message's whole size.
const MaxFrameBlock = 16384

// ErrFrameBlock is wrapped by a block ReadFrameBlock refuses.
var ErrFrameBlock = errors.New("proto: bad frame-sync block")

// WriteFrames writes an SvcFrames operation: the client's input lead,
// then block.
func WriteFrames(w *msg.Writer, lead int8, block []byte) {
	w.WriteUint8(SvcFrames)
	w.WriteBits(uint32(uint8(lead)), 8)
	w.WriteShort(int16(uint16(len(block))))
	w.WriteData(block)
}

// WriteWholeState writes an SvcWholeState operation carrying block.
func WriteWholeState(w *msg.Writer, block []byte) {
	w.WriteUint8(SvcWholeState)
	w.WriteShort(int16(uint16(len(block))))
	w.WriteData(block)
}

// ReadFrameBlock reads the block of an SvcFrames or SvcWholeState
// operation into buf and returns it. A length outside 1..MaxFrameBlock
// or past the message's end fails the reader with an error wrapping
// ErrFrameBlock.
func ReadFrameBlock(r *msg.Reader, buf *[MaxFrameBlock]byte) []byte {
	n := int(uint16(r.ReadShort()))
	if r.Err() != nil {
		return nil
	}
	// Huffman-coded, a byte takes at least one bit (not eight: a
	// block of frequent bytes codes shorter than its length).
	if n < 1 || n > MaxFrameBlock || n > r.RemainingBits() {
		r.Fail(fmt.Errorf("%w: length %d", ErrFrameBlock, n))
		return nil
	}
	b := buf[:n]
	r.ReadData(b)
	if r.Err() != nil {
		return nil
	}
	return b
}

// FrameRequest is a ClcFrameRequest's fields.
type FrameRequest struct {
	// From is the first frame the client misses, or the frame whose
	// state it wants (Whole).
	From int32
	// Whole asks for a whole-state snapshot instead of frames.
	Whole bool
}

// WriteFrameRequest writes a ClcFrameRequest operation.
func WriteFrameRequest(w *msg.Writer, req FrameRequest) {
	w.WriteUint8(ClcFrameRequest)
	w.WriteLong(req.From)
	whole := uint32(0)
	if req.Whole {
		whole = 1
	}
	w.WriteBits(whole, 1)
}

// ReadFrameRequest reads a ClcFrameRequest's fields.
func ReadFrameRequest(r *msg.Reader) FrameRequest {
	from := r.ReadLong()
	whole := r.ReadBits(1) == 1
	return FrameRequest{From: from, Whole: whole}
}

// FrameHandler is what a ServerHandler or ClientHandler implements to
// take the frame-sync operations. A parse meets them with a handler
// without it as an unknown operation (ErrBadOp).
type FrameHandler interface {
	// FrameBuffer returns where a block is read.
	FrameBuffer() *[MaxFrameBlock]byte
	// Frames receives an SvcFrames input lead and block (in
	// FrameBuffer), or the error that stopped the reading (server
	// messages only).
	Frames(lead int8, block []byte, err error) error
	// WholeState receives an SvcWholeState block (in FrameBuffer), or
	// the error that stopped the reading (server messages only).
	WholeState(block []byte, err error) error
	// FrameRequest receives a ClcFrameRequest (client messages only).
	FrameRequest(req FrameRequest) error
}

// readFrameOp reads the frame-sync operation op for h, which must be a
// FrameHandler.
func readFrameOp(r *msg.Reader, h any, op uint8, obs Observer, side string) error {
	fh, ok := h.(FrameHandler)
	if !ok {
		return fmt.Errorf("%w %d in a %s message", ErrBadOp, op, side)
	}
	start := r.BitPos()
	if op == ClcFrameRequest {
		req := ReadFrameRequest(r)
		if r.Err() != nil {
			return r.Err()
		}
		if obs != nil {
			obs.Observe(Event{Part: PartFrameRequest, Start: start, End: r.BitPos(), Seq: req.From, Added: req.Whole})
		}
		return fh.FrameRequest(req)
	}
	if op == SvcWholeState {
		b := ReadFrameBlock(r, fh.FrameBuffer())
		if obs != nil && r.Err() == nil {
			obs.Observe(Event{Part: PartWholeState, Start: start, End: r.BitPos(), Index: int32(len(b)), Block: b})
		}
		return fh.WholeState(b, r.Err())
	}
	lead := int8(uint8(r.ReadBits(8)))
	b := ReadFrameBlock(r, fh.FrameBuffer())
	if obs != nil && r.Err() == nil {
		obs.Observe(Event{Part: PartFrames, Start: start, End: r.BitPos(), Index: int32(len(b)), Seq: int32(lead), Block: b})
	}
	return fh.Frames(lead, b, r.Err())
}
