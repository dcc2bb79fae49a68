package protospec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"tremor/bg"
	"tremor/net/msg"
)

// Markers around the generated text in docs/protocol.md: the field
// tables, and the constants (whose table the tests make).
const (
	BeginFields    = "<!-- BEGIN GENERATED FIELD TABLES: go test ./internal/protospec -update; do not edit by hand -->"
	EndFields      = "<!-- END GENERATED FIELD TABLES -->"
	BeginConstants = "<!-- BEGIN GENERATED CONSTANTS: go test ./internal/protospec -update; do not edit by hand -->"
	EndConstants   = "<!-- END GENERATED CONSTANTS -->"
)

// ErrNoMarkers is the error for a document without one of the marker
// pairs.
var ErrNoMarkers = errors.New("protospec: document lacks the generated-table markers")

// tableDesc is what the document says of one msg.Table.
type tableDesc struct {
	name    string // the Table's name
	typ     reflect.Type
	style   string // the delta style that codes it (section 3)
	fields  []msg.Field
	arrays  []msg.ArrayField // in wire order
	comment string
}

// describe reads everything the wire needs from t: its scalar fields as
// msg.Field values (so attributes added to msg.Field later show up), and
// its arrays (name, width), with their lengths from T.
func describe[T any](t *msg.Table[T], style, comment string) tableDesc {
	return tableDesc{name: t.Name(), typ: reflect.TypeFor[T](), style: style, fields: t.Fields(), arrays: t.Arrays(), comment: comment}
}

// tables returns the three wire structs' tables in document order.
func tables() []tableDesc {
	return []tableDesc{
		describe(bg.EntityStateTable, "entity style",
			"`Number` is not in the table: it travels in front of each delta. A changed field's coding follows its nonzero bit (3.3)."),
		describe(bg.PlayerStateTable, "player-state style",
			"A changed field's coding follows its changed bit, with no nonzero bit (3.4)."),
		describe(bg.UserCmdTable, "usercmd style",
			"Field 0 is the command's server time, always sent first; every other field goes as a changed bit and, if changed, its value XOR the key XOR the new server time (3.5)."),
	}
}

// fieldPath finds the struct field of typ named by a dotted path.
func fieldPath(typ reflect.Type, path string) (reflect.StructField, bool) {
	var sf reflect.StructField
	for _, part := range strings.Split(path, ".") {
		if typ.Kind() != reflect.Struct {
			return sf, false
		}
		f, ok := typ.FieldByName(part)
		if !ok {
			return sf, false
		}
		sf, typ = f, f.Type
	}
	return sf, true
}

// width returns |bits|.
func width(bits int) int {
	if bits < 0 {
		return -bits
	}
	return bits
}

// fieldAttrs lists the attributes of f beyond Name and Bits that are
// set, read from msg.Field by reflection, so that a coding added to
// msg.Field appears in the tables (and fails the document test) even
// before this package learns to describe it.
func fieldAttrs(f msg.Field) []string {
	var out []string
	v := reflect.ValueOf(f)
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if !sf.IsExported() || sf.Name == "Name" || sf.Name == "Bits" || v.Field(i).IsZero() {
			continue
		}
		out = append(out, fmt.Sprintf("%s=%v", sf.Name, v.Field(i).Interface()))
	}
	return out
}

// coding describes how a changed scalar field's value is coded in
// style (section 3.2), after the bits every style sends before it, and
// what value it is compared with (its expected value).
func coding(f msg.Field, style string, index int) string {
	timeField := style == "usercmd style" && index == 0
	usercmd := style == "usercmd style"
	if f.Shift > 0 {
		// Everything below is of the value shifted right.
		g := f
		g.Bits, g.Shift = f.Bits-f.Shift, 0
		return fmt.Sprintf("in steps of %d (the low %d bits are always 0): value ÷ %d coded as a %d-bit field: ", 1<<f.Shift, f.Shift, 1<<f.Shift, g.Bits) + coding(g, style, index)
	}
	var c string
	switch {
	case f.Inc > 0 && f.Diff > 0 && timeField:
		c = fmt.Sprintf("always sent, not keyed: increment: 1 and new − old in %d bits when it is 0..%d, else 0 and then residual: 1 and new − old (signed, modulo 2^%d) in %d raw bits when it is −%d..%d, else 0 and the value in %d bits", f.Inc, 1<<f.Inc-1, width(f.Bits), f.Diff, 1<<(f.Diff-1), 1<<(f.Diff-1)-1, width(f.Bits))
	case f.Inc > 0 && timeField:
		c = fmt.Sprintf("always sent, not keyed: increment: 1 and new − old in %d bits when it is 0..%d, else 0 and the value in %d bits", f.Inc, 1<<f.Inc-1, width(f.Bits))
	case f.Inc > 0:
		c = fmt.Sprintf("increment: 1 and new − old in %d bits when it is 1..%d, else 0 and the value in %d bits", f.Inc, 1<<f.Inc-1, width(f.Bits))
	case timeField:
		c = fmt.Sprintf("always sent, not keyed: the value in %d bits", width(f.Bits))
	case usercmd && f.Diff > 0:
		c = fmt.Sprintf("residual: 1 and (new − old, signed, modulo 2^%d) XOR key in %d raw bits when it is −%d..%d, else 0 and the value XOR key in %d raw bits", width(f.Bits), f.Diff, 1<<(f.Diff-1), 1<<(f.Diff-1)-1, width(f.Bits))
	case usercmd && f.Bits == 0:
		c = "32 raw bits XOR key"
	case usercmd:
		c = fmt.Sprintf("%d raw bits XOR key", width(f.Bits))
	case f.Bits == 0:
		c = "float: 0 and the value + 4096 in 13 bits, or 1 and the 32 raw bits"
	case f.Diff > 0:
		c = fmt.Sprintf("residual: 1 and new − expected (signed, modulo 2^%d) in %d raw bits when it is −%d..%d, else 0 and the value in %d bits", width(f.Bits), f.Diff, 1<<(f.Diff-1), 1<<(f.Diff-1)-1, width(f.Bits))
	default:
		c = fmt.Sprintf("integer: the value in %d bits", width(f.Bits))
	}
	if f.Predict != nil {
		c += "; expected value: " + f.Predict.String()
	}
	// An attribute msg.Field gained after this function was written
	// shows raw, so that the document test fails until it is described.
	for _, a := range fieldAttrs(f) {
		if !strings.HasPrefix(a, "Inc=") && !strings.HasPrefix(a, "Diff=") && !strings.HasPrefix(a, "Predict=") {
			c += "; " + a
		}
	}
	return c
}

// signedness names a width's sign.
func signedness(bits int) string {
	switch {
	case bits == 0:
		return "float32"
	case bits < 0:
		return "signed"
	}
	return "unsigned"
}

// FieldTables returns the Markdown of the field tables of EntityState,
// PlayerState and UserCmd, generated from bg's tables: for each field
// its wire index, name, width, signedness and coding.
func FieldTables() string {
	var b strings.Builder
	for _, t := range tables() {
		fmt.Fprintf(&b, "#### %s (%s, `bg.%sTable`)\n\n", t.name, t.style, t.name)
		fmt.Fprintf(&b, "%d scalar fields", len(t.fields))
		if len(t.arrays) > 0 {
			fmt.Fprintf(&b, ", %d arrays", len(t.arrays))
		}
		b.WriteString(", in wire order.")
		if t.comment != "" {
			b.WriteString(" " + t.comment)
		}
		b.WriteString("\n\n| # | field | bits | type | coding of a changed value (3.2) |\n| ---: | --- | ---: | --- | --- |\n")
		for i, f := range t.fields {
			fmt.Fprintf(&b, "| %d | `%s` | %d | %s | %s |\n", i, f.Name, width(f.Bits), signedness(f.Bits), coding(f, t.style, i))
		}
		if len(t.arrays) > 0 {
			b.WriteString("\n| # | array | elements (mask bits) | bits each | type |\n| ---: | --- | ---: | ---: | --- |\n")
			for i, a := range t.arrays {
				n := 0
				if sf, ok := fieldPath(t.typ, a.Name); ok && sf.Type.Kind() == reflect.Array {
					n = sf.Type.Len()
				}
				fmt.Fprintf(&b, "| %d | `%s` | %d | %d | %s |\n", i, a.Name, n, width(a.Bits), signedness(a.Bits))
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// UpdateDocument returns doc with the text between BeginFields and
// EndFields replaced by FieldTables.
func UpdateDocument(doc []byte) ([]byte, error) {
	return ReplaceBetween(doc, BeginFields, EndFields, FieldTables())
}

// ReplaceBetween returns doc with what lies between the markers begin
// and end replaced by text, set off by blank lines.
func ReplaceBetween(doc []byte, begin, end, text string) ([]byte, error) {
	i := bytes.Index(doc, []byte(begin))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return nil, ErrNoMarkers
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.WriteString("\n\n")
	out.WriteString(text)
	out.WriteString("\n\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}
