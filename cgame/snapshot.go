package cgame

import (
	"math"

	"tremor/bg"
	"tremor/common/proto"
)

// This file is Quake III's cg_snapshot.c: choosing Snap and NextSnap for
// the render time.

// processSnapshots advances Snap and NextSnap to the render time
// (CG_ProcessSnapshots). Afterwards, if Snap is set, either NextSnap is
// nil (the frame extrapolates) or Time < NextSnap.ServerTime. Snapshots
// are read in message order; one whose server time is not after Snap's is
// skipped, so time shown never runs backwards whatever the network did.
func (g *CGame) processSnapshots() {
	n, t := g.c.CurrentSnapshotNumber()
	if g.started && n < g.LatestSnapshotNum {
		// The engine's numbering went back: a new connection. Start
		// over from its snapshots.
		g.dropSnapshots()
		g.started = false
	}
	g.LatestSnapshotNum, g.LatestSnapshotTime = n, t
	if !g.started {
		first, ok := g.firstSnapshotNum(n)
		if !ok {
			return // nothing usable yet
		}
		g.started = true
		g.processed = first - 1
	}
	for {
		if g.Snap == nil {
			s := g.readNextSnapshot()
			if s == nil {
				return
			}
			g.setInitialSnapshot(s)
			continue
		}
		if g.NextSnap == nil {
			s := g.readNextSnapshot()
			if s == nil {
				return // extrapolate
			}
			if g.Snap == nil { // a restarted level
				g.setInitialSnapshot(s)
				continue
			}
			g.setNextSnap(s)
		}
		if g.Time < g.NextSnap.ServerTime {
			return
		}
		g.transitionSnapshot()
	}
}

// firstSnapshotNum picks where to start reading: the newest snapshot the
// engine holds that is not after the render time, so the first frames
// interpolate instead of waiting, or else the oldest one after it; false
// if the engine holds none.
func (g *CGame) firstSnapshotNum(latest int32) (int32, bool) {
	first, ok := latest, false
	for k := latest; k > latest-proto.PacketBackup; k-- {
		s, got := g.peekSnapshot(k)
		if !got || s.Flags&proto.SnapNotActive != 0 {
			continue
		}
		first, ok = k, true
		if s.ServerTime <= g.Time {
			break
		}
	}
	return first, ok
}

// readNextSnapshot returns the next usable snapshot after the last one
// read (CG_ReadNextSnapshot), or nil when there is none yet. It feeds the
// lagometer: one sample per snapshot number, dropped ones marked.
func (g *CGame) readNextSnapshot() *Snapshot {
	if gap := g.LatestSnapshotNum - g.processed; gap > proto.PacketBackup {
		// Beyond the engine's ring: those are gone.
		lost := gap - proto.PacketBackup
		g.Stats.SnapshotsDropped += int(lost)
		if !g.frameSync {
			g.Lagometer.AddLost(int(lost))
		}
		g.processed = g.LatestSnapshotNum - proto.PacketBackup
	}
	for g.processed < g.LatestSnapshotNum {
		g.processed++
		slot := g.freeSlot()
		if !g.readSnapshot(g.processed, slot) {
			g.Stats.SnapshotsDropped++
			g.addLagometerSnapshot(nil)
			continue
		}
		s := &slot.s
		g.addLagometerSnapshot(s) // it arrived, shown or not
		if s.Flags&proto.SnapNotActive != 0 {
			g.Stats.SnapshotsSkipped++
			continue
		}
		if g.Snap != nil && s.ServerTime <= g.Snap.ServerTime {
			if (s.Flags^g.Snap.Flags)&proto.SnapServerCount == 0 {
				// A duplicate, or older than what is shown.
				g.Stats.SnapshotsSkipped++
				continue
			}
			// A restarted level whose clock starts earlier: the one
			// case where time goes back.
			g.Stats.LevelRestarts++
			g.dropSnapshots()
			g.Time = s.ServerTime
		}
		return s
	}
	return nil
}

// readSnapshot copies snapshot num from the engine into slot, entities
// included, so it stays valid after the engine's ring moves on. Entities
// out of range or out of order are left out.
func (g *CGame) readSnapshot(num int32, slot *snapSlot) bool {
	slot.s.Entities = slot.buf[:0]
	if !g.c.GetSnapshot(num, &slot.s) {
		return false
	}
	ents := slot.s.Entities
	slot.buf = append(slot.buf[:0], ents...) // a no-op copy if the engine filled buf
	k := 0
	last := int32(-1)
	for _, e := range slot.buf {
		if e.Number <= last || e.Number >= MaxGEntities {
			continue
		}
		last = e.Number
		slot.buf[k] = e
		k++
	}
	slot.buf = slot.buf[:k]
	slot.s.Entities = slot.buf
	return true
}

// peekSnapshot reads snapshot num into the scratch slot without copying
// or checking its entities: enough to look at its header and player
// state.
func (g *CGame) peekSnapshot(num int32) (*Snapshot, bool) {
	s := &g.scratch.s
	s.Entities = g.scratch.buf[:0]
	return s, g.c.GetSnapshot(num, s)
}

// freeSlot returns the slot neither Snap nor NextSnap uses.
func (g *CGame) freeSlot() *snapSlot {
	for i := range g.slots {
		s := &g.slots[i].s
		if s != g.Snap && s != g.NextSnap {
			return &g.slots[i]
		}
	}
	panic("cgame: no free snapshot slot") // three slots, two in use at most
}

// dropSnapshots forgets Snap and NextSnap and the entities they held.
func (g *CGame) dropSnapshots() {
	if g.Snap != nil {
		for i := range g.Snap.Entities {
			g.ents[g.Snap.Entities[i].Number].Valid = false
		}
	}
	g.Snap, g.NextSnap = nil, nil
	g.haveBase = false
	g.baseNum = math.MinInt32
	g.havePredicted = false
}

// setInitialSnapshot makes s the first Snap (CG_SetInitialSnapshot):
// entities start where s puts them and fire the events they carry.
func (g *CGame) setInitialSnapshot(s *Snapshot) {
	g.Snap = s
	g.NextSnap = nil
	if g.Time < s.ServerTime {
		g.Time = s.ServerTime
	}
	g.executeNewServerCommands(s.ServerCommandSequence)
	for i := range s.Entities {
		es := &s.Entities[i]
		cent := &g.ents[es.Number]
		cent.Current = *es
		cent.Next = *es
		cent.Interpolate = false
		g.resetEntity(cent, s.ServerTime)
		cent.Valid = true
		cent.SnapshotTime = s.ServerTime
		if !g.framedEvents() {
			g.checkEvents(cent)
		}
	}
	if g.framedEvents() {
		g.playFrameEvents(s.MessageNum)
	}
	g.Predicted = s.PS
	g.firedPS = s.PS
	g.eventSequence = s.PS.EventSequence
	g.havePredicted = false
	g.setBase(s, g.processed)
	g.Stats.SnapshotsUsed++
}

// setNextSnap makes s NextSnap (CG_SetNextSnap): an entity in both
// snapshots interpolates unless its teleport bit toggled or the level
// changed between them.
func (g *CGame) setNextSnap(s *Snapshot) {
	g.NextSnap = s
	level := (s.Flags^g.Snap.Flags)&proto.SnapServerCount != 0
	for i := range s.Entities {
		es := &s.Entities[i]
		cent := &g.ents[es.Number]
		cent.Next = *es
		cent.Interpolate = cent.Valid && !level &&
			(cent.Current.EFlags^es.EFlags)&bg.EFTeleportBit == 0
	}
	ps, ops := &s.PS, &g.Snap.PS
	g.nextFrameTeleport = level || ps.ClientNum != ops.ClientNum ||
		(ps.EFlags^ops.EFlags)&bg.EFTeleportBit != 0 ||
		ps.Persistant[bg.PersSpawnCount] != ops.Persistant[bg.PersSpawnCount]
}

// transitionSnapshot makes NextSnap the current snapshot
// (CG_TransitionSnapshot): server commands up to it run, its entities
// become current and fire their events, and the player state's events
// are fired or checked against the prediction.
func (g *CGame) transitionSnapshot() {
	g.executeNewServerCommands(g.NextSnap.ServerCommandSequence)
	old := g.Snap
	for i := range old.Entities {
		g.ents[old.Entities[i].Number].Valid = false
	}
	g.Snap, g.NextSnap = g.NextSnap, nil
	s := g.Snap
	framed := g.framedEvents()
	for i := range s.Entities {
		es := &s.Entities[i]
		cent := &g.ents[es.Number]
		cent.Current = *es
		if !cent.Valid {
			g.resetEntity(cent, s.ServerTime)
		}
		cent.Interpolate = false
		cent.Valid = true
		cent.SnapshotTime = s.ServerTime
		if !framed {
			g.checkEvents(cent)
		}
	}
	switch {
	case framed:
		// The engine found the events of every frame it ran.
		g.playFrameEvents(s.MessageNum)
		g.firedPS = s.PS
	case g.cfg.NoPredict || g.predictFailed || g.frameSync:
		// Not predicting (in frame sync the engine's own simulation
		// predicted): the snapshot brings the player's events.
		g.checkPlayerstateEvents(&s.PS, &g.firedPS, SourcePlayerState, s.ServerTime)
		g.firedPS = s.PS
	default:
		g.checkChangedPredictableEvents(&s.PS)
	}
	g.Stats.SnapshotsUsed++
}

// resetEntity prepares an entity that was not in the previous snapshot
// (CG_ResetEntity): its event history starts over if the server has had
// time to clear its last event.
func (g *CGame) resetEntity(cent *CEntity, now int32) {
	if cent.SnapshotTime < now-EventValidMsec {
		cent.previousEvent = 0
	}
	cent.Lerp = PointOf(cent.Current.Pos.Evaluate(now))
}
