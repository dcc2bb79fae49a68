package protospec

import (
	"tremor/bg"
	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/msg"
	"tremor/server"
)

// The frame-sync session (docs/vectors/framesync, protocol.md 6.8): the
// server in sv_netmodel framesync with VectorFrameSyncBots bots, and a
// client written with the codec that keeps what a frame-sync client
// keeps to talk to it: the newest frame it received and its time, from
// which it stamps its usercmds with the times of the frames ahead.

// VectorFrameSyncBots is how many bots play in the frame-sync session:
// few, so that its frames and whole state stay short to read.
const VectorFrameSyncBots = 2

// vectorFrameSyncLead is how many frames ahead of the newest frame it
// received the frame-sync client stamps its usercmds: the first of them
// is for the frame after the newest, the last for this many after.
const vectorFrameSyncLead = 3

// frameSyncClient is the frame-sync session's client state.
type frameSyncClient struct {
	newest     int32 // the newest frame received
	newestTime int32 // its time
	period     int32 // the time between two frames, from the frames received
	// request is written in the next message, before its usercmds.
	request *proto.FrameRequest
	// sent are the usercmds the client sent, by server time: the first
	// for each frame, the one the server keeps.
	sent map[int32]bg.UserCmd
}

// newFrameSyncSession starts the server for the frame-sync session:
// sv_netmodel framesync, sv_scramble 0.
func newFrameSyncSession() (*session, error) {
	s, err := startSession(false, VectorFrameSyncBots, func(c *server.Config) { c.NetModel = proto.NetModelFrameSync })
	if err != nil {
		return nil, err
	}
	s.fs = &frameSyncClient{period: 50, sent: map[int32]bg.UserCmd{}}
	return s, nil
}

// serverOps takes the frames of a server message the client read.
func (f *frameSyncClient) serverOps(m *inspect.Message) {
	for _, op := range m.Ops {
		if op.Frames == nil {
			continue
		}
		fr := op.Frames.Frames
		if n := len(fr); n > 1 {
			f.period = fr[n-1].Time - fr[n-2].Time
		}
		if last := fr[len(fr)-1]; last.Number > f.newest {
			f.newest, f.newestTime = last.Number, last.Time
		}
	}
}

// write adds the request the client holds to the message being written,
// before its usercmds cmds, which it notes.
func (f *frameSyncClient) write(w *msg.Writer, cmds []bg.UserCmd) {
	if f.request != nil {
		proto.WriteFrameRequest(w, *f.request)
		f.request = nil
	}
	for _, c := range cmds {
		bg.UserCmdTable.Truncate(&c)
		if _, ok := f.sent[c.ServerTime]; !ok {
			f.sent[c.ServerTime] = c // a later one for the same frame is ignored
		}
	}
}

// aheadCmds returns usercmds for the vectorFrameSyncLead frames after
// the newest received, each stamped with its frame's time, turning by
// turn each frame.
func (f *frameSyncClient) aheadCmds(turn int32) []bg.UserCmd {
	cmds := make([]bg.UserCmd, vectorFrameSyncLead)
	for i := range cmds {
		n := int32(i + 1)
		cmds[i] = bg.UserCmd{ServerTime: f.newestTime + n*f.period, Aim: 0x4000 + turn*n, RightMove: 127, Weapon: 2}
	}
	return cmds
}

// runFrameSync plays the frame-sync session after the gamestate: the
// client enters the game and receives a whole state with the frames
// from its frame on; it sends usercmds for the frames ahead and a
// reliable command, which the frames that follow carry as an event;
// frames coded from the frame it acknowledged, one with a hash; a
// request for frames again and its answer, coded from nothing; a request
// for a whole state and its answer.
func (s *session) runFrameSync() error {
	// The first message with the server id enters the client into the
	// game: no usercmd yet, it knows no frame time.
	s.tag = "3-enter"
	if err := s.sendMessage(nil, true); err != nil {
		return err
	}
	s.tag = "4-whole-state"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.WholeState != nil })) {
		return s.fail("no whole state")
	}
	// Usercmds for the frames ahead, and a chat line: the game gets it
	// as an event of the frame being built.
	s.tag = "5-usercmds"
	s.reliableSeq++
	s.reliableCmds[s.reliableSeq&(proto.MaxReliableCommands-1)] = VectorCommand
	if err := s.sendMessage(s.fs.aheadCmds(16), true); err != nil {
		return err
	}
	// The frames after the acknowledged one, coded from it, until a
	// message carries the chat line's event and a hash.
	s.tag = "6-frames"
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool {
		if op.Frames == nil || op.Frames.Base == 0 {
			return false
		}
		event, hash := false, false
		for _, f := range op.Frames.Frames {
			for _, e := range f.Events {
				event = event || e.Text == VectorCommand
			}
			hash = hash || f.Hash != nil
		}
		return event && hash
	})) {
		return s.fail("no frames coded from a base with the command's event and a hash")
	}
	// Frames again from the frame before the newest: the answer comes
	// coded from nothing.
	s.tag = "7-frame-request"
	from := s.fs.newest - 1
	s.fs.request = &proto.FrameRequest{From: from}
	if err := s.sendMessage(s.fs.aheadCmds(32), true); err != nil {
		return err
	}
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool {
		return op.Frames != nil && op.Frames.Base == 0 && op.Frames.Frames[0].Number == from
	})) {
		return s.fail("no frames answering the request")
	}
	// A whole state of the newest frame with a hash, which the server
	// keeps.
	s.tag = "8-whole-request"
	every := int32(5) // sv_frameHashEvery's default
	s.fs.request = &proto.FrameRequest{From: s.fs.newest / every * every, Whole: true}
	if err := s.sendMessage(s.fs.aheadCmds(48), true); err != nil {
		return err
	}
	if !s.frames(1000, s.lastHas(func(op *inspect.Op) bool { return op.WholeState != nil })) {
		return s.fail("no whole state answering the request")
	}
	return nil
}
