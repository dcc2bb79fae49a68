package msg

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

type bitOp struct {
	value uint32
	bits  int
}

// want is what reading op back must give: the value cut to its width,
// sign-extended for signed widths.
func (op bitOp) want() uint32 { return truncate(op.value, op.bits) }

func TestBitsRoundTripEveryWidth(t *testing.T) {
	values := []uint32{0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x12345678, 0x7fffffff, 0x80000000, 0xffffffff}
	for _, mode := range []Mode{Huffman, Raw} {
		for n := 1; n <= 32; n++ {
			for _, bits := range []int{n, -n} {
				if mode == Raw && n%8 != 0 {
					continue
				}
				var ops []bitOp
				for _, v := range values {
					ops = append(ops, bitOp{v, bits})
				}
				buf := make([]byte, 1024)
				w := NewWriter(buf, mode)
				for _, op := range ops {
					w.WriteBits(op.value, op.bits)
				}
				if w.Err() != nil {
					t.Fatalf("%v bits %d: write: %v", mode, bits, w.Err())
				}
				r := NewReader(w.Bytes(), mode)
				for _, op := range ops {
					if got := r.ReadBits(op.bits); got != op.want() {
						t.Fatalf("%v bits %d value %#x: read %#x want %#x", mode, bits, op.value, got, op.want())
					}
				}
				if r.Err() != nil {
					t.Fatalf("%v bits %d: read: %v", mode, bits, r.Err())
				}
			}
		}
	}
}

func TestBitsRandomSequences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		mode := Huffman
		if iter%4 == 0 {
			mode = Raw
		}
		ops := make([]bitOp, rng.IntN(200))
		for i := range ops {
			n := 1 + rng.IntN(32)
			if mode == Raw {
				n = []int{8, 16, 32}[rng.IntN(3)]
			}
			if rng.IntN(2) == 0 {
				n = -n
			}
			ops[i] = bitOp{rng.Uint32() >> rng.IntN(32), n}
		}
		w := NewWriter(make([]byte, 2048), mode)
		for _, op := range ops {
			w.WriteBits(op.value, op.bits)
		}
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		r := NewReader(w.Bytes(), mode)
		for i, op := range ops {
			if got := r.ReadBits(op.bits); got != op.want() {
				t.Fatalf("iter %d op %d (%d bits): got %#x want %#x", iter, i, op.bits, got, op.want())
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		// Fewer than 8 bits of padding may remain, never a whole byte.
		if rem := r.RemainingBits(); rem < 0 || rem >= 8 {
			t.Fatalf("iter %d: %d bits left after reading everything", iter, rem)
		}
	}
}

func TestTypedValues(t *testing.T) {
	for _, mode := range []Mode{Huffman, Raw} {
		w := NewWriter(make([]byte, 256), mode)
		w.WriteUint8(200)
		w.WriteShort(-12345)
		w.WriteLong(-7)
		w.WriteFloat(float32(math.Inf(-1)))
		nan := math.Float32frombits(0x7fc01234)
		w.WriteFloat(nan)
		w.WriteString("hello, world")
		w.WriteString("")
		w.WriteData([]byte{0, 1, 255})
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		r := NewReader(w.Bytes(), mode)
		if v := r.ReadUint8(); v != 200 {
			t.Errorf("%v: uint8 %d", mode, v)
		}
		if v := r.ReadShort(); v != -12345 {
			t.Errorf("%v: short %d", mode, v)
		}
		if v := r.ReadLong(); v != -7 {
			t.Errorf("%v: long %d", mode, v)
		}
		if v := r.ReadFloat(); !math.IsInf(float64(v), -1) {
			t.Errorf("%v: float %v", mode, v)
		}
		if v := r.ReadFloat(); math.Float32bits(v) != 0x7fc01234 {
			t.Errorf("%v: NaN payload %#x", mode, math.Float32bits(v))
		}
		if s := r.ReadString(); s != "hello, world" {
			t.Errorf("%v: string %q", mode, s)
		}
		if s := r.ReadString(); s != "" {
			t.Errorf("%v: empty string %q", mode, s)
		}
		d := make([]byte, 3)
		r.ReadData(d)
		if !bytes.Equal(d, []byte{0, 1, 255}) {
			t.Errorf("%v: data %v", mode, d)
		}
		if r.Err() != nil {
			t.Errorf("%v: %v", mode, r.Err())
		}
	}
}

func TestRawModeIsByteAlignedLittleEndian(t *testing.T) {
	w := NewWriter(make([]byte, 16), Raw)
	w.WriteLong(-1)
	w.WriteShort(0x0102)
	w.WriteUint8(0x7f)
	want := []byte{0xff, 0xff, 0xff, 0xff, 0x02, 0x01, 0x7f}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("raw bytes % x, want % x", w.Bytes(), want)
	}
}

func TestInvalidWidths(t *testing.T) {
	cases := []struct {
		name string
		mode Mode
		bits int
	}{
		{"zero", Huffman, 0},
		{"33", Huffman, 33},
		{"-33", Huffman, -33},
		{"raw 7", Raw, 7},
		{"raw -12", Raw, -12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWriter(make([]byte, 16), c.mode)
			w.WriteBits(1, c.bits)
			if w.Err() == nil || w.Overflowed() {
				t.Fatalf("write %d bits: err %v, want a width error", c.bits, w.Err())
			}
			r := NewReader([]byte{1, 2, 3, 4, 5}, c.mode)
			if v := r.ReadBits(c.bits); v != 0 || r.Err() == nil {
				t.Fatalf("read %d bits: %d, err %v", c.bits, v, r.Err())
			}
		})
	}
}

func TestWriterOverflowIsStickyAndHarmless(t *testing.T) {
	backing := bytes.Repeat([]byte{0xAA}, 16)
	w := NewWriter(backing[:4:4], Huffman)
	for i := 0; i < 100; i++ {
		w.WriteLong(int32(i) * 7919)
	}
	if !w.Overflowed() || !errors.Is(w.Err(), ErrOverflow) {
		t.Fatalf("err = %v, want overflow", w.Err())
	}
	n := w.BitLen()
	w.WriteBits(1, 1)
	if w.BitLen() != n {
		t.Fatal("a write after overflow moved the writer")
	}
	if w.Len() > 4 {
		t.Fatalf("Len %d beyond capacity 4", w.Len())
	}
	for i, b := range backing[4:] {
		if b != 0xAA {
			t.Fatalf("byte %d beyond capacity was overwritten", 4+i)
		}
	}
	// What was written before the overflow is intact.
	r := NewReader(w.Bytes(), Huffman)
	if v := r.ReadLong(); v != 0 {
		t.Fatalf("first value %d", v)
	}
}

func TestReaderPastEndIsStickyZero(t *testing.T) {
	w := NewWriter(make([]byte, 8), Huffman)
	w.WriteLong(0x01020304)
	r := NewReader(w.Bytes(), Huffman)
	r.ReadLong()
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	for i := 0; i < 3; i++ {
		if v := r.ReadLong(); v != 0 {
			t.Fatalf("read past end gave %d", v)
		}
	}
	if !errors.Is(r.Err(), ErrShort) {
		t.Fatalf("err %v, want ErrShort", r.Err())
	}
	r.Reset(w.Bytes(), Huffman)
	if r.Err() != nil || r.ReadLong() != 0x01020304 {
		t.Fatal("Reset did not clear the error")
	}
}

func TestStrings(t *testing.T) {
	long := strings.Repeat("x", MaxStringChars)
	big := strings.Repeat("y", MaxBigStringChars)
	cases := []struct {
		name    string
		write   func(*Writer)
		read    func(*Reader) string
		want    string
		wantErr bool
	}{
		{"at cap", func(w *Writer) { w.WriteString(long) }, (*Reader).ReadString, long, false},
		{"over cap", func(w *Writer) { w.WriteString(long + "x") }, nil, "", true},
		{"big at cap", func(w *Writer) { w.WriteBigString(big) }, (*Reader).ReadBigString, big, false},
		{"big over cap", func(w *Writer) { w.WriteBigString(big + "y") }, nil, "", true},
		{"zero byte", func(w *Writer) { w.WriteString("a\x00b") }, nil, "", true},
		{"utf-8 and percent", func(w *Writer) { w.WriteString("ünï %s") }, (*Reader).ReadString, "ünï %s", false},
		{"big read with small cap", func(w *Writer) { w.WriteBigString(big) }, (*Reader).ReadString, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewWriter(make([]byte, 3*MaxBigStringChars), Huffman)
			c.write(w)
			if c.read == nil {
				if w.Err() == nil {
					t.Fatal("write accepted a bad string")
				}
				return
			}
			if w.Err() != nil {
				t.Fatal(w.Err())
			}
			r := NewReader(w.Bytes(), Huffman)
			got := c.read(r)
			if (r.Err() != nil) != c.wantErr || got != c.want {
				t.Fatalf("read %d bytes, err %v", len(got), r.Err())
			}
		})
	}
	// An unterminated string is an error, not a short string.
	r := NewReader([]byte{'a', 'b'}, Raw)
	if s := r.ReadString(); s != "" || r.Err() == nil {
		t.Fatalf("unterminated: %q %v", s, r.Err())
	}
}

func TestWriterAndReaderDoNotAllocate(t *testing.T) {
	buf := make([]byte, 4096)
	var w Writer
	var r Reader
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(buf, Huffman)
		for i := 0; i < 64; i++ {
			w.WriteBits(uint32(i*977), 1+i%32)
		}
		r.Reset(w.Bytes(), Huffman)
		for i := 0; i < 64; i++ {
			r.ReadBits(1 + i%32)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per message", allocs)
	}
}
