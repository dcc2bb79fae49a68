package proto

import (
	"errors"
	"fmt"

	"tremor/bg"
	"tremor/net/msg"
)

// SvcStateHash carries the hashes of the snapshot written before it in the
// same message, and the server game's state hash at that snapshot's time
// (docs/statehash.md). A server sends it only with sv_hashSnapshots on; a
// client recomputes the hashes of what it decoded and so catches any
// divergence of the snapshot codec (delta bases, field widths, entity
// merge). It is numbered after SvcDownload so that the older codes, and
// the demos that hold them, stay as they were.
const SvcStateHash = SvcDownload + 1

// MaxStateHashFields is the most per-field hashes one list of an
// SvcStateHash may carry (bg's PlayerState has 42 hashed fields, its
// EntityState 20).
const MaxStateHashFields = 64

// ErrStateHash is the error ReadStateHash sticks on a reader for a count
// out of range.
var ErrStateHash = errors.New("proto: state hash count out of range")

// StateHash is one SvcStateHash: the summary hashes, and with Detail the
// per-field and per-entity hashes that say where a divergence is.
//
// The summary: PlayerState is bg.HashPlayerState of the snapshot's
// player state; Entities is the hash of its entity list (from
// bg.HashInit, the number of entities, then each entity's
// bg.HashEntityState, two words, in list order); Game is the server
// game's state hash (game.Game's StateHash) after the frame of
// ServerTime, which a client cannot recompute but a replay of the
// server can.
//
// The detail, 16-bit hashes (Fold16): PSFields[i] of player-state field
// i alone; EntityRows[k] of entity k of the list (its
// bg.HashEntityState); EntityCols[f] of field f of every entity of the
// list in turn. One entity with one wrong field changes exactly one row
// and one column, naming both.
type StateHash struct {
	ServerTime  int32
	Game        uint64
	PlayerState uint64
	Entities    uint64
	NumEntities int // 0..MaxSnapshotEntities

	Detail     bool
	NumPS      int // 0..MaxStateHashFields
	PSFields   [MaxStateHashFields]uint16
	EntityRows [MaxSnapshotEntities]uint16 // NumEntities of them
	NumCols    int                         // 0..MaxStateHashFields
	EntityCols [MaxStateHashFields]uint16
}

// Fold16 folds a 64-bit hash to 16 bits (the xor of its four 16-bit
// quarters), the width of the detail hashes.
func Fold16(h uint64) uint16 {
	return uint16(h ^ h>>16 ^ h>>32 ^ h>>48)
}

// HashEntities returns StateHash.Entities of the list ents.
func HashEntities(ents []bg.EntityState) uint64 {
	h := bg.HashAdd(bg.HashInit, uint32(len(ents)))
	for i := range ents {
		h = bg.HashAdd64(h, bg.HashEntityState(&ents[i]))
	}
	return h
}

// Compute fills sh's snapshot hashes from ps and ents (at most
// MaxSnapshotEntities), the detail too if detail is set; ServerTime and
// Game are the caller's. It allocates nothing.
func (sh *StateHash) Compute(ps *bg.PlayerState, ents []bg.EntityState, detail bool) {
	ents = ents[:min(len(ents), MaxSnapshotEntities)]
	sh.PlayerState = bg.HashPlayerState(ps)
	sh.Entities = HashEntities(ents)
	sh.NumEntities = len(ents)
	sh.Detail = detail
	sh.NumPS, sh.NumCols = 0, 0
	if !detail {
		return
	}
	sh.NumPS = min(bg.NumPlayerStateFields(), MaxStateHashFields)
	for i := 0; i < sh.NumPS; i++ {
		sh.PSFields[i] = Fold16(bg.HashAdd(bg.HashInit, bg.PlayerStateWord(ps, i)))
	}
	for k := range ents {
		sh.EntityRows[k] = Fold16(bg.HashEntityState(&ents[k]))
	}
	sh.NumCols = min(bg.NumEntityStateFields(), MaxStateHashFields)
	for f := 0; f < sh.NumCols; f++ {
		h := bg.HashInit
		for k := range ents {
			h = bg.HashAdd(h, bg.EntityStateWord(&ents[k], f))
		}
		sh.EntityCols[f] = Fold16(h)
	}
}

// WriteStateHash writes sh as an SvcStateHash:
//
//	byte  SvcStateHash (9)
//	long  serverTime
//	long  game low, long game high
//	long  playerState low, long playerState high
//	long  entities low, long entities high
//	short numEntities            0..256
//	byte  detail                 0 or 1
//	detail 1: byte numPS (0..64), numPS shorts: player-state field hashes
//	          numEntities shorts: entity row hashes
//	          byte numCols (0..64), numCols shorts: entity column hashes
func WriteStateHash(w *msg.Writer, sh *StateHash) {
	w.WriteUint8(SvcStateHash)
	w.WriteLong(sh.ServerTime)
	write64 := func(v uint64) {
		w.WriteLong(int32(uint32(v)))
		w.WriteLong(int32(uint32(v >> 32)))
	}
	write64(sh.Game)
	write64(sh.PlayerState)
	write64(sh.Entities)
	w.WriteShort(int16(sh.NumEntities))
	if !sh.Detail {
		w.WriteUint8(0)
		return
	}
	w.WriteUint8(1)
	w.WriteUint8(uint8(sh.NumPS))
	for _, v := range sh.PSFields[:sh.NumPS] {
		w.WriteShort(int16(v))
	}
	for _, v := range sh.EntityRows[:sh.NumEntities] {
		w.WriteShort(int16(v))
	}
	w.WriteUint8(uint8(sh.NumCols))
	for _, v := range sh.EntityCols[:sh.NumCols] {
		w.WriteShort(int16(v))
	}
}

// ReadStateHash reads the body of an SvcStateHash into sh. A count out of
// range, a detail byte other than 0 or 1, or a list longer than what is
// left of the message sets the reader's error (ErrStateHash).
func ReadStateHash(r *msg.Reader, sh *StateHash) {
	sh.ServerTime = r.ReadLong()
	read64 := func() uint64 {
		lo := uint32(r.ReadLong())
		return uint64(lo) | uint64(uint32(r.ReadLong()))<<32
	}
	sh.Game = read64()
	sh.PlayerState = read64()
	sh.Entities = read64()
	n := int(r.ReadShort())
	detail := r.ReadUint8()
	sh.NumEntities, sh.Detail, sh.NumPS, sh.NumCols = 0, false, 0, 0
	if r.Err() != nil {
		return
	}
	if n < 0 || n > MaxSnapshotEntities || detail > 1 {
		r.Fail(fmt.Errorf("%w: %d entities, detail %d", ErrStateHash, n, detail))
		return
	}
	sh.NumEntities = n
	if detail == 0 {
		return
	}
	sh.Detail = true
	readList := func(dst []uint16) {
		// Even Huffman-coded, a short takes at least two bits.
		if r.RemainingBits() < 2*len(dst) {
			r.Fail(fmt.Errorf("%w: %d hashes run past the message", ErrStateHash, len(dst)))
			return
		}
		for i := range dst {
			dst[i] = uint16(r.ReadShort())
		}
	}
	readCount := func() int {
		c := int(r.ReadUint8())
		if r.Err() == nil && c > MaxStateHashFields {
			r.Fail(fmt.Errorf("%w: %d field hashes, max %d", ErrStateHash, c, MaxStateHashFields))
			return 0
		}
		return c
	}
	sh.NumPS = readCount()
	readList(sh.PSFields[:sh.NumPS])
	readList(sh.EntityRows[:n])
	sh.NumCols = readCount()
	readList(sh.EntityCols[:sh.NumCols])
	if r.Err() != nil {
		sh.Detail, sh.NumPS, sh.NumCols = false, 0, 0
	}
}

// SnapshotMismatch says where a snapshot a client decoded differs from
// the one the server built, as a StateHash shows it: a fault of the
// snapshot codec, found live. (A journal replay that computes another
// state than the recorded run is a journal.Divergence, another thing.)
type SnapshotMismatch struct {
	ServerTime int32
	// Entity is the number of the entity that differs, -1 for the player
	// state, -2 for an entity list that differs where no entity can be
	// named (no detail sent, or its 16-bit hashes agree).
	Entity int32
	// Field names the first differing field as bg's Diff functions name
	// them ("Pos.Base.X", "Stats[0]"), "" when it cannot be told.
	Field string
	// Client is the client's value of Field (when Field is set).
	Client int32
}

// String describes d in one line, as logs and reports show it.
func (d SnapshotMismatch) String() string {
	var where string
	switch d.Entity {
	case -1:
		where = "player state"
	case -2:
		where = "entity list"
	default:
		where = fmt.Sprintf("entity %d", d.Entity)
	}
	if d.Field == "" {
		return fmt.Sprintf("server time %d: %s differs", d.ServerTime, where)
	}
	return fmt.Sprintf("server time %d: %s field %s differs (client has %d)", d.ServerTime, where, d.Field, d.Client)
}

// CheckStateHash compares sent, the server's hashes of a snapshot, with
// the snapshot the client decoded, ps and ents; mine is scratch space
// for the client's own hashes. It reports the first mismatch: the
// player state before the entities; with detail, the first entity of the
// list whose row hash differs (or, when the lists differ in length, the
// first position where they do) and the first field whose column hash
// differs. It allocates nothing.
func CheckStateHash(sent *StateHash, ps *bg.PlayerState, ents []bg.EntityState, mine *StateHash) (SnapshotMismatch, bool) {
	mine.Compute(ps, ents, sent.Detail)
	d := SnapshotMismatch{ServerTime: sent.ServerTime}
	if mine.PlayerState != sent.PlayerState {
		d.Entity = -1
		if sent.Detail && sent.NumPS == mine.NumPS {
			for i := 0; i < mine.NumPS; i++ {
				if mine.PSFields[i] != sent.PSFields[i] {
					d.Field, d.Client = bg.PlayerStateFieldName(i), int32(bg.PlayerStateWord(ps, i))
					break
				}
			}
		}
		return d, true
	}
	if mine.Entities == sent.Entities && mine.NumEntities == sent.NumEntities {
		return SnapshotMismatch{}, false
	}
	d.Entity = -2
	if !sent.Detail {
		return d, true
	}
	row := -1
	for k := 0; k < max(mine.NumEntities, sent.NumEntities); k++ {
		if k >= mine.NumEntities || k >= sent.NumEntities || mine.EntityRows[k] != sent.EntityRows[k] {
			row = k
			break
		}
	}
	if row < 0 || row >= len(ents) {
		return d, true // the server's list is longer: its extra entity is unknown here
	}
	d.Entity = ents[row].Number
	if sent.NumCols == mine.NumCols {
		for f := 0; f < mine.NumCols; f++ {
			if mine.EntityCols[f] != sent.EntityCols[f] {
				d.Field, d.Client = bg.EntityStateFieldName(f), int32(bg.EntityStateWord(&ents[row], f))
				break
			}
		}
	}
	return d, true
}
