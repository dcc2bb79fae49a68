package client

import (
	"errors"
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// Demos of frame sync (sv_netmodel framesync, docs/demos.md). A demo
// records the server messages as received in both models; in frame sync
// they carry frames and whole states instead of snapshots, and playback
// runs the game on them: the playback client's Sync loads the whole state
// and confirms every frame the messages bring, checking the server's state
// hash at each frame that carries one, and each frame it runs is handed to
// cgame as a snapshot, as the live client does. A demo shows what the
// server confirmed, never a prediction.
//
// A recording needs a whole state to start from, as Quake III's waited
// for a non-delta snapshot (CL_Record_f made the next usercmd packet a
// clc_moveNoDelta): the live client's own game runs ahead of what the
// server confirmed, so it holds no state a playback could start from.
// A recording started in the game asks the server for the whole state of
// the client's last confirmed hash frame (the server keeps those) and
// asks again every frameDemoWholeMsec until a message brings one. Its
// key frame holds only the gamestate; playback shows the game from that
// whole state on. The file has no other key frame: playback seeks by
// running the frames, forward from where it is, back from the
// checkpoints it keeps in memory (a checkpoint of frame sync holds the
// frames its Sync received and the whole state of its game) or from the
// start.

// frameDemoWholeMsec is how long a frame-sync recording waits for the
// whole state it asked for before it asks again.
const frameDemoWholeMsec = 500

// errDemoFrameSync is the error of a key frame of frame sync that cannot
// be made: the game is not at a confirmed frame.
var errDemoFrameSync = errors.New("client: no confirmed frame-sync state to make a key frame of")

// frameDemo is a recording's frame-sync state.
type frameDemo struct {
	of *frameSync // the gamestate's frame sync it records
	// haveWhole: a message recorded brought a whole state, so the
	// recording plays from it; wholes is the count of whole states the
	// client had read when the recording started.
	haveWhole bool
	wholes    int
	asked     int32 // realtime of the last request for a whole state; 0: none
}

// sync returns the frame sync d records, nil for none.
func (d *frameDemo) sync() *frameSync {
	if d == nil {
		return nil
	}
	return d.of
}

// wholesRead returns how many whole states the client has read this
// gamestate, loaded or not.
func (fs *frameSync) wholesRead() int {
	return fs.stats.WholeStates + fs.sync.Stats().WholeIgnored
}

// startFrameDemo prepares the recording r for the gamestate the client
// holds: in frame sync, until the recording holds a whole state,
// demoWantWhole asks for one (a new gamestate brings its first whole
// state unasked); with snapshots there is nothing to prepare.
func (c *Client) startFrameDemo(r *recorder) {
	fs := c.active.fs
	if fs == nil {
		r.fs = nil
		return
	}
	r.fs = &frameDemo{of: fs, wholes: fs.wholesRead()}
	c.demoWantWhole(r)
}

// demoWantWhole asks the server for a whole state while the recording r
// waits for one: the state of the last confirmed frame that is a
// multiple of sv_frameHashEvery, the frames whose states the server
// keeps. Before its first whole state the client needs no asking: the
// server sends one when it enters the game, and the client asks for it
// itself when it is late.
func (c *Client) demoWantWhole(r *recorder) {
	fs := c.active.fs
	d := r.fs
	if fs == nil || d == nil || d.haveWhole {
		return
	}
	if fs.wholesRead() > d.wholes {
		d.haveWhole = true
		return
	}
	if !fs.sync.Started() || d.asked != 0 && c.realtime-d.asked < frameDemoWholeMsec {
		return
	}
	every, _ := strconv.Atoi(infostr.ValueForKey(c.conn.gs.Configstrings[bg.CSServerInfo], FrameHashEveryKey))
	if every <= 0 {
		every = framesync.DefaultHashEvery
	}
	want := fs.sync.Confirmed() / int32(every) * int32(every)
	fs.ask(proto.FrameRequest{From: max(want, 1), Whole: true})
	d.asked = c.realtime
}

// frameDemoTime returns the server time a frame-sync recording has
// reached: the time of the newest frame received, once the recording
// holds a whole state.
func (c *Client) frameDemoTime(r *recorder) (int32, bool) {
	fs := c.active.fs
	if fs == nil || r.fs == nil || !r.fs.haveWhole {
		return 0, false
	}
	f, ok := fs.sync.Frame(fs.sync.Stats().Newest)
	if !ok {
		return 0, false
	}
	return f.Time, true
}

// frameSyncKeyFrameParts adds to a key frame whose gamestate part s
// holds (used bytes of s.buf) what a parser needs to go on in frame sync:
// an SvcFrames of the frames received up to the last confirmed one (the
// bases the next messages may be coded from), then an SvcWholeState of
// the game at that frame. Only a game at its last confirmed frame, as in
// playback, has that state; elsewhere the key frame holds the gamestate
// alone.
func (c *Client) frameSyncKeyFrameParts(s *keyFrameScratch, used int) ([]demo.Part, error) {
	fs := c.active.fs
	sync := fs.sync
	if !c.playback || !sync.Started() {
		return s.parts, nil
	}
	conf := sync.Confirmed()
	if sync.Current() != conf {
		return nil, errDemoFrameSync
	}
	if s.state == nil {
		s.state = game.NewState()
	}
	frames := s.frames[:0]
	from := conf
	for from > 1 && conf-from+1 < framesync.MaxMessageFrames {
		if _, ok := sync.Frame(from - 1); !ok {
			break
		}
		from--
	}
	for n := from; n <= conf; n++ {
		if f, ok := sync.Frame(n); ok {
			frames = append(frames, f)
		}
	}
	s.frames = frames // kept for the next key frame
	seq := c.conn.serverMessageSequence
	w := &s.w
	if len(s.buf)-used < netmsgRoom {
		return nil, errors.New("client: key frame too large")
	}
	w.Reset(s.buf[used:], msg.Huffman)
	proto.WriteReliableAck(w, c.conn.reliableAcknowledge)
	if len(frames) > 0 {
		proto.WriteFramesHeader(w, fs.lead)
		if err := framesync.AppendFrames(w, nil, frames); err != nil {
			return nil, fmt.Errorf("client: key frame frames %d to %d: %w", from, conf, err)
		}
	}
	sync.Sim().Save(s.state)
	w.WriteUint8(proto.SvcWholeState)
	framesync.AppendWhole(w, conf, s.state)
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		return nil, fmt.Errorf("client: key frame whole state of frame %d: %w", conf, w.Err())
	}
	s.parts = append(s.parts, demo.Part{Sequence: seq, Data: w.Bytes()})
	return s.parts, nil
}

// playFrames runs, in playback, the frames the messages parsed so far
// brought: the Sync confirms every frame it holds after the last
// confirmed one (it predicts nothing: a demo has no input of its own),
// checking the server's hashes, and the frame reached goes to cgame as a
// snapshot. It returns the first frame whose hash differed from the
// server's, if one did.
func (c *Client) playFrames() (mismatch int32, ok bool) {
	fs := c.active.fs
	if fs == nil || !fs.sync.Started() {
		return 0, false
	}
	before := fs.sync.Current()
	fs.sync.Confirm()
	if fs.sync.Current() != before {
		c.publishFrame()
		c.playedFrameHook()
	}
	if st := fs.sync.Stats(); st.Mismatches > 0 {
		return st.MismatchFrame, true
	}
	return 0, false
}

// playedFrameHook calls the Snapshot hook with the frame given to cgame,
// as a full snapshot (its DeltaNum -1).
func (c *Client) playedFrameHook() {
	if c.Hooks.Snapshot == nil {
		return
	}
	s := &c.active.snap
	info := SnapshotInfo{MessageNum: s.messageNum, ServerTime: s.serverTime, DeltaNum: -1, Valid: true, EntitiesChanged: s.numEntities}
	c.Hooks.Snapshot(info, &s.ps, c.entities(s))
}

// errFrameMismatch is the divergence of a frame-sync demo: frame's state
// hash differs from the server's.
func errFrameMismatch(frame int32) error {
	return fmt.Errorf("%w: frame %d: the game's state hash differs from the server's", ErrDemoDiverges, frame)
}
