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

// fieldDesc is a scalar field of a delta table.
type fieldDesc struct {
	pos   int   // wire position
	inc   int   // increment width (msg.Field.Inc), 0 for none
	diff  int   // residual width (msg.Field.Diff), 0 for none
	index []int // reflect path into the struct, for the base's value
}

// layout is the wire order of a bg delta table, read from the table
// itself (msg.Table.Fields and Arrays), so that a reordered table is
// followed without a change here.
type layout[T any] struct {
	fields map[string]fieldDesc // scalar fields by name
	arrays map[string]int       // array fields by name: their position
	lcBits int                  // width of the last-changed count
}

func newLayout[T any](t *msg.Table[T]) *layout[T] {
	typ := reflect.TypeFor[T]()
	l := &layout[T]{fields: map[string]fieldDesc{}, arrays: map[string]int{}, lcBits: t.LastChangedBits()}
	for i, f := range t.Fields() {
		sf, ok := fieldByPath(typ, f.Name)
		if !ok {
			panic(fmt.Sprintf("inspect: %s has no field %s", t.Name(), f.Name))
		}
		l.fields[f.Name] = fieldDesc{pos: i, inc: f.Inc, diff: f.Diff, index: sf.Index}
	}
	for i, a := range t.Arrays() {
		l.arrays[a.Name] = i
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

// readEntity reads one entity delta (after its number) from from (nil:
// the zero value) into to with bg.EntityStateTable, with its changed
// fields.
func readEntity(r *msg.Reader, from, to *bg.EntityState) (removed bool, fields []Field) {
	t := entityLayout.trace(r, entityDelta, from)
	removed = bg.EntityStateTable.ReadDeltaEntity(r, from, to)
	return removed, t.done()
}

// readPlayerState reads a player-state delta from from (nil: the zero
// value) into to with bg.PlayerStateTable, with its changed fields.
func readPlayerState(r *msg.Reader, from, to *bg.PlayerState) []Field {
	t := playerStateLayout.trace(r, playerStateDelta, from)
	bg.PlayerStateTable.ReadDeltaPlayerState(r, from, to)
	return t.done()
}

// readUsercmd reads a usercmd delta under key from from into to with
// bg.UserCmdTable, with its server time and changed fields.
func readUsercmd(r *msg.Reader, key uint32, from, to *bg.UserCmd) []Field {
	t := usercmdLayout.trace(r, usercmdDelta, from)
	bg.UserCmdTable.ReadDeltaUsercmd(r, key, from, to)
	return t.done()
}

// deltaStyle is the shape of a delta: what comes before its fields.
type deltaStyle uint8

const (
	// entityDelta: removed bit, has-changes bit, last-changed count.
	entityDelta deltaStyle = iota
	// playerStateDelta: last-changed count; the arrays after the fields.
	playerStateDelta
	// usercmdDelta: server time (field 0), has-changes bit.
	usercmdDelta
)

// tracer turns the field trace of one delta read (msg.Reader's
// SetFieldTrace) into Fields with the bits each took. The trace reports
// a field just after reading it, so the reader's position then is where
// the field ends; it starts where the field before it ended, past the
// one changed bit of each unchanged field between them. Only what comes
// before the first field, and in a player state before the arrays,
// depends on the style of the delta: the tracer reads the last-changed
// count there from a copy of the reader.
type tracer[T any] struct {
	l     *layout[T]
	style deltaStyle
	r     *msg.Reader
	from  *T

	next     int // bit position of the changed bit of field (or array) pos
	pos      int
	lc       int  // last-changed count
	inArrays bool // the events are of arrays now
	array    int  // the array being reported
	start    int  // where its changed bit is

	fields []Field
}

// trace starts tracing one delta read of l's table on r from from; the
// read follows, then done.
func (l *layout[T]) trace(r *msg.Reader, style deltaStyle, from *T) *tracer[T] {
	t := &tracer[T]{l: l, style: style, r: r, from: from, next: r.BitPos(), array: -1}
	if t.from == nil {
		t.from = new(T)
	}
	r.SetFieldTrace(t.event)
	return t
}

// done ends the trace and returns the fields.
func (t *tracer[T]) done() []Field {
	t.r.SetFieldTrace(nil)
	return t.fields
}

func (t *tracer[T]) event(e msg.FieldEvent) {
	switch {
	case e.Field == "":
		t.begin(e)
	case e.Index >= 0:
		t.element(e)
	default:
		t.scalar(e)
	}
}

// begin finds where the first field's changed bit is.
func (t *tracer[T]) begin(e msg.FieldEvent) {
	if e.Removed {
		return
	}
	// A copy reads ahead without moving the table's reader.
	p := *t.r
	switch t.style {
	case entityDelta:
		if p.ReadBits(1) == 1 {
			t.lc = int(p.ReadRawBits(t.l.lcBits))
		}
	case playerStateDelta:
		t.lc = int(p.ReadRawBits(t.l.lcBits))
	case usercmdDelta:
		return // the server time is read already and starts where the read did
	}
	t.next = p.BitPos()
}

// scalar records a changed scalar field.
func (t *tracer[T]) scalar(e msg.FieldEvent) {
	end := t.r.BitPos()
	f := t.l.fields[e.Field]
	start := t.next + max(f.pos-t.pos, 0)
	t.fields = append(t.fields, Field{Name: e.Field, Value: format(e.Value, e.Bits) + t.increment(f, e), Bits: end - start})
	t.next, t.pos = end, f.pos+1
	if t.style == usercmdDelta && f.pos == 0 {
		t.next++ // the bit saying whether any other field changed
	}
}

// increment notes the value of a clock field (one with an increment
// form) as the codec sends it when it is near its base's: as an
// increment when it grew by less than 1<<inc, " (+50)", else as a
// residual when it has one and it fits, " (-12)" or " (+300)".
func (t *tracer[T]) increment(f fieldDesc, e msg.FieldEvent) string {
	inc := f.inc
	if inc == 0 {
		return ""
	}
	d := e.Value - getBits(reflect.ValueOf(t.from).Elem().FieldByIndex(f.index))
	if d < 1<<inc {
		return fmt.Sprintf(" (+%d)", d)
	}
	if f.diff > 0 {
		if r := int32(d); r >= -(1<<(f.diff-1)) && r < 1<<(f.diff-1) {
			return fmt.Sprintf(" (%+d)", r)
		}
	}
	return ""
}

// element records a changed element of an array field: one Field per
// array, its elements "[j]=v" in its value.
func (t *tracer[T]) element(e msg.FieldEvent) {
	end := t.r.BitPos()
	k := t.l.arrays[e.Field]
	if !t.inArrays {
		// After the last-changed fields, a bit saying whether any array
		// changed; then one changed bit per array.
		t.inArrays = true
		t.next += max(t.lc-t.pos, 0) + 1
		t.pos = 0
	}
	if k != t.array {
		t.array, t.start = k, t.next+max(k-t.pos, 0)
		t.pos = k + 1
		t.fields = append(t.fields, Field{Name: e.Field})
	}
	f := &t.fields[len(t.fields)-1]
	if f.Value != "" {
		f.Value += " "
	}
	f.Value += fmt.Sprintf("[%d]=%s", e.Index, format(e.Value, e.Bits))
	f.Bits = end - t.start
	t.next = end
}

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

// format renders a field value of declared width bits for display.
func format(v uint32, bits int) string {
	switch {
	case bits == 0:
		return strconv.FormatFloat(float64(math.Float32frombits(v)), 'g', -1, 32)
	case bits < 0:
		return strconv.Itoa(int(int32(v)))
	}
	return strconv.FormatUint(uint64(v), 10)
}
