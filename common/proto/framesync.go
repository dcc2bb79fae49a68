package proto

import (
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
//     was, the feedback its clock follows), then a frames message
//     (framesync.AppendFrames): every frame the client has not
//     acknowledged, up to framesync's limit per message. Frames ride
//     redundantly until acknowledged, as usercmds do upstream.
//   - SvcWholeState: a whole-state message (framesync.AppendWhole): the
//     game's state after one frame, for a joining client and a client
//     that resynchronises.
//   - ClcFrameRequest: the client asks for frames from a frame number on
//     (it misses one), or for a whole state (its rollback would reach
//     past its ring, or its hash disagreed with the server's): the frame
//     number (32 bits) and a flag (1 bit).
//
// The frames and whole-state messages are written in the message itself,
// as a snapshot is, and read by the handler (FrameHandler), whose
// decoders (framesync.ReadFrames, framesync.ReadWhole) check them.
const (
	// SvcFrames is a server message's frames.
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

// WriteFramesHeader writes an SvcFrames operation's code and the
// client's input lead; the frames message follows
// (framesync.AppendFrames).
func WriteFramesHeader(w *msg.Writer, lead int8) {
	w.WriteUint8(SvcFrames)
	w.WriteBits(uint32(uint8(lead)), 8)
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
	// Frames reads an SvcFrames' frames message from r, which stands
	// after the input lead (server messages only). It must read all of
	// it, or fail r or return an error.
	Frames(r *msg.Reader, lead int8) error
	// WholeState reads an SvcWholeState's whole-state message from r
	// (server messages only), as Frames.
	WholeState(r *msg.Reader) error
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
	var err error
	switch op {
	case ClcFrameRequest:
		req := ReadFrameRequest(r)
		if r.Err() != nil {
			return r.Err()
		}
		if obs != nil {
			obs.Observe(Event{Part: PartFrameRequest, Start: start, End: r.BitPos(), Seq: req.From, Added: req.Whole})
		}
		return fh.FrameRequest(req)
	case SvcWholeState:
		err = fh.WholeState(r)
		if obs != nil && err == nil && r.Err() == nil {
			obs.Observe(Event{Part: PartWholeState, Start: start, End: r.BitPos()})
		}
	default:
		lead := int8(uint8(r.ReadBits(8)))
		if r.Err() != nil {
			return r.Err()
		}
		err = fh.Frames(r, lead)
		if obs != nil && err == nil && r.Err() == nil {
			obs.Observe(Event{Part: PartFrames, Start: start, End: r.BitPos(), Seq: int32(lead)})
		}
	}
	if err != nil {
		return err
	}
	return r.Err()
}
