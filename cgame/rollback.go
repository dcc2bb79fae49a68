package cgame

import (
	"sort"

	"tremor/bg"
)

// Events in frame sync (seed 003, docs/framesync.md): the engine's
// snapshots are frames of its own simulation, most of them predicted.
// When a confirmed frame differs from its prediction the engine rolls
// back and runs the frames again, and an event cgame already played from
// a predicted frame may come again in the next snapshot:
//
//   - a temporary entity in another slot, the slots having been handed
//     out in another order, or in the same slot changed in its details (a
//     bullet of a predicted shot hitting elsewhere once the shooter's
//     real aim is known);
//   - an entity's event with the value it had before another event
//     replaced it in the prediction.
//
// The local player's own events need nothing more: they are numbered
// (bg.PlayerState.EventSequence), its own input is never mispredicted,
// and checkPlayerstateEvents plays each sequence number once.
//
// A temporary entity is known by its event, OtherEntity and ClientNum:
// one new in a snapshot after a rollback is the one played from a
// snapshot of the frames the rollback ran again if such a one is no
// longer in its slot (the rollback unmade it there), and is then not
// played again; each played one stands for at most one. An entity's
// event after a rollback whose value (counter bits included) is the one
// played from a snapshot of those frames is not played again. Events of
// frames before the rollback are not looked at: those frames did not run
// again.
//
// An event played from a prediction that the rollback then unmade (a bot
// predicted to keep firing after it let go) was played all the same;
// nothing is unplayed. Nor can an entity's event that a rollback moved
// behind another of the same entity within the frames it ran again be
// told from a new one: the snapshot after it holds only the last.

// eventKey tells a temporary entity's event, or an entity's, from others.
type eventKey struct {
	ev, other, client int32 // a temporary entity's event, OtherEntity and ClientNum; an entity's Event (counter bits included) in ev
}

// tempKeyOf returns the key of a temporary entity's event.
func tempKeyOf(es *bg.EntityState) eventKey {
	return eventKey{ev: es.EType - bg.ETEvents, other: es.OtherEntity, client: es.ClientNum}
}

// playedEvent is one event played in frame sync.
type playedEvent struct {
	key    eventKey
	entity int32 // the entity number it was played from
	temp   bool
	frame  int32 // the level time of the snapshot it was played from
	taken  int32 // the transition at which it last stood for one seen again
}

// takeRollback notes, as snapshot num becomes Snap, whether the engine
// rolled back after the snapshot made current before it (over every
// number since, whether cgame used them or not), and from when.
func (g *CGame) takeRollback(num int32) {
	g.transitions++
	g.rolledBack, g.rollbackFrom = false, 0
	if !g.frameSync || g.rollbacks == nil {
		return
	}
	for k := max(g.rollbackNum+1, num-MaxPlayedEvents); k <= num; k++ {
		if from, ok := g.rollbacks.SnapshotRollback(k); ok && (!g.rolledBack || from < g.rollbackFrom) {
			g.rolledBack, g.rollbackFrom = true, from
		}
	}
	g.rollbackNum = max(g.rollbackNum, num)
}

// replayed reports, in frame sync, whether the event cent brings in Snap
// is one already played, seen again after a rollback; otherwise it
// remembers it as played.
func (g *CGame) replayed(cent *CEntity, es *bg.EntityState) bool {
	p := playedEvent{entity: es.Number, frame: g.Snap.ServerTime, taken: g.transitions}
	if es.EType >= bg.ETEvents {
		p.key, p.temp = tempKeyOf(es), true
	} else {
		p.key.ev = es.Event
	}
	cent.played = p.key
	if g.rolledBack {
		for i := range min(g.playedCount, MaxPlayedEvents) {
			q := &g.played[i]
			if q.frame < g.rollbackFrom || q.taken == g.transitions || q.temp != p.temp || q.key != p.key {
				continue
			}
			if p.temp && q.entity != p.entity && (g.snapShows(q.entity, q.key) || g.Snap.ServerTime-q.frame >= EventValidMsec) {
				continue // still in its slot, or gone of age: p is another event of the same kind
			}
			if !p.temp && q.entity != p.entity {
				continue
			}
			q.taken, q.entity = g.transitions, p.entity // it is there now
			g.Stats.EventsRolledBack++
			return true
		}
	}
	g.played[g.playedCount%MaxPlayedEvents] = p
	g.playedCount++
	return false
}

// snapShows reports whether Snap holds temporary entity n with event key
// k.
func (g *CGame) snapShows(n int32, k eventKey) bool {
	ents := g.Snap.Entities
	i := sort.Search(len(ents), func(i int) bool { return ents[i].Number >= n })
	return i < len(ents) && ents[i].Number == n && ents[i].EType >= bg.ETEvents && tempKeyOf(&ents[i]) == k
}
