package msg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// testEntity exercises every scalar field kind: floats, unsigned and signed
// integers of odd and full widths, 1-bit flags both ways.
type testEntity struct {
	Number  uint32
	X, Y    float32
	Angle   float32
	Event   int32
	Flags   uint32
	Time    int32
	Model   uint32
	Big     uint32
	Bit     uint32
	SignBit int32
	Odd     int32
}

var entityTable = MustTable[testEntity]("testEntity", TableSpec{
	Fields: []Field{
		{Name: "X", Bits: 0, Inc: 0}, {Name: "Y", Bits: 0, Inc: 0}, {Name: "Event", Bits: -10, Inc: 0}, {Name: "Time", Bits: -32, Inc: 0}, {Name: "Flags", Bits: 19, Inc: 0},
		{Name: "Angle", Bits: 0, Inc: 0}, {Name: "Model", Bits: 8, Inc: 0}, {Name: "Big", Bits: 32, Inc: 0}, {Name: "Bit", Bits: 1, Inc: 0}, {Name: "SignBit", Bits: -1, Inc: 0}, {Name: "Odd", Bits: -13, Inc: 0},
	},
	Omit: []string{"Number"},
})

type testPlayer struct {
	CommandTime int32
	X, Y        float32
	VelX, VelY  float32
	Weapon      uint32
	WeaponTime  int32
	Stats       [16]int32
	Ammo        [8]uint32
	Powerups    [32]int32
}

var playerTable = MustTable[testPlayer]("testPlayer", TableSpec{
	Fields: []Field{
		{Name: "CommandTime", Bits: 32, Inc: 0}, {Name: "X", Bits: 0, Inc: 0}, {Name: "Y", Bits: 0, Inc: 0}, {Name: "VelX", Bits: 0, Inc: 0}, {Name: "VelY", Bits: 0, Inc: 0},
		{Name: "WeaponTime", Bits: -16, Inc: 0}, {Name: "Weapon", Bits: 5, Inc: 0},
	},
	Arrays: []ArrayField{{"Stats", -16}, {"Ammo", 10}, {"Powerups", 32}},
})

type testCmd struct {
	ServerTime uint32
	Angle      int32
	Forward    int32
	Right      int32
	Buttons    uint32
	Weapon     uint32
	Aim        float32
}

var cmdTable = MustTable[testCmd]("testCmd", TableSpec{
	Fields: []Field{
		{Name: "ServerTime", Bits: 32, Inc: 8}, {Name: "Angle", Bits: 16, Inc: 0}, {Name: "Forward", Bits: -8, Inc: 0}, {Name: "Right", Bits: -8, Inc: 0},
		{Name: "Buttons", Bits: 16, Inc: 0}, {Name: "Weapon", Bits: 8, Inc: 0}, {Name: "Aim", Bits: 0, Inc: 0},
	},
})

func words[T any](v *T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(v)), unsafe.Sizeof(*v)/4)
}

// interesting returns a value that is likely to hit an edge of some field
// kind: zero, small or large integers, negatives, values overflowing common
// widths, integral floats at the 13-bit tier's edges, negative zero, NaN
// and infinities, or plain random bits.
func interesting(rng *rand.Rand) uint32 {
	f := math.Float32bits
	switch rng.IntN(16) {
	case 0, 1:
		return 0
	case 2:
		return uint32(rng.IntN(16))
	case 3:
		return uint32(-rng.IntN(300))
	case 4:
		return 1 << rng.IntN(32)
	case 5:
		return 1<<rng.IntN(32) - 1
	case 6:
		return f(float32(rng.IntN(2*FloatIntBias+4) - FloatIntBias - 2))
	case 7:
		return f(float32(-FloatIntBias))
	case 8:
		return f(float32(FloatIntBias - 1))
	case 9:
		return f(float32(FloatIntBias))
	case 10:
		return 0x80000000 // -0.0
	case 11:
		return 0x7f800001 | rng.Uint32()&0x807fffff // NaN, any payload
	case 12:
		return f(float32(math.Inf(1 - 2*rng.IntN(2))))
	case 13:
		return f(float32(rng.NormFloat64() * 1000))
	default:
		return rng.Uint32()
	}
}

func randomize[T any](rng *rand.Rand, v *T, changeProb float64) {
	for i, w := range words(v) {
		if rng.Float64() < changeProb {
			words(v)[i] = interesting(rng)
		} else {
			words(v)[i] = w
		}
	}
}

// codec bundles one coding style for the generic round-trip checks.
type codec[T any] struct {
	name  string
	table *Table[T]
	write func(w *Writer, from, to *T)
	read  func(r *Reader, from, to *T)
	// norm is what the receiver ends up with for a sent value.
	norm func(v *T)
}

func entityCodec() codec[testEntity] {
	return codec[testEntity]{
		name:  "entity",
		table: entityTable,
		write: func(w *Writer, from, to *testEntity) {
			entityTable.WriteDeltaEntity(w, from, to, to.Number, true)
		},
		read: func(r *Reader, from, to *testEntity) {
			n := r.ReadBits(EntityNumBits)
			entityTable.ReadDeltaEntity(r, from, to)
			to.Number = n
		},
		norm: func(v *testEntity) { entityTable.Truncate(v); v.Number &= MaxEntities - 1 },
	}
}

func playerCodec() codec[testPlayer] {
	return codec[testPlayer]{
		name: "playerstate", table: playerTable,
		write: playerTable.WriteDeltaPlayerState,
		read:  playerTable.ReadDeltaPlayerState,
		norm:  playerTable.Truncate,
	}
}

func cmdCodec(key uint32) codec[testCmd] {
	return codec[testCmd]{
		name: "usercmd", table: cmdTable,
		write: func(w *Writer, from, to *testCmd) { cmdTable.WriteDeltaUsercmd(w, key, from, to) },
		read:  func(r *Reader, from, to *testCmd) { cmdTable.ReadDeltaUsercmd(r, key, from, to) },
		norm:  cmdTable.Truncate,
	}
}

func roundTrip[T any](t *testing.T, c codec[T], seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	buf := make([]byte, 4096)
	for iter := 0; iter < 3000; iter++ {
		var from, to T
		randomize(rng, &from, 1)
		// The sender's base is what the receiver has: values as decoded.
		c.norm(&from)
		to = from
		randomize(rng, &to, []float64{0, 0.05, 0.3, 1}[iter%4])
		fromp := &from
		if iter%7 == 0 {
			fromp = nil
		}
		w := NewWriter(buf, Huffman)
		c.write(w, fromp, &to)
		if w.Err() != nil {
			t.Fatalf("%s iter %d: write: %v", c.name, iter, w.Err())
		}
		var got T
		r := NewReader(w.Bytes(), Huffman)
		c.read(r, fromp, &got)
		if r.Err() != nil {
			t.Fatalf("%s iter %d: read: %v", c.name, iter, r.Err())
		}
		want := to
		c.norm(&want)
		if fmt.Sprint(words(&got)) != fmt.Sprint(words(&want)) {
			t.Fatalf("%s iter %d:\n got %x\nwant %x\nfrom %x (nil=%v)", c.name, iter, words(&got), words(&want), words(&from), fromp == nil)
		}
		if r.RemainingBits() >= 8 {
			t.Fatalf("%s iter %d: %d bits unread", c.name, iter, r.RemainingBits())
		}
	}
}

func TestDeltaRoundTrip(t *testing.T) {
	t.Run("entity", func(t *testing.T) { roundTrip(t, entityCodec(), 1) })
	t.Run("playerstate", func(t *testing.T) { roundTrip(t, playerCodec(), 2) })
	t.Run("usercmd", func(t *testing.T) { roundTrip(t, cmdCodec(0xdeadbeef), 3) })
	t.Run("usercmd zero key", func(t *testing.T) { roundTrip(t, cmdCodec(0), 4) })
}

// In-range values arrive unchanged, bit for bit: NaN payloads, negative
// zero, infinities and every integer that fits its width.
func TestDeltaExactForValuesThatFit(t *testing.T) {
	to := testEntity{
		Number: 17, X: float32(math.Copysign(0, -1)), Y: math.Float32frombits(0x7fa00001),
		Angle: float32(math.Inf(-1)), Event: -512, Flags: 1<<19 - 1, Time: math.MinInt32,
		Model: 255, Big: math.MaxUint32, Bit: 1, SignBit: -1, Odd: -4096,
	}
	if f := entityTable.Fits(&to); f != "" {
		t.Fatalf("Fits reports %s", f)
	}
	w := NewWriter(make([]byte, 256), Huffman)
	entityTable.WriteDeltaEntity(w, nil, &to, to.Number, false)
	r := NewReader(w.Bytes(), Huffman)
	var got testEntity
	number := r.ReadBits(EntityNumBits)
	entityTable.ReadDeltaEntity(r, nil, &got)
	got.Number = number
	if number != 17 || fmt.Sprint(words(&got)) != fmt.Sprint(words(&to)) {
		t.Fatalf("got %x\nwant %x", words(&got), words(&to))
	}
}

// Overflowing values are defined: the wire carries the low |bits| bits,
// and the receiver sign-extends signed fields. Fits names the field.
func TestDeltaOverflowTruncates(t *testing.T) {
	cases := []struct {
		name  string
		set   func(*testEntity)
		field string
		want  func(*testEntity) bool
	}{
		{"unsigned 8 bits gets 300", func(e *testEntity) { e.Model = 300 }, "Model", func(e *testEntity) bool { return e.Model == 300&0xff }},
		{"unsigned to zero", func(e *testEntity) { e.Model = 256 }, "Model", func(e *testEntity) bool { return e.Model == 0 }},
		{"signed 10 bits gets 600", func(e *testEntity) { e.Event = 600 }, "Event", func(e *testEntity) bool { return e.Event == 600-1024 }},
		{"signed 10 bits gets -513", func(e *testEntity) { e.Event = -513 }, "Event", func(e *testEntity) bool { return e.Event == 511 }},
		{"signed 1 bit gets 1", func(e *testEntity) { e.SignBit = 1 }, "SignBit", func(e *testEntity) bool { return e.SignBit == -1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var to testEntity
			c.set(&to)
			if f := entityTable.Fits(&to); f != c.field {
				t.Fatalf("Fits = %q, want %q", f, c.field)
			}
			w := NewWriter(make([]byte, 64), Huffman)
			entityTable.WriteDeltaEntity(w, nil, &to, 1, false)
			r := NewReader(w.Bytes(), Huffman)
			r.ReadBits(EntityNumBits)
			var got testEntity
			entityTable.ReadDeltaEntity(r, nil, &got)
			if r.Err() != nil || !c.want(&got) {
				t.Fatalf("decoded %+v err %v", got, r.Err())
			}
		})
	}
}

func TestEntityDeltaFraming(t *testing.T) {
	base := testEntity{X: 10, Model: 3}
	same := base
	moved := base
	moved.X = 11
	cases := []struct {
		name        string
		from, to    *testEntity
		force       bool
		wantBits    int // exact bits for cases with no field data, else -1
		wantRemoved bool
	}{
		{"unchanged not forced writes nothing", &base, &same, false, 0, false},
		{"unchanged forced writes number and two bits", &base, &same, true, EntityNumBits + 2, false},
		{"removed writes number and one bit", &base, nil, false, EntityNumBits + 1, true},
		{"changed", &base, &moved, false, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWriter(make([]byte, 64), Huffman)
			entityTable.WriteDeltaEntity(w, c.from, c.to, 42, c.force)
			if c.wantBits == 0 {
				if w.BitLen() != 0 {
					t.Fatalf("wrote %d bits", w.BitLen())
				}
				return
			}
			r := NewReader(w.Bytes(), Huffman)
			if n := r.ReadBits(EntityNumBits); n != 42 {
				t.Fatalf("number %d", n)
			}
			got := testEntity{Model: 99}
			removed := entityTable.ReadDeltaEntity(r, c.from, &got)
			if removed != c.wantRemoved || r.Err() != nil {
				t.Fatalf("removed=%v err=%v", removed, r.Err())
			}
			if c.wantRemoved {
				if got != (testEntity{}) {
					t.Fatalf("removed entity not cleared: %+v", got)
				}
				return
			}
			if got != *c.to {
				t.Fatalf("got %+v want %+v", got, *c.to)
			}
		})
	}
}

func TestDeltaAliasing(t *testing.T) {
	from := testPlayer{CommandTime: 100, X: 5}
	from.Stats[3] = 7
	to := from
	to.CommandTime = 150
	to.Stats[3] = 8
	to.Ammo[7] = 9
	w := NewWriter(make([]byte, 256), Huffman)
	playerTable.WriteDeltaPlayerState(w, &from, &to)
	state := from
	playerTable.ReadDeltaPlayerState(NewReader(w.Bytes(), Huffman), &state, &state)
	if state != to {
		t.Fatalf("in-place decode %+v, want %+v", state, to)
	}
}

func TestDeltaRejectsBadLastChanged(t *testing.T) {
	w := NewWriter(make([]byte, 64), Huffman)
	w.WriteBits(0, 1)                                 // not removed
	w.WriteBits(1, 1)                                 // has changes
	w.WriteRawBits(15, entityTable.LastChangedBits()) // beyond the table's 11 fields
	var e testEntity
	r := NewReader(w.Bytes(), Huffman)
	entityTable.ReadDeltaEntity(r, nil, &e)
	if r.Err() == nil || !strings.Contains(r.Err().Error(), "last-changed 15") {
		t.Fatalf("err %v", r.Err())
	}
	// The player table's 7 fields fill its 3-bit count: no count is
	// beyond it, so only the entity table can show this error.
	if playerTable.LastChangedBits() != 3 {
		t.Fatalf("player table's last-changed count is %d bits, want 3", playerTable.LastChangedBits())
	}
}

func TestUsercmdTimeEncoding(t *testing.T) {
	cases := []struct {
		name     string
		from, to uint32
		short    bool // sent as an 8-bit increment
	}{
		{"small step", 1000, 1016, true},
		{"255 ms", 1000, 1255, true},
		{"256 ms", 1000, 1256, false},
		{"backwards", 1000, 999, false},
		{"wraps", math.MaxUint32 - 5, 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			from, to := testCmd{ServerTime: c.from}, testCmd{ServerTime: c.to}
			w := NewWriter(make([]byte, 64), Huffman)
			cmdTable.WriteDeltaUsercmd(w, 77, &from, &to)
			var got testCmd
			r := NewReader(w.Bytes(), Huffman)
			cmdTable.ReadDeltaUsercmd(r, 77, &from, &got)
			if got != to || r.Err() != nil {
				t.Fatalf("got %+v err %v", got, r.Err())
			}
			r = NewReader(w.Bytes(), Huffman)
			if short := r.ReadBits(1) == 1; short != c.short {
				t.Fatalf("short form %v, want %v", short, c.short)
			}
			if c.short {
				if d := r.ReadBits(8); d != c.to-c.from {
					t.Fatalf("increment %d, want %d", d, c.to-c.from)
				}
			} else if v := r.ReadBits(32); v != c.to {
				t.Fatalf("absolute time %d, want %d", v, c.to)
			}
		})
	}
}

// The keyed fields do not appear in clear on the wire: the same command
// coded under two keys gives different bytes, and a wrong key decodes to
// different values.
func TestUsercmdKeying(t *testing.T) {
	to := testCmd{ServerTime: 5000, Angle: 1234, Forward: 127, Buttons: 3}
	code := func(key uint32) []byte {
		w := NewWriter(make([]byte, 64), Huffman)
		cmdTable.WriteDeltaUsercmd(w, key, nil, &to)
		return append([]byte(nil), w.Bytes()...)
	}
	a, b := code(1), code(0x5555)
	if string(a) == string(b) {
		t.Fatal("key does not change the wire bytes")
	}
	var got testCmd
	cmdTable.ReadDeltaUsercmd(NewReader(a, Huffman), 0x5555, nil, &got)
	if got == to {
		t.Fatal("wrong key decoded the right command")
	}
}

func TestNestedStructFields(t *testing.T) {
	type vec struct{ X, Y int32 }
	type traj struct {
		Type       uint32
		Base, Delt vec
	}
	type ent struct {
		Number uint32
		Pos    traj
		Old    traj
		Event  int32
	}
	tbl, err := NewTable[ent]("nested", TableSpec{
		Fields: []Field{{Name: "Pos.Base.X", Bits: -20, Inc: 0}, {Name: "Pos.Base.Y", Bits: -20, Inc: 0}, {Name: "Event", Bits: 8, Inc: 0},
			{Name: "Pos.Type", Bits: 4, Inc: 0}, {Name: "Pos.Delt.X", Bits: -16, Inc: 0}, {Name: "Pos.Delt.Y", Bits: -16, Inc: 0}},
		Omit: []string{"Number", "Old"},
	})
	if err != nil {
		t.Fatal(err)
	}
	to := ent{Number: 4, Pos: traj{Type: 2, Base: vec{-5, 7}, Delt: vec{300, -300}}, Old: traj{Type: 9}, Event: 3}
	w := NewWriter(make([]byte, 64), Huffman)
	tbl.WriteDeltaEntity(w, nil, &to, 4, false)
	r := NewReader(w.Bytes(), Huffman)
	r.ReadBits(EntityNumBits)
	var got ent
	tbl.ReadDeltaEntity(r, nil, &got)
	want := to
	want.Number, want.Old = 0, traj{}
	if r.Err() != nil || got != want {
		t.Fatalf("got %+v want %+v (%v)", got, want, r.Err())
	}
	if _, err := NewTable[ent]("nested", TableSpec{Fields: []Field{{Name: "Pos.Base.X", Bits: 8, Inc: 0}}, Omit: []string{"Number", "Old"}}); err == nil ||
		!strings.Contains(err.Error(), "Pos.Type of") {
		t.Fatalf("missing nested field not reported: %v", err)
	}
}

func TestNewTableErrors(t *testing.T) {
	type bad struct {
		A int32
		B float32
		C int64
		D [40]int32
		E [4]float32
	}
	type ok struct {
		A int32
		B float32
	}
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"not a struct", func() error { _, err := NewTable[int]("x", TableSpec{}); return err }, "not a struct"},
		{"missing field", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 8, Inc: 0}}})
			return err
		}, "field B of"},
		{"unknown field", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 8, Inc: 0}, {Name: "B", Bits: 0, Inc: 0}, {Name: "Z", Bits: 1, Inc: 0}}})
			return err
		}, "no field Z"},
		{"twice", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 8, Inc: 0}, {Name: "B", Bits: 0, Inc: 0}, {Name: "A", Bits: 8, Inc: 0}}})
			return err
		}, "listed twice"},
		{"float with bits", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 8, Inc: 0}, {Name: "B", Bits: 8, Inc: 0}}})
			return err
		}, "cannot have 8 bits"},
		{"int as float", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 0, Inc: 0}, {Name: "B", Bits: 0, Inc: 0}}})
			return err
		}, "cannot have 0 bits"},
		{"width 33", func() error {
			_, err := NewTable[ok]("x", TableSpec{Fields: []Field{{Name: "A", Bits: 33, Inc: 0}, {Name: "B", Bits: 0, Inc: 0}}})
			return err
		}, "cannot have 33 bits"},
		{"64-bit field", func() error {
			_, err := NewTable[bad]("x", TableSpec{Fields: []Field{{Name: "C", Bits: 32, Inc: 0}}})
			return err
		}, "field C"},
		{"array too long", func() error {
			_, err := NewTable[bad]("x", TableSpec{Arrays: []ArrayField{{"D", 8}}})
			return err
		}, "array D"},
		{"float array", func() error {
			_, err := NewTable[bad]("x", TableSpec{Arrays: []ArrayField{{"E", 8}}})
			return err
		}, "array E"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func snapshotBatch() (ps0, ps1 testPlayer, from, to [32]testEntity) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range from {
		e := &from[i]
		e.Number = uint32(i + 1)
		e.X, e.Y = float32(rng.IntN(2000)), float32(rng.IntN(1000))
		e.Model = uint32(rng.IntN(10))
		to[i] = *e
		// A typical frame: most entities move, a few change state.
		to[i].X += float32(rng.IntN(20)) + 0.5
		if i%5 == 0 {
			to[i].Event = int32(rng.IntN(30))
		}
	}
	ps0 = testPlayer{CommandTime: 1000, X: 100, Y: 200}
	ps1 = ps0
	ps1.CommandTime = 1050
	ps1.X, ps1.VelX = 112.5, 250
	ps1.Stats[0] = 90
	return
}

func TestSnapshotBatchDoesNotAllocate(t *testing.T) {
	ps0, ps1, from, to := snapshotBatch()
	buf := make([]byte, 8192)
	var w Writer
	var r Reader
	var sent, recv FieldStats // as a server's connection and a client count
	w.SetFieldStats(&sent)
	r.SetFieldStats(&recv)
	var gotPS testPlayer
	var got [32]testEntity
	allocs := testing.AllocsPerRun(50, func() {
		w.Reset(buf, Huffman)
		playerTable.WriteDeltaPlayerState(&w, &ps0, &ps1)
		for i := range to {
			entityTable.WriteDeltaEntity(&w, &from[i], &to[i], to[i].Number, false)
		}
		r.Reset(w.Bytes(), Huffman)
		playerTable.ReadDeltaPlayerState(&r, &ps0, &gotPS)
		for i := range got {
			r.ReadBits(EntityNumBits)
			entityTable.ReadDeltaEntity(&r, &from[i], &got[i])
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per snapshot", allocs)
	}
}

type testClock struct {
	Time  int32
	Small int32
}

var clockTable = MustTable[testClock]("testClock", TableSpec{
	Fields: []Field{{Name: "Time", Bits: 32, Inc: 8}, {Name: "Small", Bits: -16, Inc: 4}},
})

// TestFieldIncrement: a field with Inc goes as a short increment when it
// grew by 1..2^Inc-1 and in full otherwise, both styles, and always reads
// back exactly.
func TestFieldIncrement(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to testClock
		short    bool // the Time field took the short form
	}{
		{"one snapshot", testClock{1000, 5}, testClock{1050, 6}, true},
		{"largest increment", testClock{1000, 5}, testClock{1255, 20}, true},
		{"too far", testClock{1000, 5}, testClock{1256, 21}, false},
		{"backwards", testClock{1000, 5}, testClock{999, 4}, false},
		{"wraps", testClock{-1, -3}, testClock{10, 2}, true},
		{"across int32 max", testClock{0x7ffffff0, 0}, testClock{-0x7ffffff0, 0}, true},
		{"negative small", testClock{0, -20}, testClock{0, -10}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, style := range []string{"playerstate", "entity"} {
				w := NewWriter(make([]byte, 64), Huffman)
				var got testClock
				r := func() *Reader { return NewReader(w.Bytes(), Huffman) }
				if style == "playerstate" {
					clockTable.WriteDeltaPlayerState(w, &tc.from, &tc.to)
					clockTable.ReadDeltaPlayerState(r(), &tc.from, &got)
				} else {
					clockTable.WriteDeltaEntity(w, &tc.from, &tc.to, 7, true)
					rd := r()
					rd.ReadBits(EntityNumBits)
					clockTable.ReadDeltaEntity(rd, &tc.from, &got)
				}
				if got != tc.to {
					t.Fatalf("%s: read %+v, want %+v", style, got, tc.to)
				}
				if style != "playerstate" || tc.from.Time == tc.to.Time {
					continue
				}
				// lastChanged, Time's changed bit, then its form bit.
				rd := r()
				rd.ReadRawBits(clockTable.LastChangedBits())
				rd.ReadBits(1)
				if short := rd.ReadBits(1) == 1; short != tc.short {
					t.Errorf("short form %v, want %v", short, tc.short)
				}
				if tc.short && rd.ReadBits(8) != uint32(tc.to.Time-tc.from.Time) {
					t.Error("increment on the wire differs")
				}
			}
		})
	}
	if _, err := NewTable[testClock]("bad", TableSpec{Fields: []Field{{Name: "Time", Bits: 8, Inc: 8}, {Name: "Small", Bits: 16}}}); err == nil {
		t.Error("an increment as wide as the field was accepted")
	}
}

// testAngle has an angle kept to 1024 steps (Shift 6) and a plain one.
type testAngle struct {
	Aim   int32
	Other int32
}

var angleTable = MustTable[testAngle]("testAngle", TableSpec{Fields: []Field{
	{Name: "Aim", Bits: 16, Diff: 6, Shift: 6},
	{Name: "Other", Bits: 16},
}})

// TestFieldShift: a Shift field travels in steps: a change of a few
// steps takes its 6-bit residual, a far one its 10 bits, and a value's
// low bits are dropped; the table refuses a shift it cannot carry.
func TestFieldShift(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to testAngle
		want     int32 // Aim read back
		bits     int   // bits of the delta, entity style
	}{
		{"a few steps", testAngle{Aim: 64 * 100}, testAngle{Aim: 64 * 103}, 64 * 103, 0},
		{"backwards, wrapping", testAngle{Aim: 64 * 2}, testAngle{Aim: 64 * 1020}, 64 * 1020, 0},
		{"far", testAngle{Aim: 0}, testAngle{Aim: 64 * 500}, 64 * 500, 0},
		{"low bits dropped", testAngle{Aim: 64}, testAngle{Aim: 64*7 + 63}, 64 * 7, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWriter(make([]byte, 64), Huffman)
			angleTable.WriteDeltaPlayerState(w, &tc.from, &tc.to)
			var got testAngle
			angleTable.ReadDeltaPlayerState(NewReader(w.Bytes(), Huffman), &tc.from, &got)
			if got.Aim != tc.want {
				t.Fatalf("read Aim %d, want %d", got.Aim, tc.want)
			}
		})
	}
	// The residual is in steps: 3 steps (192 units) take the 6-bit
	// residual, where the same table without the shift sends the whole
	// value.
	plain := MustTable[testAngle]("plainAngle", TableSpec{Fields: []Field{
		{Name: "Aim", Bits: 16, Diff: 6},
		{Name: "Other", Bits: 16},
	}})
	size := func(tab *Table[testAngle], from, to int32) int {
		w := NewWriter(make([]byte, 64), Huffman)
		tab.WriteDeltaPlayerState(w, &testAngle{Aim: from}, &testAngle{Aim: to})
		return w.BitLen()
	}
	if s, p := size(angleTable, 64*100, 64*103), size(plain, 64*100, 64*103); s >= p {
		t.Errorf("3 steps: %d bits shifted, %d plain; want the 6-bit residual to beat the whole value", s, p)
	}
	for _, f := range []Field{
		{Name: "Aim", Bits: 16, Shift: 16},
		{Name: "Aim", Bits: -16, Shift: 4},
		{Name: "Aim", Bits: 16, Inc: 4, Shift: 4},
		{Name: "Aim", Bits: 16, Diff: 12, Shift: 4},
	} {
		if _, err := NewTable[testAngle]("bad", TableSpec{Fields: []Field{f, {Name: "Other", Bits: 16}}}); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

// testFall is a body moving under a rate prediction (X by VX) and an
// acceleration prediction (VY under gravity while Air is 1).
type testFall struct {
	Air    int32
	VX, VY int32
	X      int32
}

var fallTable = MustTable[testFall]("fall", TableSpec{Fields: []Field{
	{Name: "Air", Bits: 1},
	{Name: "VX", Bits: -20, Diff: 13},
	{Name: "VY", Bits: -20, Diff: 13, Predict: &Prediction{Accel: 29000, Max: 25600, When: "Air", WhenValue: 1}},
	{Name: "X", Bits: -20, Diff: 8, Predict: &Prediction{Rate: "VX"}},
}})

// TestFieldPrediction: a field whose new value is what its prediction
// expects costs no more than an unchanged entity (2 bits: not removed, no
// changes), and every case reads back exactly, expected or not.
func TestFieldPrediction(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to testFall
		ctx      int32
		expected bool // to is exactly what the predictions give
	}{
		{"moving at a rate", testFall{VX: 1600, X: 100}, testFall{VX: 1600, X: 180}, 50, true},
		{"rate over no time", testFall{VX: 1600, X: 100}, testFall{VX: 1600, X: 100}, 0, true},
		{"falling", testFall{Air: 1, VY: 1000}, testFall{Air: 1, VY: 2450}, 50, true},
		{"falling, odd step", testFall{Air: 1, VY: -5000}, testFall{Air: 1, VY: -5000 + 29*17}, 17, true},
		{"terminal speed", testFall{Air: 1, VY: 25000}, testFall{Air: 1, VY: 25600}, 50, true},
		{"past terminal speed", testFall{Air: 1, VY: 30000}, testFall{Air: 1, VY: 25600}, 50, true},
		{"standing: 0 stays 0", testFall{Air: 1}, testFall{Air: 1}, 50, true},
		{"on the ground: no gravity", testFall{VY: 1000}, testFall{VY: 1000}, 50, true},
		{"falling without the condition", testFall{VY: 1000}, testFall{VY: 2450}, 50, false},
		{"landing", testFall{Air: 1, VY: 9000}, testFall{}, 50, false},
		{"fall too long to predict", testFall{Air: 1, VY: 1000}, testFall{Air: 1, VY: 1000 + 29*(MaxPredictMsec+1)}, MaxPredictMsec + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWriter(make([]byte, 64), Huffman)
			fallTable.WriteEntity(w, &tc.from, &tc.to, tc.ctx)
			if got := w.BitLen() <= 2; got != tc.expected {
				t.Errorf("%d bits: expected %v, want %v", w.BitLen(), got, tc.expected)
			}
			var got testFall
			if fallTable.ReadEntity(NewReader(w.Bytes(), Huffman), &tc.from, &got, tc.ctx) || got != tc.to {
				t.Fatalf("read %+v, want %+v", got, tc.to)
			}
		})
	}
	for _, p := range []Prediction{
		{},                           // neither rate nor acceleration
		{Accel: 100, Rate: "VX"},     // both
		{Accel: 100, Mean: true},     // a mean of what?
		{Rate: "X"},                  // the rate comes after
		{Accel: 100, When: "Nobody"}, // no such condition
	} {
		p := p
		if _, err := NewTable[testFall]("bad", TableSpec{Fields: []Field{
			{Name: "Air", Bits: 1}, {Name: "VX", Bits: -20}, {Name: "VY", Bits: -20, Predict: &p}, {Name: "X", Bits: -20},
		}}); err == nil {
			t.Errorf("prediction %+v accepted", p)
		}
	}
	if _, err := NewTable[testFall]("unsigned", TableSpec{Fields: []Field{
		{Name: "Air", Bits: 1, Predict: &Prediction{Accel: 100}}, {Name: "VX", Bits: -20}, {Name: "VY", Bits: -20}, {Name: "X", Bits: -20},
	}}); err == nil {
		t.Error("an acceleration on an unsigned field accepted")
	}
}
