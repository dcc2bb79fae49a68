package msg

import (
	"errors"
	"fmt"
	"sort"
)

// MaxCodeLen is the longest Huffman code, in bits. Limiting the length lets
// the decoder find any symbol with one lookup in a table of 1<<MaxCodeLen
// entries, so decoding costs the same whatever the input.
const MaxCodeLen = 12

// Code is a static, canonical Huffman code over the 256 byte values,
// built once from a frequency table and shared by encoder and decoder.
//
// Quake III seeded an adaptive Huffman tree with a fixed frequency table and
// never updated it during play, so its code was static too. Tremor builds a
// canonical, length-limited code instead: every byte value has a code (a
// zero frequency counts as one), no code is longer than MaxCodeLen bits, and
// the code is complete, so every bit pattern decodes to some symbol. A
// decoder can therefore neither loop nor read outside its input: each symbol
// consumes between 1 and MaxCodeLen bits, and running out of bits is an
// error.
type Code struct {
	// enc[b] is the code of byte b, bit-reversed so that it can be written
	// least-significant bit first, and its length.
	enc [256]codeword
	// dec is indexed by the next MaxCodeLen bits of the stream (first bit
	// in the least-significant position) and holds symbol | length<<8.
	dec [1 << MaxCodeLen]uint16
}

type codeword struct {
	bits uint16
	len  uint8
}

// NewCode builds the canonical Huffman code for the byte frequencies freq.
// A zero frequency counts as one, so every byte value gets a code. The
// error reports an internal inconsistency (an incomplete code) and should
// never happen; tests pin that (MSG_initHuffman, Huff_Init).
func NewCode(freq *[256]uint32) (*Code, error) {
	lens := codeLengths(freq)
	c := &Code{}
	if err := c.assign(lens); err != nil {
		return nil, err
	}
	return c, nil
}

// MustCode is NewCode for tables known to be good at init time.
func MustCode(freq *[256]uint32) *Code {
	c, err := NewCode(freq)
	if err != nil {
		panic(err)
	}
	return c
}

// Len reports the length in bits of the code of byte b.
func (c *Code) Len(b byte) int { return int(c.enc[b].len) }

// codeLengths computes Huffman code lengths no longer than MaxCodeLen. When
// the unlimited code is too deep, the frequencies are halved (rounding up,
// so none reaches zero) and the code is rebuilt: this flattens the tree
// until it fits, and ends at the latest when all weights are equal.
func codeLengths(freq *[256]uint32) [256]uint8 {
	var w [256]uint64
	for i, f := range freq {
		w[i] = uint64(f)
		if w[i] == 0 {
			w[i] = 1
		}
	}
	for {
		lens := huffmanLengths(&w)
		max := uint8(0)
		for _, l := range lens {
			if l > max {
				max = l
			}
		}
		if max <= MaxCodeLen {
			return lens
		}
		for i := range w {
			w[i] = (w[i] + 1) / 2
		}
	}
}

// huffmanLengths runs the classic Huffman construction over 256 leaves and
// returns each leaf's depth. Ties break on node index, so the result is the
// same on every run and platform.
func huffmanLengths(w *[256]uint64) [256]uint8 {
	const leaves = 256
	type node struct {
		weight uint64
		parent int
	}
	nodes := make([]node, 0, 2*leaves-1)
	for i := 0; i < leaves; i++ {
		nodes = append(nodes, node{weight: w[i], parent: -1})
	}
	// A simple O(n^2) selection is fine for 256 symbols built once.
	alive := make([]int, leaves)
	for i := range alive {
		alive[i] = i
	}
	less := func(a, b int) bool {
		if nodes[a].weight != nodes[b].weight {
			return nodes[a].weight < nodes[b].weight
		}
		return a < b
	}
	for len(alive) > 1 {
		sort.Slice(alive, func(i, j int) bool { return less(alive[i], alive[j]) })
		a, b := alive[0], alive[1]
		nodes = append(nodes, node{weight: nodes[a].weight + nodes[b].weight, parent: -1})
		p := len(nodes) - 1
		nodes[a].parent = p
		nodes[b].parent = p
		alive = append(alive[:0], alive[2:]...)
		alive = append(alive, p)
	}
	var lens [256]uint8
	for i := 0; i < leaves; i++ {
		d := uint8(0)
		for n := i; nodes[n].parent >= 0; n = nodes[n].parent {
			d++
		}
		lens[i] = d
	}
	return lens
}

// assign gives canonical codes to the lengths (shorter codes first, ties by
// symbol value) and fills the encode and decode tables.
func (c *Code) assign(lens [256]uint8) error {
	syms := make([]int, 256)
	for i := range syms {
		syms[i] = i
	}
	sort.SliceStable(syms, func(i, j int) bool { return lens[syms[i]] < lens[syms[j]] })

	// Kraft check: the code must be complete for the decoder's guarantee.
	var kraft uint64
	for _, l := range lens {
		if l == 0 || l > MaxCodeLen {
			return fmt.Errorf("msg: huffman code length %d out of range", l)
		}
		kraft += 1 << (MaxCodeLen - l)
	}
	if kraft != 1<<MaxCodeLen {
		return errors.New("msg: huffman code is not complete")
	}

	code := uint32(0)
	prevLen := lens[syms[0]]
	for i, s := range syms {
		l := lens[s]
		if i > 0 {
			code = (code + 1) << (l - prevLen)
		}
		prevLen = l
		rev := reverseBits(code, l)
		c.enc[s] = codeword{bits: uint16(rev), len: l}
		for k := uint32(0); k < 1<<(MaxCodeLen-l); k++ {
			c.dec[rev|k<<l] = uint16(s) | uint16(l)<<8
		}
	}
	return nil
}

func reverseBits(v uint32, n uint8) uint32 {
	r := uint32(0)
	for i := uint8(0); i < n; i++ {
		r = r<<1 | v&1
		v >>= 1
	}
	return r
}

// Encode appends the Huffman coding of src to dst as a whole-byte stream
// (the last byte padded with zero bits) and returns the extended slice.
// The writer's Huffman mode uses the same code bit for bit; Encode is the
// stand-alone form for benchmarks and for compressing whole buffers (Huff_Compress).
func (c *Code) Encode(dst, src []byte) []byte {
	var acc uint64
	n := uint(0)
	for _, b := range src {
		cw := c.enc[b]
		acc |= uint64(cw.bits) << n
		n += uint(cw.len)
		for n >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	if n > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

// ErrHuffmanShort reports a Huffman stream that ended inside a code.
var ErrHuffmanShort = errors.New("msg: huffman data ends inside a code")

// Decode decodes exactly len(dst) symbols from src into dst. It returns the
// number of bits consumed, or ErrHuffmanShort if src ends first. It reads
// nothing outside src and does a bounded amount of work per symbol (Huff_Decompress).
func (c *Code) Decode(dst, src []byte) (bits int, err error) {
	total := len(src) * 8
	pos := 0
	for i := range dst {
		e := c.dec[peek12(src, pos)]
		l := int(e >> 8)
		if pos+l > total {
			return pos, ErrHuffmanShort
		}
		dst[i] = byte(e)
		pos += l
	}
	return pos, nil
}

// peek12 returns the next MaxCodeLen bits of src starting at bit pos, first
// bit in the least-significant position, with zeros past the end.
func peek12(src []byte, pos int) uint32 {
	i := pos >> 3
	var v uint32
	switch {
	case i+3 <= len(src):
		v = uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16
	case i+2 == len(src):
		v = uint32(src[i]) | uint32(src[i+1])<<8
	case i+1 == len(src):
		v = uint32(src[i])
	}
	return v >> uint(pos&7) & (1<<MaxCodeLen - 1)
}
