package bg

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"tremor/net/msg"
)

// State hashes: a cheap, deterministic fingerprint of a PlayerState or an
// EntityState, to find the first frame where two simulations (server and
// client, a session and its replay, a demo and its playback) part ways,
// and the Diff functions that then name the field where they differ.
//
// The hash is FNV-1a/64 taken a 32-bit word at a time (HashAdd) over
// every field, in the order of the field's wire table (PlayerStateTable,
// EntityStateTable: scalar fields in wire order, then each array element
// by element). The table is the one definition of "every field": a field
// added to a wire struct must be added to its table, and from then on it
// is hashed and diffed. For an EntityState the entity Number, which the
// table leaves out (it travels in front of each delta), comes first. The
// result depends on nothing but the values: not on the run, the machine
// or the process (no hash/maphash seed), so a hash computed by a server
// can be checked by a client, or by a replay a week later.

// HashInit is the starting value of a state hash (the FNV-1a/64 offset
// basis). HashAdd and HashAdd64 continue a hash from it, so that a caller
// can fingerprint a larger state (a game frame: its time, then every
// entity's number and hash) with the same function.
const HashInit uint64 = 14695981039346656037

const hashPrime uint64 = 1099511628211

// HashAdd returns h continued by the 32-bit word v: h xor v, times the
// FNV-1a/64 prime (FNV-1a taking a word, not a byte, at a step: a
// quarter of the multiplications of byte-wise FNV-1a). Each step is a
// bijection of h for a given v and of v for a given h, so two sequences
// of words that differ in exactly one word always hash differently.
func HashAdd(h uint64, v uint32) uint64 {
	return (h ^ uint64(v)) * hashPrime
}

// HashAdd64 returns h continued by v as two 32-bit words, low word first.
func HashAdd64(h, v uint64) uint64 {
	return HashAdd(HashAdd(h, uint32(v)), uint32(v>>32))
}

// hashField is one 32-bit word of a hashed struct: its name as the wire
// table names it (array elements as "Stats[2]") and its offset.
type hashField struct {
	name string
	off  uintptr
}

// psHashFields and esHashFields are the hashed words of PlayerState and
// EntityState, in hash order.
var (
	psHashFields = hashLayout[PlayerState](nil, PlayerStateTable.Fields(), PlayerStateTable.Arrays())
	esHashFields = hashLayout[EntityState]([]string{"Number"}, EntityStateTable.Fields(), EntityStateTable.Arrays())
)

// hashLayout lists the words of T: the fields named in first, then those
// of the table in table order (its scalar fields, then its arrays),
// arrays expanded element by element. It panics on a name T lacks; the
// tables were checked against T when they were built, so that means a
// programming error found at start-up.
func hashLayout[T any](first []string, fields []msg.Field, arrays []msg.ArrayField) []hashField {
	typ := reflect.TypeFor[T]()
	var out []hashField
	add := func(name string) {
		off, ft := fieldOffset(typ, name)
		switch {
		case ft.Kind() == reflect.Array:
			for i := 0; i < ft.Len(); i++ {
				out = append(out, hashField{fmt.Sprintf("%s[%d]", name, i), off + uintptr(i)*ft.Elem().Size()})
			}
		case ft.Size() == 4:
			out = append(out, hashField{name, off})
		default:
			panic(fmt.Sprintf("bg: hash of %v: field %s is not 32 bits", typ, name))
		}
	}
	for _, n := range first {
		add(n)
	}
	for _, f := range fields {
		add(f.Name)
	}
	for _, a := range arrays {
		add(a.Name)
	}
	return out
}

// fieldOffset finds the dotted field path name ("Pos.Base.X") in typ.
func fieldOffset(typ reflect.Type, name string) (uintptr, reflect.Type) {
	var off uintptr
	t := typ
	for part := range strings.SplitSeq(name, ".") {
		sf, ok := t.FieldByName(part)
		if !ok {
			panic(fmt.Sprintf("bg: hash of %v: no field %s", typ, name))
		}
		off += sf.Offset
		t = sf.Type
	}
	return off, t
}

func word(p unsafe.Pointer, off uintptr) uint32 {
	return *(*uint32)(unsafe.Add(p, off))
}

func hashWords(h uint64, p unsafe.Pointer, fields []hashField) uint64 {
	for _, f := range fields {
		h = HashAdd(h, word(p, f.off))
	}
	return h
}

func diffWords(a, b unsafe.Pointer, fields []hashField) (string, bool) {
	for _, f := range fields {
		if word(a, f.off) != word(b, f.off) {
			return f.name, true
		}
	}
	return "", false
}

// HashPlayerState returns the state hash of ps: every field of
// PlayerStateTable in table order. It allocates nothing.
func HashPlayerState(ps *PlayerState) uint64 {
	return hashWords(HashInit, unsafe.Pointer(ps), psHashFields)
}

// HashEntityState returns the state hash of es: its Number, then every
// field of EntityStateTable in table order. It allocates nothing.
func HashEntityState(es *EntityState) uint64 {
	return hashWords(HashInit, unsafe.Pointer(es), esHashFields)
}

// DiffPlayerState names the first field, in hash order, where a and b
// differ, as PlayerStateTable names it ("Origin.X", array elements as
// "Stats[0]"); differs is false, and field "", when they are equal in
// every hashed field. It allocates nothing.
func DiffPlayerState(a, b *PlayerState) (field string, differs bool) {
	return diffWords(unsafe.Pointer(a), unsafe.Pointer(b), psHashFields)
}

// DiffEntityState is DiffPlayerState for entity states: "Number", then
// the fields of EntityStateTable.
func DiffEntityState(a, b *EntityState) (field string, differs bool) {
	return diffWords(unsafe.Pointer(a), unsafe.Pointer(b), esHashFields)
}

// PlayerStateField returns the value of the hashed field name of ps, as
// DiffPlayerState names it, and whether there is such a field: a report
// of a divergence can then show both values.
func PlayerStateField(ps *PlayerState, name string) (int32, bool) {
	return fieldValue(unsafe.Pointer(ps), psHashFields, name)
}

// EntityStateField is PlayerStateField for entity states.
func EntityStateField(es *EntityState, name string) (int32, bool) {
	return fieldValue(unsafe.Pointer(es), esHashFields, name)
}

func fieldValue(p unsafe.Pointer, fields []hashField, name string) (int32, bool) {
	for _, f := range fields {
		if f.name == name {
			return int32(word(p, f.off)), true
		}
	}
	return 0, false
}

// NumPlayerStateFields returns the number of hashed fields of a
// PlayerState (array elements counted one by one): the i of
// PlayerStateFieldName and PlayerStateWord runs from 0 to it.
func NumPlayerStateFields() int { return len(psHashFields) }

// PlayerStateFieldName returns the name of hashed field i of a
// PlayerState, in hash order.
func PlayerStateFieldName(i int) string { return psHashFields[i].name }

// PlayerStateWord returns hashed field i of ps as a 32-bit word.
func PlayerStateWord(ps *PlayerState, i int) uint32 {
	return word(unsafe.Pointer(ps), psHashFields[i].off)
}

// NumEntityStateFields is NumPlayerStateFields for entity states
// (Number is field 0).
func NumEntityStateFields() int { return len(esHashFields) }

// EntityStateFieldName returns the name of hashed field i of an
// EntityState, in hash order.
func EntityStateFieldName(i int) string { return esHashFields[i].name }

// EntityStateWord returns hashed field i of es as a 32-bit word.
func EntityStateWord(es *EntityState, i int) uint32 {
	return word(unsafe.Pointer(es), esHashFields[i].off)
}
