package reliable

import (
	"math/rand/v2"
	"testing"
)

func TestSequenceCompare(t *testing.T) {
	tests := []struct {
		name          string
		a, b          uint16
		greater, less bool
	}{
		{"equal", 5, 5, false, false},
		{"one ahead", 6, 5, true, false},
		{"one behind", 5, 6, false, true},
		{"across the wrap", 0, 65535, true, false},
		{"behind across the wrap", 65535, 0, false, true},
		{"32767 ahead", 32767, 0, true, false},
		{"32769 ahead is behind", 32769, 0, false, true},
		{"half the space apart", 32768, 0, false, false},
		{"wrap, far", 100, 65000, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g := SequenceGreater(tt.a, tt.b); g != tt.greater {
				t.Errorf("SequenceGreater(%d, %d) = %v", tt.a, tt.b, g)
			}
			if l := SequenceLess(tt.a, tt.b); l != tt.less {
				t.Errorf("SequenceLess(%d, %d) = %v", tt.a, tt.b, l)
			}
		})
	}
}

func TestNewSequenceBufferSizes(t *testing.T) {
	for _, size := range []int{0, 3, 1000, 1 << 16, -4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("size %d accepted", size)
				}
			}()
			NewSequenceBuffer[int](size)
		}()
	}
	for _, size := range []int{1, 2, 1024, MaxSequenceBufferSize} {
		if b := NewSequenceBuffer[int](size); b.Size() != size {
			t.Errorf("size %d: Size() = %d", size, b.Size())
		}
	}
}

func TestSequenceBuffer(t *testing.T) {
	type op struct {
		insert  bool // insert, else expect
		seq     uint16
		present bool // for insert: accepted; else: Find non-nil
	}
	tests := []struct {
		name string
		ops  []op
	}{
		{"first insert anywhere", []op{
			{true, 40000, true}, {false, 40000, true}, {false, 39999, false},
		}},
		{"in order", []op{
			{true, 1, true}, {true, 2, true}, {true, 3, true},
			{false, 1, true}, {false, 2, true}, {false, 3, true}, {false, 4, false},
		}},
		{"out of order inside the window", []op{
			{true, 10, true}, {true, 7, true}, {false, 7, true}, {false, 8, false}, {false, 10, true},
		}},
		{"older than the window is refused", []op{
			{true, 100, true}, {true, 100 - 7, true}, {true, 100 - 8, false}, {false, 92, false}, {false, 93, true},
		}},
		{"jump clears the skipped slots", []op{
			{true, 1, true}, {true, 2, true}, {true, 4, true},
			{false, 1, true}, {false, 2, true}, {false, 3, false}, {false, 4, true},
			{true, 9, true}, // window 2..9: 1 leaves it
			{false, 1, false}, {false, 2, true}, {false, 4, true},
		}},
		{"jump beyond the size clears everything", []op{
			{true, 1, true}, {true, 2, true}, {true, 50, true},
			{false, 1, false}, {false, 2, false}, {false, 50, true}, {false, 42, false},
		}},
		{"across the wrap", []op{
			{true, 65534, true}, {true, 65535, true}, {true, 0, true}, {true, 1, true},
			{false, 65534, true}, {false, 65535, true}, {false, 0, true}, {false, 1, true},
			{true, 65530, true}, {true, 65529, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewSequenceBuffer[uint16](8)
			for i, o := range tt.ops {
				if o.insert {
					p := b.Insert(o.seq)
					if (p != nil) != o.present {
						t.Fatalf("op %d: Insert(%d) accepted=%v", i, o.seq, p != nil)
					}
					if p != nil {
						if *p != 0 {
							t.Fatalf("op %d: Insert(%d) data %d, want zero", i, o.seq, *p)
						}
						*p = o.seq
					}
					continue
				}
				p := b.Find(o.seq)
				if (p != nil) != o.present || b.Exists(o.seq) != o.present {
					t.Fatalf("op %d: Find(%d) present=%v, Exists=%v, want %v", i, o.seq, p != nil, b.Exists(o.seq), o.present)
				}
				if p != nil && *p != o.seq {
					t.Fatalf("op %d: Find(%d) data %d", i, o.seq, *p)
				}
			}
		})
	}
}

func TestSequenceBufferRemoveReset(t *testing.T) {
	b := NewSequenceBuffer[int](16)
	*b.Insert(3) = 7
	b.Remove(4) // absent: no effect
	if p := b.Find(3); p == nil || *p != 7 {
		t.Fatal("Remove of another sequence removed 3")
	}
	b.Remove(3)
	if b.Exists(3) {
		t.Fatal("3 still there after Remove")
	}
	if n, ok := b.Newest(); !ok || n != 3 {
		t.Fatalf("Newest = %d %v after Remove; Remove must not move the window", n, ok)
	}
	b.Reset()
	if _, ok := b.Newest(); ok {
		t.Fatal("Newest after Reset")
	}
	if b.Insert(60000) == nil {
		t.Fatal("Reset buffer refused a new start")
	}
}

// TestClearOnInsertAtHeavyLoss is Fiedler's failure: at 99 % loss a slot
// keeps an entry from before a wrap unless inserts clear the slots they
// skip. Insert one sequence in a hundred for several wraps and check that
// Find never answers for a sequence that was not inserted in the last
// window, which is what the ack header asks.
func TestClearOnInsertAtHeavyLoss(t *testing.T) {
	const size = 1024
	b := NewSequenceBuffer[uint32](size)
	rng := rand.New(rand.NewPCG(1, 2))
	inserted := make(map[uint32]bool) // full 32-bit sequence
	var full uint32
	for full = 0; full < 5*65536; full++ {
		if rng.IntN(100) != 0 {
			continue
		}
		*b.Insert(uint16(full)) = full
		inserted[full] = true
		for i := range uint32(AckBits) {
			if i > full {
				break
			}
			s := full - i
			p := b.Find(uint16(s))
			if (p != nil) != inserted[s] {
				t.Fatalf("after inserting %d, Find(%d) present=%v, inserted=%v", full, uint16(s), p != nil, inserted[s])
			}
			if p != nil && *p != s {
				t.Fatalf("Find(%d) returned the entry of %d, from %d wraps ago", uint16(s), *p, (s-*p)/65536)
			}
		}
	}
}

func TestSequenceBufferNoAllocs(t *testing.T) {
	b := NewSequenceBuffer[int](1024)
	var s uint16
	allocs := testing.AllocsPerRun(1000, func() {
		b.Insert(s)
		b.Find(s - 5)
		b.Remove(s - 7)
		s += 3
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per insert/find/remove", allocs)
	}
}
