package msg

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"unsafe"
)

// Delta codec constants, from Quake III's wire format.
const (
	// EntityNumBits is the width of an entity number on the wire
	// (GENTITYNUM_BITS); MaxEntities = 1<<EntityNumBits.
	EntityNumBits = 10
	// MaxEntities is the number of entity numbers (MAX_GENTITIES).
	MaxEntities = 1 << EntityNumBits
	// FloatIntBits is the width of the small-integer float tier.
	FloatIntBits = 13
	// FloatIntBias shifts the small-integer tier to unsigned:
	// integral floats in [-FloatIntBias, FloatIntBias) take 13 bits.
	FloatIntBias = 1 << (FloatIntBits - 1)
	// MaxTableFields is the most fields a Table may have: the "last
	// changed" count travels in one byte.
	MaxTableFields = 255
	// MaxArrayLen is the longest array field; its change mask is sent as
	// one value of the array's length in bits.
	MaxArrayLen = 32
	// MaxArrays is the most array fields a Table may have.
	MaxArrays = 8
)

// Field describes one 32-bit struct field on the wire, as Quake III's
// netField_t did. Bits > 0 is an unsigned integer of that width, Bits < 0 a
// signed one of width -Bits, and Bits == 0 a float32 sent in three tiers.
//
// Inc > 0 (integers only) marks a field that usually grows by a little,
// a clock such as a player state's command time: when it changed, a one
// bit and the increment in Inc bits go out if the new value is 1 to
// 2^Inc-1 above the old one (unsigned arithmetic, so the clock may wrap),
// else a zero bit and the value in its width. A 32-bit time that moves
// 50 ms a snapshot then costs Inc+1 bits instead of 32.
//
// Diff > 0 (integers only) marks a field that usually moves by a little
// in either direction, a position or an angle: when it changed, a one
// bit and the signed residual (new minus expected, taken modulo the
// field's width) in Diff raw bits go out if it fits, else a zero bit and
// the value in its width. The expected value is the base's, or what the
// field's Prediction computes. A field with both Inc and Diff (a
// usercmd's time, which usually grows by a frame but may step back to a
// base it passed) tries the increment form first, then the residual,
// then the whole value, each behind its one bit; in the keyed fields of
// a usercmd table only Diff counts.
//
// Shift > 0 (unsigned integers only, without Inc or Predict) marks a
// field whose low Shift bits are always 0, because its producer keeps it
// to 2^(Bits−Shift) steps (an angle drawn, never simulated, from it): it
// travels as value>>Shift in Bits−Shift bits, a residual (Diff) in those
// units. A value with any low bit set arrives without it.
//
// Predict, if not nil, says how to compute the field's expected value
// from the base and the fields before it in the new state (a position
// moved by a velocity); without it the expected value is the base's.
type Field struct {
	Name    string
	Bits    int
	Inc     int
	Diff    int
	Shift   int
	Predict *Prediction
}

// Prediction describes a field that moves at a rate: its expected value
// is the base's plus rate × elapsed milliseconds / 1000, rounded to the
// nearest integer, halves away from zero (a Pmove step's arithmetic).
// Writer and reader compute it alike, from the base and from the fields
// of the new state that come before the predicted one in wire order.
//
// With Accel instead of Rate the field is itself a rate under a constant
// acceleration (a vertical velocity under gravity): its expected value is
// the base's plus Accel × elapsed / 1000, rounded towards zero, at most
// Max (a step's arithmetic in Pmove), while the base's value is not 0 (a
// player standing on the ground does not speed up).
type Prediction struct {
	// Rate names the signed integer field, before this one in wire
	// order, holding the rate in units per second; the new state's value
	// is used.
	Rate string
	// Mean uses the mean of the base's and the new state's rate (their
	// sum over 2, rounded towards zero): motion under constant
	// acceleration, a fall.
	Mean bool
	// Accel, with Rate empty, is the field's own rate of change in units
	// per second; Max, if not 0, the most the prediction reaches (a
	// terminal speed).
	Accel, Max int32
	// Clock names the integer field, before this one in wire order,
	// holding a time in milliseconds: the elapsed time is the new
	// state's minus the base's. Empty: the elapsed time is the ctx the
	// caller passes to WriteEntity and ReadEntity.
	Clock string
	// When names an integer field of the base that must equal WhenValue
	// for the prediction to apply (else the base's value is expected);
	// empty: always.
	When      string
	WhenValue uint32
}

// MaxPredictMsec bounds the elapsed time a Prediction extrapolates
// over: a longer one, or one of 0 or less, predicts no motion.
const MaxPredictMsec = 1000

// String describes p for documentation.
func (p *Prediction) String() string {
	dt := "the caller's elapsed time"
	if p.Clock != "" {
		dt = "(new − base " + p.Clock + ")"
	}
	var s string
	var when []string
	if p.Rate == "" {
		s = fmt.Sprintf("base + %d × %s / 1000 up to %d", p.Accel, dt, p.Max)
		when = append(when, "the base is not 0")
	} else {
		rate := "new " + p.Rate
		if p.Mean {
			rate = "mean of base and new " + p.Rate
		}
		s = "base + " + rate + " × " + dt + " / 1000"
	}
	if p.When != "" {
		when = append(when, fmt.Sprintf("the base's %s is %d", p.When, p.WhenValue))
	}
	if len(when) > 0 {
		s += ", when " + strings.Join(when, " and ")
	}
	return s
}

// ArrayField describes an array of 32-bit integers (int32 or uint32) in
// the player-state style: sent element by element under a change mask.
type ArrayField struct {
	Name string
	Bits int
}

// TableSpec lists the wire layout of a struct: its scalar fields in wire
// order (most often changed first), its arrays, and the fields
// deliberately left out (an entity's number, which travels separately).
// Every other field of the struct must be listed exactly once.
type TableSpec struct {
	Fields []Field
	Arrays []ArrayField
	Omit   []string
}

type field struct {
	name  string
	off   uintptr
	bits  int
	inc   int
	diff  int
	shift int
	pred  *prediction
}

// prediction is a Prediction resolved to field offsets.
type prediction struct {
	spec      *Prediction
	rate      uintptr
	clock     uintptr
	hasClock  bool
	when      uintptr
	hasWhen   bool
	whenValue uint32
	mean      bool
	accel     int64 // with no rate field: Prediction.Accel
	max       int64
}

type arrayField struct {
	name string
	off  uintptr
	n    int
	bits int
}

// Table is the delta codec of one struct type T whose fields are all 32
// bits wide. It is built once with NewTable (which uses reflection to find
// field offsets) and then codes values without reflection or allocation.
// A Table holds no state after it is built, so it is safe for concurrent
// use; what it codes is counted in the FieldStats of the Writer or Reader
// that carries the message (SetFieldStats).
type Table[T any] struct {
	name   string
	fields []field
	arrays []arrayField
	npred  int // how many fields have a prediction
	lcBits int // width of the last-changed count
	zero   T
	key    statsKey // its address names the table in a FieldStats
}

// NewTable builds the codec for T from spec. Fields of nested structs are
// named by dotted paths ("Pos.Base.X"); Omit may name a whole nested
// struct. It checks that T is a struct, that every named field exists once
// with a 32-bit type matching its Bits (float32 for 0, int32 or uint32
// otherwise), and that every leaf field of T is listed, in Fields, Arrays
// or Omit, exactly once.
func NewTable[T any](name string, spec TableSpec) (*Table[T], error) {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("msg: table %s: %v is not a struct", name, typ)
	}
	if len(spec.Arrays) > MaxArrays {
		return nil, fmt.Errorf("msg: table %s: %d arrays, max %d", name, len(spec.Arrays), MaxArrays)
	}
	if len(spec.Fields) > MaxTableFields {
		return nil, fmt.Errorf("msg: table %s: %d fields, max %d", name, len(spec.Fields), MaxTableFields)
	}
	t := &Table[T]{name: name}
	leaves := map[string]reflect.StructField{}
	var order []string
	flatten(typ, "", 0, leaves, &order)
	seen := map[string]bool{}
	use := func(n string) (reflect.StructField, error) {
		if seen[n] {
			return reflect.StructField{}, fmt.Errorf("msg: table %s: field %s listed twice", name, n)
		}
		seen[n] = true
		sf, ok := leaves[n]
		if !ok {
			return sf, fmt.Errorf("msg: table %s: %v has no field %s", name, typ, n)
		}
		return sf, nil
	}
	for _, f := range spec.Fields {
		sf, err := use(f.Name)
		if err != nil {
			return nil, err
		}
		k := sf.Type.Kind()
		switch {
		case f.Bits == 0 && k == reflect.Float32:
		case f.Bits != 0 && width(f.Bits) != 0 && (k == reflect.Int32 || k == reflect.Uint32):
		default:
			return nil, fmt.Errorf("msg: table %s: field %s of type %v cannot have %d bits", name, f.Name, sf.Type, f.Bits)
		}
		if f.Inc < 0 || f.Inc > 0 && (f.Bits == 0 || f.Inc >= width(f.Bits)) {
			return nil, fmt.Errorf("msg: table %s: field %s: increment of %d bits with %d bits (want 1..%d, integers only)", name, f.Name, f.Inc, f.Bits, width(f.Bits)-1)
		}
		if f.Diff < 0 || f.Diff > 0 && (f.Bits == 0 || f.Diff >= width(f.Bits)) {
			return nil, fmt.Errorf("msg: table %s: field %s: residual of %d bits with %d bits (want 1..%d, integers only)", name, f.Name, f.Diff, f.Bits, width(f.Bits)-1)
		}
		if f.Shift < 0 || f.Shift > 0 && (f.Bits <= 0 || f.Shift >= f.Bits || f.Inc > 0 || f.Predict != nil || f.Diff >= f.Bits-f.Shift) {
			return nil, fmt.Errorf("msg: table %s: field %s: shift of %d bits with %d bits (want 1..%d, unsigned integers only, no increment or prediction, a residual narrower than what is left)", name, f.Name, f.Shift, f.Bits, f.Bits-1)
		}
		t.fields = append(t.fields, field{name: f.Name, off: sf.Offset, bits: f.Bits, inc: f.Inc, diff: f.Diff, shift: f.Shift})
	}
	for _, a := range spec.Arrays {
		sf, err := use(a.Name)
		if err != nil {
			return nil, err
		}
		ek := reflect.Invalid
		if sf.Type.Kind() == reflect.Array {
			ek = sf.Type.Elem().Kind()
		}
		if (ek != reflect.Int32 && ek != reflect.Uint32) || sf.Type.Len() > MaxArrayLen || sf.Type.Len() == 0 || width(a.Bits) == 0 {
			return nil, fmt.Errorf("msg: table %s: array %s of type %v cannot have %d bits (want [1..%d]int32 or uint32)", name, a.Name, sf.Type, a.Bits, MaxArrayLen)
		}
		t.arrays = append(t.arrays, arrayField{name: a.Name, off: sf.Offset, n: sf.Type.Len(), bits: a.Bits})
	}
	omitted := func(n string) bool {
		for _, o := range spec.Omit {
			if n == o || strings.HasPrefix(n, o+".") {
				return true
			}
		}
		return false
	}
	for _, n := range order {
		if !seen[n] && !omitted(n) {
			return nil, fmt.Errorf("msg: table %s: field %s of %v is in no list (add it to Fields, Arrays or Omit)", name, n, typ)
		}
	}
	t.key.n = len(t.fields) + len(t.arrays)
	for i, f := range spec.Fields {
		if f.Predict == nil {
			continue
		}
		p, err := t.resolvePrediction(i, f.Predict, leaves)
		if err != nil {
			return nil, err
		}
		t.fields[i].pred = p
		t.npred++
	}
	t.lcBits = bits.Len(uint(len(t.fields)))
	if t.lcBits == 0 {
		t.lcBits = 1
	}
	return t, nil
}

// resolvePrediction checks field i's Prediction against the table and
// finds its fields' offsets: Rate and Clock must be integer fields
// before field i in wire order, When an integer field of the struct; a
// prediction by Accel needs a signed field and no Rate or Mean.
func (t *Table[T]) resolvePrediction(i int, p *Prediction, leaves map[string]reflect.StructField) (*prediction, error) {
	f := t.fields[i]
	if f.bits == 0 {
		return nil, fmt.Errorf("msg: table %s: field %s is a float and cannot be predicted", t.name, f.name)
	}
	before := func(name, role string) (uintptr, error) {
		for _, g := range t.fields[:i] {
			if g.name == name && g.bits != 0 {
				return g.off, nil
			}
		}
		return 0, fmt.Errorf("msg: table %s: prediction of %s: %s %q is not an integer field before it in wire order", t.name, f.name, role, name)
	}
	r := &prediction{spec: p, mean: p.Mean, whenValue: p.WhenValue}
	var err error
	switch {
	case p.Rate == "" && (p.Accel == 0 || p.Mean || f.bits > 0):
		return nil, fmt.Errorf("msg: table %s: prediction of %s: no rate, and not a signed field under a nonzero Accel without Mean", t.name, f.name)
	case p.Rate == "":
		r.accel, r.max = int64(p.Accel), int64(p.Max)
	case p.Accel != 0:
		return nil, fmt.Errorf("msg: table %s: prediction of %s: both a rate and an acceleration", t.name, f.name)
	default:
		if r.rate, err = before(p.Rate, "rate"); err != nil {
			return nil, err
		}
	}
	if p.Clock != "" {
		if r.clock, err = before(p.Clock, "clock"); err != nil {
			return nil, err
		}
		r.hasClock = true
	}
	if p.When != "" {
		sf, ok := leaves[p.When]
		if !ok || (sf.Type.Kind() != reflect.Int32 && sf.Type.Kind() != reflect.Uint32) {
			return nil, fmt.Errorf("msg: table %s: prediction of %s: condition %q is not an integer field", t.name, f.name, p.When)
		}
		r.when, r.hasWhen = sf.Offset, true
	}
	return r, nil
}

// LastChangedBits is the width of the last-changed count in this table's
// deltas: enough bits for the number of scalar fields.
func (t *Table[T]) LastChangedBits() int { return t.lcBits }

// flatten lists the leaf fields of struct type typ under their dotted
// names ("Pos.Base.X"), with offsets from the start of the outermost
// struct. Nested structs are walked; everything else is a leaf.
func flatten(typ reflect.Type, prefix string, base uintptr, leaves map[string]reflect.StructField, order *[]string) {
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		sf.Offset += base
		name := prefix + sf.Name
		if sf.Type.Kind() == reflect.Struct {
			flatten(sf.Type, name+".", sf.Offset, leaves, order)
			continue
		}
		leaves[name] = sf
		*order = append(*order, name)
	}
}

// MustTable is NewTable for tables declared at package level.
func MustTable[T any](name string, spec TableSpec) *Table[T] {
	t, err := NewTable[T](name, spec)
	if err != nil {
		panic(err)
	}
	return t
}

// Name returns the table's name.
func (t *Table[T]) Name() string { return t.name }

// Fields returns the table's scalar fields in wire order, as its
// TableSpec listed them: name, width and increment width. With a
// Reader's field trace (SetFieldTrace) it lets a tool lay a delta out
// field by field, as the packet inspector does.
func (t *Table[T]) Fields() []Field {
	out := make([]Field, len(t.fields))
	for i, f := range t.fields {
		out[i] = Field{Name: f.name, Bits: f.bits, Inc: f.inc, Diff: f.diff, Shift: f.shift}
		if f.pred != nil {
			out[i].Predict = f.pred.spec
		}
	}
	return out
}

// Arrays returns the table's array fields in wire order, after the
// scalar fields, as its TableSpec listed them: name and element width.
func (t *Table[T]) Arrays() []ArrayField {
	out := make([]ArrayField, len(t.arrays))
	for i, a := range t.arrays {
		out[i] = ArrayField{Name: a.name, Bits: a.bits}
	}
	return out
}

// NumFields returns the number of scalar fields.
func (t *Table[T]) NumFields() int { return len(t.fields) }

func (t *Table[T]) ptr(v *T, off uintptr) *uint32 {
	return (*uint32)(unsafe.Add(unsafe.Pointer(v), off))
}

func (t *Table[T]) orZero(v *T) *T {
	if v == nil {
		return &t.zero
	}
	return v
}

// lastChanged returns one past the index of the last scalar field that
// differs between from and to (0 if none differ).
func (t *Table[T]) lastChanged(from, to *T) int {
	for i := len(t.fields) - 1; i >= 0; i-- {
		off := t.fields[i].off
		if *t.ptr(from, off) != *t.ptr(to, off) {
			return i + 1
		}
	}
	return 0
}

// expect returns the value field i is expected to have in to: its
// prediction, or the base's value.
func (t *Table[T]) expect(i int, from, to *T, ctx int32) uint32 {
	f := &t.fields[i]
	base := *t.ptr(from, f.off)
	p := f.pred
	if p == nil || p.hasWhen && *t.ptr(from, p.when) != p.whenValue {
		return base
	}
	dt := int64(ctx)
	if p.hasClock {
		dt = int64(int32(*t.ptr(to, p.clock) - *t.ptr(from, p.clock)))
	}
	if dt <= 0 || dt > MaxPredictMsec {
		return base
	}
	if p.accel != 0 {
		v := int64(int32(base))
		if v == 0 {
			return base
		}
		v += p.accel * dt / 1000
		if p.max != 0 && v > p.max {
			v = p.max
		}
		return uint32(int32(v))
	}
	rate := int64(int32(*t.ptr(to, p.rate)))
	if p.mean {
		rate = (int64(int32(*t.ptr(from, p.rate))) + rate) / 2
	}
	n := rate * dt
	if n >= 0 {
		n = (n + 500) / 1000
	} else {
		n = -((-n + 500) / 1000)
	}
	return base + uint32(int32(n))
}

// lastUnexpected returns one past the index of the last scalar field of
// to that differs from its expected value (0 if none does).
func (t *Table[T]) lastUnexpected(from, to *T, ctx int32) int {
	if t.npred == 0 {
		return t.lastChanged(from, to)
	}
	for i := len(t.fields) - 1; i >= 0; i-- {
		if *t.ptr(to, t.fields[i].off) != t.expect(i, from, to, ctx) {
			return i + 1
		}
	}
	return 0
}

// fillExpected sets the scalar fields of to from index lc on to their
// expected values: the reader's side of a delta whose last-changed count
// is lc. Fields without a predictor already hold the base's value.
func (t *Table[T]) fillExpected(from, to *T, ctx int32, lc int) {
	if t.npred == 0 {
		return
	}
	for i := lc; i < len(t.fields); i++ {
		if t.fields[i].pred != nil {
			*t.ptr(to, t.fields[i].off) = t.expect(i, from, to, ctx)
		}
	}
}

// Truncate reduces every integer field of v to what its width carries on
// the wire (sign-extended for signed fields; the low bits of a Shift field
// cleared), as a receiver would decode it.
func (t *Table[T]) Truncate(v *T) {
	for _, f := range t.fields {
		if f.bits != 0 {
			p := t.ptr(v, f.off)
			*p = carried(f, *p)
		}
	}
	for _, a := range t.arrays {
		for j := 0; j < a.n; j++ {
			p := t.ptr(v, a.off+uintptr(4*j))
			*p = truncate(*p, a.bits)
		}
	}
}

// carried returns the integer field f's value v as the wire carries it.
func carried(f field, v uint32) uint32 {
	return truncate(v, f.bits) &^ (1<<f.shift - 1)
}

// Fits reports the first field of v whose value its width (or shift)
// cannot carry, or "" if every value fits.
func (t *Table[T]) Fits(v *T) string {
	for _, f := range t.fields {
		if f.bits != 0 {
			if p := *t.ptr(v, f.off); carried(f, p) != p {
				return f.name
			}
		}
	}
	for _, a := range t.arrays {
		for j := 0; j < a.n; j++ {
			if p := *t.ptr(v, a.off+uintptr(4*j)); truncate(p, a.bits) != p {
				return fmt.Sprintf("%s[%d]", a.name, j)
			}
		}
	}
	return ""
}

// truncate keeps the low |bits| bits of v, sign-extending for bits < 0.
func truncate(v uint32, bits int) uint32 {
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

// floatInt reports whether the float with bit pattern v is an integer in
// the 13-bit tier, and its biased value. Negative zero is excluded so that
// it round-trips bit for bit (Quake III sent it as +0).
func floatInt(v uint32) (uint32, bool) {
	f := math.Float32frombits(v)
	if !(f >= -FloatIntBias && f < FloatIntBias) {
		return 0, false // also NaN
	}
	i := int32(f)
	if math.Float32bits(float32(i)) != v {
		return 0, false
	}
	return uint32(i + FloatIntBias), true
}

// writeInt writes a changed integer field's value v; old is its
// expected value (see Field.Inc and Field.Diff).
func writeInt(w *Writer, f field, old, v uint32) {
	if f.shift > 0 {
		f, old, v = shifted(f), old>>f.shift, v>>f.shift
	}
	if f.inc > 0 {
		if d := v - old; d < 1<<f.inc {
			w.WriteBits(1, 1)
			w.WriteBits(d, f.inc)
			return
		}
		w.WriteBits(0, 1)
	}
	if f.diff > 0 {
		if d, ok := residual(f, old, v); ok {
			w.WriteBits(1, 1)
			w.WriteRawBits(d, f.diff)
			return
		}
		w.WriteBits(0, 1)
	}
	w.WriteBits(v, f.bits)
}

// residual returns v − old, taken modulo the field's width and
// sign-extended, and whether it fits the field's Diff bits (see
// Field.Diff).
func residual(f field, old, v uint32) (uint32, bool) {
	d := int32(truncate(v-old, -width(f.bits)))
	lim := int32(1) << (f.diff - 1)
	return uint32(d), d >= -lim && d < lim
}

// shifted returns f as its Shift form travels: Bits−Shift bits wide.
func shifted(f field) field {
	f.bits -= f.shift
	f.shift = 0
	return f
}

// readInt reads what writeInt wrote; old is the field's expected value.
func readInt(r *Reader, f field, old uint32) uint32 {
	if f.shift > 0 {
		return readInt(r, shifted(f), old>>f.shift) << f.shift
	}
	if f.inc > 0 && r.ReadBits(1) == 1 {
		return old + r.ReadBits(f.inc)
	}
	if f.diff > 0 && r.ReadBits(1) == 1 {
		d := truncate(r.ReadRawBits(f.diff), -f.diff)
		return truncate(old+d, f.bits)
	}
	return r.ReadBits(f.bits)
}

func (t *Table[T]) writeFloat(w *Writer, v uint32) {
	if i, ok := floatInt(v); ok {
		w.WriteBits(0, 1)
		w.WriteBits(i, FloatIntBits)
		return
	}
	w.WriteBits(1, 1)
	w.WriteBits(v, 32)
}

func (t *Table[T]) readFloat(r *Reader) uint32 {
	if r.ReadBits(1) == 0 {
		i := int32(r.ReadBits(FloatIntBits)) - FloatIntBias
		return math.Float32bits(float32(i))
	}
	return r.ReadBits(32)
}

// WriteDeltaEntity writes the entity-style delta from from to to under
// entity number (Quake III's MSG_WriteDeltaEntity), with no predictor
// context (ctx 0), as a gamestate's baselines are. A nil from means the
// zero value (pass a baseline to delta from one); a nil to writes the
// entity as removed. When to equals from, nothing is written unless force
// is set. Layout: the number in EntityNumBits, then WriteEntity's.
func (t *Table[T]) WriteDeltaEntity(w *Writer, from, to *T, number uint32, force bool) {
	if to != nil && !force && t.lastChanged(t.orZero(from), to) == 0 {
		return
	}
	w.WriteBits(number, EntityNumBits)
	t.WriteEntity(w, from, to, 0)
}

// WriteEntity writes the entity-style delta from from to to without the
// entity number, which the caller has coded: a snapshot's entity list
// codes numbers as gaps. A nil from means the zero value; a nil to
// writes the entity as removed. ctx is passed to the table's predictors
// (a snapshot passes its time since its base, 0 for a baseline).
//
// Layout: a removed bit; if not removed, a "has changes" bit (0: every
// field has its expected value); if set, the last-changed count
// (LastChangedBits wide, one past the last field that differs from its
// expected value) and for each field up to it a changed bit and, if
// changed, the value: integers as a zero bit (value 0) or a one bit and
// the value in its Inc or Diff form or its width, floats as a zero bit
// (value 0), or a one bit then a tier bit: 0 and a 13-bit biased
// integer, 1 and 32 raw bits.
func (t *Table[T]) WriteEntity(w *Writer, from, to *T, ctx int32) {
	if to == nil {
		w.WriteBits(1, 1)
		return
	}
	from = t.orZero(from)
	w.WriteBits(0, 1)
	lc := t.lastUnexpected(from, to, ctx)
	if lc == 0 {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	w.WriteRawBits(uint32(lc), t.lcBits)
	sent := w.stats.counts(&t.key, false)
	for i, f := range t.fields[:lc] {
		v := *t.ptr(to, f.off)
		e := t.expect(i, from, to, ctx)
		if v == e {
			w.WriteBits(0, 1)
			continue
		}
		start := w.BitLen()
		w.WriteBits(1, 1)
		switch {
		case v == 0:
			w.WriteBits(0, 1)
		case f.bits == 0:
			w.WriteBits(1, 1)
			t.writeFloat(w, v)
		default:
			w.WriteBits(1, 1)
			writeInt(w, f, e, v)
		}
		if sent != nil {
			sent[i].add(w.BitLen() - start)
		}
	}
}

// ReadDeltaEntity reads what WriteDeltaEntity wrote, after the caller has
// read the entity number (EntityNumBits) to decide which from to use:
// ReadEntity with ctx 0.
func (t *Table[T]) ReadDeltaEntity(r *Reader, from, to *T) (removed bool) {
	return t.ReadEntity(r, from, to, 0)
}

// ReadEntity reads what WriteEntity wrote with the same ctx. It sets *to
// and reports whether the entity was removed, in which case *to is the
// zero value. A nil from means the zero value. to may alias from only
// when the table has no predictors. Malformed input sets r's error.
func (t *Table[T]) ReadEntity(r *Reader, from, to *T, ctx int32) (removed bool) {
	from = t.orZero(from)
	if from == to && t.npred > 0 {
		r.fail(fmt.Errorf("msg: %s delta: base and result are the same value in a table with predictors", t.name))
		return false
	}
	if r.ReadBits(1) == 1 {
		*to = t.zero
		if r.trace != nil {
			r.traceStart(t.name, true)
		}
		return true
	}
	if from != to {
		*to = *from
	}
	if r.trace != nil {
		r.traceStart(t.name, false)
	}
	if r.ReadBits(1) == 0 {
		t.fillExpected(from, to, ctx, 0)
		return false
	}
	lc := int(r.ReadRawBits(t.lcBits))
	if lc > len(t.fields) {
		r.fail(fmt.Errorf("msg: %s delta: last-changed %d beyond %d fields", t.name, lc, len(t.fields)))
		return false
	}
	recv := r.stats.counts(&t.key, true)
	for i, f := range t.fields[:lc] {
		e := t.expect(i, from, to, ctx)
		if r.ReadBits(1) == 0 {
			*t.ptr(to, f.off) = e
			continue
		}
		start := r.BitPos()
		var v uint32
		if r.ReadBits(1) == 1 {
			if f.bits == 0 {
				v = t.readFloat(r)
			} else {
				v = readInt(r, f, e)
			}
		}
		*t.ptr(to, f.off) = v
		if recv != nil {
			recv[i].add(r.BitPos() - start + 1)
		}
		if r.trace != nil {
			r.traceField(t.name, f.name, -1, f.bits, v)
		}
	}
	t.fillExpected(from, to, ctx, lc)
	return false
}

// WriteDeltaPlayerState writes the player-state-style delta from from to
// to (Quake III's MSG_WriteDeltaPlayerstate). A nil from means the zero
// value.
//
// Layout: the last-changed count (LastChangedBits wide, one past the
// last field that differs from its expected value); for each field up to
// it a changed bit and, if changed, the value: integers in their Inc or
// Diff form or their width with no zero bit, floats as a tier bit then 13 or 32 bits. Then the arrays: one
// bit saying whether any changed; if so, per array a bit, and for a changed
// array its change mask (one bit per element) and each changed element.
func (t *Table[T]) WriteDeltaPlayerState(w *Writer, from, to *T) {
	from = t.orZero(from)
	lc := t.lastUnexpected(from, to, 0)
	w.WriteRawBits(uint32(lc), t.lcBits)
	sent := w.stats.counts(&t.key, false)
	for i, f := range t.fields[:lc] {
		v := *t.ptr(to, f.off)
		e := t.expect(i, from, to, 0)
		if v == e {
			w.WriteBits(0, 1)
			continue
		}
		start := w.BitLen()
		w.WriteBits(1, 1)
		if f.bits == 0 {
			t.writeFloat(w, v)
		} else {
			writeInt(w, f, e, v)
		}
		if sent != nil {
			sent[i].add(w.BitLen() - start)
		}
	}
	if len(t.arrays) == 0 {
		return
	}
	var masks [MaxArrays]uint32
	changed := false
	for k, a := range t.arrays {
		for j := 0; j < a.n; j++ {
			o := a.off + uintptr(4*j)
			if *t.ptr(to, o) != *t.ptr(from, o) {
				masks[k] |= 1 << j
				changed = true
			}
		}
	}
	if !changed {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	for k, a := range t.arrays {
		if masks[k] == 0 {
			w.WriteBits(0, 1)
			continue
		}
		start := w.BitLen()
		w.WriteBits(1, 1)
		w.WriteBits(masks[k], a.n)
		for j := 0; j < a.n; j++ {
			if masks[k]&(1<<j) != 0 {
				w.WriteBits(*t.ptr(to, a.off+uintptr(4*j)), a.bits)
			}
		}
		if sent != nil {
			sent[len(t.fields)+k].add(w.BitLen() - start)
		}
	}
}

// ReadDeltaPlayerState reads what WriteDeltaPlayerState wrote into *to
// (which may alias from). A nil from means the zero value.
func (t *Table[T]) ReadDeltaPlayerState(r *Reader, from, to *T) {
	from = t.orZero(from)
	if from == to && t.npred > 0 {
		r.fail(fmt.Errorf("msg: %s delta: base and result are the same value in a table with predictors", t.name))
		return
	}
	if from != to {
		*to = *from
	}
	if r.trace != nil {
		r.traceStart(t.name, false)
	}
	lc := int(r.ReadRawBits(t.lcBits))
	if lc > len(t.fields) {
		r.fail(fmt.Errorf("msg: %s delta: last-changed %d beyond %d fields", t.name, lc, len(t.fields)))
		return
	}
	recv := r.stats.counts(&t.key, true)
	for i, f := range t.fields[:lc] {
		e := t.expect(i, from, to, 0)
		if r.ReadBits(1) == 0 {
			*t.ptr(to, f.off) = e
			continue
		}
		start := r.BitPos()
		var v uint32
		if f.bits == 0 {
			v = t.readFloat(r)
		} else {
			v = readInt(r, f, e)
		}
		*t.ptr(to, f.off) = v
		if recv != nil {
			recv[i].add(r.BitPos() - start + 1)
		}
		if r.trace != nil {
			r.traceField(t.name, f.name, -1, f.bits, v)
		}
	}
	t.fillExpected(from, to, 0, lc)
	if len(t.arrays) == 0 || r.ReadBits(1) == 0 {
		return
	}
	for k, a := range t.arrays {
		if r.ReadBits(1) == 0 {
			continue
		}
		start := r.BitPos()
		mask := r.ReadBits(a.n)
		for j := 0; j < a.n; j++ {
			if mask&(1<<j) != 0 {
				v := r.ReadBits(a.bits)
				*t.ptr(to, a.off+uintptr(4*j)) = v
				if r.trace != nil {
					r.traceField(t.name, a.name, j, a.bits, v)
				}
			}
		}
		if recv != nil {
			recv[len(t.fields)+k].add(r.BitPos() - start + 1)
		}
	}
}

// WriteDeltaUsercmd writes the usercmd-style delta from from to to, keyed
// by key (Quake III's MSG_WriteDeltaUsercmdKey). The table's first field is
// the command's server time; it needs 32 bits, and an increment width
// (Field.Inc) or a residual width (Field.Diff), or both, to go short. A
// nil from means the zero value.
//
// Layout: the server time in its Field.Inc and Field.Diff forms (see
// Field; the time is always sent, an increment of 0 included); then one
// bit saying whether any other field changed; if so, each other field as
// a changed bit and, if changed, its value XOR (key ^ serverTime) in the
// field's width, as raw bits (a keyed value has no common bytes for
// Huffman coding to shorten). A field with Diff goes, when its residual
// (new − base, modulo its width) fits, as a one bit and the residual XOR
// the key in Diff raw bits, else a zero bit and the full form. Floats go
// as 32 bits.
func (t *Table[T]) WriteDeltaUsercmd(w *Writer, key uint32, from, to *T) {
	t.writeDeltaUsercmd(w, key, from, to, true)
}

// WriteDeltaUsercmdTimeKnown writes what WriteDeltaUsercmd writes except
// the server time, which the reader knows already (it came before, in a
// form of its own): ReadDeltaUsercmdTimeKnown reads it.
func (t *Table[T]) WriteDeltaUsercmdTimeKnown(w *Writer, key uint32, from, to *T) {
	t.writeDeltaUsercmd(w, key, from, to, false)
}

func (t *Table[T]) writeDeltaUsercmd(w *Writer, key uint32, from, to *T, withTime bool) {
	from = t.orZero(from)
	if len(t.fields) == 0 {
		w.fail(fmt.Errorf("msg: %s: usercmd table has no server time field", t.name))
		return
	}
	tf := t.fields[0]
	tt := *t.ptr(to, tf.off)
	if withTime {
		writeInt(w, tf, *t.ptr(from, tf.off), tt)
	}
	if t.lastChanged(from, to) <= 1 {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	key ^= tt
	sent := w.stats.counts(&t.key, false)
	for i, f := range t.fields[1:] {
		v := *t.ptr(to, f.off)
		if v == *t.ptr(from, f.off) {
			w.WriteBits(0, 1)
			continue
		}
		start := w.BitLen()
		w.WriteBits(1, 1)
		if f.diff > 0 {
			if d, ok := residual(f, *t.ptr(from, f.off), v); ok {
				w.WriteRawBits(1, 1)
				w.WriteRawBits(d^key, f.diff)
				if sent != nil {
					sent[i+1].add(w.BitLen() - start)
				}
				continue
			}
			w.WriteRawBits(0, 1)
		}
		n := width(f.bits)
		if f.bits == 0 {
			n = 32
		}
		w.WriteRawBits(v^key, n)
		if sent != nil {
			sent[i+1].add(w.BitLen() - start)
		}
	}
}

// ReadDeltaUsercmd reads what WriteDeltaUsercmd wrote into *to (which may
// alias from), with the same key.
func (t *Table[T]) ReadDeltaUsercmd(r *Reader, key uint32, from, to *T) {
	t.readDeltaUsercmd(r, key, from, to, 0, true)
}

// ReadDeltaUsercmdTimeKnown reads what WriteDeltaUsercmdTimeKnown wrote
// into *to (which may alias from), with the same key, the command's
// server time being serverTime.
func (t *Table[T]) ReadDeltaUsercmdTimeKnown(r *Reader, key uint32, from, to *T, serverTime uint32) {
	t.readDeltaUsercmd(r, key, from, to, serverTime, false)
}

func (t *Table[T]) readDeltaUsercmd(r *Reader, key uint32, from, to *T, tt uint32, withTime bool) {
	from = t.orZero(from)
	if len(t.fields) == 0 {
		r.fail(fmt.Errorf("msg: %s: usercmd table has no server time field", t.name))
		return
	}
	tf := t.fields[0]
	if withTime {
		tt = readInt(r, tf, *t.ptr(from, tf.off))
	}
	if from != to {
		*to = *from
	}
	*t.ptr(to, tf.off) = tt
	if r.trace != nil {
		r.traceStart(t.name, false)
		r.traceField(t.name, tf.name, -1, tf.bits, tt)
	}
	if r.ReadBits(1) == 0 {
		return
	}
	key ^= tt
	recv := r.stats.counts(&t.key, true)
	for i, f := range t.fields[1:] {
		if r.ReadBits(1) == 0 {
			continue
		}
		start := r.BitPos()
		bits := f.bits
		if bits == 0 {
			bits = 32
		}
		var v uint32
		if f.diff > 0 && r.ReadRawBits(1) == 1 {
			d := truncate(r.ReadRawBits(f.diff)^key, -f.diff)
			v = truncate(*t.ptr(to, f.off)+d, bits)
		} else {
			v = truncate(r.ReadRawBits(width(bits))^key, bits)
		}
		*t.ptr(to, f.off) = v
		if recv != nil {
			recv[i+1].add(r.BitPos() - start + 1)
		}
		if r.trace != nil {
			r.traceField(t.name, f.name, -1, f.bits, v)
		}
	}
}
