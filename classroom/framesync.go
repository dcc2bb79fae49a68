package classroom

import (
	"time"

	"tremor/client"
	"tremor/common/proto"
	"tremor/game/framesync"
)

// Frame sync in the classroom (sv_netmodel framesync, docs/framesync.md):
// the same server, switched by `netmodel framesync` (sv_netmodel, then a
// map_restart, as on a real server), sends each frame's inputs instead of
// snapshots, and each player's client runs the game itself in a
// framesync.Sync. The lanes carry the inputs up and the frames messages
// down; each pane reads its Sync's counters (frames ahead, rollbacks a
// second, frames run again, stalls, the last confirmed frame) and its last
// rollback, which the view draws as a ghost trail.

// Netmodel names, as sv_netmodel spells them.
const (
	NetModelSnapshots = proto.NetModelSnapshots
	NetModelFrameSync = proto.NetModelFrameSync
)

// StallShown is how long (virtual time) a pane keeps showing STALL after
// its last stall, so that a stall of one frame can be seen.
const StallShown = 250 * time.Millisecond

// syncWatch follows a player's Sync from frame to frame: when its last
// rollback and its last stall happened, and its rollbacks a second.
type syncWatch struct {
	on         bool          // the player's gamestate is in frame sync
	rollback   int           // the last rollback's Number seen
	rollbackAt time.Duration // when it happened (virtual time)
	stalls     int           // the stalls counted so far
	stallAt    time.Duration // when the last one happened; -1 none
	// The rollbacks a second: counted over whole seconds of virtual time.
	windowAt    time.Duration // the start of the second being counted
	windowCount int           // Rollbacks at its start
	perSecond   int           // rollbacks in the last whole second; -1 none yet
}

// reset starts following a new Sync (a new gamestate in frame sync).
func (w *syncWatch) reset(now time.Duration) {
	*w = syncWatch{on: true, stallAt: -1, windowAt: now, perSecond: -1}
}

// watchSync follows p's Sync after its frame, and rebuilds the controls
// when the player's gamestate enters or leaves frame sync.
func (p *Player) watchSync() {
	now := p.m.now
	w := &p.sync
	if on := p.C.FrameSync(); on != w.on {
		if on {
			w.reset(now)
		} else {
			*w = syncWatch{}
		}
		p.m.refresh()
	}
	if !w.on {
		return
	}
	st, ok := p.C.FrameSyncStats()
	if !ok {
		return
	}
	if st.Rollbacks < w.windowCount || st.Stalls < w.stalls {
		// A new Sync on the same model (a reconnect, a map_restart).
		w.reset(now)
	}
	if rb := p.C.FrameSyncRollback(); rb != nil && rb.Number != w.rollback {
		w.rollback, w.rollbackAt = rb.Number, now
	}
	if st.Stalls != w.stalls {
		w.stalls, w.stallAt = st.Stalls, now
	}
	if now-w.windowAt >= time.Second {
		w.perSecond = st.Rollbacks - w.windowCount
		w.windowAt, w.windowCount = now, st.Rollbacks
	}
}

// FrameSync reports whether player i's gamestate is in frame sync.
func (m *Model) FrameSync(i int) bool { return m.players[i].sync.on }

// NetModel returns the network model the server runs now: NetModelFrameSync
// or NetModelSnapshots; and the one sv_netmodel asks for, which a map
// restart brings in.
func (m *Model) NetModel() (now, asked string) {
	now, asked = NetModelSnapshots, NetModelSnapshots
	if m.srv != nil {
		if _, _, ok := m.srv.FrameSyncStats(); ok {
			now = NetModelFrameSync
		}
		asked = m.srv.Config().NetModel
	}
	return now, asked
}

// SetNetModel switches the server to model (NetModelSnapshots or
// NetModelFrameSync) as a real server's admin would: sv_netmodel, then
// map_restart, which sends both players a new gamestate in the new model.
// The players stay connected; their lanes' counts go on.
func (m *Model) SetNetModel(model string) error {
	if err := m.svT.Set("sv_netmodel", model); err != nil {
		return err
	}
	m.svT.ExecuteString("map_restart")
	m.refresh()
	return nil
}

// SyncFigures are the frame-sync counters a class reads from a player
// pane (Figures.Sync).
type SyncFigures struct {
	// Stats are the client's counters: the frame the game is at
	// (Current), the last confirmed one (Confirmed), how many are
	// predicted past it (Ahead), the rollbacks and the frames they ran
	// again (Resimulated, MaxResimulated), the stalls, the hash checks.
	Stats client.FrameSyncStats
	// RollbacksPerSecond counts the rollbacks of the last whole second
	// of virtual time; -1 before the first second.
	RollbacksPerSecond int
	// LastRollback is how many frames the last rollback ran again (0:
	// none yet).
	LastRollback int
	// Stalling: the client stalled within StallShown: it would have run
	// more than cl_maxPredictionFrames past the last confirmed frame.
	Stalling bool
	// MaxPrediction is cl_maxPredictionFrames as the pane's cvar has it.
	MaxPrediction int
}

// syncFigures returns the player's frame-sync counters, ok false when its
// gamestate is not in frame sync.
func (p *Player) syncFigures() (f SyncFigures, ok bool) {
	if !p.sync.on {
		return f, false
	}
	st, ok := p.C.FrameSyncStats()
	if !ok {
		return f, false
	}
	f.Stats = st
	f.RollbacksPerSecond = p.sync.perSecond
	if rb := p.C.FrameSyncRollback(); rb != nil && rb.Number > 0 {
		f.LastRollback = int(rb.To - rb.From + 1)
	}
	f.Stalling = st.Stalled || p.sync.stallAt >= 0 && p.m.now-p.sync.stallAt < StallShown
	f.MaxPrediction = p.cv.client.MaxPrediction
	return f, true
}

// Rollback returns player i's last rollback (the frames its Sync ran
// again and where every player stood after each, as predicted and as run
// again) and how long ago (virtual time) it happened; nil when the player
// is not in frame sync or has not rolled back. The rollback is the
// client's own, valid until the next Advance: read it, do not keep it.
func (m *Model) Rollback(i int) (rb *framesync.Rollback, age time.Duration) {
	p := m.players[i]
	if !p.sync.on {
		return nil, 0
	}
	rb = p.C.FrameSyncRollback()
	if rb == nil || rb.Number == 0 {
		return nil, 0
	}
	return rb, m.now - p.sync.rollbackAt
}
