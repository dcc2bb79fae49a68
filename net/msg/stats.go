package msg

import (
	"fmt"
	"io"
	"sort"
)

// FieldStats counts what one codec user delta-coded: for every field of
// every Table it met, how many times the field went out changed and came
// in changed, and the bits it cost on the wire (its changed bit included,
// after Huffman coding; an array counts once per changed array). It is
// Quake III's changeVectors idea, kept per direction so that field order
// can be tuned by measurement, and kept per connection so that each
// figure is one connection's.
//
// A FieldStats belongs to one end of one connection — a client engine, or
// a server's connection to one client — never to the process: hand it to
// the Writer and Reader that end codes its messages with
// (Writer.SetFieldStats, Reader.SetFieldStats) and every delta they code
// counts here, while the engines beside it in the same process count in
// their own. Read it with Table.Stats or Table.WriteReport.
//
// The zero FieldStats is ready to use. The first delta of a table
// allocates that table's counters; after that, counting allocates
// nothing. A FieldStats is not safe for concurrent use: read it on the
// goroutine that codes with it.
type FieldStats struct {
	tables []tableCounts
}

// statsKey names a Table in a FieldStats: its address is the table's
// identity, n how many counters the table needs (fields, then arrays).
type statsKey struct{ n int }

// tableCounts are one table's counters in a FieldStats.
type tableCounts struct {
	key        *statsKey
	sent, recv []fieldCount
}

// fieldCount is how often a field was coded changed and how many bits it
// took.
type fieldCount struct {
	changes, bits uint64
}

func (c *fieldCount) add(bits int) {
	c.changes++
	c.bits += uint64(bits)
}

// counts returns the table's sent (recv false) or received counters,
// making them the first time the table is counted; nil if s is nil, so
// that a Writer or Reader without a FieldStats counts nothing.
func (s *FieldStats) counts(key *statsKey, recv bool) []fieldCount {
	if s == nil {
		return nil
	}
	c := s.find(key)
	if c == nil {
		both := make([]fieldCount, 2*key.n)
		s.tables = append(s.tables, tableCounts{key: key, sent: both[:key.n:key.n], recv: both[key.n:]})
		c = &s.tables[len(s.tables)-1]
	}
	if recv {
		return c.recv
	}
	return c.sent
}

// find returns the counters of the table named by key, nil if it has
// not been counted.
func (s *FieldStats) find(key *statsKey) *tableCounts {
	if s == nil {
		return nil
	}
	for i := range s.tables {
		if s.tables[i].key == key {
			return &s.tables[i]
		}
	}
	return nil
}

// Reset zeroes every counter, keeping their memory.
func (s *FieldStats) Reset() {
	for _, c := range s.tables {
		clear(c.sent)
		clear(c.recv)
	}
}

// SetFieldStats makes the delta writes on w count in s (nil, the
// default, counts nothing). Reset keeps it.
func (w *Writer) SetFieldStats(s *FieldStats) { w.stats = s }

// FieldStats returns what the delta writes on w count in, nil if none.
func (w *Writer) FieldStats() *FieldStats { return w.stats }

// SetFieldStats makes the delta reads on r count in s (nil, the default,
// counts nothing). Reset keeps it.
func (r *Reader) SetFieldStats(s *FieldStats) { r.stats = s }

// FieldStats returns what the delta reads on r count in, nil if none.
func (r *Reader) FieldStats() *FieldStats { return r.stats }

// FieldStat is what a FieldStats has counted for one field of a Table
// since it was made or Reset: how many times the field was sent changed
// and received changed, and the bits it cost on the wire (its changed
// bit included, after Huffman coding). Arrays count once per changed
// array.
type FieldStat struct {
	Name        string
	Bits        int // declared width: > 0 unsigned, < 0 signed, 0 float
	Array       bool
	SentChanges uint64
	SentBits    uint64
	RecvChanges uint64
	RecvBits    uint64
}

// Stats returns the counters s holds for every field of t, in table
// order (scalar fields, then arrays); all zero when s is nil or has not
// counted t. It returns a new slice.
func (t *Table[T]) Stats(s *FieldStats) []FieldStat {
	out := make([]FieldStat, 0, len(t.fields)+len(t.arrays))
	for _, f := range t.fields {
		out = append(out, FieldStat{Name: f.name, Bits: f.bits})
	}
	for _, a := range t.arrays {
		out = append(out, FieldStat{Name: a.name, Bits: a.bits, Array: true})
	}
	if c := s.find(&t.key); c != nil {
		for i := range out {
			out[i].SentChanges, out[i].SentBits = c.sent[i].changes, c.sent[i].bits
			out[i].RecvChanges, out[i].RecvBits = c.recv[i].changes, c.recv[i].bits
		}
	}
	return out
}

// WriteReport prints the counters s holds for t (sent and received) and
// the scalar field order that measured change frequency suggests: the
// order that keeps the last-changed count, and so the changed bits,
// smallest.
func (t *Table[T]) WriteReport(w io.Writer, s *FieldStats) error {
	stats := t.Stats(s)
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
