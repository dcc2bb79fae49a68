package journal

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"tremor/bg"
	"tremor/net/msg"
)

// MaxEntities bounds the entity numbers of a KindServerState record (the
// game's entity slots).
const MaxEntities = msg.MaxEntities

// esWords is how many 32-bit words an EntityState holds: int32s only,
// like a PlayerState (TestStateWords checks).
const esWords = int(unsafe.Sizeof(bg.EntityState{}) / 4)

// ESMaskLen is the length of an entity's mask in a KindServerState
// record.
const ESMaskLen = (esWords + 7) / 8

func esView(es *bg.EntityState) *[esWords]uint32 {
	return (*[esWords]uint32)(unsafe.Pointer(es))
}

// ServerState is the server's players and entities after a frame: the
// player state of every client slot in use and the state of every
// linked entity. A replay that finds the game's hash different compares
// it with its own to name the player or entity, and the field, that
// differ.
type ServerState struct {
	Players  [bg.MaxClients]bg.PlayerState
	PlayerIn [bg.MaxClients]bool
	Entities [MaxEntities]bg.EntityState
	EntityIn [MaxEntities]bool
}

// Clear marks every player and entity absent.
func (st *ServerState) Clear() {
	clear(st.PlayerIn[:])
	clear(st.EntityIn[:])
}

// Collect clears st and fills it through states, which calls player with
// every client slot in use and entity with every linked entity, as
// (*server.Server).GameStates does: what a recording writes and a replay
// compares after a server frame. Entities numbered past MaxEntities are
// left out.
func (st *ServerState) Collect(states func(player func(num int, ps *bg.PlayerState), entity func(es *bg.EntityState))) {
	st.Clear()
	states(st.addPlayer, st.addEntity)
}

func (st *ServerState) addPlayer(num int, ps *bg.PlayerState) {
	if num >= 0 && num < len(st.Players) {
		st.PlayerIn[num], st.Players[num] = true, *ps
	}
}

func (st *ServerState) addEntity(es *bg.EntityState) {
	if n := es.Number; n >= 0 && n < MaxEntities {
		st.EntityIn[n], st.Entities[n] = true, *es
	}
}

// appendWords appends the mask of the words of cur that differ from
// prev and, for each, its difference.
func appendWords(b []byte, prev, cur []uint32, maskLen int) []byte {
	at := len(b)
	for range maskLen {
		b = append(b, 0)
	}
	for i, v := range cur {
		if v != prev[i] {
			b[at+i/8] |= 1 << (i % 8)
			b = binary.AppendVarint(b, int64(int32(v-prev[i])))
		}
	}
	return b
}

// readWords applies a mask and differences appendWords wrote to words.
func (d *decoder) readWords(words []uint32, maskLen int) {
	mask := d.bytes(maskLen)
	if d.err != nil {
		return
	}
	for i := len(words); i < 8*maskLen; i++ {
		if mask[i/8]&(1<<(i%8)) != 0 {
			d.fail(fmt.Sprintf("word %d of a %d-word state does not exist", i, len(words)))
			return
		}
	}
	for i := range words {
		if mask[i/8]&(1<<(i%8)) != 0 {
			words[i] += uint32(int32(d.varint(math.MinInt32, math.MaxInt32)))
		}
	}
}

// ServerState writes the server's state after its frame, as its
// differences from the one written before: the players and entities
// that changed or appeared, and those that went.
func (w *Writer) ServerState(st *ServerState) error {
	if w.err != nil {
		return w.err
	}
	if w.srv == nil {
		w.srv = new(ServerState)
	}
	prev := w.srv
	var zeroPS bg.PlayerState
	var zeroES bg.EntityState
	b := w.buf[:0]

	n := 0
	for i := range st.Players {
		if st.PlayerIn[i] && (!prev.PlayerIn[i] || st.Players[i] != prev.Players[i]) {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i := range st.Players {
		if st.PlayerIn[i] && (!prev.PlayerIn[i] || st.Players[i] != prev.Players[i]) {
			from := &zeroPS
			if prev.PlayerIn[i] {
				from = &prev.Players[i]
			}
			b = binary.AppendUvarint(b, uint64(i))
			b = appendWords(b, psView(from)[:], psView(&st.Players[i])[:], PSMaskLen)
		}
	}
	b = appendGone(b, prev.PlayerIn[:], st.PlayerIn[:])

	n = 0
	for i := range st.Entities {
		if st.EntityIn[i] && (!prev.EntityIn[i] || st.Entities[i] != prev.Entities[i]) {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i := range st.Entities {
		if st.EntityIn[i] && (!prev.EntityIn[i] || st.Entities[i] != prev.Entities[i]) {
			from := &zeroES
			if prev.EntityIn[i] {
				from = &prev.Entities[i]
			}
			b = binary.AppendUvarint(b, uint64(i))
			b = appendWords(b, esView(from)[:], esView(&st.Entities[i])[:], ESMaskLen)
		}
	}
	b = appendGone(b, prev.EntityIn[:], st.EntityIn[:])
	w.buf = b
	if err := w.record(KindServerState); err != nil {
		return err
	}
	*prev = *st
	return nil
}

// appendGone appends the count and the numbers of the slots present in
// prev and absent in cur.
func appendGone(b []byte, prev, cur []bool) []byte {
	n := 0
	for i := range cur {
		if prev[i] && !cur[i] {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i := range cur {
		if prev[i] && !cur[i] {
			b = binary.AppendUvarint(b, uint64(i))
		}
	}
	return b
}

// serverState applies a KindServerState record to the reader's state.
func (r *Reader) serverState(d *decoder) {
	if r.srv == nil {
		r.srv = new(ServerState)
	}
	st := r.srv
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		i := d.index(bg.MaxClients, "client slot")
		if d.err != nil {
			return
		}
		if !st.PlayerIn[i] {
			st.Players[i] = bg.PlayerState{}
		}
		st.PlayerIn[i] = true
		d.readWords(psView(&st.Players[i])[:], PSMaskLen)
	}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		if i := d.index(bg.MaxClients, "client slot"); d.err == nil {
			st.PlayerIn[i] = false
		}
	}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		i := d.index(MaxEntities, "entity number")
		if d.err != nil {
			return
		}
		if !st.EntityIn[i] {
			st.Entities[i] = bg.EntityState{}
		}
		st.EntityIn[i] = true
		d.readWords(esView(&st.Entities[i])[:], ESMaskLen)
	}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		if i := d.index(MaxEntities, "entity number"); d.err == nil {
			st.EntityIn[i] = false
		}
	}
}

// index reads a uvarint below max.
func (d *decoder) index(max int, what string) int {
	at := d.at
	v := d.uvarint()
	if d.err == nil && v >= uint64(max) {
		d.at = at
		d.fail(fmt.Sprintf("%s %d out of range (at most %d)", what, v, max-1))
		return 0
	}
	return int(v)
}

// diffServerState names the first player or entity, and its first
// field, where the recorded state want and the replayed got differ: the
// client slot or -1, the entity number or -1, the field or "", and the
// whole account, which a replay whose game hash differs reports
// (docs/journal.md).
func diffServerState(want, got *ServerState) (player, entity int, field, what string) {
	where := func(in bool) string {
		if in {
			return "the replay"
		}
		return "the journal"
	}
	for i := range got.Players {
		switch {
		case want.PlayerIn[i] != got.PlayerIn[i]:
			return i, -1, "", fmt.Sprintf("client %d is in %s only", i, where(got.PlayerIn[i]))
		case got.PlayerIn[i]:
			if f, ok := bg.DiffPlayerState(&want.Players[i], &got.Players[i]); ok {
				w, _ := bg.PlayerStateField(&want.Players[i], f)
				g, _ := bg.PlayerStateField(&got.Players[i], f)
				return i, -1, f, fmt.Sprintf("client %d's player state: field %s is %d, journal has %d", i, f, g, w)
			}
		}
	}
	for i := range got.Entities {
		switch {
		case want.EntityIn[i] != got.EntityIn[i]:
			return -1, i, "", fmt.Sprintf("entity %d is in %s only", i, where(got.EntityIn[i]))
		case got.EntityIn[i]:
			if f, ok := bg.DiffEntityState(&want.Entities[i], &got.Entities[i]); ok {
				w, _ := bg.EntityStateField(&want.Entities[i], f)
				g, _ := bg.EntityStateField(&got.Entities[i], f)
				return -1, i, f, fmt.Sprintf("entity %d: field %s is %d, journal has %d", i, f, g, w)
			}
		}
	}
	return -1, -1, "", "every player and entity state as recorded: the game's own fields differ (docs/statehash.md)"
}
