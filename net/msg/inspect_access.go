package msg

// Fields returns the table's scalar fields in wire order, as its
// TableSpec listed them: name, width and increment width. With a
// Reader's field trace (SetFieldTrace) it lets a tool lay a delta out
// field by field: the packet inspector counts the one changed bit of
// each unchanged field between two traced ones, and marks a value that
// the codec sends as an increment of its base's.
func (t *Table[T]) Fields() []Field {
	out := make([]Field, len(t.fields))
	for i, f := range t.fields {
		out[i] = Field{Name: f.name, Bits: f.bits, Inc: f.inc}
	}
	return out
}
