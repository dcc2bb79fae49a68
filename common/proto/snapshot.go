package proto

import (
	"fmt"
	"math/bits"

	"tremor/bg"
	"tremor/net/msg"
)

// SnapshotHeader starts an SvcSnapshot operation.
//
// On the wire: DeltaNum, as a one bit when it is 1 (the usual delta),
// else a zero bit and 8 bits; Flags, in a delta snapshot as a one bit
// when they are the base's, else a zero bit and SnapFlagBits raw bits
// (always the SnapFlagBits in a full snapshot); then the step and the
// server time. The step is the server's time per message to this client
// (StepBits raw bits; 0 when none fits). A full snapshot sends the step
// and the time in 32 bits. A delta snapshot sends a bit saying whether
// the step is its base's (else the step follows), then a bit saying
// whether its time is the expected one, the base's plus DeltaNum steps
// (protocol 5: the usual case, 2 bits in all); if not, a one bit and the
// increment from the base's time in TimeIncrementBits when it is 1 to
// 255 ms, else a zero bit and the 32-bit time. Quake III always sent 32
// bits.
type SnapshotHeader struct {
	// ServerTime is the snapshot's server time. After ReadSnapshotHeader
	// it is 0 when the time came relative to the base (TimeIncrement > 0
	// or TimeExpected): the caller finds the base and calls Resolve.
	ServerTime int32
	// DeltaNum is how many messages back the snapshot this one is
	// delta-coded from was sent; 0 means a full snapshot.
	DeltaNum uint8
	Flags    uint8
	// Step is the snapshot's step: written as given (SnapshotStep
	// chooses it), read whole or, when StepSame, set by Resolve.
	Step int32
	// BaseTime, BaseStep and BaseFlags are, when writing a delta
	// snapshot, its base's server time, step and flags.
	BaseTime, BaseStep int32
	BaseFlags          uint8
	// StepSame, TimeExpected and FlagsSame are what a delta snapshot's
	// header said: the step is the base's; the time is the base's plus
	// DeltaNum steps; the flags are the base's. Resolve applies them.
	StepSame, TimeExpected, FlagsSame bool
	// TimeIncrement is the time since the base (set by
	// ReadSnapshotHeader when it came as an increment, by Resolve when it
	// was the expected one, and inside WriteSnapshot), or 0 if it came
	// whole: the time the entity predictions of the snapshot extrapolate
	// over (bg.EntityStateTable; docs/protocol.md 6.3).
	TimeIncrement int32
}

// TimeIncrementBits is the width of a snapshot's server time sent as an
// increment from its base; StepBits the width of a step, whose largest
// is MaxStep.
const (
	TimeIncrementBits = 8
	StepBits          = 7
	MaxStep           = 1<<StepBits - 1
)

// SnapshotStep returns the step a writer gives a snapshot at serverTime
// delta-coded deltaNum messages after a base at baseTime: the time per
// message when it divides evenly into 1..MaxStep ms, else fallback (the
// base's step, or for a full snapshot the step last sent).
func SnapshotStep(serverTime, baseTime int32, deltaNum uint8, fallback int32) int32 {
	if deltaNum == 0 {
		return fallback
	}
	d := serverTime - baseTime
	if d <= 0 || d%int32(deltaNum) != 0 || d/int32(deltaNum) > MaxStep {
		return fallback
	}
	return d / int32(deltaNum)
}

// Resolve completes a header ReadSnapshotHeader read, given the base's
// server time, step and flags: the step and the flags if they are the
// base's, the time if it came relative to the base's.
func (h *SnapshotHeader) Resolve(baseTime, baseStep int32, baseFlags uint8) {
	if h.StepSame {
		h.Step = baseStep
	}
	if h.FlagsSame {
		h.Flags = baseFlags
	}
	if h.TimeExpected {
		h.TimeIncrement = int32(h.DeltaNum) * h.Step
	}
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
	if h.DeltaNum == 1 {
		w.WriteRawBits(1, 1)
	} else {
		w.WriteRawBits(0, 1)
		w.WriteUint8(h.DeltaNum)
	}
	if h.DeltaNum != 0 && h.Flags == h.BaseFlags {
		w.WriteRawBits(1, 1)
	} else {
		if h.DeltaNum != 0 {
			w.WriteRawBits(0, 1)
		}
		w.WriteRawBits(uint32(h.Flags), SnapFlagBits)
	}
	step := uint32(h.Step)
	if h.Step < 0 || h.Step > MaxStep {
		step = 0
	}
	if h.DeltaNum == 0 {
		w.WriteRawBits(step, StepBits)
		w.WriteLong(h.ServerTime)
	} else {
		if int32(step) == h.BaseStep {
			w.WriteRawBits(1, 1)
		} else {
			w.WriteRawBits(0, 1)
			w.WriteRawBits(step, StepBits)
		}
		d := h.ServerTime - h.BaseTime
		switch {
		case step > 0 && d == int32(h.DeltaNum)*int32(step):
			h.TimeIncrement = d
			w.WriteRawBits(1, 1)
		case d > 0 && d < 1<<TimeIncrementBits:
			h.TimeIncrement = d
			w.WriteRawBits(0, 1)
			w.WriteBits(1, 1)
			w.WriteBits(uint32(d), TimeIncrementBits)
		default:
			w.WriteRawBits(0, 1)
			w.WriteBits(0, 1)
			w.WriteLong(h.ServerTime)
		}
	}
	bg.PlayerStateTable.WriteDeltaPlayerState(w, fromPS, ps)
	WritePacketEntities(w, fromEnts, ents, baselines, h.TimeIncrement)
}

// ReadSnapshotHeader reads the header of an SvcSnapshot; the caller then
// picks the base the header names and calls ReadSnapshotBody with it.
func ReadSnapshotHeader(r *msg.Reader) SnapshotHeader { return readSnapshotHeader(r, nil) }

// readSnapshotHeader is ReadSnapshotHeader with an Observer.
func readSnapshotHeader(r *msg.Reader, obs Observer) SnapshotHeader {
	start := r.BitPos()
	var marks [2]int
	var h SnapshotHeader
	if r.ReadRawBits(1) == 1 {
		h.DeltaNum = 1
	} else {
		h.DeltaNum = r.ReadUint8()
	}
	marks[0] = r.BitPos()
	if h.DeltaNum != 0 && r.ReadRawBits(1) == 1 {
		h.FlagsSame = true
	} else {
		h.Flags = uint8(r.ReadRawBits(SnapFlagBits))
	}
	marks[1] = r.BitPos()
	switch {
	case h.DeltaNum == 0:
		h.Step = int32(r.ReadRawBits(StepBits))
		h.ServerTime = r.ReadLong()
	default:
		if r.ReadRawBits(1) == 1 {
			h.StepSame = true
		} else {
			h.Step = int32(r.ReadRawBits(StepBits))
		}
		switch {
		case r.ReadRawBits(1) == 1:
			h.TimeExpected = true
		case r.ReadBits(1) == 1:
			h.TimeIncrement = int32(r.ReadBits(TimeIncrementBits))
			if h.TimeIncrement == 0 {
				r.Fail(fmt.Errorf("proto: snapshot time increment of 0"))
			}
		default:
			h.ServerTime = r.ReadLong()
		}
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
func ReadSnapshotBody(r *msg.Reader, h SnapshotHeader, fromPS *bg.PlayerState, fromEnts []bg.EntityState,
	baselines *[msg.MaxEntities]bg.EntityState, ps *bg.PlayerState, out []bg.EntityState) []bg.EntityState {
	bg.PlayerStateTable.ReadDeltaPlayerState(r, fromPS, ps)
	return ReadPacketEntities(r, fromEnts, baselines, out, h.TimeIncrement)
}

// WritePacketEntities writes the entity list to as deltas from the list
// from, merging the two sorted lists with two cursors (Quake III's
// SV_EmitPacketEntities): an entity in both is delta-coded from its old
// state (nothing if unchanged), an entity only in to from its baseline,
// an entity only in from is written as removed. dt is the snapshot's
// TimeIncrement (0 when the time came whole), for the entity predictors
// of deltas from an old state (deltas from a baseline predict over 0
// ms).
//
// On the wire each entity written is a one bit, its number as a gap from
// the previous one written (writeEntityGap), and the entity delta
// without its number (msg.Table.WriteEntity); a zero bit ends the list.
func WritePacketEntities(w *msg.Writer, from, to []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState, dt int32) {
	const none = 1 << 30
	i, j := 0, 0
	last := int32(-1)
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
			if from[i] != to[j] {
				writeEntityGap(w, newnum-last-1)
				last = newnum
				bg.EntityStateTable.WriteEntity(w, &from[i], &to[j], dt)
			}
			i++
			j++
		case newnum < oldnum:
			writeEntityGap(w, newnum-last-1)
			last = newnum
			bg.EntityStateTable.WriteEntity(w, &baselines[newnum], &to[j], 0)
			j++
		default:
			writeEntityGap(w, oldnum-last-1)
			last = oldnum
			bg.EntityStateTable.WriteEntity(w, &from[i], nil, 0)
			i++
		}
	}
	w.WriteRawBits(0, 1)
}

// maxGapPrefix is the longest run of zero bits an entity gap's code may
// start with: gaps are below msg.MaxEntities.
const maxGapPrefix = msg.EntityNumBits

// writeEntityGap writes a one bit ("an entity follows") and gap, the
// count of entity numbers skipped since the previous entity written,
// as an order-0 Exp-Golomb code over gap+1, least-significant bits
// first: as many zero bits as gap+1 has bits after its leading one,
// a one bit, then those bits. Gap 0 (the next number) costs one bit,
// 1–2 three, 3–6 five, 63–126 thirteen.
func writeEntityGap(w *msg.Writer, gap int32) {
	x := uint32(gap) + 1
	n := bits.Len32(x) - 1
	w.WriteRawBits(1, 1)
	if n > 0 {
		w.WriteRawBits(0, n)
	}
	w.WriteRawBits(1, 1)
	if n > 0 {
		w.WriteRawBits(x, n)
	}
}

// readEntityGap reads what follows writeEntityGap's first bit.
func readEntityGap(r *msg.Reader) int32 {
	n := 0
	for r.ReadRawBits(1) == 0 {
		if r.Err() != nil {
			return 0
		}
		if n++; n > maxGapPrefix {
			r.Fail(fmt.Errorf("%w: entity number gap code longer than %d bits", ErrEntityOrder, 2*maxGapPrefix+1))
			return 0
		}
	}
	x := uint32(1) << n
	if n > 0 {
		x |= r.ReadRawBits(n)
	}
	return int32(x - 1)
}

// ReadPacketEntities reads what WritePacketEntities wrote, given the same
// from list, baselines and dt (Quake III's CL_ParsePacketEntities),
// appending the resulting sorted list to out[:0]. Entity numbers must
// stay below EntityEnd; more than MaxSnapshotEntities entities is an
// error.
func ReadPacketEntities(r *msg.Reader, from []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState, out []bg.EntityState, dt int32) []bg.EntityState {
	return readPacketEntities(r, from, baselines, out, dt, nil)
}

// readPacketEntities is ReadPacketEntities with an Observer.
func readPacketEntities(r *msg.Reader, from []bg.EntityState, baselines *[msg.MaxEntities]bg.EntityState, out []bg.EntityState, dt int32, obs Observer) []bg.EntityState {
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
		if r.ReadRawBits(1) == 0 || r.Err() != nil {
			if obs != nil && r.Err() == nil {
				obs.Observe(Event{Part: PartEntitiesEnd, Start: start, End: r.BitPos()})
			}
			break
		}
		newnum := last + 1 + readEntityGap(r)
		if r.Err() != nil {
			break
		}
		if newnum >= EntityEnd {
			r.Fail(fmt.Errorf("%w: entity number %d after %d is beyond %d", ErrEntityOrder, newnum, last, EntityEnd-1))
			break
		}
		last = newnum
		for i < len(from) && from[i].Number < newnum {
			if !add(&from[i]) { // unchanged
				return out
			}
			i++
		}
		base, added, edt := &baselines[newnum], true, int32(0)
		if i < len(from) && from[i].Number == newnum {
			base, added, edt = &from[i], false, dt
			i++
		}
		if obs != nil {
			obs.Observe(Event{Part: PartEntity, Begin: true, Start: start, End: r.BitPos(), Index: newnum, Added: added, FromEnt: base})
		}
		var e bg.EntityState
		removed := bg.EntityStateTable.ReadEntity(r, base, &e, edt)
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
