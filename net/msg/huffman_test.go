package msg

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func kraftSum(c *Code) uint64 {
	var s uint64
	for b := 0; b < 256; b++ {
		s += 1 << (MaxCodeLen - c.Len(byte(b)))
	}
	return s
}

func TestCodeShapes(t *testing.T) {
	fib := [256]uint32{}
	a, b := uint32(1), uint32(1)
	for i := range fib {
		fib[i] = a
		a, b = b, a+b
		if a > 1<<30 {
			a, b = 1<<30, 1<<30
		}
	}
	skewed := [256]uint32{0: 1 << 31}
	uniform := [256]uint32{}
	for i := range uniform {
		uniform[i] = 7
	}
	cases := []struct {
		name string
		freq *[256]uint32
	}{
		{"all zero", &[256]uint32{}},
		{"uniform", &uniform},
		{"fibonacci (deep unlimited tree)", &fib},
		{"one dominant byte", &skewed},
		{"default", &DefaultFrequencies},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, err := NewCode(c.freq)
			if err != nil {
				t.Fatal(err)
			}
			if k := kraftSum(code); k != 1<<MaxCodeLen {
				t.Fatalf("Kraft sum %d, want %d (code not complete)", k, 1<<MaxCodeLen)
			}
			for s := 0; s < 256; s++ {
				if l := code.Len(byte(s)); l < 1 || l > MaxCodeLen {
					t.Fatalf("symbol %d has length %d", s, l)
				}
			}
			src := make([]byte, 256)
			for i := range src {
				src[i] = byte(i)
			}
			enc := code.Encode(nil, src)
			dst := make([]byte, 256)
			if _, err := code.Decode(dst, enc); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(src, dst) {
				t.Fatal("round trip differs")
			}
		})
	}
}

func TestCodeFollowsFrequencies(t *testing.T) {
	freq := [256]uint32{}
	for i := range freq {
		freq[i] = 1
	}
	freq[0] = 100000
	freq['a'] = 1000
	c := MustCode(&freq)
	if !(c.Len(0) < c.Len('a') && c.Len('a') < c.Len('z')) {
		t.Fatalf("lengths 0:%d a:%d z:%d do not follow frequencies", c.Len(0), c.Len('a'), c.Len('z'))
	}
}

func TestHuffmanRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		src := make([]byte, rng.IntN(3000))
		for j := range src {
			// Mostly small bytes, like real message traffic.
			src[j] = byte(rng.ExpFloat64() * 20)
		}
		enc := DefaultCode.Encode(nil, src)
		dst := make([]byte, len(src))
		bits, err := DefaultCode.Decode(dst, enc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(src, dst) {
			t.Fatal("round trip differs")
		}
		if (bits+7)/8 != len(enc) {
			t.Fatalf("decoded %d bits from %d bytes", bits, len(enc))
		}
	}
}

func TestHuffmanDecodeShort(t *testing.T) {
	src := []byte("a message that will be cut short")
	enc := DefaultCode.Encode(nil, src)
	dst := make([]byte, len(src))
	if _, err := DefaultCode.Decode(dst, enc[:len(enc)/2]); !errors.Is(err, ErrHuffmanShort) {
		t.Fatalf("err %v, want ErrHuffmanShort", err)
	}
	if _, err := DefaultCode.Decode(make([]byte, 1), nil); !errors.Is(err, ErrHuffmanShort) {
		t.Fatalf("empty input: err %v", err)
	}
}

// The writer's Huffman mode and Code.Encode must produce the same bits for
// whole bytes, so captures and benchmarks measure the real coder.
func TestWriterMatchesEncode(t *testing.T) {
	src := []byte("\x00\x00\x01configstring \\mapname\\arena1\xff\x00")
	w := NewWriter(make([]byte, 256), Huffman)
	w.WriteData(src)
	if want := DefaultCode.Encode(nil, src); !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("writer % x\nencode % x", w.Bytes(), want)
	}
}

// TestGoldenBytes pins the wire bits of a small message, so a change to the
// Huffman table, the bit order or the value layout cannot pass unnoticed.
// If the table is retrained on purpose, update the golden bytes and the
// protocol version together.
func TestGoldenBytes(t *testing.T) {
	w := NewWriter(make([]byte, 64), Huffman)
	w.WriteBits(5, 3)
	w.WriteLong(1234)
	w.WriteShort(-2)
	w.WriteUint8(0)
	w.WriteString("map arena1")
	w.WriteBits(0x1abc, -13)
	got := w.Bytes()
	want := goldenMessage
	if !bytes.Equal(got, want) {
		t.Fatalf("wire bytes changed:\n got % x\nwant % x", got, want)
	}
}
