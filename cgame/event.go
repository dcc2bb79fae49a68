package cgame

import "tremor/bg"

// This file is Quake III's cg_event.c and cg_playerstate.c event checks,
// without the sounds: which events to play, each exactly once.

// EventSource says where an event came from.
type EventSource uint8

// Event sources.
const (
	// SourcePredicted: the local prediction produced it, ahead of the
	// server (a jump, a shot, a landing).
	SourcePredicted EventSource = iota
	// SourceCorrection: the server's player state has a different event
	// at a sequence number the prediction filled: the server's event,
	// played late.
	SourceCorrection
	// SourcePlayerState: a predictable event played from a snapshot's
	// player state because prediction is off.
	SourcePlayerState
	// SourceExternal: the server's ExternalEvent of the local player (a
	// pickup, pain, death) that prediction cannot know.
	SourceExternal
	// SourceEntity: the Event of another entity, new in this snapshot.
	SourceEntity
	// SourceTemp: a temporary event entity (an explosion, an obituary).
	SourceTemp
)

var sourceNames = [...]string{"predicted", "correction", "playerstate", "external", "entity", "temp"}

func (s EventSource) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "unknown"
}

// Event is one event to play (what Quake III's CG_EntityEvent acted on).
type Event struct {
	Event  int32 // bg.Ev*, the counter bits removed
	Parm   int32
	Entity int32 // entity number; the local client's number for its own events
	Origin Point // where it happened, units
	Time   int32 // render time it fired
	// Frame is the server time of the frame it happened in: the
	// snapshot's that brought it, the command's for a predicted one, in
	// frame sync the frame the engine ran. An event played late (one a
	// rollback brought in) has a Frame well before Time.
	Frame  int32
	Source EventSource
	// Predicted: fired from the prediction, before the server confirmed
	// it (Source == SourcePredicted; in frame sync, an event of a frame
	// the engine predicted).
	Predicted bool
	// State is the entity's state for entity and temporary events (an
	// obituary's victim and attacker, a rail's end); zero otherwise.
	State bg.EntityState
}

// Obituary is one kill, from an EvObituary event.
type Obituary struct {
	Victim int32 // client number
	Killer int32 // client number, or bg.EntityNumWorld
	MOD    int32 // bg.MOD*
	Time   int32 // render time
}

// MaxObituaries is how many obituaries Obituaries keeps.
const MaxObituaries = 8

// Obituaries is a ring of the latest kills.
type Obituaries struct {
	list  [MaxObituaries]Obituary
	Total int // obituaries ever added
}

// Len returns how many obituaries are held.
func (o *Obituaries) Len() int { return min(o.Total, MaxObituaries) }

// At returns obituary i, 0 the oldest held.
func (o *Obituaries) At(i int) Obituary {
	return o.list[(o.Total-o.Len()+i)%MaxObituaries]
}

func (o *Obituaries) add(ob Obituary) {
	o.list[o.Total%MaxObituaries] = ob
	o.Total++
}

// fire adds an event of the frame at server time frame to Events, and
// returns it (until the next).
func (g *CGame) fire(frame, ev, parm, entity int32, origin Point, src EventSource, es *bg.EntityState) *Event {
	e := Event{Event: ev, Parm: parm, Entity: entity, Origin: origin, Time: g.Time, Frame: frame,
		Source: src, Predicted: src == SourcePredicted}
	if es != nil {
		e.State = *es
		if ev == bg.EvObituary {
			g.Obituaries.add(Obituary{Victim: es.ClientNum, Killer: es.OtherEntity, MOD: parm, Time: g.Time})
		}
		if ev == bg.EvUnlagged {
			g.noteUnlagged(es)
		}
	}
	g.Events = append(g.Events, e)
	g.Stats.EventsFired++
	return &g.Events[len(g.Events)-1]
}

// seqDiff returns a-b for 16-bit event sequence numbers, wrapping.
func seqDiff(a, b int32) int32 { return int32(int16(uint16(a - b))) }

// checkPlayerstateEvents fires the events ps has and ops, the state whose
// events were fired before, has not (CG_CheckPlayerstateEvents): a new
// ExternalEvent (its counter bits make each one distinct), and every
// sequence number ps reached beyond ops. A sequence number both have but
// with different events is a correction, fired unless it was already.
// frame is the server time of the frame ps is of.
func (g *CGame) checkPlayerstateEvents(ps, ops *bg.PlayerState, src EventSource, frame int32) {
	origin := PointOf(ps.Origin)
	if ps.ExternalEvent != 0 && ps.ExternalEvent != ops.ExternalEvent {
		g.fire(frame, ps.ExternalEvent&^bg.EventBits, ps.ExternalEventParm, ps.ClientNum, origin, SourceExternal, nil)
	}
	for k := int32(bg.MaxPSEvents); k > 0; k-- {
		i := (ps.EventSequence - k) & bg.EventSequenceMask
		d := seqDiff(i, ops.EventSequence)
		slot := i & (bg.MaxPSEvents - 1)
		ev := ps.Events[slot]
		switch {
		case d >= 0: // new
			g.fire(frame, ev, ps.EventParms[slot], ps.ClientNum, origin, src, nil)
		case d > -bg.MaxPSEvents && ev != ops.Events[slot]: // changed
			if g.recorded(i, ev) {
				continue // the correction was fired already
			}
			s := src
			if s == SourcePredicted {
				s = SourceCorrection
				g.Stats.EventCorrections++
			}
			g.fire(frame, ev, ps.EventParms[slot], ps.ClientNum, origin, s, nil)
		default:
			continue
		}
		g.record(i, ev)
	}
}

// checkChangedPredictableEvents compares the server's player state, as a
// snapshot becomes current, with the events prediction fired for the same
// sequence numbers (CG_CheckChangedPredictableEvents). Where the server
// had another event, the server's is fired as a correction.
func (g *CGame) checkChangedPredictableEvents(ps *bg.PlayerState) {
	for k := int32(bg.MaxPSEvents); k > 0; k-- {
		i := (ps.EventSequence - k) & bg.EventSequenceMask
		d := seqDiff(i, g.eventSequence)
		if d >= 0 || d <= -MaxPredictedEvents {
			continue // not predicted yet, or too old to know
		}
		slot := i & (bg.MaxPSEvents - 1)
		ev := ps.Events[slot]
		if g.predictableEvents[i&(MaxPredictedEvents-1)] == ev {
			continue
		}
		g.Stats.EventCorrections++
		if g.cfg.showMiss(1) {
			g.cfg.Logf("cgame: predicted event %d at sequence %d changed to %d by the server",
				g.predictableEvents[i&(MaxPredictedEvents-1)], i, ev)
		}
		g.fire(g.Snap.ServerTime, ev, ps.EventParms[slot], ps.ClientNum, g.DrawnOrigin, SourceCorrection, nil)
		g.record(i, ev)
	}
}

// record remembers that event ev was fired for sequence i.
func (g *CGame) record(i, ev int32) {
	g.predictableEvents[i&(MaxPredictedEvents-1)] = ev
	if seqDiff(i+1, g.eventSequence) > 0 {
		g.eventSequence = (i + 1) & bg.EventSequenceMask
	}
}

// recorded reports whether ev was the event fired for sequence i.
func (g *CGame) recorded(i, ev int32) bool {
	d := seqDiff(i, g.eventSequence)
	return d < 0 && d > -MaxPredictedEvents && g.predictableEvents[i&(MaxPredictedEvents-1)] == ev
}

// checkEvents fires the event an entity brings in the snapshot that just
// became current (CG_CheckEvents): a temporary event entity's once, while
// it stays in view; another entity's when its Event changes. The two
// counter bits (bg.EventBits) make a repeated event a change.
func (g *CGame) checkEvents(cent *CEntity) {
	es := &cent.Current
	if es.Number == g.Snap.PS.ClientNum {
		return // the local player's events come through its player state
	}
	var ev int32
	src := SourceEntity
	if es.EType >= bg.ETEvents {
		if cent.previousEvent != 0 {
			return
		}
		cent.previousEvent = 1
		ev, src = es.EType-bg.ETEvents, SourceTemp
	} else {
		if es.Event == cent.previousEvent {
			return
		}
		cent.previousEvent = es.Event
		ev = es.Event &^ bg.EventBits
	}
	if ev <= bg.EvNone {
		return
	}
	t := g.Snap.ServerTime
	g.fire(t, ev, es.EventParm, es.Number, PointOf(es.Pos.Evaluate(t)), src, es)
}
