package msg

import (
	"fmt"
	"io"
	"sort"
)

// FieldStat is what a Table has counted for one field since the last
// ResetStats: how many times the field was sent changed and received
// changed, and the bits it cost on the wire (its changed bit included,
// after Huffman coding). Arrays count once per changed array.
type FieldStat struct {
	Name        string
	Bits        int // declared width: > 0 unsigned, < 0 signed, 0 float
	Array       bool
	SentChanges uint64
	SentBits    uint64
	RecvChanges uint64
	RecvBits    uint64
}

// Stats returns the counters of every field, in table order (scalar
// fields, then arrays).
func (t *Table[T]) Stats() []FieldStat {
	out := make([]FieldStat, 0, len(t.fields)+len(t.arrays))
	for i, f := range t.fields {
		out = append(out, t.stat(i, f.name, f.bits, false))
	}
	for k, a := range t.arrays {
		out = append(out, t.stat(len(t.fields)+k, a.name, a.bits, true))
	}
	return out
}

func (t *Table[T]) stat(i int, name string, bits int, array bool) FieldStat {
	return FieldStat{
		Name: name, Bits: bits, Array: array,
		SentChanges: t.sent[i].changes.Load(), SentBits: t.sent[i].bits.Load(),
		RecvChanges: t.recv[i].changes.Load(), RecvBits: t.recv[i].bits.Load(),
	}
}

// ResetStats zeroes every counter.
func (t *Table[T]) ResetStats() {
	for i := range t.sent {
		t.sent[i].changes.Store(0)
		t.sent[i].bits.Store(0)
		t.recv[i].changes.Store(0)
		t.recv[i].bits.Store(0)
	}
}

// WriteReport prints the table's counters (sent and received) and the
// scalar field order that measured change frequency suggests: the order
// that keeps the last-changed count, and so the changed bits, smallest.
func (t *Table[T]) WriteReport(w io.Writer) error {
	stats := t.Stats()
	if _, err := fmt.Fprintf(w, "table %s\n%-4s %-20s %5s %12s %12s %12s %12s\n", t.name,
		"#", "field", "bits", "sent", "sent bits", "recv", "recv bits"); err != nil {
		return err
	}
	for i, s := range stats {
		name := s.Name
		if s.Array {
			name += "[]"
		}
		if _, err := fmt.Fprintf(w, "%-4d %-20s %5d %12d %12d %12d %12d\n", i, name, s.Bits,
			s.SentChanges, s.SentBits, s.RecvChanges, s.RecvBits); err != nil {
			return err
		}
	}
	order := SuggestOrder(stats[:len(t.fields)])
	_, err := fmt.Fprintf(w, "suggested field order (most changed first): %v\n", order)
	return err
}

// SuggestOrder returns the names of the scalar fields sorted by how often
// they changed (sent plus received), most often first; ties keep their
// current order.
func SuggestOrder(stats []FieldStat) []string {
	idx := make([]int, 0, len(stats))
	for i, s := range stats {
		if !s.Array {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := stats[idx[a]], stats[idx[b]]
		return sa.SentChanges+sa.RecvChanges > sb.SentChanges+sb.RecvChanges
	})
	names := make([]string, len(idx))
	for i, j := range idx {
		names[i] = stats[j].Name
	}
	return names
}
