package overlay

import (
	"testing"

	"tremor/net/msg"
)

// fakeTable is a field table whose counters the test sets.
type fakeTable struct {
	name  string
	stats []msg.FieldStat
}

func (f *fakeTable) Name() string { return f.name }
func (f *fakeTable) Stats(*msg.FieldStats) []msg.FieldStat {
	out := make([]msg.FieldStat, len(f.stats))
	copy(out, f.stats)
	return out
}

// set sets field i's received and sent bits and changes.
func (f *fakeTable) set(i int, recvBits, recvChanges, sentBits, sentChanges uint64) {
	s := &f.stats[i]
	s.RecvBits, s.RecvChanges, s.SentBits, s.SentChanges = recvBits, recvChanges, sentBits, sentChanges
}

func newFake(name string, fields ...string) *fakeTable {
	f := &fakeTable{name: name}
	for _, n := range fields {
		f.stats = append(f.stats, msg.FieldStat{Name: n})
	}
	return f
}

func TestFieldSampler(t *testing.T) {
	type counters struct {
		ps, es, uc [][4]uint64 // per field: recv bits, recv changes, sent bits, sent changes
	}
	type sample struct {
		now   int32
		c     counters
		ready bool
	}
	tests := []struct {
		name    string
		samples []sample
		top     int
		want    []FieldRate
		totals  []TableRate
	}{
		{
			name: "diff over one second, most bits first",
			samples: []sample{
				{now: 1000, c: counters{
					ps: [][4]uint64{{100, 10, 0, 0}, {50, 5, 0, 0}, {0, 0, 0, 0}},
					es: [][4]uint64{{1000, 50, 0, 0}, {0, 0, 0, 0}},
					uc: [][4]uint64{{0, 0, 10, 1}, {0, 0, 0, 0}},
				}},
				{now: 2000, ready: true, c: counters{
					ps: [][4]uint64{{400, 40, 0, 0}, {50, 5, 0, 0}, {90, 3, 0, 0}},
					es: [][4]uint64{{3000, 150, 0, 0}, {500, 10, 0, 0}},
					// The usercmd table is read for its sent bits only.
					uc: [][4]uint64{{777, 7, 1010, 101}, {0, 0, 600, 60}},
				}},
			},
			top: 10,
			want: []FieldRate{
				{"EntityState", "Pos.Base.X", Received, 2000, 100},
				{"UserCmd", "ServerTime", Sent, 1000, 100},
				{"UserCmd", "Aim", Sent, 600, 60},
				{"EntityState", "Event", Received, 500, 10},
				{"PlayerState", "CommandTime", Received, 300, 30},
				{"PlayerState", "Stats[]", Received, 90, 3},
			},
			totals: []TableRate{
				{"PlayerState", Received, 390, 33},
				{"EntityState", Received, 2500, 110},
				{"UserCmd", Sent, 1600, 160},
			},
		},
		{
			name: "top n cuts, ties keep table order",
			samples: []sample{
				{now: 0, c: counters{ps: [][4]uint64{{}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 1000, ready: true, c: counters{
					ps: [][4]uint64{{100, 1, 0, 0}, {100, 1, 0, 0}, {0, 0, 0, 0}},
					es: [][4]uint64{{100, 1, 0, 0}, {200, 1, 0, 0}},
					uc: [][4]uint64{{0, 0, 0, 0}, {0, 0, 0, 0}},
				}},
			},
			top: 3,
			want: []FieldRate{
				{"EntityState", "Event", Received, 200, 1},
				{"PlayerState", "CommandTime", Received, 100, 1},
				{"PlayerState", "Origin.X", Received, 100, 1},
			},
		},
		{
			name: "rates scale to a second",
			samples: []sample{
				{now: 0, c: counters{ps: [][4]uint64{{}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 500, c: counters{ps: [][4]uint64{{5, 1, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 1250, ready: true, c: counters{ps: [][4]uint64{{125, 5, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
			},
			top:  10,
			want: []FieldRate{{"PlayerState", "CommandTime", Received, 100, 4}},
		},
		{
			name: "a reset counter counts from zero",
			samples: []sample{
				{now: 0, c: counters{ps: [][4]uint64{{5000, 50, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 1000, ready: true, c: counters{ps: [][4]uint64{{70, 7, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
			},
			top:  10,
			want: []FieldRate{{"PlayerState", "CommandTime", Received, 70, 7}},
		},
		{
			name: "time going back takes a new base line",
			samples: []sample{
				{now: 5000, c: counters{ps: [][4]uint64{{0, 0, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 100, c: counters{ps: [][4]uint64{{1000, 10, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
				{now: 1100, ready: true, c: counters{ps: [][4]uint64{{1040, 11, 0, 0}, {}, {}}, es: [][4]uint64{{}, {}}, uc: [][4]uint64{{}, {}}}},
			},
			top:  10,
			want: []FieldRate{{"PlayerState", "CommandTime", Received, 40, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := newFake("PlayerState", "CommandTime", "Origin.X", "Stats")
			ps.stats[2].Array = true
			es := newFake("EntityState", "Pos.Base.X", "Event")
			uc := newFake("UserCmd", "ServerTime", "Aim")
			s := NewFieldSampler(1000, Source{ps, Received}, Source{es, Received}, Source{uc, Sent})
			apply := func(f *fakeTable, c [][4]uint64) {
				for i, v := range c {
					f.set(i, v[0], v[1], v[2], v[3])
				}
			}
			for i, sm := range tt.samples {
				apply(ps, sm.c.ps)
				apply(es, sm.c.es)
				apply(uc, sm.c.uc)
				if got := s.Sample(sm.now); got != sm.ready {
					t.Fatalf("sample %d at %d: ready %v, want %v", i, sm.now, got, sm.ready)
				}
			}
			got := s.Top(tt.top)
			if len(got) != len(tt.want) {
				t.Fatalf("top = %+v\nwant %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("top[%d] = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			if tt.totals != nil {
				tot := s.Totals()
				for i := range tt.totals {
					if tot[i] != tt.totals[i] {
						t.Errorf("totals[%d] = %+v, want %+v", i, tot[i], tt.totals[i])
					}
				}
			}
			if len(s.Fields()) != 7 {
				t.Errorf("Fields has %d entries, want all 7", len(s.Fields()))
			}
		})
	}
}

func TestFieldSamplerNotReady(t *testing.T) {
	ps := newFake("PlayerState", "CommandTime")
	s := NewFieldSampler(0, Source{ps, Received})
	if s.Ready() || s.Totals() != nil || len(s.Top(5)) != 0 {
		t.Fatal("figures before any sample")
	}
	s.Sample(0)
	ps.set(0, 100, 1, 0, 0)
	if s.Sample(999) || s.Ready() {
		t.Fatal("figures before a whole interval (default 1000 ms)")
	}
	if !s.Sample(1000) || !s.Ready() || s.Span() != 1000 || s.Seq() != 1 {
		t.Fatalf("no figures after an interval: ready %v span %d seq %d", s.Ready(), s.Span(), s.Seq())
	}
	if len(s.Top(-1)) != 0 {
		t.Error("Top(-1) returned fields")
	}
}

// TestFieldSamplerRealTable runs the sampler on a real msg.Table that
// codes deltas: the bits it reports are the bits the table counted.
func TestFieldSamplerRealTable(t *testing.T) {
	type vec struct{ X, Y int32 }
	type ent struct {
		Number uint32
		Pos    vec
		Event  int32
	}
	tbl, err := msg.NewTable[ent]("Test", msg.TableSpec{
		Fields: []msg.Field{{Name: "Pos.X", Bits: -20}, {Name: "Pos.Y", Bits: -20}, {Name: "Event", Bits: 8}},
		Omit:   []string{"Number"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// One end of a connection that both sends and receives the table.
	var counted msg.FieldStats
	s := NewFieldSampler(1000, Source{tbl, Sent}, Source{tbl, Received})
	s.SetStats(&counted)
	s.Sample(0)
	buf := make([]byte, 4096)
	w := msg.NewWriter(buf, msg.Huffman)
	w.SetFieldStats(&counted)
	var from ent
	for i := range 50 {
		to := ent{Number: 3, Pos: vec{X: int32(i * 37), Y: 5}, Event: 0}
		tbl.WriteDeltaEntity(w, &from, &to, 3, false)
		from = to
	}
	r := msg.NewReader(w.Bytes(), msg.Huffman)
	r.SetFieldStats(&counted)
	from = ent{}
	for range 50 {
		r.ReadBits(msg.EntityNumBits)
		var to ent
		tbl.ReadDeltaEntity(r, &from, &to)
		from = to
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if !s.Sample(1000) {
		t.Fatal("no figures")
	}
	stats := tbl.Stats(&counted)
	top := s.Top(10)
	if len(top) == 0 || top[0].Field != "Pos.X" {
		t.Fatalf("top %+v, want Pos.X first", top)
	}
	for _, fr := range top {
		var want uint64
		for _, st := range stats {
			if st.Name == fr.Field {
				want = st.SentBits
				if fr.Dir == Received {
					want = st.RecvBits
				}
			}
		}
		if uint64(fr.Bits) != want || want == 0 {
			t.Errorf("%s %v: %d bits/s, table counted %d", fr.Field, fr.Dir, fr.Bits, want)
		}
	}
}

// TestFieldSamplerFollowsOneEngine: with two engines' counters in one
// process (a server that sends and a client that receives), the sampler
// shows only those of the engine it follows, and switching engines
// starts the figures over.
func TestFieldSamplerFollowsOneEngine(t *testing.T) {
	type ent struct {
		Number uint32
		X      int32
	}
	tbl := msg.MustTable[ent]("Test", msg.TableSpec{Fields: []msg.Field{{Name: "X", Bits: -20}}, Omit: []string{"Number"}})
	var server, client msg.FieldStats
	code := func(n int) {
		w := msg.NewWriter(make([]byte, 4096), msg.Huffman)
		w.SetFieldStats(&server)
		var from ent
		for i := range n {
			to := ent{X: int32(1 + i)}
			tbl.WriteDeltaEntity(w, &from, &to, 1, false)
			from = to
		}
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		r.SetFieldStats(&client)
		from = ent{}
		for range n {
			r.ReadBits(msg.EntityNumBits)
			tbl.ReadDeltaEntity(r, &from, &from)
		}
	}
	s := NewFieldSampler(1000, Source{tbl, Received}, Source{tbl, Sent})
	for _, step := range []struct {
		name       string
		stats      *msg.FieldStats
		now        int32
		deltas     int
		ready      bool
		recv, sent int64 // changes per second, when ready
	}{
		{"client: base line", &client, 0, 10, false, 0, 0},
		{"client: its receptions only", &client, 1000, 20, true, 20, 0},
		{"server: starts over", &server, 2000, 30, false, 0, 0},
		{"server: its sends only", &server, 3000, 40, true, 0, 40},
		{"no engine: zeros", nil, 4000, 0, false, 0, 0},
		{"no engine: zeros after an interval", nil, 5000, 5, true, 0, 0},
	} {
		t.Run(step.name, func(t *testing.T) {
			code(step.deltas)
			seq := s.Seq()
			s.SetStats(step.stats)
			if got := s.Sample(step.now); got != step.ready || s.Ready() != step.ready {
				t.Fatalf("Sample %v, Ready %v, want %v (seq %d to %d)", got, s.Ready(), step.ready, seq, s.Seq())
			}
			if !step.ready {
				return
			}
			tot := s.Totals()
			if tot[0].Changes != step.recv || tot[1].Changes != step.sent {
				t.Fatalf("recv %d sent %d changes/s, want %d and %d", tot[0].Changes, tot[1].Changes, step.recv, step.sent)
			}
		})
	}
}
