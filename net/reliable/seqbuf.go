package reliable

import "fmt"

// SequenceGreater reports whether the 16-bit sequence a is newer than b,
// allowing for wrap-around: a is newer when it is 1 to 32767 ahead of b
// (modulo 65536). Sequences exactly 32768 apart are neither newer nor
// older than each other; every window in this package is far smaller.
func SequenceGreater(a, b uint16) bool { return int16(a-b) > 0 }

// SequenceLess reports whether the 16-bit sequence a is older than b,
// allowing for wrap-around: SequenceLess(a, b) is SequenceGreater(b, a).
func SequenceLess(a, b uint16) bool { return int16(b-a) > 0 }

// emptySlot marks a slot of a SequenceBuffer that holds no entry. It is no
// uint16, so it never equals a sequence that is looked up.
const emptySlot = 0xFFFFFFFF

// MaxSequenceBufferSize is the largest size of a SequenceBuffer: half the
// 16-bit sequence space, so that every sequence in its window compares
// correctly with SequenceGreater.
const MaxSequenceBufferSize = 1 << 15

// SequenceBuffer is a rolling buffer of entries of type T keyed by 16-bit
// sequence: entry s lives in slot s mod Size, and the slot remembers which
// sequence it holds, so Find answers only for the sequence that was
// inserted. It is the data structure of Fiedler's "Reliable Ordered
// Messages" (and of reliable.io and yojimbo), used here for sent packets,
// received packets, queued messages and the message ids of each packet.
//
// The buffer keeps a window of Size sequences ending at the newest one
// inserted. Insert clears every slot between the previous newest sequence
// and a newer one (the clear-on-insert rule), so a slot never holds an
// entry from outside the window: without it, an entry from before a wrap
// of the 16-bit sequence can survive in a slot that later inserts skipped
// (which happens under very heavy loss) and answer Find for a sequence
// 65536 later, a false ack. Inserts older than the window are refused.
//
// Every operation is constant time except an Insert that jumps ahead,
// which clears at most Size slots. Nothing allocates after
// NewSequenceBuffer. A SequenceBuffer is not safe for concurrent use.
type SequenceBuffer[T any] struct {
	seqs  []uint32 // sequence held by each slot, or emptySlot
	data  []T
	mask  uint16
	next  uint16 // one past the newest sequence inserted
	begun bool   // whether anything was inserted since creation or Reset
}

// NewSequenceBuffer returns an empty buffer of size slots. size must be a
// power of two from 1 to MaxSequenceBufferSize; NewSequenceBuffer panics
// otherwise, since sizes are constants of the caller's protocol.
func NewSequenceBuffer[T any](size int) *SequenceBuffer[T] {
	if size < 1 || size > MaxSequenceBufferSize || size&(size-1) != 0 {
		panic(fmt.Sprintf("reliable: sequence buffer size %d is not a power of two from 1 to %d", size, MaxSequenceBufferSize))
	}
	b := &SequenceBuffer[T]{
		seqs: make([]uint32, size),
		data: make([]T, size),
		mask: uint16(size - 1),
	}
	b.Reset()
	return b
}

// Size returns the number of slots, the length of the window.
func (b *SequenceBuffer[T]) Size() int { return len(b.seqs) }

// Reset empties the buffer; the next Insert starts a new window anywhere.
func (b *SequenceBuffer[T]) Reset() {
	for i := range b.seqs {
		b.seqs[i] = emptySlot
	}
	clear(b.data)
	b.next, b.begun = 0, false
}

// Newest returns the newest sequence inserted, and false if nothing was
// inserted since creation or Reset.
func (b *SequenceBuffer[T]) Newest() (uint16, bool) { return b.next - 1, b.begun }

// Insert makes seq an entry and returns its data, set to T's zero value.
// A seq newer than the newest moves the window up to it and first clears
// every slot in between; a seq older than the window (more than Size-1
// behind the newest) is refused with nil. Inserting a sequence that exists
// replaces its entry.
func (b *SequenceBuffer[T]) Insert(seq uint16) *T {
	size := len(b.seqs)
	switch d := int(int16(seq - b.next)); {
	case !b.begun:
		b.begun = true
		b.next = seq + 1
	case d >= 0:
		// seq is newer than the newest: clear next..seq.
		if d+1 >= size {
			for i := range b.seqs {
				b.seqs[i] = emptySlot
			}
		} else {
			for s := b.next; s != seq; s++ {
				b.seqs[s&b.mask] = emptySlot
			}
		}
		b.next = seq + 1
	case d < -size:
		return nil
	}
	i := seq & b.mask
	b.seqs[i] = uint32(seq)
	var zero T
	b.data[i] = zero
	return &b.data[i]
}

// Find returns the data of entry seq, or nil if seq was never inserted,
// was removed, or was cleared or overwritten as the window moved on.
func (b *SequenceBuffer[T]) Find(seq uint16) *T {
	i := seq & b.mask
	if b.seqs[i] != uint32(seq) {
		return nil
	}
	return &b.data[i]
}

// Exists reports whether Find(seq) would return an entry.
func (b *SequenceBuffer[T]) Exists(seq uint16) bool { return b.seqs[seq&b.mask] == uint32(seq) }

// Remove deletes entry seq if it exists. It does not move the window.
func (b *SequenceBuffer[T]) Remove(seq uint16) {
	i := seq & b.mask
	if b.seqs[i] == uint32(seq) {
		b.seqs[i] = emptySlot
		var zero T
		b.data[i] = zero
	}
}

// index returns the slot of seq, for callers in this package that keep
// per-slot storage beside the buffer.
func (b *SequenceBuffer[T]) index(seq uint16) int { return int(seq & b.mask) }
