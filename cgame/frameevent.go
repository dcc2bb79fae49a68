package cgame

import "tremor/bg"

// Events in frame sync (seed 003, docs/framesync.md): the engine runs the
// game itself and gives cgame the frames it runs as snapshots, most of
// them predicted. When a confirmed frame differs from its prediction the
// engine rolls back, runs the frames again, and gives cgame only the
// frame it ends at. The snapshots cannot say which events to play:
//
//   - an event of a frame run again may be gone from the snapshot after
//     it: another event of the same entity replaced it within the frames
//     run again (a snapshot holds an entity's last), or it ended
//     EventValidMsec after it began, before the frames run again caught
//     up with the client's (a kill the prediction did not foresee,
//     confirmed when the client was 300 ms ahead);
//   - an event played from a predicted frame comes again in the snapshot
//     after the rollback: a temporary entity in another slot (slots
//     handed out in another order) or with other details (a bullet of a
//     predicted shot hitting elsewhere once the shooter's aim is known),
//     an entity's Event with other counter bits.
//
// So an engine that can (FrameEventSource) finds the events of every
// frame it runs, predicted, confirmed or run again, with the rules of
// checkEvents and checkPlayerstateEvents applied to each frame and the
// one before it, and cgame plays those up to each snapshot as it becomes
// current, instead of the snapshots' events. Each time the engine puts
// its game back in a saved state it begins a pass (FrameEvent.Pass) that
// runs again the frames after that state which had run. An event is one
// already played — and is not played again — if an event played in an
// earlier pass from one of the frames this pass runs again is the same:
// the same event of the same entity (the local player's own included),
// or for a temporary entity the same event, OtherEntity and ClientNum,
// whatever its slot and other details; and it happened in the same
// frame or, the rollback having moved it, at most MaxEventShift away.
// One played in the same frame stands for it, else the nearest (the
// events of a batch in their own frames first, so that an event the
// rollback moved does not take the played event of one it did not), and
// each played event stands for at most one in a pass, so two real hits
// still play twice. It then stands in the frame of the event it stood
// for: a later pass that does not run that frame again leaves it there.
//
// Nothing is unplayed: an event only the prediction made (a bot
// predicted to keep firing after it let go) was played all the same,
// and one the frames run again moved further than MaxEventShift plays
// again.

// playedEvent is one event played in frame sync, as standsFor knows it
// again.
type playedEvent struct {
	frame int32 // the level time of the frame it happened in, as the last pass that ran that frame has it
	pass  int32 // the pass it was played in, or last stood for an event of
	temp  bool
	// ev is the event; a, b a temporary entity's OtherEntity and
	// ClientNum, or for another event the entity and 0.
	ev, a, b int32
}

// playedOf returns what knows e again.
func playedOf(e *FrameEvent) playedEvent {
	p := playedEvent{frame: e.Frame, pass: e.Pass, ev: e.Event, a: e.Entity}
	if e.Source == SourceTemp {
		p.temp, p.a, p.b = true, e.State.OtherEntity, e.State.ClientNum
	}
	return p
}

// sameEvent reports whether p and q are the same event of the same
// entity, whatever their frames.
func (p *playedEvent) sameEvent(q *playedEvent) bool {
	return p.temp == q.temp && p.ev == q.ev && p.a == q.a && p.b == q.b
}

// framedEvents reports whether the events to play come from the engine's
// frames (frame sync with a FrameEventSource), not from the snapshots.
func (g *CGame) framedEvents() bool { return g.frameSync && g.frameEvents != nil }

// playFrameEvents plays, as snapshot num becomes current, the frame
// events the engine found up to when it made num. The first snapshot
// starts after the events of the snapshot before it, if the engine still
// knows them, so a cgame made in the middle of a game plays none of the
// past.
func (g *CGame) playFrameEvents(num int32) {
	seq, ok := g.frameEvents.SnapshotEventSequence(num)
	if !ok {
		return
	}
	if !g.frameEventsOn {
		g.frameEventsOn = true
		g.frameEventSeq = seq
		if prev, ok := g.frameEvents.SnapshotEventSequence(num - 1); ok {
			g.frameEventSeq = prev
		}
	}
	for seq-g.frameEventSeq > 0 {
		g.playFrameEventBatch(g.frameEventSeq, min(seq, g.frameEventSeq+frameEventBatch))
		g.frameEventSeq = min(seq, g.frameEventSeq+frameEventBatch)
	}
}

// frameEventBatch is how many frame events playFrameEventBatch takes at
// once: more than a client frame finds.
const frameEventBatch = 1024

// playFrameEventBatch plays frame events from+1..to in order, but first
// finds those an event played in an earlier pass stands for in the same
// frame, so that an event moved by a rollback does not take the played
// event of another that did not move.
func (g *CGame) playFrameEventBatch(from, to int32) {
	clear(g.frameEventTaken[:])
	e := &g.frameEvent
	for s := from + 1; s <= to; s++ {
		if g.frameEvents.GetFrameEvent(s, e) && g.standsFor(e, 0) {
			k := s - from - 1
			g.frameEventTaken[k/64] |= 1 << (k % 64)
		}
	}
	for s := from + 1; s <= to; s++ {
		if k := s - from - 1; g.frameEventTaken[k/64]&(1<<(k%64)) != 0 {
			g.Stats.EventsRolledBack++
			continue
		}
		if !g.frameEvents.GetFrameEvent(s, e) {
			g.Stats.FrameEventsLost++
			continue
		}
		if g.standsFor(e, MaxEventShift) {
			g.Stats.EventsRolledBack++
			continue
		}
		g.played[g.playedCount%MaxPlayedEvents] = playedOf(e)
		g.playedCount++
		var es *bg.EntityState
		if e.Source == SourceTemp || e.Source == SourceEntity {
			es = &e.State
		}
		g.fire(e.Frame, e.Event, e.Parm, e.Entity, PointOf(e.Origin), e.Source, es).Predicted = e.Predicted
	}
}

// standsFor reports whether an event played in an earlier pass, of a
// frame e's pass runs again, is e: the same event at most shift ms from
// it, the nearest; that one then stands for e in this pass, in e's frame.
func (g *CGame) standsFor(e *FrameEvent, shift int32) bool {
	p := playedOf(e)
	best, dist := -1, int32(0)
	for i := range min(g.playedCount, MaxPlayedEvents) {
		q := &g.played[i]
		if q.pass == p.pass || q.frame <= e.After || !q.sameEvent(&p) {
			continue // played in this pass, of a frame it does not run again, or another event
		}
		d := max(q.frame-p.frame, p.frame-q.frame)
		if d <= shift && (best < 0 || d < dist) {
			best, dist = i, d
		}
	}
	if best < 0 {
		return false
	}
	// It stands for e in this pass, in the frame e happened in: the frame
	// a later pass may run again, or not.
	g.played[best].pass, g.played[best].frame = p.pass, p.frame
	return true
}
