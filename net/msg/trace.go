package msg

// FieldEvent is one step of a delta read, reported to a Reader's field
// trace for diagnostics (cl_shownet 3 and 4 print them). A delta read
// reports a start event first, then one event per field it changed.
type FieldEvent struct {
	// Table is the name of the Table reading.
	Table string
	// Field is the name of the changed field (dotted for nested
	// structs: "Pos.Base.X"), or "" for the event that starts a delta:
	// one entity, player state or usercmd.
	Field string
	// Index is the element of an array field, -1 for a scalar field.
	Index int
	// Bits is the field's declared width: > 0 unsigned, < 0 signed, 0 a
	// float32 whose bits are in Value.
	Bits int
	// Value is the field's new value.
	Value uint32
	// Removed is set on the start event of an entity delta that removes
	// the entity (no field events follow).
	Removed bool
}

// SetFieldTrace makes the delta reads on r call fn for every delta they
// start and every field they change, with its name and new value. A nil
// fn, the default, turns tracing off; it then costs one comparison per
// delta and per changed field, no allocation. Reset keeps the trace.
func (r *Reader) SetFieldTrace(fn func(FieldEvent)) { r.trace = fn }

// traceStart reports the start of a delta read.
func (r *Reader) traceStart(table string, removed bool) {
	r.trace(FieldEvent{Table: table, Index: -1, Removed: removed})
}

// traceField reports a changed scalar field (index -1) or array element.
func (r *Reader) traceField(table, field string, index, bits int, v uint32) {
	r.trace(FieldEvent{Table: table, Field: field, Index: index, Bits: bits, Value: v})
}
