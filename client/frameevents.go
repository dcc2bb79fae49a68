package client

import (
	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
	"tremor/game"
)

// Events in frame sync (docs/cgame.md, "Events in frame sync"): the
// client's game runs frames that cgame never sees as snapshots — those a
// rollback runs again — and the snapshot of the frame a rollback ends at
// no longer shows all that happened in them (an entity keeps its last
// event only, and for EventValidMsec). So the client looks at every frame
// its Sync runs (it is the Sync's framesync.Observer) and finds its
// events by the rules cgame reads snapshots with: a temporary entity new
// in its slot, another entity's Event changed (counter bits included),
// the player's own ExternalEvent changed and each EventSequence number
// reached, against the game after the frame before (or the state the Sync
// loaded). It numbers them and keeps them for cgame, which plays those up
// to each snapshot as it becomes current, each once
// (cgame.FrameEventSource).

// frameEventRing is how many frame events the client keeps for cgame:
// more than the frames a client frame runs (a rollback of up to
// cl_rollbackFrames frames and the frames due) make before cgame reads
// them, at the end of the client frame.
const frameEventRing = 1024

// frameEvents finds and keeps the events of the frames the client's game
// runs in frame sync. It allocates nothing.
type frameEvents struct {
	g    *game.Arena
	self int32 // the player's client number: its events come from its player state
	// pass counts the states loaded, after the level time of the last
	// (FrameEvent.Pass, After).
	pass, after int32
	predicted   bool  // the frame being looked at ran predicted
	seq         int32 // the newest event found; the first is 1
	ring        [frameEventRing]cgame.FrameEvent
	// snaps holds, by snapshot number, the newest event found when the
	// frame given to cgame as that snapshot was made.
	snaps [proto.PacketBackup]struct{ num, seq int32 }

	// The game after the last frame run or the state loaded: each
	// entity's EType and Event (n of them looked at), the player's
	// EventSequence and ExternalEvent.
	etype, event    [proto.EntityEnd]int32
	n               int
	eventSeq, extEv int32
}

// FrameRun finds the events of frame n, just run: those a cgame shown it
// after the frame before would play.
func (fe *frameEvents) FrameRun(_ int32, confirmed bool) {
	fe.predicted = !confirmed
	g := fe.g
	t := g.LevelTime()
	num := min(g.NumEntities(), proto.EntityEnd)
	for i := 0; i < max(num, fe.n); i++ {
		var etype, event int32
		if i < num {
			e := g.Entity(i)
			etype, event = e.S.EType, e.S.Event
			if e.Linked && e.SvFlags&game.SvfNoClient == 0 && int32(i) != fe.self { // as publishFrame shows it
				switch {
				case etype >= bg.ETEvents:
					if etype != fe.etype[i] && etype-bg.ETEvents > bg.EvNone {
						fe.add(t, cgame.SourceTemp, etype-bg.ETEvents, e.S.EventParm, int32(i), e.S.Pos.Evaluate(t), &e.S)
					}
				case event != fe.event[i] && event&^bg.EventBits > bg.EvNone:
					fe.add(t, cgame.SourceEntity, event&^bg.EventBits, e.S.EventParm, int32(i), e.S.Pos.Evaluate(t), &e.S)
				}
			}
		}
		fe.etype[i], fe.event[i] = etype, event
	}
	fe.n = num
	ps := g.PlayerState(int(fe.self))
	if ps == nil {
		return
	}
	if ps.ExternalEvent != 0 && ps.ExternalEvent != fe.extEv {
		fe.add(t, cgame.SourceExternal, ps.ExternalEvent&^bg.EventBits, ps.ExternalEventParm, fe.self, ps.Origin, nil)
	}
	for k := int32(bg.MaxPSEvents); k > 0; k-- {
		i := (ps.EventSequence - k) & bg.EventSequenceMask
		if int16(uint16(i-fe.eventSeq)) >= 0 { // reached in this frame
			slot := i & (bg.MaxPSEvents - 1)
			fe.add(t, cgame.SourcePlayerState, ps.Events[slot], ps.EventParms[slot], fe.self, ps.Origin, nil)
		}
	}
	fe.eventSeq, fe.extEv = ps.EventSequence, ps.ExternalEvent
}

// StateLoaded begins a pass: the game in the state the Sync loaded is
// the one the next frame's events are found against.
func (fe *frameEvents) StateLoaded(int32) {
	g := fe.g
	fe.pass++
	fe.after = g.LevelTime()
	num := min(g.NumEntities(), proto.EntityEnd)
	for i := 0; i < max(num, fe.n); i++ { // past both, all are zero
		var etype, event int32
		if i < num {
			s := &g.Entity(i).S
			etype, event = s.EType, s.Event
		}
		fe.etype[i], fe.event[i] = etype, event
	}
	fe.n = num
	if ps := g.PlayerState(int(fe.self)); ps != nil {
		fe.eventSeq, fe.extEv = ps.EventSequence, ps.ExternalEvent
	}
}

// add keeps an event of the frame at level time t.
func (fe *frameEvents) add(t int32, src cgame.EventSource, ev, parm, entity int32, origin bg.Vec, es *bg.EntityState) {
	fe.seq++
	e := &fe.ring[fe.seq%frameEventRing]
	*e = cgame.FrameEvent{Frame: t, Pass: fe.pass, After: fe.after, Predicted: fe.predicted, Source: src, Event: ev, Parm: parm, Entity: entity, Origin: origin}
	if es != nil {
		e.State = *es
		e.State.Number = entity
	}
}

// published notes the newest event found as the frame the game is at
// becomes snapshot num.
func (fe *frameEvents) published(num int32) {
	fe.snaps[num&proto.PacketMask] = struct{ num, seq int32 }{num, fe.seq}
}

var _ cgame.FrameEventSource = (*Client)(nil)

// SnapshotEventSequence returns, in frame sync, the number of the newest
// event the client's game had made when the client gave cgame snapshot
// num (cgame.FrameEventSource); false with snapshots, or when num has
// left the ring.
func (c *Client) SnapshotEventSequence(num int32) (seq int32, ok bool) {
	fs := c.active.fs
	if fs == nil {
		return 0, false
	}
	s := fs.events.snaps[num&proto.PacketMask]
	return s.seq, s.num == num && num > 0
}

// GetFrameEvent copies event seq of the client's game in frame sync into
// e while the client still holds it (cgame.FrameEventSource).
func (c *Client) GetFrameEvent(seq int32, e *cgame.FrameEvent) bool {
	fs := c.active.fs
	if fs == nil || seq <= 0 || seq > fs.events.seq || fs.events.seq-seq >= frameEventRing {
		return false
	}
	*e = fs.events.ring[seq%frameEventRing]
	return true
}
