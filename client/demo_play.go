package client

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/net/infostr"
)

// Playback limits.
const (
	// MinTimescale and MaxTimescale bound the playback speed.
	MinTimescale = 0.1
	MaxTimescale = 4
	// CheckpointInterval is the demo time between the checkpoints
	// playback keeps in memory for stepping and seeking back (ms).
	CheckpointInterval = 1000
	// Checkpoints is how many it keeps (the last 32 s at 1 s apart).
	Checkpoints = 32
)

// checkpoint is a key frame held in memory: the parser's state after
// the record that ends at offset.
type checkpoint struct {
	serverTime int32
	messageNum int32
	offset     int64  // of the record after it
	data       []byte // a key frame payload
}

// Playback plays a demo through a Client (Quake III's demo playback, plus
// pause, speed, stepping and seeking). The messages go through the same
// parser as the network's; the demo clock sets the client's server time;
// cgame runs unchanged on top of it: the Client makes one CGame per level
// (Client.CGame), and Playback has it remade after every jump in time.
// Everything happens in Frame and the control methods, on the caller's
// goroutine.
//
// Stepping and seeking never run the demo backwards: a jump back restores
// the parser from the nearest checkpoint at or before the target — one of
// the Checkpoints key frames playback encodes in memory every
// CheckpointInterval of demo time, or a key frame of the file — and
// parses forward from there. A step back within the last 32 s thus costs
// a restore and at most a second of messages; a seek far away costs one
// of the file's key frames (every demo.KeyFrameInterval) and at most 5 s
// of messages.
type Playback struct {
	c     *Client
	r     *demo.Reader
	close func() error
	cgCfg cgame.Config // the client's Config.CGame

	clock    float64 // the demo time shown, ms
	lastNow  time.Duration
	haveNow  bool
	paused   bool
	scale    float64
	ended    bool
	err      error // why playback stopped early; nil at a clean end
	messages int

	kf        demo.KeyFrame
	cps       [Checkpoints]checkpoint
	cpNext    int
	cpLast    int32
	cpScratch keyFrameScratch
	summary   *Summary
}

// PlaybackConfig sets up a Playback.
type PlaybackConfig struct {
	// Client holds the client engine's settings: LoadMap, ShowNet and
	// Logf matter.
	Client Config
	// CGame is the cgame configuration; nil means cgame.DefaultConfig.
	// Prediction is turned off: a demo has no usercmds.
	CGame *cgame.Config
	// NoCGame: no CGame is run (timedemo of the engine alone, tools).
	NoCGame bool
}

// nullConn is the connection of a playback client: nothing arrives,
// what is sent is dropped.
type nullConn struct{ done chan struct{} }

func (n *nullConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-n.done
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (n *nullConn) WriteTo([]byte, netip.AddrPort) error { return nil }
func (n *nullConn) LocalAddr() netip.AddrPort            { return netip.AddrPort{} }
func (n *nullConn) SetReadDeadline(time.Time) error      { return nil }
func (n *nullConn) Close() error {
	select {
	case <-n.done:
	default:
		close(n.done)
	}
	return nil
}

// OpenDemo opens the demo file at path for playback (the demo command).
func OpenDemo(path string, cfg PlaybackConfig) (*Playback, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p, err := NewPlayback(f, st.Size(), cfg)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.close = f.Close
	return p, nil
}

// NewPlayback prepares the playback of the demo in r, of size bytes: it
// checks the header and restores the first key frame.
func NewPlayback(r io.ReaderAt, size int64, cfg PlaybackConfig) (*Playback, error) {
	dr, err := demo.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	// A demo holds server messages only: it plays if they are read as
	// this version reads them (proto.MinDemoVersion).
	if h := dr.Header(); h.Protocol < proto.MinDemoVersion || h.Protocol > proto.Version {
		return nil, fmt.Errorf("%w: %d, this client speaks %d and plays demos of %d to %d",
			demo.ErrProtocol, h.Protocol, proto.Version, proto.MinDemoVersion, proto.Version)
	}
	p := &Playback{r: dr, scale: 1}
	if cfg.CGame != nil {
		p.cgCfg = *cfg.CGame
	} else {
		p.cgCfg = cgame.DefaultConfig()
	}
	p.cgCfg.NoPredict = true
	// The first record is checked before the client is made: a file
	// that is no demo fails without the cost of one.
	rec, err := dr.Next()
	if err != nil {
		return nil, fmt.Errorf("demo: first record: %w", err)
	}
	if rec.Kind != demo.KindKeyFrame {
		return nil, fmt.Errorf("%w: the first record is not a key frame", demo.ErrCorrupt)
	}
	ccfg := cfg.Client
	ccfg.CGame = nil
	if !cfg.NoCGame {
		ccfg.CGame = &p.cgCfg
	}
	c := New(&nullConn{done: make(chan struct{})}, ccfg)
	c.playback = true
	p.c = c
	if err := p.restore(rec.Data, dr.Offset()); err != nil {
		c.Close()
		return nil, err
	}
	return p, nil
}

// Close ends the playback and closes the file.
func (p *Playback) Close() error {
	p.c.Close()
	if p.close != nil {
		return p.close()
	}
	return nil
}

// Client returns the client the demo plays through (cgame.Client).
func (p *Playback) Client() *Client { return p.c }

// Header returns the demo's header.
func (p *Playback) Header() demo.Header { return p.r.Header() }

// CGame returns the client game of the current level, nil before the
// first snapshot or with PlaybackConfig.NoCGame. It is replaced after
// every jump in time (a seek, a step back) and every new gamestate.
func (p *Playback) CGame() *cgame.CGame { return p.c.CGame() }

// Time returns the demo clock: the server time shown.
func (p *Playback) Time() int32 { return int32(math.Floor(p.clock)) }

// Ended reports whether the demo is over, and the error that ended it
// early (a truncated or corrupt file), nil at its end marker.
func (p *Playback) Ended() (bool, error) { return p.ended, p.err }

// Paused reports whether the clock is stopped.
func (p *Playback) Paused() bool { return p.paused }

// SetPaused stops or restarts the demo clock.
func (p *Playback) SetPaused(on bool) { p.paused = on }

// Timescale returns the playback speed.
func (p *Playback) Timescale() float64 { return p.scale }

// SetTimescale sets the playback speed, clamped to [MinTimescale,
// MaxTimescale].
func (p *Playback) SetTimescale(s float64) {
	if math.IsNaN(s) {
		return
	}
	p.scale = max(MinTimescale, min(s, MaxTimescale))
}

// Messages returns how many messages were parsed since the start (not
// counting key frames).
func (p *Playback) Messages() int { return p.messages }

// Frame runs one frame of playback at real time now: the demo clock
// advances by the real time since the last Frame times the timescale
// (unless paused), messages are read until the client holds a snapshot
// past the clock (the next one to interpolate towards), the client's
// server time is set to the clock, and the CGame runs.
func (p *Playback) Frame(now time.Duration) {
	if p.haveNow && !p.paused && !p.ended && now > p.lastNow {
		p.clock += float64(now-p.lastNow) / float64(time.Millisecond) * p.scale
	}
	p.lastNow, p.haveNow = now, true
	p.c.realtime = int32(now / time.Millisecond)
	p.c.stats.Frames++
	p.fill()
	p.setTime()
	p.c.demoCGameFrame()
}

// setTime gives the client the demo clock as its server time.
func (p *Playback) setTime() {
	c := p.c
	if c.state != Active {
		return
	}
	t := p.Time()
	if t < c.active.oldServerTime && c.active.cg != nil {
		t = c.active.oldServerTime // a cgame never goes back; jumps remake it
	}
	c.active.serverTime, c.active.oldServerTime = t, t
}

// fill reads messages until the client's newest snapshot is past the
// clock, or the demo ends.
func (p *Playback) fill() {
	c := p.c
	for !p.ended && (c.state != Active || float64(c.active.snap.serverTime) <= p.clock) {
		p.step()
	}
}

// step reads and handles one record (CL_ReadDemoMessage).
func (p *Playback) step() {
	c := p.c
	rec, err := p.r.Next()
	if err != nil {
		p.ended = true
		if err != io.EOF {
			p.err = err
		}
		return
	}
	switch rec.Kind {
	case demo.KindMessage:
		p.messages++
		c.stats.Messages++
		c.conn.serverMessageSequence = rec.Sequence
		gs := c.stats.Gamestates
		primed := c.state == Primed
		c.parseServerMessage(rec.Data, uint32(rec.Sequence))
		if c.state == Disconnected {
			p.ended = true // a "disconnect" server command
			return
		}
		if d, ok := c.hashDivergence(); ok {
			// The snapshot decoded is not the one the server built
			// (statehash.go): stop on it.
			p.ended = true
			p.err = fmt.Errorf("%w: message %d, %v", ErrDemoDiverges, rec.Sequence, d)
			return
		}
		if c.stats.Gamestates != gs {
			// A new level (the gamestate dropped the cgame): times
			// start over.
			p.cps = [Checkpoints]checkpoint{}
		}
		p.activate(primed)
		if frame, bad := c.playFrames(); bad {
			// Frame sync: the game the demo runs is not the server's
			// (demo_framesync.go).
			p.ended = true
			p.err = fmt.Errorf("message %d: %w", rec.Sequence, errFrameMismatch(frame))
			return
		}
		if c.state == Active && p.since(c.active.snap.serverTime) >= CheckpointInterval {
			p.checkpoint()
		}
	case demo.KindKeyFrame:
		// The parser's state equals the key frame's: keep it as a
		// checkpoint, with no encoding.
		if err := demo.ParseKeyFrame(rec.Data, &p.kf); err == nil && p.since(p.kf.ServerTime) >= CheckpointInterval/2 {
			p.keep(p.kf.ServerTime, p.kf.MessageNum, rec.Data)
		}
	}
}

// since returns the server time from the last checkpoint to t, in 64
// bits: before the first, cpLast is math.MinInt32, and t minus it would
// overflow 32 bits and never make a checkpoint due.
func (p *Playback) since(t int32) int64 { return int64(t) - int64(p.cpLast) }

// activate makes the client active on the first snapshot of a level and
// puts the clock on it (CL_FirstSnapshot). In frame sync the client made
// itself active on its first whole state, in the records just parsed
// after primed.
func (p *Playback) activate(primed bool) {
	c := p.c
	synced := primed && c.state == Active && c.active.fs != nil
	if c.state == Primed && c.active.snap.valid || synced {
		c.active.newSnapshots = false
		if !synced {
			c.setState(Active)
		}
		p.clock = float64(c.active.snap.serverTime)
		c.active.serverTime, c.active.oldServerTime = c.active.snap.serverTime, c.active.snap.serverTime
		p.cpLast = math.MinInt32
	}
}

// checkpoint encodes the client's state as a key frame held in memory.
func (p *Playback) checkpoint() {
	c := p.c
	parts, err := c.keyFrameParts(&p.cpScratch)
	if err != nil {
		return
	}
	p.keep(c.active.snap.serverTime, c.active.snap.messageNum, demo.AppendKeyFrame(nil, c.active.snap.serverTime, c.active.snap.messageNum, parts))
}

// keep stores a checkpoint of the state after the record just read.
func (p *Playback) keep(serverTime, messageNum int32, data []byte) {
	cp := &p.cps[p.cpNext%Checkpoints]
	// Reuse the slot's buffer.
	cp.data = append(cp.data[:0], data...)
	cp.serverTime, cp.messageNum, cp.offset = serverTime, messageNum, p.r.Offset()
	p.cpNext++
	p.cpLast = serverTime
}

// restore rebuilds the parser's state from a key frame payload and
// continues reading at offset.
func (p *Playback) restore(data []byte, offset int64) error {
	c := p.c
	if err := demo.ParseKeyFrame(data, &p.kf); err != nil {
		return err
	}
	if err := p.r.SetOffset(offset); err != nil {
		return err
	}
	hooks := c.Hooks
	c.Hooks = Hooks{}
	defer func() { c.Hooks = hooks }()
	c.state = Connected
	c.resetConnection() // the key frame holds all of the connection a demo has
	c.lastError = nil
	primed := false
	for _, part := range p.kf.Parts {
		primed = primed || c.state == Primed
		c.conn.serverMessageSequence = part.Sequence
		c.parseMessage(part.Data, uint32(part.Sequence))
		c.newGamestate = false
		if c.lastError != nil {
			return fmt.Errorf("demo: key frame at offset %d: %w", offset, c.lastError)
		}
	}
	if c.state < Primed {
		return fmt.Errorf("demo: key frame at offset %d restored no level: %v", offset, c.lastError)
	}
	p.ended, p.err = false, nil // resetConnection dropped the cgame
	p.cpLast = math.MinInt32
	p.activate(primed)
	if frame, bad := c.playFrames(); bad {
		return fmt.Errorf("demo: key frame at offset %d: %w", offset, errFrameMismatch(frame))
	}
	return nil
}

// fastForward reads records, with the hooks silenced, until the
// client's newest snapshot reaches server time t or the demo ends.
func (p *Playback) fastForward(t int32) {
	c := p.c
	hooks := c.Hooks
	c.Hooks = Hooks{}
	shownet := c.cfg.ShowNet
	c.cfg.ShowNet = 0
	defer func() { c.Hooks, c.cfg.ShowNet = hooks, shownet }()
	for !p.ended && (c.state != Active || c.active.snap.serverTime < t) {
		p.step()
	}
}

// seekTo jumps to the first snapshot at or after server time t (the last
// one when t is past the end): from the current state if t is ahead of
// everything parsed, else from the best checkpoint or key frame at or
// before t. The clock lands on that snapshot.
func (p *Playback) seekTo(t int32) error {
	c := p.c
	// The best restore point at or before t.
	var bestData []byte
	bestOff, bestTime := int64(-1), int32(math.MinInt32)
	for i := range p.cps {
		cp := &p.cps[i]
		if cp.data != nil && cp.serverTime <= t && cp.serverTime > bestTime {
			bestData, bestOff, bestTime = cp.data, cp.offset, cp.serverTime
		}
	}
	if x := p.r.Index(); x != nil {
		if e, ok := x.Find(t); ok && e.ServerTime <= t && e.ServerTime > bestTime {
			bestData, bestOff, bestTime = nil, e.Offset, e.ServerTime
		}
	}
	ahead := c.state == Active && c.active.snap.serverTime <= t
	switch {
	case ahead && c.active.snap.serverTime >= bestTime:
		// parse forward from here
	case bestOff >= 0:
		if bestData == nil {
			if err := p.r.SetOffset(bestOff); err != nil {
				return err
			}
			rec, err := p.r.Next()
			if err != nil {
				return err
			}
			if rec.Kind != demo.KindKeyFrame {
				return fmt.Errorf("%w: the index points at offset %d, not a key frame", demo.ErrBadIndex, bestOff)
			}
			bestData, bestOff = rec.Data, p.r.Offset()
		}
		if err := p.restore(bestData, bestOff); err != nil {
			return err
		}
	default:
		// Before every checkpoint: from the first key frame.
		if err := p.r.SetOffset(p.r.Start()); err != nil {
			return err
		}
		rec, err := p.r.Next()
		if err != nil {
			return err
		}
		if err := p.restore(rec.Data, p.r.Offset()); err != nil {
			return err
		}
	}
	p.fastForward(t)
	c.shutdownCGame() // the cgame of a jump starts afresh
	p.clock = float64(c.active.snap.serverTime)
	c.active.serverTime, c.active.oldServerTime = c.active.snap.serverTime, c.active.snap.serverTime
	return nil
}

// SeekTime jumps to the first snapshot at or after server time t (the
// last one if t is past the end). The clock lands on that snapshot and
// keeps its pause state.
func (p *Playback) SeekTime(t int32) error { return p.seekTo(t) }

// SeekPercent jumps to pct percent (0 to 100) of the demo's duration.
// Without an index the demo is scanned once (Summary).
func (p *Playback) SeekPercent(pct float64) error {
	first, last, err := p.span()
	if err != nil {
		return err
	}
	if math.IsNaN(pct) {
		pct = 0
	}
	pct = max(0, min(pct, 100))
	return p.seekTo(first + int32(math.Round(float64(last-first)*pct/100)))
}

// span returns the server times of the first and last snapshots.
func (p *Playback) span() (first, last int32, err error) {
	if x := p.r.Index(); x != nil {
		return x.FirstTime, x.LastTime, nil
	}
	s, err := p.Summary()
	if err != nil && s == nil {
		return 0, 0, err
	}
	return s.FirstTime, s.LastTime, nil
}

// Current returns the message number and server time of the snapshot the
// clock shows: the newest usable one at or before it; 0, 0 if none.
func (p *Playback) Current() (num, serverTime int32) {
	c := p.c
	t := p.Time()
	for i := int32(0); i < proto.PacketBackup; i++ {
		m := c.active.snap.messageNum - i
		s := &c.active.snapshots[m&proto.PacketMask]
		if m <= 0 || !s.valid || !s.usable || s.messageNum != m {
			continue
		}
		if s.serverTime <= t {
			return m, s.serverTime
		}
	}
	return 0, 0
}

// StepForward pauses and moves the clock to the next snapshot.
func (p *Playback) StepForward() {
	p.paused = true
	p.fill()
	c := p.c
	t := p.Time()
	best := int32(math.MaxInt32)
	for i := range c.active.snapshots {
		s := &c.active.snapshots[i]
		if s.valid && s.usable && s.serverTime > t && s.serverTime < best {
			best = s.serverTime
		}
	}
	if best != math.MaxInt32 {
		p.clock = float64(best)
	}
}

// StepBack pauses and moves the clock to the snapshot before the one
// shown, restoring the state from a checkpoint.
func (p *Playback) StepBack() error {
	p.paused = true
	num, t := p.Current()
	if num == 0 {
		return nil
	}
	prev := int32(math.MinInt32)
	c := p.c
	for i := range c.active.snapshots {
		s := &c.active.snapshots[i]
		if s.valid && s.usable && s.serverTime < t && s.serverTime > prev {
			prev = s.serverTime
		}
	}
	if prev == math.MinInt32 {
		prev = t - 1 // out of the ring: the first snapshot before t
		first, _, err := p.span()
		if err == nil && prev < first {
			return nil
		}
		if err := p.seekTo(prev); err != nil {
			return err
		}
		// seekTo lands at or after prev: at t again when nothing lies
		// between; then look further back.
		if _, now := p.Current(); now >= t {
			return p.seekBefore(t)
		}
		return nil
	}
	return p.seekTo(prev)
}

// seekBefore lands on the last snapshot before t, searching back a
// checkpoint interval at a time.
func (p *Playback) seekBefore(t int32) error {
	first, _, err := p.span()
	if err != nil {
		return err
	}
	for back := int64(CheckpointInterval); back < 1<<31 && int64(t)-back >= int64(first)-CheckpointInterval; back *= 2 {
		if err := p.seekTo(int32(int64(t) - back)); err != nil {
			return err
		}
		// Walk forward to the last snapshot before t.
		last := int32(math.MinInt32)
		for {
			_, now := p.Current()
			if now >= t || p.ended {
				break
			}
			last = now
			p.StepForward()
			if _, n := p.Current(); n == now {
				break
			}
		}
		if last != math.MinInt32 {
			return p.seekTo(last)
		}
	}
	return nil
}

// NextFrag jumps to the next kill after the clock (from the obituary
// events the demo holds; Summary lists them); false if there is none.
func (p *Playback) NextFrag() (bool, error) {
	s, err := p.Summary()
	if s == nil {
		return false, err
	}
	t := p.Time()
	for _, f := range s.Frags {
		if f.ServerTime > t {
			return true, p.seekTo(f.ServerTime)
		}
	}
	return false, nil
}

// PrevFrag jumps to the last kill before the clock; false if none.
func (p *Playback) PrevFrag() (bool, error) {
	s, err := p.Summary()
	if s == nil {
		return false, err
	}
	t := p.Time()
	for i := len(s.Frags) - 1; i >= 0; i-- {
		if s.Frags[i].ServerTime < t {
			return true, p.seekTo(s.Frags[i].ServerTime)
		}
	}
	return false, nil
}

// Summary returns the demo's summary, scanning the file the first time
// (a second parser; the playback's state is untouched).
func (p *Playback) Summary() (*Summary, error) {
	if p.summary != nil {
		return p.summary, nil
	}
	s, err := summarize(p.r, p.c.cfg, nil)
	if s != nil {
		p.summary = s
	}
	return s, err
}

// Players returns the names of the players in the current gamestate,
// their control characters written as escapes (safetext.Line).
func (c *Client) Players() []string {
	var names []string
	for i := range bg.MaxClients {
		if s := c.conn.gs.Configstrings[bg.CSPlayers+i]; s != "" {
			names = append(names, safetext.Line(infostr.ValueForKey(s, "n")))
		}
	}
	return names
}
