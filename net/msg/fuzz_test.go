package msg

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzReadBits reads hostile data with a hostile sequence of widths. It
// must never panic, must return zeros once the error is set, and every
// value read before the error must survive a write/read round trip.
func FuzzReadBits(f *testing.F) {
	f.Add([]byte{}, []byte{8, 16, 32}, false)
	f.Add([]byte{0xff, 0x00, 0x12, 0x34}, []byte{1, 3, 0xf8, 32, 7}, false)
	f.Add([]byte("\xff\xff\xff\xffgetinfo"), []byte{32, 8, 8, 0xf0, 16}, true)
	f.Add(goldenMessage, []byte{3, 32, 0xf0, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 0xf3}, false)
	f.Fuzz(func(t *testing.T, data, widths []byte, raw bool) {
		mode := Huffman
		if raw {
			mode = Raw
		}
		r := NewReader(data, mode)
		var ops []bitOp
		for _, wb := range widths {
			bits := int(int8(wb))
			v := r.ReadBits(bits)
			if r.Err() != nil {
				if v != 0 {
					t.Fatalf("value %d returned with error %v", v, r.Err())
				}
				continue
			}
			ops = append(ops, bitOp{v, bits})
		}
		if r.BitPos() > len(data)*8 {
			t.Fatalf("position %d beyond %d bits", r.BitPos(), len(data)*8)
		}
		w := NewWriter(make([]byte, len(widths)*8+8), mode)
		for _, op := range ops {
			w.WriteBits(op.value, op.bits)
		}
		if w.Err() != nil {
			t.Fatalf("rewrite: %v", w.Err())
		}
		r2 := NewReader(w.Bytes(), mode)
		for i, op := range ops {
			if got := r2.ReadBits(op.bits); got != op.value {
				t.Fatalf("op %d: %#x re-read as %#x", i, op.value, got)
			}
		}
	})
}

// FuzzHuffmanDecode decodes hostile bytes. Because the code is complete and
// prefix-free, whatever decodes must re-encode to exactly the bits consumed.
func FuzzHuffmanDecode(f *testing.F) {
	f.Add([]byte{}, uint16(1))
	f.Add([]byte{0, 0, 0, 0}, uint16(20))
	f.Add(DefaultCode.Encode(nil, []byte("connect \\name\\Player")), uint16(20))
	f.Add(bytes.Repeat([]byte{0xff}, 64), uint16(500))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		dst := make([]byte, int(n)%4096)
		bits, err := DefaultCode.Decode(dst, data)
		if bits > len(data)*8 || bits < 0 {
			t.Fatalf("consumed %d bits of %d", bits, len(data)*8)
		}
		if err != nil {
			return
		}
		enc := DefaultCode.Encode(nil, dst)
		for i := 0; i < bits; i++ {
			if enc[i>>3]>>(i&7)&1 != data[i>>3]>>(i&7)&1 {
				t.Fatalf("bit %d differs after re-encoding", i)
			}
		}
	})
}

func structFrom[T any](b []byte) T {
	var v T
	ws := words(&v)
	for i := range ws {
		if len(b) >= 4 {
			ws[i] = binary.LittleEndian.Uint32(b)
			b = b[4:]
		}
	}
	return v
}

// fuzzDecode checks one decoder against hostile bytes: no panic, and a
// value that decodes cleanly re-encodes and decodes to itself.
func fuzzDecode[T any](t *testing.T, c codec[T], data, base []byte) {
	from := structFrom[T](base)
	c.norm(&from)
	var got T
	r := NewReader(data, Huffman)
	c.read(r, &from, &got)
	if r.Err() != nil {
		return
	}
	w := NewWriter(make([]byte, 4096), Huffman)
	c.write(w, &from, &got)
	if w.Err() != nil {
		t.Fatalf("re-encode: %v", w.Err())
	}
	var again T
	r2 := NewReader(w.Bytes(), Huffman)
	c.read(r2, &from, &again)
	want := got
	c.norm(&want)
	if r2.Err() != nil || !sameBits(&again, &want) {
		t.Fatalf("decoded %+v, re-decoded %+v (%v)", want, again, r2.Err())
	}
}

func deltaSeeds(f *testing.F, write func(w *Writer)) {
	w := NewWriter(make([]byte, 4096), Huffman)
	write(w)
	f.Add(append([]byte(nil), w.Bytes()...), []byte{})
	f.Add([]byte{}, []byte{1, 2, 3, 4})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff}, bytes.Repeat([]byte{0x80}, 64))
}

func FuzzReadDeltaEntity(f *testing.F) {
	deltaSeeds(f, func(w *Writer) {
		to := testEntity{Number: 3, X: 1.5, Y: -20, Event: -3, Big: 1 << 31}
		entityTable.WriteDeltaEntity(w, nil, &to, 3, true)
	})
	c := entityCodec()
	f.Fuzz(func(t *testing.T, data, base []byte) { fuzzDecode(t, c, data, base) })
}

func FuzzReadDeltaPlayerState(f *testing.F) {
	deltaSeeds(f, func(w *Writer) {
		_, ps, _, _ := snapshotBatch()
		playerTable.WriteDeltaPlayerState(w, nil, &ps)
	})
	c := playerCodec()
	f.Fuzz(func(t *testing.T, data, base []byte) { fuzzDecode(t, c, data, base) })
}

func FuzzReadDeltaUsercmd(f *testing.F) {
	deltaSeeds(f, func(w *Writer) {
		to := testCmd{ServerTime: 900, Angle: 77, Forward: -127, Buttons: 1}
		cmdTable.WriteDeltaUsercmd(w, 12345, nil, &to)
	})
	c := cmdCodec(12345)
	f.Fuzz(func(t *testing.T, data, base []byte) { fuzzDecode(t, c, data, base) })
}

// FuzzDeltaRoundTrip codes fuzzer-chosen structs against fuzzer-chosen
// bases in all three styles: the receiver must get exactly what the wire
// can carry.
func FuzzDeltaRoundTrip(f *testing.F) {
	f.Add([]byte{}, []byte{1, 0, 0, 0, 0, 0, 0x80, 0x7f}, uint32(0))
	f.Add(bytes.Repeat([]byte{0xff}, 200), bytes.Repeat([]byte{0x01, 0, 0, 0x80}, 50), uint32(7))
	f.Fuzz(func(t *testing.T, base, target []byte, key uint32) {
		check := func(name string, ok bool, got, want any) {
			if !ok {
				t.Fatalf("%s: got %x want %x", name, got, want)
			}
		}
		{
			c := entityCodec()
			from, to := structFrom[testEntity](base), structFrom[testEntity](target)
			c.norm(&from)
			got, want := roundTripOnce(t, c, &from, &to)
			check("entity", sameBits(&got, &want), words(&got), words(&want))
		}
		{
			c := playerCodec()
			from, to := structFrom[testPlayer](base), structFrom[testPlayer](target)
			c.norm(&from)
			got, want := roundTripOnce(t, c, &from, &to)
			check("playerstate", sameBits(&got, &want), words(&got), words(&want))
		}
		{
			c := cmdCodec(key)
			from, to := structFrom[testCmd](base), structFrom[testCmd](target)
			c.norm(&from)
			got, want := roundTripOnce(t, c, &from, &to)
			check("usercmd", sameBits(&got, &want), words(&got), words(&want))
		}
	})
}

func roundTripOnce[T any](t *testing.T, c codec[T], from, to *T) (got, want T) {
	w := NewWriter(make([]byte, 4096), Huffman)
	c.write(w, from, to)
	if w.Err() != nil {
		t.Fatalf("%s write: %v", c.name, w.Err())
	}
	r := NewReader(w.Bytes(), Huffman)
	c.read(r, from, &got)
	if r.Err() != nil {
		t.Fatalf("%s read: %v", c.name, r.Err())
	}
	want = *to
	c.norm(&want)
	return got, want
}

// sameBits compares two values word for word, so NaN fields compare by
// their bits.
func sameBits[T any](a, b *T) bool { return slices.Equal(words(a), words(b)) }
