package reliable

import (
	"encoding/binary"
	"errors"
)

// MaxBlockMessages is the most messages one block can carry: its count is
// one byte.
const MaxBlockMessages = 255

// MaxMessageLimit is the largest MaxMessageSize a Messages accepts, the
// netchan's longest message.
const MaxMessageLimit = 16384

// Errors of a malformed message block. A block with any of them is
// refused whole: none of its messages is taken.
var (
	ErrBlockTruncated = errors.New("reliable: message block truncated")
	ErrBlockCount     = errors.New("reliable: message block holds more messages than allowed")
	ErrBlockVarint    = errors.New("reliable: message block has a malformed or non-minimal varint")
	ErrBlockLength    = errors.New("reliable: message in block longer than allowed")
	ErrBlockIDs       = errors.New("reliable: message ids in block span half the id space or more")
)

// uvarintLen returns the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// blockReader walks a message block, checking it as it goes.
type blockReader struct {
	b       []byte
	off     int
	left    int // messages still to read
	id      uint16
	span    int // ids covered so far, first to current
	first   bool
	maxSize int
}

// start reads the count and the first id.
func (r *blockReader) start(b []byte, maxPer, maxSize int) error {
	*r = blockReader{b: b, first: true, maxSize: maxSize}
	if len(b) < 1 {
		return ErrBlockTruncated
	}
	r.left = int(b[0])
	r.off = 1
	if r.left > maxPer {
		return ErrBlockCount
	}
	if r.left == 0 {
		return nil
	}
	if len(b) < 3 {
		return ErrBlockTruncated
	}
	r.id = binary.LittleEndian.Uint16(b[1:])
	r.off = 3
	return nil
}

func (r *blockReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	switch {
	case n == 0:
		return 0, ErrBlockTruncated
	case n < 0 || n != uvarintLen(v):
		return 0, ErrBlockVarint
	}
	r.off += n
	return v, nil
}

// next returns the next message; ok is false after the last.
func (r *blockReader) next() (id uint16, data []byte, ok bool, err error) {
	if r.left == 0 {
		return 0, nil, false, nil
	}
	if !r.first {
		gap, err := r.uvarint()
		if err != nil {
			return 0, nil, false, err
		}
		if gap >= 1<<15 || r.span+int(gap)+1 >= 1<<15 {
			return 0, nil, false, ErrBlockIDs
		}
		r.span += int(gap) + 1
		r.id += uint16(gap) + 1
	}
	r.first = false
	n, err := r.uvarint()
	if err != nil {
		return 0, nil, false, err
	}
	if n > uint64(r.maxSize) {
		return 0, nil, false, ErrBlockLength
	}
	if uint64(len(r.b)-r.off) < n {
		return 0, nil, false, ErrBlockTruncated
	}
	data = r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	r.left--
	return r.id, data, true, nil
}

// checkBlock validates the whole block at the start of b and returns its
// length.
func checkBlock(b []byte, maxPer, maxSize int) (int, error) {
	var r blockReader
	if err := r.start(b, maxPer, maxSize); err != nil {
		return 0, err
	}
	for {
		_, _, ok, err := r.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return r.off, nil
		}
	}
}

// ParseBlock reads the message block at the start of b, which may carry
// at most maxPerPacket messages of at most maxMessageSize bytes each, and
// returns its length. It checks the whole block before it calls fn for
// any message, so on error fn is never called; fn is called in block
// order (increasing id) with data aliasing b. It is the decoder for tools
// that read the block without a Messages (an inspector, test vectors);
// Messages.Receive uses the same rules.
func ParseBlock(b []byte, maxPerPacket, maxMessageSize int, fn func(id uint16, data []byte)) (int, error) {
	n, err := checkBlock(b, maxPerPacket, maxMessageSize)
	if err != nil || fn == nil {
		return n, err
	}
	var r blockReader
	_ = r.start(b, maxPerPacket, maxMessageSize)
	for {
		id, data, ok, _ := r.next()
		if !ok {
			return n, nil
		}
		fn(id, data)
	}
}

// blockWriter appends a message block to a slice, message by message.
type blockWriter struct {
	start int // offset of the count byte
	n     int
	prev  uint16
}

// begin appends the count byte (patched by end) to b.
func (w *blockWriter) begin(b []byte) []byte {
	*w = blockWriter{start: len(b)}
	return append(b, 0)
}

// cost returns the bytes a message id of size bytes adds to the block.
func (w *blockWriter) cost(id uint16, size int) int {
	c := uvarintLen(uint64(size)) + size
	if w.n == 0 {
		return c + 2
	}
	return c + uvarintLen(uint64(id-w.prev-1))
}

// add appends message id; ids must increase within the block.
func (w *blockWriter) add(b []byte, id uint16, data []byte) []byte {
	if w.n == 0 {
		b = binary.LittleEndian.AppendUint16(b, id)
	} else {
		b = binary.AppendUvarint(b, uint64(id-w.prev-1))
	}
	b = binary.AppendUvarint(b, uint64(len(data)))
	b = append(b, data...)
	w.n++
	w.prev = id
	return b
}

// end patches the count byte.
func (w *blockWriter) end(b []byte) []byte {
	b[w.start] = byte(w.n)
	return b
}

// AppendBlock appends a block of the messages datas with ids ids (same
// length, ids increasing by less than half the id space in all, at most
// MaxBlockMessages) and returns the extended slice. Messages.Fill builds
// the same bytes; AppendBlock is for tools and tests.
func AppendBlock(b []byte, ids []uint16, datas [][]byte) []byte {
	var w blockWriter
	b = w.begin(b)
	for i, id := range ids {
		b = w.add(b, id, datas[i])
	}
	return w.end(b)
}
