package proto

import (
	"fmt"

	"tremor/bg"
	"tremor/net/msg"
)

// Gamestate is everything a client needs before its first snapshot: the
// configstrings, the entity baselines that first sightings are
// delta-coded from, the client's own number and the checksum feed that
// keys its usercmds (the contents of Quake III's svc_gamestate).
type Gamestate struct {
	CommandSequence int32 // the server command sequence it was sent at
	Configstrings   [bg.MaxConfigstrings]string
	Baselines       [msg.MaxEntities]bg.EntityState // Number set on every entry
	ClientNum       int32
	ChecksumFeed    int32
}

// Reset empties gs.
func (gs *Gamestate) Reset() {
	*gs = Gamestate{}
	for i := range gs.Baselines {
		gs.Baselines[i].Number = int32(i)
	}
}

// hasBaseline reports whether baseline n differs from the empty entity.
func (gs *Gamestate) hasBaseline(n int) bool {
	return gs.Baselines[n] != bg.EntityState{Number: int32(n)}
}

// WriteGamestate writes gs as an SvcGamestate operation: the command
// sequence; each non-empty configstring as SvcConfigstring, index (16
// bits), big string; each non-empty baseline as SvcBaseline and an entity
// delta from nothing; SvcEOF; the client number and checksum feed.
func WriteGamestate(w *msg.Writer, gs *Gamestate) {
	w.WriteUint8(SvcGamestate)
	w.WriteLong(gs.CommandSequence)
	for i, cs := range gs.Configstrings {
		if cs == "" {
			continue
		}
		w.WriteUint8(SvcConfigstring)
		w.WriteShort(int16(i))
		w.WriteBigString(cs)
	}
	for i := range gs.Baselines {
		if i == EntityEnd || !gs.hasBaseline(i) {
			continue
		}
		w.WriteUint8(SvcBaseline)
		bg.EntityStateTable.WriteDeltaEntity(w, nil, &gs.Baselines[i], uint32(i), true)
	}
	w.WriteUint8(SvcEOF)
	w.WriteLong(gs.ClientNum)
	w.WriteLong(gs.ChecksumFeed)
}

// ReadGamestate reads the body of an SvcGamestate into gs.
func ReadGamestate(r *msg.Reader, gs *Gamestate) { readGamestate(r, gs, nil) }

// readGamestate is ReadGamestate with an Observer.
func readGamestate(r *msg.Reader, gs *Gamestate, obs Observer) {
	gs.Reset()
	start := r.BitPos()
	gs.CommandSequence = r.ReadLong()
	if obs != nil {
		obs.Observe(Event{Part: PartGamestateSequence, Start: start, End: r.BitPos(), Seq: gs.CommandSequence})
	}
	for r.Err() == nil {
		start := r.BitPos()
		switch op := r.ReadUint8(); op {
		case SvcEOF:
			gs.ClientNum = r.ReadLong()
			gs.ChecksumFeed = r.ReadLong()
			if r.Err() == nil && (gs.ClientNum < 0 || gs.ClientNum >= bg.MaxClients) {
				r.Fail(fmt.Errorf("proto: gamestate client number %d out of range", gs.ClientNum))
			}
			if obs != nil {
				obs.Observe(Event{Part: PartGamestateEnd, Start: start, End: r.BitPos()})
			}
			return
		case SvcConfigstring:
			i := int(r.ReadShort())
			s := r.ReadBigString()
			if r.Err() != nil {
				return
			}
			if i < 0 || i >= bg.MaxConfigstrings {
				r.Fail(fmt.Errorf("%w: %d", ErrBadConfigstring, i))
				return
			}
			gs.Configstrings[i] = s
			if obs != nil {
				obs.Observe(Event{Part: PartConfigstring, Start: start, End: r.BitPos(), Index: int32(i), Text: s})
			}
		case SvcBaseline:
			n := int(r.ReadBits(msg.EntityNumBits))
			if r.Err() != nil {
				return
			}
			if n >= EntityEnd {
				r.Fail(fmt.Errorf("%w: %d", ErrBadBaseline, n))
				return
			}
			if obs != nil {
				obs.Observe(Event{Part: PartBaseline, Begin: true, Start: start, End: r.BitPos(), Index: int32(n)})
			}
			bg.EntityStateTable.ReadDeltaEntity(r, nil, &gs.Baselines[n])
			gs.Baselines[n].Number = int32(n)
			if obs != nil {
				obs.Observe(Event{Part: PartBaseline, Start: start, End: r.BitPos(), Index: int32(n)})
			}
		default:
			if r.Err() == nil {
				r.Fail(fmt.Errorf("%w %d in gamestate", ErrBadOp, op))
			}
			return
		}
	}
}
