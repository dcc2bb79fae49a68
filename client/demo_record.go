package client

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// This file records demos (Quake III's CL_Record_f, CL_WriteDemoMessage,
// CL_StopRecord_f). The file format is common/demo's; the recording
// starts with a key frame (a synthetic gamestate and the client's
// snapshot ring), then every server message the client parses is written
// as it was received (after the netchan, unscrambled), with a key frame
// every demo.KeyFrameInterval of server time. Quake III waited for a
// non-delta snapshot before writing anything; the snapshot ring in the
// first key frame makes that unnecessary: the messages that follow are
// delta-coded from snapshots the key frame holds.

// Recording errors.
var (
	ErrNotInLevel       = errors.New("client: not in a level: nothing to record")
	ErrAlreadyRecording = errors.New("client: already recording")
	ErrNotRecording     = errors.New("client: not recording")
)

// keyFrameBufLen bounds the scratch of one key frame part: a gamestate
// with every configstring and baseline, or one full snapshot.
const keyFrameBufLen = 1 << 20

// recorder is one recording in progress.
type recorder struct {
	name     string
	dst      io.WriteCloser
	w        *demo.Writer
	lastKey  int32 // server time of the last key frame
	lastTime int32 // server time of the newest snapshot written
	keyScr   keyFrameScratch
	messages int
	err      error
	fs       *frameDemo // frame sync's (demo_framesync.go); nil with snapshots

	// A recording RecordTo made goes on in file base-2, base-3… of dir
	// when the server restarts its clock (splitRecording); parts counts
	// the files so far.
	toFile bool
	dir    string
	base   string
	parts  int
}

// keyFrameScratch holds the buffers key frames are encoded in.
type keyFrameScratch struct {
	buf   []byte
	parts []demo.Part
	w     msg.Writer
	// Frame sync's: the game's state and the frames written
	// (frameSyncKeyFrameParts).
	state  *game.State
	frames []*framesync.Frame
}

// RecordingInfo describes the recording in progress.
type RecordingInfo struct {
	Name      string // as given to StartRecording
	Messages  int    // server messages written
	KeyFrames int
	Bytes     int64 // written so far (queued for the disk)
}

// Recording returns the recording in progress; false if none.
func (c *Client) Recording() (RecordingInfo, bool) {
	if c.rec == nil {
		return RecordingInfo{}, false
	}
	r := c.rec
	return RecordingInfo{Name: r.name, Messages: r.messages, KeyFrames: r.w.KeyFrames(), Bytes: r.w.Offset()}, true
}

// StartRecording starts recording the server messages to dst (the record
// command), which StopRecording closes; name is for RecordingInfo. The
// client must be in a level (Primed or Active). dst receives its bytes
// from a goroutine of its own (demo.AsyncWriter), so recording does not
// slow the client's frames.
func (c *Client) StartRecording(dst io.WriteCloser, name string) error {
	if c.rec != nil {
		return ErrAlreadyRecording
	}
	if c.state < Primed || c.playback {
		return ErrNotInLevel
	}
	aw := demo.NewAsyncWriter(dst)
	mapName := infostr.ValueForKey(c.conn.gs.Configstrings[bg.CSServerInfo], "mapname")
	w, err := demo.NewWriter(aw, demo.Header{
		Protocol:  proto.Version,
		ClientNum: c.conn.gs.ClientNum,
		Date:      c.wallClock(),
		Map:       mapName,
	})
	if err != nil {
		aw.Close()
		return err
	}
	r := &recorder{name: name, dst: aw, w: w}
	if err := c.writeKeyFrame(r); err != nil {
		aw.Close()
		return err
	}
	c.startFrameDemo(r)
	c.rec = r
	return nil
}

// wallClock returns the date of the client's current frame (the date of
// a recording).
func (c *Client) wallClock() time.Time {
	return c.epoch.Add(time.Duration(c.realtime) * time.Millisecond)
}

// StopRecording ends the recording: it writes the index and the end of
// the file, waits for the bytes to reach the destination and closes it
// (the stoprecord command).
func (c *Client) StopRecording() (RecordingInfo, error) {
	if c.rec == nil {
		return RecordingInfo{}, ErrNotRecording
	}
	info, _ := c.Recording()
	r := c.rec
	c.rec = nil
	err := r.err
	if e := r.w.Close(); err == nil {
		err = e
	}
	if e := r.dst.Close(); err == nil {
		err = e
	}
	info.Bytes = r.w.Offset()
	return info, err
}

// recordMessage writes a parsed server message to the recording, and a
// key frame after it when one is due (CL_WriteDemoMessage).
func (c *Client) recordMessage(body []byte, seq uint32) {
	r := c.rec
	if r.err != nil {
		return
	}
	if err := r.w.WriteMessage(int32(seq), body); err != nil {
		r.err = err
		return
	}
	r.messages++
	if c.active.fs != r.fs.sync() {
		c.startFrameDemo(r) // a gamestate of the other model, or a new one
	}
	if r.fs != nil {
		// Frame sync: no key frame but the first (demo_framesync.go).
		c.demoWantWhole(r)
		if t, ok := c.frameDemoTime(r); ok {
			r.lastTime = t
			r.w.NoteTime(t)
		}
		return
	}
	if c.active.snap.valid {
		r.lastTime = c.active.snap.serverTime
		r.w.NoteTime(c.active.snap.serverTime)
		if c.active.snap.serverTime-r.lastKey >= demo.KeyFrameInterval || c.active.snap.serverTime < r.lastKey {
			if err := c.writeKeyFrame(r); err != nil {
				r.err = err
			}
		}
	}
}

// writeKeyFrame writes a key frame of the client's current state.
func (c *Client) writeKeyFrame(r *recorder) error {
	parts, err := c.keyFrameParts(&r.keyScr)
	if err != nil {
		return err
	}
	r.lastKey = c.active.snap.serverTime
	r.lastTime = max(r.lastTime, c.active.snap.serverTime)
	return r.w.WriteKeyFrame(c.active.snap.serverTime, c.active.snap.messageNum, parts)
}

// keyFrameParts encodes what a parser needs to continue from the
// client's current state: a gamestate as of now (the configstrings
// changed since, the server command sequence reached), then every valid
// snapshot of the ring whose entities are intact, oldest first, the
// first one full and each other delta-coded from the one before. Parsed
// in order (restoreKeyFrame) they rebuild the ring that later messages
// are delta-coded from. The parts alias s.
func (c *Client) keyFrameParts(s *keyFrameScratch) ([]demo.Part, error) {
	if s.buf == nil {
		s.buf = make([]byte, keyFrameBufLen)
		s.parts = make([]demo.Part, 0, demo.MaxKeyFrameParts)
	}
	s.parts = s.parts[:0]
	used := 0
	w := &s.w

	// The ring's usable snapshots, from the oldest a later message could
	// name as its base (none in frame sync: its frames go to cgame as
	// snapshots, but no message is coded from them).
	var nums [proto.PacketBackup]int32
	n := 0
	if c.active.lastValid > 0 && c.active.fs == nil {
		for m := c.active.lastValid - (proto.PacketBackup - 1); m <= c.active.lastValid; m++ {
			sn := &c.active.snapshots[m&proto.PacketMask]
			if m <= 0 || !sn.valid || sn.messageNum != m || c.active.parseEntNum-sn.firstEntity > MaxParseEntities {
				continue
			}
			nums[n] = m
			n++
		}
	}
	gsSeq := c.conn.serverMessageSequence
	if n > 0 {
		gsSeq = nums[0]
	}

	// The gamestate, with the command sequence reached.
	w.Reset(s.buf[used:], msg.Huffman)
	proto.WriteReliableAck(w, c.conn.reliableAcknowledge)
	c.writeKeyFrameCarrier(w)
	saved := c.conn.gs.CommandSequence
	c.conn.gs.CommandSequence = c.conn.serverCommandSequence
	proto.WriteGamestate(w, &c.conn.gs)
	c.conn.gs.CommandSequence = saved
	w.WriteUint8(proto.SvcEOF)
	if w.Err() != nil {
		return nil, fmt.Errorf("client: key frame gamestate: %w", w.Err())
	}
	s.parts = append(s.parts, demo.Part{Sequence: gsSeq, Data: w.Bytes()})
	used += w.Len()
	if c.active.fs != nil {
		return c.frameSyncKeyFrameParts(s, used)
	}

	var prev *snapshot
	for _, m := range nums[:n] {
		sn := &c.active.snapshots[m&proto.PacketMask]
		h := proto.SnapshotHeader{ServerTime: sn.serverTime, Flags: uint8(sn.flags), Step: sn.step}
		var fromPS *bg.PlayerState
		var fromEnts []bg.EntityState
		if prev != nil {
			h.DeltaNum = uint8(m - prev.messageNum)
			h.BaseTime, h.BaseStep, h.BaseFlags = prev.serverTime, prev.step, uint8(prev.flags)
			fromPS, fromEnts = &prev.ps, c.entities(prev)
		}
		if len(s.buf)-used < netmsgRoom {
			return nil, errors.New("client: key frame too large")
		}
		w.Reset(s.buf[used:], msg.Huffman)
		proto.WriteReliableAck(w, c.conn.reliableAcknowledge)
		proto.WriteSnapshot(w, h, fromPS, &sn.ps, fromEnts, c.entities(sn), &c.conn.gs.Baselines)
		w.WriteUint8(proto.SvcEOF)
		if w.Err() != nil {
			return nil, fmt.Errorf("client: key frame snapshot %d: %w", m, w.Err())
		}
		s.parts = append(s.parts, demo.Part{Sequence: m, Data: w.Bytes()})
		used += w.Len()
		prev = sn
	}
	return s.parts, nil
}

// netmsgRoom is the room one snapshot part needs at most.
const netmsgRoom = 64 << 10

// DemoName returns the name cl_autoRecordDemo gives a recording started
// at date on mapName: "2026-11-21_084640_arena1".
func DemoName(date time.Time, mapName string) string {
	m := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, mapName)
	if m == "" {
		m = "unknown"
	}
	return date.Format("2006-01-02_150405") + "_" + m
}

// DemoPath returns the file of demo name in dir: dir/name.tdm, the
// extension added when name lacks it. A name with a path separator or
// starting with a dot is refused.
func DemoPath(dir, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\:`+"\x00") || strings.HasPrefix(name, ".") || len(name) > 128 {
		return "", fmt.Errorf("client: bad demo name %q", name)
	}
	if !strings.HasSuffix(name, demo.Extension) {
		name += demo.Extension
	}
	return filepath.Join(dir, name), nil
}

// createDemo creates the file of demo name in dir, and dir if needed.
func createDemo(dir, name string) (*os.File, string, error) {
	p, err := DemoPath(dir, name)
	if err != nil {
		return nil, "", err
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
	}
	f, err := os.Create(p)
	return f, p, err
}

// RecordTo starts recording to the file of demo name in dir (the record
// command; name "" gives one named by date and map, as
// cl_autoRecordDemo does). It returns the file's path.
func (c *Client) RecordTo(dir, name string) (string, error) {
	if c.rec != nil {
		return "", ErrAlreadyRecording
	}
	if c.state < Primed || c.playback {
		return "", ErrNotInLevel
	}
	if name == "" {
		name = DemoName(c.wallClock(), infostr.ValueForKey(c.conn.gs.Configstrings[bg.CSServerInfo], "mapname"))
	}
	f, p, err := createDemo(dir, name)
	if err != nil {
		return "", err
	}
	if err := c.StartRecording(f, name); err != nil {
		f.Close()
		os.Remove(p)
		return "", err
	}
	c.rec.toFile, c.rec.dir, c.rec.base, c.rec.parts = true, dir, strings.TrimSuffix(name, demo.Extension), 1
	return p, nil
}

// clockRestarted reports whether the gamestate just parsed starts its
// level before the newest snapshot recorded: the server restarted its
// clock (proto.RestartTime), and times in the recording would run
// backwards.
func (c *Client) clockRestarted() bool {
	start, err := strconv.ParseInt(c.conn.gs.Configstrings[bg.CSLevelStartTime], 10, 32)
	return err == nil && int32(start) < c.rec.lastTime
}

// splitRecording ends the recording at a gamestate whose clock
// restarted, since a demo's times must only grow (its index, seeking,
// its duration and the demo bar go by them). A recording RecordTo made
// goes on in a new file, base-2.tdm and so on, that starts with a key
// frame of this gamestate; any other recording just ends.
func (c *Client) splitRecording() {
	r := c.rec
	info, err := c.StopRecording()
	if err != nil {
		c.logf("stoprecord: %v", err)
	}
	if !r.toFile {
		c.logf("demo %s ended: the server restarted its clock", info.Name)
		return
	}
	name := r.base + "-" + strconv.Itoa(r.parts+1)
	p, err := c.RecordTo(r.dir, name)
	if err != nil {
		c.logf("demo %s ended: the server restarted its clock, and recording on failed: %v", info.Name, err)
		return
	}
	c.rec.base, c.rec.parts = r.base, r.parts+1
	c.logf("demo %s: the server restarted its clock; recording goes on in %s", info.Name, p)
}

// SetAutoRecordDemo sets cl_autoRecordDemo: when on, every gamestate
// starts a new recording in dir, named by date and map (DemoName).
func (c *Client) SetAutoRecordDemo(on bool, dir string) {
	c.autoRecordDemo, c.demoDir = on, dir
}

// autoRecord starts a new recording after a gamestate when
// cl_autoRecordDemo is on.
func (c *Client) autoRecord() {
	c.newGamestate = false
	if !c.autoRecordDemo || c.playback || c.state < Primed {
		return
	}
	if c.rec != nil {
		if _, err := c.StopRecording(); err != nil {
			c.logf("stoprecord: %v", err)
		}
	}
	p, err := c.RecordTo(c.demoDir, "")
	if err != nil {
		c.logf("cl_autoRecordDemo: %v", err)
		return
	}
	c.logf("recording to %s", p)
}
