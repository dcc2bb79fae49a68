package client

import (
	"tremor/cgame"
	"tremor/common/proto"
)

// Thresholds of the server-time correction (CL_AdjustTimeDelta).
const (
	// ResetTime: an estimate further than this from the newest snapshot
	// is replaced outright.
	ResetTime = 500
	// FastAdjustTime: an estimate further than this is moved half way.
	FastAdjustTime = 100
	// extrapolateMargin: a frame whose estimate comes within this many
	// milliseconds of the newest snapshot counts as extrapolating.
	extrapolateMargin = 5
)

// JumpBackTime is cgame.JumpBackTime: a render time more than this far
// ahead of the estimate jumps back to it at once, as Quake III's did on
// every reset, instead of slowing down until it has caught up. After a
// stall of seconds (the process stopped, a server hitch that dropped
// time) catching up at half speed takes twice the stall, and all that
// time the usercmds carry server times from the future, which the server
// pulls back (server.MaxCommandAhead): the commands prediction needs are
// not among the ones the engine holds, and the player cannot move.
const JumpBackTime = cgame.JumpBackTime

// setCGameTime advances the render time (CL_SetCGameTime). In Primed it
// waits for the first snapshot of an active client; then every frame it
// sets serverTime from the realtime, the delta and the time nudge
// (cl_timeNudge, or cl_autoNudge's delay), and every new snapshot is
// measured for cl_autoNudge and corrects the delta.
func (c *Client) setCGameTime() {
	if c.state != Active {
		if c.state != Primed || !c.active.newSnapshots {
			return
		}
		c.active.newSnapshots = false
		if !c.firstSnapshot() {
			return
		}
	}
	c.auto.frame(c.frameMsec, c.active.serverTimeDelta, c.cfg.AutoNudge, c.cfg.TimeNudge)
	target := c.realtime + c.active.serverTimeDelta - c.auto.nudge
	// Time runs backwards only after a stall: when the estimate jumps
	// back by more than JumpBackTime, follow it; when it jumps back by
	// less, run at half speed until it has caught up, rather than freeze.
	switch {
	case target < c.active.oldServerTime-JumpBackTime:
		c.stats.TimeJumpsBack++
	case target < c.active.oldServerTime:
		target = max(target, c.active.oldServerTime+c.frameMsec/2)
	}
	c.active.serverTime = target
	c.active.oldServerTime = target

	// A frame that reached the newest snapshot had nothing to
	// interpolate towards: note it for the drift correction.
	if c.realtime+c.active.serverTimeDelta >= c.active.snap.serverTime-extrapolateMargin {
		c.active.extrapolated = true
		c.stats.FramesExtrapolated++
	}
	if c.active.newSnapshots {
		c.auto.snapshot(c.active.snap.serverTime, c.realtime, c.realtime-c.frameMsec, c.active.serverTimeDelta,
			c.stats.Messages, c.stats.SnapshotsDropped)
		resets := c.stats.TimeResets
		c.adjustTimeDelta()
		if c.stats.TimeResets != resets {
			// The link or the server changed: measure again.
			c.auto.start(c.active.snap.serverTime, c.realtime, c.active.serverTimeDelta, c.stats.Messages, c.stats.SnapshotsDropped)
		}
	}
}

// firstSnapshot makes the client active on its first snapshot that is
// not flagged SnapNotActive (CL_FirstSnapshot).
func (c *Client) firstSnapshot() bool {
	if c.active.snap.flags&proto.SnapNotActive != 0 {
		return false
	}
	c.active.serverTimeDelta = c.active.snap.serverTime - c.realtime
	c.auto.start(c.active.snap.serverTime, c.realtime, c.active.serverTimeDelta, c.stats.Messages, c.stats.SnapshotsDropped)
	c.auto.frame(0, c.active.serverTimeDelta, c.cfg.AutoNudge, c.cfg.TimeNudge)
	c.active.oldServerTime = c.active.snap.serverTime - c.auto.nudge
	c.active.serverTime = c.active.oldServerTime
	c.active.extrapolated = false
	c.setState(Active)
	return true
}

// adjustTimeDelta corrects the server-time estimate with a new snapshot
// (CL_AdjustTimeDelta), in one of three regimes: reset, halve, drift.
func (c *Client) adjustTimeDelta() {
	c.active.newSnapshots = false
	newDelta := c.active.snap.serverTime - c.realtime
	d := newDelta - c.active.serverTimeDelta
	if d < 0 {
		d = -d
	}
	switch {
	case d > ResetTime:
		c.active.serverTimeDelta = newDelta
		c.stats.TimeResets++
	case d > FastAdjustTime:
		c.active.serverTimeDelta = (c.active.serverTimeDelta + newDelta) >> 1
		c.stats.TimeFastAdjusts++
	default:
		// Drift: if a frame since the last snapshot had to extrapolate,
		// the estimate runs ahead, so pull it back 2 ms; otherwise creep
		// 1 ms forward to keep latency low.
		if c.active.extrapolated {
			c.active.extrapolated = false
			c.active.serverTimeDelta -= 2
		} else {
			c.active.serverTimeDelta++
		}
	}
}

// ServerTime returns the server time to render at this frame: the
// estimate shifted back by cl_timeNudge, or by cl_autoNudge's delay
// (cl.serverTime). Within one gamestate it decreases only when the
// estimate is reset back by more than JumpBackTime, after a stall.
func (c *Client) ServerTime() int32 { return c.active.serverTime }

// ServerTimeDelta returns the estimated server time minus the client's
// realtime.
func (c *Client) ServerTimeDelta() int32 { return c.active.serverTimeDelta }

// Extrapolating reports whether this frame's render time has reached the
// newest snapshot (nothing newer to interpolate towards).
func (c *Client) Extrapolating() bool {
	return c.state == Active && c.active.serverTime >= c.active.snap.serverTime
}
