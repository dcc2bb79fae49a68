package overlay

import (
	"cmp"
	"slices"

	"tremor/bg"
	"tremor/net/msg"
)

// Direction says which of a field table's counters a Source reads.
type Direction uint8

// The directions of a field's bits, from this process's side.
const (
	Received Direction = iota // decoded (msg.FieldStat.RecvBits)
	Sent                      // encoded (msg.FieldStat.SentBits)
)

// String returns "recv" or "sent".
func (d Direction) String() string {
	if d == Sent {
		return "sent"
	}
	return "recv"
}

// FieldTable is a delta field table that reads its fields' counters out
// of a msg.FieldStats: *msg.Table[T] satisfies it.
type FieldTable interface {
	Name() string
	Stats(*msg.FieldStats) []msg.FieldStat
}

// Source is one table's counters in one direction.
type Source struct {
	Table FieldTable
	Dir   Direction
}

// ClientSources are the tables a client's bandwidth goes through: player
// states and entity states received in snapshots, usercmds sent. Their
// counters are those of the FieldStats the sampler follows (SetStats), a
// client engine's: its own connection only, never an embedded server's
// or another client's in the same process.
func ClientSources() []Source {
	return []Source{
		{bg.PlayerStateTable, Received},
		{bg.EntityStateTable, Received},
		{bg.UserCmdTable, Sent},
	}
}

// FieldRate is what one field cost over the last interval.
type FieldRate struct {
	Table string // table name: PlayerState, EntityState, UserCmd
	Field string // field name; an array's ends in "[]"
	Dir   Direction
	// Bits and Changes are per second: the field's bits on the wire
	// (its changed bit included, after Huffman coding) and how many
	// times it was coded changed.
	Bits, Changes int64
}

// TableRate is what one table cost over the last interval, all its
// fields together (the per-entity and per-message framing the tables do
// not count is not included).
type TableRate struct {
	Table         string
	Dir           Direction
	Bits, Changes int64 // per second
}

// DefaultFieldInterval is the sampling interval of the field-bits
// overlay: figures of the last second.
const DefaultFieldInterval = 1000

// FieldSampler samples one engine's field counters (a msg.FieldStats,
// SetStats) at a fixed interval and turns the differences into bits per
// second per field, ranked. The counters count from the engine's start
// (or a FieldStats.Reset); the sampler never resets them, so other
// readers (reports, tests) are undisturbed. Not safe for concurrent use;
// use it on the goroutine that runs the engine.
type FieldSampler struct {
	interval int32
	sources  []Source
	stats    *msg.FieldStats
	prev     [][]msg.FieldStat
	prevTime int32
	started  bool

	span   int32       // ms covered by the figures, 0 before the first
	rates  []FieldRate // every field, source by source in table order
	ranked []FieldRate // the non-zero ones, most bits first
	totals []TableRate
	seq    int
}

// NewFieldSampler returns a sampler of sources that takes figures every
// interval ms (DefaultFieldInterval if interval <= 0).
func NewFieldSampler(interval int32, sources ...Source) *FieldSampler {
	if interval <= 0 {
		interval = DefaultFieldInterval
	}
	return &FieldSampler{
		interval: interval,
		sources:  slices.Clone(sources),
		prev:     make([][]msg.FieldStat, len(sources)),
		totals:   make([]TableRate, len(sources)),
	}
}

// SetStats makes the sampler read the counters in stats: a client
// engine's (client.Client.FieldStats), nil for none (every figure 0).
// Other counters than before (a new engine, a demo's) start the figures
// over: none until an interval after the next Sample.
func (s *FieldSampler) SetStats(stats *msg.FieldStats) {
	if stats == s.stats {
		return
	}
	s.stats = stats
	s.started = false
	s.span = 0
	s.rates, s.ranked = s.rates[:0], s.ranked[:0]
	s.seq++
}

// Sample takes the counters if an interval has passed since the last
// sample at real time now (ms) and reports whether new figures are
// ready. The first call only takes the base line; time going back
// starts over. It allocates only when it samples (once an interval:
// msg.Table.Stats returns a new slice).
func (s *FieldSampler) Sample(now int32) bool {
	if s.started && now >= s.prevTime && now-s.prevTime < s.interval {
		return false
	}
	if !s.started || now < s.prevTime {
		s.started = true
		s.prevTime = now
		for k, src := range s.sources {
			s.prev[k] = src.Table.Stats(s.stats)
		}
		return false
	}
	ms := now - s.prevTime
	s.prevTime = now
	s.rates = s.rates[:0]
	for k, src := range s.sources {
		cur := src.Table.Stats(s.stats)
		prev := s.prev[k]
		tr := TableRate{Table: src.Table.Name(), Dir: src.Dir}
		for i, c := range cur {
			var bits, changes uint64
			if src.Dir == Sent {
				bits, changes = c.SentBits, c.SentChanges
			} else {
				bits, changes = c.RecvBits, c.RecvChanges
			}
			if i < len(prev) && prev[i].Name == c.Name {
				pb, pc := prev[i].RecvBits, prev[i].RecvChanges
				if src.Dir == Sent {
					pb, pc = prev[i].SentBits, prev[i].SentChanges
				}
				// A counter below its last value was reset: it counts
				// from zero since.
				if bits >= pb {
					bits -= pb
				}
				if changes >= pc {
					changes -= pc
				}
			}
			name := c.Name
			if c.Array {
				name += "[]"
			}
			fr := FieldRate{Table: tr.Table, Field: name, Dir: src.Dir, Bits: perSecond(bits, ms), Changes: perSecond(changes, ms)}
			tr.Bits += fr.Bits
			tr.Changes += fr.Changes
			s.rates = append(s.rates, fr)
		}
		s.prev[k] = cur
		s.totals[k] = tr
	}
	s.span = ms
	s.ranked = s.ranked[:0]
	for _, r := range s.rates {
		if r.Bits > 0 {
			s.ranked = append(s.ranked, r)
		}
	}
	// Stable: equal costs keep the tables' and fields' order.
	slices.SortStableFunc(s.ranked, func(a, b FieldRate) int { return cmp.Compare(b.Bits, a.Bits) })
	s.seq++
	return true
}

// perSecond scales a count over ms milliseconds to a second, rounded.
func perSecond(n uint64, ms int32) int64 {
	if ms <= 0 {
		return 0
	}
	return int64((n*1000 + uint64(ms)/2) / uint64(ms))
}

// Ready reports whether figures have been taken (one interval after the
// first Sample).
func (s *FieldSampler) Ready() bool { return s.span > 0 }

// Span is how many ms the current figures cover (about the interval).
func (s *FieldSampler) Span() int32 { return s.span }

// Seq counts the figures taken: it changes when Top and Totals do.
func (s *FieldSampler) Seq() int { return s.seq }

// Top returns up to n fields that cost bits over the last interval, most
// bits first; fields of equal cost keep their table order (sources in
// the order given, fields in wire order). The slice is valid until the
// next Sample.
func (s *FieldSampler) Top(n int) []FieldRate {
	return s.ranked[:min(max(n, 0), len(s.ranked))]
}

// Fields returns every field's figures, zero ones included, source by
// source in table order. Valid until the next Sample.
func (s *FieldSampler) Fields() []FieldRate { return s.rates }

// Totals returns each source's total over the last interval, in the
// order the sources were given. Valid until the next Sample.
func (s *FieldSampler) Totals() []TableRate {
	if !s.Ready() {
		return nil
	}
	return s.totals
}
