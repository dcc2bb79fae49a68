package server

import (
	"errors"

	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/msg"
)

// Frame sync (sv_netmodel framesync, seed 003, docs/framesync.md): the
// game runs inside a framesync.Recorder, which fixes each frame's inputs
// and records every engine→game call as an event of the frame; instead
// of snapshots a client is sent the frames it has not acknowledged, and a
// whole state of the game when it joins or asks for one. Everything else
// — the connection, the reliable commands on either carrier,
// configstrings, pings, rate — is the same as with snapshots.

// clientFrames is a client's frame-sync state, from its gamestate on.
type clientFrames struct {
	// acked is the newest frame the client holds for certain: a message
	// it acknowledged carried every frame after the one acknowledged
	// before, up to this one (0: none yet, so the next message carries
	// a whole state).
	acked int32
	// wantWhole is set by a request for a whole state: the frame asked
	// for (the Recorder answers with it if it still keeps it, else with
	// the newest it keeps).
	wantWhole int32
	needWhole bool
	// noBase makes the next frames go without a base: the client asked
	// for frames again, perhaps because it did not hold the base.
	noBase bool
	// wholeAt is the frame of the last whole state sent: the client
	// holds it as a state, not as a frame it can decode others from.
	wholeAt       int32
	requests      int // ClcFrameRequests received
	wholeSent     int // whole states sent
	framesSent    int // frames sent, every copy counted
	frameMessages int // messages that carried frames
}

// newGame makes the level's game for the latched sv_netmodel: a
// framesync.Recorder around the game in frame sync, the game itself with
// snapshots.
func (s *Server) newGame(lv *level) {
	lv.netModel = s.cfg.NetModel
	lv.fs = nil
	if lv.netModel == proto.NetModelFrameSync {
		rec := framesync.NewRecorder(s.engine, lv.m, s.cfg.Game, framesync.RecorderConfig{
			HashEvery: int32(s.cfg.FrameHashEvery),
			FrameMsec: s.frameMsec(),
		})
		lv.fs, lv.game = rec, rec
		return
	}
	lv.game = game.New(s.engine, lv.m, s.cfg.Game)
}

// resetFrames forgets what c was sent of the frames before a gamestate.
func (c *client) resetFrames() {
	c.fs = clientFrames{}
	for i := range c.frames {
		c.frames[i].frame = 0
	}
}

// framesAcked takes the acknowledgement of message ack: the frames it
// carried are the client's.
func (c *client) framesAcked(ack int32) {
	f := &c.frames[ack&proto.PacketMask]
	if f.messageNum == ack && f.frame > c.fs.acked {
		c.fs.acked = f.frame
	}
}

// frameRequest takes a client's ClcFrameRequest: frames again from a
// frame on, or a whole state.
func (c *client) frameRequest(req proto.FrameRequest) {
	c.fs.requests++
	if req.Whole {
		c.fs.needWhole, c.fs.wantWhole = true, req.From
		return
	}
	if req.From > 0 && req.From-1 < c.fs.acked {
		c.fs.acked = req.From - 1
	}
	c.fs.noBase = true
}

// writeFrames writes the frame-sync part of the message seq to c (what a
// snapshot is with snapshots): a whole state when the client has none
// (it just entered the game) or asked for one, then the frames after
// what it holds, at most framesync.MaxMessageFrames, with its input
// lead. frame records the newest frame the message carries.
func (s *Server) writeFrames(c *client, w *msg.Writer, frame *clientSnapshot) {
	rec := s.sv.fs
	newest := rec.Newest()
	frame.frame = 0
	if c.state != StateActive || newest < rec.HashEvery() {
		return // nothing to join from before the first saved state
	}
	from := c.fs.acked + 1
	var base *framesync.Frame
	if c.fs.acked > 0 && !c.fs.noBase {
		if b, ok := rec.Frame(c.fs.acked); ok {
			base = b
		}
	}
	c.fs.noBase = false
	// A whole state goes once when the client enters the game, and again
	// when it asks (its first was lost, its hash differed, its frames left
	// the buffer). The frames from the whole state's own frame on go
	// ahead of it: the client predicts the frame after from that frame's
	// inputs, and decodes the next message's frames from its newest.
	whole := false
	if c.fs.acked == 0 && c.fs.wholeAt == 0 || c.fs.needWhole || c.fs.acked > 0 && newest-c.fs.acked >= framesync.FrameBuffer-1 {
		wf, ok := rec.WholeStateFrame(c.fs.wantWhole)
		if !ok {
			return
		}
		whole, from, base = true, wf, nil
	}
	if from <= newest {
		s.writeFrameRun(c, w, frame, base, from, newest)
	}
	if whole {
		w.WriteUint8(proto.SvcWholeState)
		wf, _ := rec.AppendWholeState(w, c.fs.wantWhole)
		c.fs.needWhole, c.fs.wantWhole = false, 0
		c.fs.wholeSent++
		c.fs.wholeAt = wf
		frame.frame = max(frame.frame, wf)
	}
}

// writeFrameRun writes an SvcFrames of the frames from..newest (at most
// framesync.MaxMessageFrames), coded from base (nil: from nothing).
func (s *Server) writeFrameRun(c *client, w *msg.Writer, frame *clientSnapshot, base *framesync.Frame, from, newest int32) {
	rec := s.sv.fs
	last := min(newest, from+framesync.MaxMessageFrames-1)
	frames := s.fsFrames[:0]
	for n := from; n <= last; n++ {
		f, ok := rec.Frame(n)
		if !ok {
			break
		}
		frames = append(frames, f)
	}
	if len(frames) == 0 {
		return
	}
	if base != nil && frames[0].Number-base.Number > framesync.MaxBaseDistance {
		base = nil
	}
	lead := rec.InputLead(c.num)
	proto.WriteFramesHeader(w, int8(max(-128, min(127, lead))))
	if err := framesync.AppendFrames(w, base, frames); err != nil {
		// Cannot happen with the Recorder's frames; the client refuses
		// the message and asks again.
		s.logf("client %d: frames %d to %d: %v", c.num, frames[0].Number, frames[len(frames)-1].Number, err)
		return
	}
	frame.frame = frames[len(frames)-1].Number
	c.fs.framesSent += len(frames)
	c.fs.frameMessages++
}

// frameSyncMessage fills the frames-ring slot of message seq in frame
// sync: no snapshot, only what pings and acknowledgements need.
func (s *Server) frameSyncMessage(c *client, seq int32) *clientSnapshot {
	frame := &c.frames[seq&proto.PacketMask]
	frame.messageNum = seq
	frame.serverTime = s.svs.time
	frame.numEntities = 0
	frame.frame = 0
	return frame
}

// errNotFromClient refuses the server's own operations in a client
// message.
var errNotFromClient = errors.New("server: a frame-sync operation only a server sends, in a client message")

// Frames refuses an SvcFrames in a client message.
func (m *clientMessage) Frames(*msg.Reader, int8) error { return errNotFromClient }

// WholeState refuses an SvcWholeState in a client message.
func (m *clientMessage) WholeState(*msg.Reader) error { return errNotFromClient }

// FrameRequest takes a client's request for frames or a whole state; in
// snapshot mode, or from a client not in the game, it is ignored.
func (m *clientMessage) FrameRequest(req proto.FrameRequest) error {
	if m.s.sv != nil && m.s.sv.fs != nil && m.c.state == StateActive {
		m.c.frameRequest(req)
	}
	return m.goOn()
}
