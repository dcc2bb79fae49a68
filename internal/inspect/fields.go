package inspect

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/net/msg"
)

// Field is one decoded value and the bits it took on the wire (after
// Huffman coding). For a delta-coded field the bits include its changed
// bit (and, in entity deltas, its nonzero bit), as the net/msg field
// counters count them; bits that belong to no one field (a last-changed
// count, the changed bits of unchanged fields) are the difference between
// an operation's Bits and the sum of its fields'.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Bits  int    `json:"bits,omitempty"`
}

// fieldIncs lists the increment widths (msg.Field.Inc) of the bg tables'
// fields, which msg.Table does not report. Every decode is checked
// against the table's own reader, so a field given an increment in
// bg/tables.go and not here shows up as a layout mismatch (and fails
// TestLayoutMatchesTables) instead of a silent misreading.
var fieldIncs = map[string]int{
	"PlayerState.CommandTime": 8,
}

type fieldDesc struct {
	name  string
	bits  int // > 0 unsigned, < 0 signed, 0 float
	inc   int
	index []int // reflect path into the struct
}

type arrayDesc struct {
	name  string
	n     int
	bits  int
	index []int
}

// layout is the wire description of a bg struct, in table order, read
// from the msg.Table's Stats (names and widths) so that a reordered table
// is followed without a change here.
type layout[T any] struct {
	table  *msg.Table[T]
	fields []fieldDesc
	arrays []arrayDesc
}

func newLayout[T any](t *msg.Table[T]) *layout[T] {
	typ := reflect.TypeFor[T]()
	l := &layout[T]{table: t}
	for _, st := range t.Stats() {
		sf, ok := fieldByPath(typ, st.Name)
		if !ok {
			panic(fmt.Sprintf("inspect: %s has no field %s", t.Name(), st.Name))
		}
		if st.Array {
			l.arrays = append(l.arrays, arrayDesc{name: st.Name, n: sf.Type.Len(), bits: st.Bits, index: sf.Index})
			continue
		}
		l.fields = append(l.fields, fieldDesc{name: st.Name, bits: st.Bits,
			inc: fieldIncs[t.Name()+"."+st.Name], index: sf.Index})
	}
	return l
}

// fieldByPath finds a dotted field path ("Pos.Base.X") in typ, with the
// full index path from typ.
func fieldByPath(typ reflect.Type, path string) (reflect.StructField, bool) {
	var index []int
	var sf reflect.StructField
	for part := range strings.SplitSeq(path, ".") {
		if typ.Kind() != reflect.Struct {
			return sf, false
		}
		f, ok := typ.FieldByName(part)
		if !ok {
			return sf, false
		}
		index = append(index, f.Index...)
		sf, typ = f, f.Type
	}
	sf.Index = index
	return sf, true
}

var (
	playerStateLayout = newLayout(bg.PlayerStateTable)
	entityLayout      = newLayout(bg.EntityStateTable)
	usercmdLayout     = newLayout(bg.UserCmdTable)
)

func getBits(v reflect.Value) uint32 {
	switch v.Kind() {
	case reflect.Int32:
		return uint32(int32(v.Int()))
	case reflect.Uint32:
		return uint32(v.Uint())
	case reflect.Float32:
		return math.Float32bits(float32(v.Float()))
	}
	return 0
}

func setBits(v reflect.Value, b uint32) {
	switch v.Kind() {
	case reflect.Int32:
		v.SetInt(int64(int32(b)))
	case reflect.Uint32:
		v.SetUint(uint64(b))
	case reflect.Float32:
		v.SetFloat(float64(math.Float32frombits(b)))
	}
}

func (l *layout[T]) get(v *T, f *fieldDesc) uint32 {
	return getBits(reflect.ValueOf(v).Elem().FieldByIndex(f.index))
}

func (l *layout[T]) set(v *T, f *fieldDesc, b uint32) {
	setBits(reflect.ValueOf(v).Elem().FieldByIndex(f.index), b)
}

// width is the number of bits a field of declared width bits takes.
func width(bits int) int {
	if bits < 0 {
		return -bits
	}
	if bits == 0 {
		return 32
	}
	return bits
}

// signExtend keeps the low |bits| bits of v, sign-extended when bits < 0.
func signExtend(v uint32, bits int) uint32 {
	n := width(bits)
	if n == 32 {
		return v
	}
	v &= 1<<n - 1
	if bits < 0 && v&(1<<(n-1)) != 0 {
		v |= ^uint32(0) << n
	}
	return v
}

// format renders a field value for display.
func format(v uint32, bits int) string {
	switch {
	case bits == 0:
		return strconv.FormatFloat(float64(math.Float32frombits(v)), 'g', -1, 32)
	case bits < 0:
		return strconv.Itoa(int(int32(v)))
	}
	return strconv.FormatUint(uint64(v), 10)
}

func readFloat(r *msg.Reader) uint32 {
	if r.ReadBits(1) == 0 {
		i := int32(r.ReadBits(msg.FloatIntBits)) - msg.FloatIntBias
		return math.Float32bits(float32(i))
	}
	return r.ReadBits(32)
}

// readInt reads a changed integer field: with an increment width, a one
// bit and the increment, or a zero bit and the value.
func readInt(r *msg.Reader, f *fieldDesc, old uint32) (v uint32, inc bool) {
	if f.inc > 0 && r.ReadBits(1) == 1 {
		return old + r.ReadBits(f.inc), true
	}
	return signExtend(r.ReadBits(width(f.bits)), f.bits), false
}

// readEntity walks an entity-style delta (after its number), as
// msg.Table.ReadDeltaEntity reads it, recording each changed field. to
// starts as a copy of from (or zero).
func (l *layout[T]) readEntity(r *msg.Reader, from, to *T) (removed bool, fields []Field) {
	var zero T
	if from == nil {
		from = &zero
	}
	if r.ReadBits(1) == 1 {
		*to = zero
		return true, nil
	}
	*to = *from
	if r.ReadBits(1) == 0 {
		return false, nil
	}
	lc := int(r.ReadBits(8))
	if lc > len(l.fields) {
		r.Fail(fmt.Errorf("inspect: %s delta: last-changed %d beyond %d fields", l.table.Name(), lc, len(l.fields)))
		return false, nil
	}
	for i := range l.fields[:lc] {
		if r.Err() != nil {
			return false, fields
		}
		start := r.BitPos()
		if r.ReadBits(1) == 0 {
			continue
		}
		f := &l.fields[i]
		var v uint32
		note := ""
		if r.ReadBits(1) == 1 {
			if f.bits == 0 {
				v = readFloat(r)
			} else {
				old := l.get(to, f)
				var inc bool
				v, inc = readInt(r, f, old)
				if inc {
					note = fmt.Sprintf(" (+%d)", v-old)
				}
			}
		}
		l.set(to, f, v)
		fields = append(fields, Field{Name: f.name, Value: format(v, f.bits) + note, Bits: r.BitPos() - start})
	}
	return false, fields
}

// readPlayerState walks a player-state-style delta, as
// msg.Table.ReadDeltaPlayerState reads it.
func (l *layout[T]) readPlayerState(r *msg.Reader, from, to *T) (fields []Field) {
	var zero T
	if from == nil {
		from = &zero
	}
	*to = *from
	lc := int(r.ReadBits(8))
	if lc > len(l.fields) {
		r.Fail(fmt.Errorf("inspect: %s delta: last-changed %d beyond %d fields", l.table.Name(), lc, len(l.fields)))
		return nil
	}
	for i := range l.fields[:lc] {
		if r.Err() != nil {
			return fields
		}
		start := r.BitPos()
		if r.ReadBits(1) == 0 {
			continue
		}
		f := &l.fields[i]
		var v uint32
		note := ""
		if f.bits == 0 {
			v = readFloat(r)
		} else {
			old := l.get(to, f)
			var inc bool
			v, inc = readInt(r, f, old)
			if inc {
				note = fmt.Sprintf(" (+%d)", v-old)
			}
		}
		l.set(to, f, v)
		fields = append(fields, Field{Name: f.name, Value: format(v, f.bits) + note, Bits: r.BitPos() - start})
	}
	if len(l.arrays) == 0 || r.ReadBits(1) == 0 {
		return fields
	}
	for k := range l.arrays {
		if r.Err() != nil {
			return fields
		}
		a := &l.arrays[k]
		start := r.BitPos()
		if r.ReadBits(1) == 0 {
			continue
		}
		mask := r.ReadBits(a.n)
		arr := reflect.ValueOf(to).Elem().FieldByIndex(a.index)
		var b strings.Builder
		for j := 0; j < a.n; j++ {
			if mask&(1<<j) == 0 {
				continue
			}
			v := signExtend(r.ReadBits(width(a.bits)), a.bits)
			setBits(arr.Index(j), v)
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "[%d]=%s", j, format(getBits(arr.Index(j)), a.bits))
		}
		fields = append(fields, Field{Name: a.name, Value: b.String(), Bits: r.BitPos() - start})
	}
	return fields
}

// readUsercmd walks a usercmd-style delta under key, as
// msg.Table.ReadDeltaUsercmd reads it. The first field is the server
// time.
func (l *layout[T]) readUsercmd(r *msg.Reader, key uint32, from, to *T) (fields []Field) {
	var zero T
	if from == nil {
		from = &zero
	}
	if len(l.fields) == 0 {
		r.Fail(fmt.Errorf("inspect: %s: no server time field", l.table.Name()))
		return nil
	}
	tf := &l.fields[0]
	start := r.BitPos()
	var tt uint32
	note := ""
	if r.ReadBits(1) == 1 {
		d := r.ReadBits(8)
		tt = l.get(from, tf) + d
		note = fmt.Sprintf(" (+%d)", d)
	} else {
		tt = r.ReadBits(32)
	}
	*to = *from
	l.set(to, tf, tt)
	fields = append(fields, Field{Name: tf.name, Value: format(tt, tf.bits) + note, Bits: r.BitPos() - start})
	if r.ReadBits(1) == 0 {
		return fields
	}
	key ^= tt
	for i := range l.fields[1:] {
		if r.Err() != nil {
			return fields
		}
		f := &l.fields[1+i]
		start := r.BitPos()
		if r.ReadBits(1) == 0 {
			continue
		}
		v := signExtend(r.ReadBits(width(f.bits))^key, f.bits)
		l.set(to, f, v)
		fields = append(fields, Field{Name: f.name, Value: format(v, f.bits), Bits: r.BitPos() - start})
	}
	return fields
}
