package proto

import (
	"fmt"

	"tremor/bg"
	"tremor/net/msg"
)

// SnapshotHeader starts an SvcSnapshot operation.
//
// On the wire: DeltaNum (8 bits), Flags (8 bits), then the server time. A
// full snapshot sends it in 32 bits; a delta snapshot sends a one bit and
// the increment from its base's server time in TimeIncrementBits when it
// is 1 to 255 ms (one or a few server frames: the usual case), else a
// zero bit and the 32-bit time. Quake III always sent 32 bits.
type SnapshotHeader struct {
	// ServerTime is the snapshot's server time. After ReadSnapshotHeader
	// it is 0 when the time came as an increment (TimeIncrement > 0):
	// the caller finds the base and calls ResolveTime.
	ServerTime int32
	// DeltaNum is how many messages back the snapshot this one is
	// delta-coded from was sent; 0 means a full snapshot.
	DeltaNum uint8
	Flags    uint8
	// BaseTime is, when writing a delta snapshot, its base's server time.
	BaseTime int32
	// TimeIncrement is, after reading, the increment the time came as, or
	// 0 if it came whole.
	TimeIncrement int32
}

// TimeIncrementBits is the width of a snapshot's server time sent as an
// increment from its base.
const TimeIncrementBits = 8

// ResolveTime sets ServerTime from the base's server time when the time
// came as an increment.
func (h *SnapshotHeader) ResolveTime(baseTime int32) {
	if h.TimeIncrement > 0 {
		h.ServerTime = baseTime + h.TimeIncrement
	}
}

// WriteSnapshot writes an SvcSnapshot: the header, the player state as a
// delta from fromPS (nil for a full snapshot), and the entities as deltas
// from fromEnts (nil for a full snapshot; new entities come from their
// baselines). Both entity lists are sorted by Number.
func WriteSnapshot(w *msg.Writer, h SnapshotHeader, fromPS, ps *bg.PlayerState,
	fromEnts, ents []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState) {
	w.WriteUint8(SvcSnapshot)
	w.WriteUint8(h.DeltaNum)
	w.WriteUint8(h.Flags)
	if h.DeltaNum != 0 {
		if d := h.ServerTime - h.BaseTime; d > 0 && d < 1<<TimeIncrementBits {
			w.WriteBits(1, 1)
			w.WriteBits(uint32(d), TimeIncrementBits)
		} else {
			w.WriteBits(0, 1)
			w.WriteLong(h.ServerTime)
		}
	} else {
		w.WriteLong(h.ServerTime)
	}
	bg.PlayerStateTable.WriteDeltaPlayerState(w, fromPS, ps)
	WritePacketEntities(w, fromEnts, ents, baselines)
}

// ReadSnapshotHeader reads the header of an SvcSnapshot; the caller then
// picks the base the header names and calls ReadSnapshotBody.
func ReadSnapshotHeader(r *msg.Reader) SnapshotHeader { return readSnapshotHeader(r, nil) }

// readSnapshotHeader is ReadSnapshotHeader with an Observer.
func readSnapshotHeader(r *msg.Reader, obs Observer) SnapshotHeader {
	start := r.BitPos()
	var marks [2]int
	var h SnapshotHeader
	h.DeltaNum = r.ReadUint8()
	marks[0] = r.BitPos()
	h.Flags = r.ReadUint8()
	marks[1] = r.BitPos()
	if h.DeltaNum != 0 && r.ReadBits(1) == 1 {
		h.TimeIncrement = int32(r.ReadBits(TimeIncrementBits))
		if h.TimeIncrement == 0 {
			r.Fail(fmt.Errorf("proto: snapshot time increment of 0"))
		}
	} else {
		h.ServerTime = r.ReadLong()
	}
	if obs != nil {
		obs.Observe(Event{Part: PartSnapshotHeader, Start: start, End: r.BitPos(), Marks: marks, Header: h})
	}
	return h
}

// ReadSnapshotBody reads the player state and entities of a snapshot,
// delta-decoding them from fromPS and fromEnts (nil when the snapshot is
// full, or when the named base is unusable: the bits are read all the
// same, so the message stays aligned, and the caller discards the
// result). The entities are appended to out[:0], which should have
// capacity MaxSnapshotEntities.
func ReadSnapshotBody(r *msg.Reader, fromPS *bg.PlayerState, fromEnts []bg.EntityState,
	baselines *[msg.MaxEntities]bg.EntityState, ps *bg.PlayerState, out []bg.EntityState) []bg.EntityState {
	bg.PlayerStateTable.ReadDeltaPlayerState(r, fromPS, ps)
	return ReadPacketEntities(r, fromEnts, baselines, out)
}

// WritePacketEntities writes the entity list to as deltas from the list
// from, merging the two sorted lists with two cursors (Quake III's
// SV_EmitPacketEntities): an entity in both is delta-coded from its old
// state (nothing if unchanged), an entity only in to from its baseline,
// an entity only in from is written as removed. EntityEnd ends the list.
func WritePacketEntities(w *msg.Writer, from, to []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState) {
	const none = 1 << 30
	i, j := 0, 0
	for i < len(from) || j < len(to) {
		oldnum, newnum := int32(none), int32(none)
		if i < len(from) {
			oldnum = from[i].Number
		}
		if j < len(to) {
			newnum = to[j].Number
		}
		switch {
		case newnum == oldnum:
			bg.EntityStateTable.WriteDeltaEntity(w, &from[i], &to[j], uint32(newnum), false)
			i++
			j++
		case newnum < oldnum:
			bg.EntityStateTable.WriteDeltaEntity(w, &baselines[newnum], &to[j], uint32(newnum), true)
			j++
		default:
			bg.EntityStateTable.WriteDeltaEntity(w, &from[i], nil, uint32(oldnum), true)
			i++
		}
	}
	w.WriteBits(EntityEnd, msg.EntityNumBits)
}

// ReadPacketEntities reads what WritePacketEntities wrote, given the same
// from list and baselines (Quake III's CL_ParsePacketEntities), appending
// the resulting sorted list to out[:0]. Entity numbers must increase;
// more than MaxSnapshotEntities entities is an error.
func ReadPacketEntities(r *msg.Reader, from []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState, out []bg.EntityState) []bg.EntityState {
	return readPacketEntities(r, from, baselines, out, nil)
}

// readPacketEntities is ReadPacketEntities with an Observer.
func readPacketEntities(r *msg.Reader, from []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState, out []bg.EntityState, obs Observer) []bg.EntityState {
	out = out[:0]
	i := 0
	last := int32(-1)
	add := func(e *bg.EntityState) bool {
		if len(out) == MaxSnapshotEntities {
			r.Fail(ErrTooManyEntities)
			return false
		}
		out = append(out, *e)
		return true
	}
	for r.Err() == nil {
		start := r.BitPos()
		newnum := int32(r.ReadBits(msg.EntityNumBits))
		if r.Err() != nil {
			break
		}
		if newnum == EntityEnd {
			if obs != nil {
				obs.Observe(Event{Part: PartEntitiesEnd, Start: start, End: r.BitPos()})
			}
			break
		}
		if newnum <= last {
			r.Fail(fmt.Errorf("%w: %d after %d", ErrEntityOrder, newnum, last))
			break
		}
		last = newnum
		for i < len(from) && from[i].Number < newnum {
			if !add(&from[i]) { // unchanged
				return out
			}
			i++
		}
		base, added := &baselines[newnum], true
		if i < len(from) && from[i].Number == newnum {
			base, added = &from[i], false
			i++
		}
		if obs != nil {
			obs.Observe(Event{Part: PartEntity, Begin: true, Start: start, End: r.BitPos(), Index: newnum, Added: added, FromEnt: base})
		}
		var e bg.EntityState
		removed := bg.EntityStateTable.ReadDeltaEntity(r, base, &e)
		if obs != nil {
			obs.Observe(Event{Part: PartEntity, Start: start, End: r.BitPos(), Index: newnum, Added: added, FromEnt: base, Removed: removed})
		}
		if removed {
			continue
		}
		e.Number = newnum
		if !add(&e) {
			return out
		}
	}
	for ; i < len(from) && r.Err() == nil; i++ {
		if !add(&from[i]) {
			break
		}
	}
	return out
}

// CountChanged returns how many entities differ between two sorted entity
// lists: changed, added or removed — the entities a delta from from to to
// has to spend bits on. Bandwidth reports divide by it.
func CountChanged(from, to []bg.EntityState) int {
	n, i, j := 0, 0, 0
	for i < len(from) && j < len(to) {
		switch {
		case from[i].Number == to[j].Number:
			if from[i] != to[j] {
				n++
			}
			i++
			j++
		case from[i].Number < to[j].Number:
			n++ // removed
			i++
		default:
			n++ // added
			j++
		}
	}
	return n + len(from) - i + len(to) - j
}
