package client

import (
	"errors"
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// Frame sync on the client (sv_netmodel framesync, seed 003,
// docs/framesync.md): the server sends each frame's inputs instead of
// snapshots, and the client runs the game itself in a framesync.Sync —
// the same game.Arena the server runs — predicting the frames the server
// has not confirmed with its own input and the others' last ones, rolling
// back when a confirmed frame differs, and stalling rather than predict
// more than cl_maxPredictionFrames ahead. Each frame the Sync runs is
// handed to cgame as a snapshot of the client's own simulation, so the
// drawing, the sounds and the HUD are the same in both models.
//
// The client's clock runs its frames ahead of the server's by about the
// round trip and a margin, so that its input for a frame reaches the
// server before the server runs that frame: the server reports with
// every frames message how many frames ahead of its last frame the
// client's newest input was (the input lead), and the clock runs a
// little faster or slower to keep it at FrameLeadTarget.

// FrameHashEveryKey is the serverinfo key of sv_frameHashEvery: the
// client hashes the frames whose number is a multiple of it as it runs
// them, for the server's hashes to check.
const FrameHashEveryKey = "sv_frameHashEvery"

// Frame-sync clock constants.
const (
	// FrameLeadTarget is the input lead, in frames, the clock aims for:
	// the client's input arrives this many frames before the server
	// runs its frame, a margin for jitter.
	FrameLeadTarget = 2
	// frameLeadJump is the lead error, in frames, past which the clock
	// jumps instead of running faster or slower.
	frameLeadJump = 6
	// frameLeadCooldown is how long, in ms, the clock ignores the lead
	// after a jump: the leads that follow were measured before it.
	frameLeadCooldown = 500
	// maxFramesPerClientFrame bounds the frames one client frame runs
	// when it catches up.
	maxFramesPerClientFrame = 8
	// pendingInputs is the most inputs a stalled client sends ahead of
	// the frames it has run (1.6 s at sv_fps 20).
	pendingInputs = 32
	// frameRequestMsec is the least time between two frame requests.
	frameRequestMsec = 100
	// wholeWaitMsec is how long the client waits for a whole state
	// (the first after the gamestate, or one it asked for) before it
	// asks (again).
	wholeWaitMsec = 1000
)

// frameSync is the client's frame-sync state for one gamestate.
type frameSync struct {
	sync   *framesync.Sync
	frames [framesync.MaxMessageFrames]framesync.Frame // decoding scratch

	clock     int32 // the level time the client's frames run up to
	clockFrac int32 // thousandths of a ms the speed carried over
	speed     int32 // thousandths: 1000 is real time
	cooldown  int32 // realtime until which the lead is ignored
	lead      int8  // the server's last input lead
	leads     int   // frames messages received with a lead

	created    int32 // realtime of the gamestate
	wholeAsked int32 // realtime of the last request for a whole state
	snapNum    int32 // the number of the last frame given to cgame as a snapshot
	// pending holds the inputs sent during a stall, of the frames after
	// the current one, oldest first: they run when the Sync may go on.
	pending     [pendingInputs]bg.UserCmd
	npending    int
	lastRequest int32 // realtime of the last frame request
	request     proto.FrameRequest
	wantRequest bool
	lastDiff    string // the last desync reported

	// resimulated is the Sync's Resimulated when the last frame was
	// given to cgame (LastResimulated).
	resimulated int
	// events finds the events of every frame the Sync runs, for cgame
	// (frameevents.go).
	events frameEvents
	// graphRollbacks is the Sync's Rollbacks the net graph has counted.
	graphRollbacks int

	stats FrameSyncStats
}

// FrameSyncStats are the client's frame-sync counters beside the Sync's
// own (Client.FrameSyncStats).
type FrameSyncStats struct {
	framesync.SyncStats
	// Lead is the server's last input lead, in frames.
	Lead int
	// FrameMessages counts the frames messages received, Frames the
	// frames in them (every copy), WholeStates the whole states.
	FrameMessages, Frames, WholeStates int
	// Requests counts the frame requests sent.
	Requests int
	// ClockJumps counts the clock's jumps on the lead.
	ClockJumps int
	// FirstFrame is the frame of the first whole state: the client's
	// game started there.
	FirstFrame int32
	// Speed is the clock's speed in thousandths (1000: real time).
	Speed int
	// LastResimulated is how many frames the last rollback ran again.
	LastResimulated int
}

// startFrameSync begins frame sync for the gamestate just loaded, if the
// server's serverinfo says it keeps its clients in frame sync.
func (c *Client) startFrameSync() {
	c.active.fs = nil
	if infostr.ValueForKey(c.conn.gs.Configstrings[bg.CSServerInfo], proto.NetModelKey) != proto.NetModelFrameSync {
		return
	}
	info := c.conn.gs.Configstrings[bg.CSServerInfo]
	hashEvery, _ := strconv.Atoi(infostr.ValueForKey(info, FrameHashEveryKey))
	sim := framesync.NewSim(c.active.world, game.DefaultConfig())
	fs := &frameSync{
		speed:   1000,
		created: c.realtime,
	}
	fs.events.g, fs.events.self = sim.Game(), c.conn.gs.ClientNum
	fs.sync = framesync.NewSync(sim, framesync.SyncConfig{
		Client:        int(c.conn.gs.ClientNum),
		States:        c.cfg.RollbackFrames,
		MaxPrediction: c.cfg.MaxPredictionFrames,
		HashEvery:     int32(hashEvery), // 0 (none announced): framesync's default
		Observer:      &fs.events,
	})
	c.active.fs = fs
}

// FrameSync reports whether the current gamestate is in frame sync.
func (c *Client) FrameSync() bool { return c.active.fs != nil }

// FrameSyncStats returns the frame-sync counters of the current
// gamestate, or of the last frame-sync gamestate when the current one is
// not (or there is none); ok is false when there was none.
func (c *Client) FrameSyncStats() (st FrameSyncStats, ok bool) {
	fs := c.active.fs
	if fs == nil {
		return c.fsLast, c.fsLastOK
	}
	st = fs.stats
	st.SyncStats = fs.sync.Stats()
	st.Lead, st.Speed = int(fs.lead), int(fs.speed)
	return st, true
}

// FrameSyncGame returns the client's own copy of the game in frame sync
// (nil with snapshots), for reading only.
func (c *Client) FrameSyncGame() *game.Arena {
	if c.active.fs == nil {
		return nil
	}
	return c.active.fs.sync.Sim().Game()
}

// FrameSyncRollback returns the last rollback of the client's game in
// frame sync, with where the players stood in the frames it ran again
// (framesync.Sync.LastRollback), or nil with snapshots. It is the Sync's
// own, changed by the client's next frame: read it, do not keep it.
func (c *Client) FrameSyncRollback() *framesync.Rollback {
	if c.active.fs == nil {
		return nil
	}
	return c.active.fs.sync.LastRollback()
}

// errFrameSyncOp refuses the frame-sync operations in a snapshot
// gamestate (or before a gamestate), and a client's own in a server
// message.
var errFrameSyncOp = errors.New("client: a frame-sync operation outside a frame-sync gamestate")

// FrameRequest refuses a ClcFrameRequest in a server message.
func (h *serverHandler) FrameRequest(proto.FrameRequest) error { return errFrameSyncOp }

// Frames takes a frames message: every frame goes to the Sync, which
// confirms and rolls back at the next frame the client runs.
func (h *serverHandler) Frames(r *msg.Reader, lead int8) error {
	c := (*Client)(h)
	fs := c.active.fs
	if fs == nil {
		return errFrameSyncOp
	}
	n, err := framesync.ReadFrames(r, fs.sync, fs.frames[:])
	if errors.Is(err, framesync.ErrNoBase) {
		// Coded from a frame this client no longer holds: ask for the
		// frames again from the last confirmed one, which it does hold.
		fs.ask(proto.FrameRequest{From: fs.sync.Confirmed() + 1})
		return errStop
	}
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		fs.sync.Receive(&fs.frames[i])
	}
	fs.stats.FrameMessages++
	fs.stats.Frames += n
	if n > 0 {
		// The round trip: from the usercmd packet that carried the newest
		// input the server had when it sent the newest frame (lead frames
		// past it) to the frame's arrival. A lead below zero says the
		// inputs after that one came too late for their frames and were
		// dropped: the input's round trip is then not known.
		newest := &fs.frames[n-1]
		ping := int32(-1)
		if lead >= 0 {
			ping = c.ping(newest.Time + int32(lead)*fs.sync.Period())
		}
		if ping >= 0 {
			c.stats.PingSum += uint64(ping)
			c.stats.PingCount++
		}
		if d, ok := c.graph.snapshot(c.realtime, c.arrival, newest.Time, false, false, ping); ok {
			c.stats.JitterSum += d
			c.stats.JitterSamples++
		}
		if cg := c.active.cg; cg != nil {
			lost := 0
			if c.conn.ch != nil { // nil playing a demo back
				lost = int(c.conn.ch.Dropped())
			}
			cg.FrameMessage(ping, lost)
		}
	}
	fs.takeLead(c.realtime, lead)
	return h.goOn()
}

// WholeState takes a whole-state message: the client's game starts (or
// starts again) from it. The first one makes the client active.
func (h *serverHandler) WholeState(r *msg.Reader) error {
	c := (*Client)(h)
	fs := c.active.fs
	if fs == nil {
		return errFrameSyncOp
	}
	first := !fs.sync.Started()
	loaded, err := fs.sync.LoadWhole(r)
	if err != nil {
		return err
	}
	if !loaded {
		return h.goOn()
	}
	fs.stats.WholeStates++
	if first {
		fs.stats.FirstFrame = fs.sync.Confirmed()
	}
	st := fs.sync.Stats()
	if st.Diff != "" && st.Diff != fs.lastDiff {
		fs.lastDiff = st.Diff
		c.logf("framesync: desync found and repaired from the server's whole state: %s", st.Diff)
	}
	g := fs.sync.Sim().Game()
	// Run ahead of the newest frame received by the margin; the lead
	// the server reports then sets the clock right.
	fs.npending = 0 // the game goes on from the whole state's frame
	fs.clock = g.LevelTime() + (st.Newest-st.Confirmed+FrameLeadTarget+1)*fs.sync.Period()
	fs.clockFrac = 0
	fs.cooldown = c.realtime
	if first && c.state == Primed {
		c.active.serverTime = g.LevelTime()
		c.active.oldServerTime = c.active.serverTime
		c.publishFrame()
		c.setState(Active)
	}
	return h.goOn()
}

// ask queues a frame request for the next usercmd packet.
func (fs *frameSync) ask(req proto.FrameRequest) {
	fs.request, fs.wantRequest = req, true
}

// takeLead steers the clock by the input lead the server reported: a
// jump when it is far from FrameLeadTarget, else a speed a few per cent
// off real time.
func (fs *frameSync) takeLead(now int32, lead int8) {
	fs.lead = lead
	fs.leads++
	if now-fs.cooldown < 0 {
		return
	}
	e := int32(FrameLeadTarget) - int32(lead) // frames late
	switch {
	case e >= frameLeadJump || e <= -frameLeadJump:
		fs.clock += e * fs.sync.Period()
		fs.cooldown = now + frameLeadCooldown
		fs.speed = 1000
		fs.stats.ClockJumps++
	default:
		fs.speed = 1000 + 25*e // ±2.5 % a frame of error
	}
}

// frameSyncFrame runs the frames due by the client's clock, with input as
// the player's command of each (CL_CreateNewCommands of frame sync), and
// sets the render time between the last two.
func (c *Client) frameSyncFrame(input bg.UserCmd) {
	fs := c.active.fs
	if c.state != Active || !fs.sync.Started() {
		c.checkFrameRequests() // a whole state to start from
		return
	}
	d := c.frameMsec*fs.speed + fs.clockFrac
	fs.clock += d / 1000
	fs.clockFrac = d % 1000
	g := fs.sync.Sim().Game()
	c.runPendingInputs()
	for range maxFramesPerClientFrame {
		next := g.LevelTime() + int32(fs.npending+1)*fs.sync.Period() // the next frame an input is due for
		if next > fs.clock {
			break
		}
		cmd := input
		if fs.npending == 0 && fs.sync.Advance(&cmd) {
			c.active.cmdNumber++
			c.active.cmds[c.active.cmdNumber&CmdMask] = cmd
			c.publishFrame()
			continue
		}
		// A stall: the game waits for the server, but the player's
		// input of the frame still goes, on time, and the frame runs
		// with it when the confirmations catch up. Only when inputs
		// pile up past pendingInputs does the clock wait too.
		if fs.npending == len(fs.pending) {
			fs.clock = min(fs.clock, next)
			break
		}
		bg.UserCmdTable.Truncate(&cmd)
		cmd.ServerTime = next
		fs.pending[fs.npending] = cmd
		fs.npending++
		c.active.cmdNumber++
		c.active.cmds[c.active.cmdNumber&CmdMask] = cmd
	}
	next := g.LevelTime() + int32(fs.npending)*fs.sync.Period()
	if fs.clock > next+maxFramesPerClientFrame*fs.sync.Period() {
		fs.clock = next + maxFramesPerClientFrame*fs.sync.Period() // far behind: do not run away
	}
	st := fs.sync.Stats()
	c.graph.frameSync(c.realtime, st.Rollbacks-fs.graphRollbacks, st.Stalled, c.frameMsec)
	fs.graphRollbacks = st.Rollbacks
	if cg := c.active.cg; cg != nil {
		cg.SetStalled(st.Stalled)
	}
	// Draw between the last two frames run.
	t := min(fs.clock-fs.sync.Period(), g.LevelTime())
	t = max(t, c.active.oldServerTime)
	c.active.serverTime, c.active.oldServerTime = t, t
	c.checkFrameRequests()
}

// runPendingInputs runs, oldest first, the frames whose inputs were sent
// during a stall, as far as the Sync lets it.
func (c *Client) runPendingInputs() {
	fs := c.active.fs
	k := 0
	for k < fs.npending {
		cmd := fs.pending[k]
		if !fs.sync.Advance(&cmd) {
			break
		}
		k++
		c.publishFrame()
	}
	if k > 0 {
		fs.npending = copy(fs.pending[:], fs.pending[k:fs.npending])
	}
}

// checkFrameRequests queues the request the Sync needs: a whole state
// (before the first, after a hash mismatch, or when its frames have left
// the server), or the frames it misses.
func (c *Client) checkFrameRequests() {
	fs := c.active.fs
	if frame, ok := fs.sync.WantWhole(); ok {
		// The server sends the first whole state unasked when the client
		// enters the game; after that one whole state is asked for at a
		// time: ask again only when the answer is late, or two would come.
		since := fs.created
		if fs.sync.Started() {
			since = fs.wholeAsked
		}
		if c.realtime-since >= wholeWaitMsec {
			fs.ask(proto.FrameRequest{From: frame, Whole: true})
			fs.wholeAsked = c.realtime
		}
	} else if from, _, ok := fs.sync.Missing(); ok && fs.sync.Stats().Newest-from > FrameLeadTarget {
		// A frame missing behind newer ones is lost, not late.
		fs.ask(proto.FrameRequest{From: from})
	}
	if st := fs.sync.Stats(); st.Diff != "" && st.Diff != fs.lastDiff {
		fs.lastDiff = st.Diff
		c.logf("framesync: desync: %s", st.Diff)
	}
}

// writeFrameRequest adds the queued frame request to the usercmd packet
// being written, at most one every frameRequestMsec.
func (c *Client) writeFrameRequest(w *msg.Writer) {
	fs := c.active.fs
	if fs == nil || !fs.wantRequest || c.realtime-fs.lastRequest < frameRequestMsec {
		return
	}
	proto.WriteFrameRequest(w, fs.request)
	fs.wantRequest = false
	fs.lastRequest = c.realtime
	fs.stats.Requests++
}

// frameSyncCmdCount returns how many of the newest usercmds a packet
// carries in frame sync: those of every frame the server has not
// confirmed, which it may not have had (inputs ride until acknowledged).
func (c *Client) frameSyncCmdCount() int32 {
	fs := c.active.fs
	n := fs.sync.Current() + int32(fs.npending) - fs.sync.Confirmed()
	return max(0, min(n, proto.MaxPacketUsercmds, c.active.cmdNumber))
}

// publishFrame hands the frame the Sync is at to cgame as a snapshot:
// the player's state and every entity in the world but its own, and the
// events of the frames run up to it (frameevents.go).
func (c *Client) publishFrame() {
	fs := c.active.fs
	g := fs.sync.Sim().Game()
	fs.snapNum++
	num := fs.snapNum
	if k := fs.sync.Stats().Resimulated - fs.resimulated; k > 0 {
		fs.stats.LastResimulated = k
	}
	fs.resimulated = fs.sync.Stats().Resimulated
	fs.events.published(num)
	first, phys := c.entityRegion()
	ents := c.parseEnts[phys:phys]
	self := int(c.conn.gs.ClientNum)
	for i := 0; i < g.NumEntities() && i < proto.EntityEnd; i++ {
		e := g.Entity(i)
		if !e.Linked || e.SvFlags&game.SvfNoClient != 0 || i == self {
			continue
		}
		if len(ents) == proto.MaxSnapshotEntities {
			break
		}
		ents = append(ents, e.S)
		ents[len(ents)-1].Number = int32(i)
	}
	ps := g.PlayerState(self)
	s := &c.active.snapshots[num&proto.PacketMask]
	*s = snapshot{
		valid:       true,
		usable:      true,
		messageNum:  num,
		deltaNum:    -1,
		serverTime:  g.LevelTime(),
		step:        fs.sync.Period(),
		serverCmd:   c.conn.serverCommandSequence,
		firstEntity: first,
		numEntities: len(ents),
		ps:          *ps,
		arrived:     c.realtime,
		ping:        -1,
	}
	c.active.parseEntNum = first + int64(len(ents))
	c.active.snap = *s
	c.active.newSnapshots = true
}

// frameSyncString describes the frame-sync state in one line, for the
// console.
func (st FrameSyncStats) String() string {
	return fmt.Sprintf("frame %d, confirmed %d (%d ahead), lead %d, rollbacks %d (%d frames, most %d), stalls %d, resyncs %d, hash checks %d, mismatches %d",
		st.Current, st.Confirmed, st.Ahead, st.Lead, st.Rollbacks, st.Resimulated, st.MaxResimulated, st.Stalls, st.Resyncs, st.HashChecks, st.Mismatches)
}

// errFrameSyncSnapshot refuses a snapshot in a frame-sync gamestate.
var errFrameSyncSnapshot = errors.New("client: a snapshot in a frame-sync gamestate")
