package overlay

import (
	"testing"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
)

// fakeSource is a client engine's snapshot ring in a map: message number
// to server time; a number missing from it is a lost snapshot.
type fakeSource struct {
	newest int32
	times  map[int32]int32
	ps     map[int32]bg.PlayerState
	ents   map[int32][]bg.EntityState
	gets   int
}

func newFakeSource() *fakeSource {
	return &fakeSource{times: map[int32]int32{}, ps: map[int32]bg.PlayerState{}, ents: map[int32][]bg.EntityState{}}
}

// receive makes snapshot num (at server time st) the newest.
func (f *fakeSource) receive(num, st int32) {
	f.times[num] = st
	f.newest = num
}

func (f *fakeSource) CurrentSnapshotNumber() (int32, int32) {
	if f.newest == 0 {
		return 0, 0
	}
	return f.newest, f.times[f.newest]
}

func (f *fakeSource) GetSnapshot(num int32, s *cgame.Snapshot) bool {
	f.gets++
	st, ok := f.times[num]
	if !ok || num > f.newest || f.newest-num >= proto.PacketBackup {
		return false
	}
	*s = cgame.Snapshot{MessageNum: num, ServerTime: st, PS: f.ps[num], Entities: f.ents[num]}
	return true
}

func recsEqual(t *testing.T, got, want []SnapRecord) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("records = %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("record %d = %+v, want %+v (all %+v)", i, got[i], want[i], got)
		}
	}
}

func TestTrackerRecords(t *testing.T) {
	type step struct {
		receive [][2]int32 // num, server time
	}
	tests := []struct {
		name  string
		steps []step
		want  []SnapRecord
	}{
		{
			name:  "one a frame",
			steps: []step{{[][2]int32{{10, 1000}}}, {[][2]int32{{11, 1050}}}, {[][2]int32{{12, 1100}}}},
			want:  []SnapRecord{{10, 1000, false}, {11, 1050, false}, {12, 1100, false}},
		},
		{
			name:  "two in one frame are both recorded",
			steps: []step{{[][2]int32{{10, 1000}}}, {[][2]int32{{11, 1050}, {12, 1100}}}},
			want:  []SnapRecord{{10, 1000, false}, {11, 1050, false}, {12, 1100, false}},
		},
		{
			name:  "a lost one gets a time between its neighbours",
			steps: []step{{[][2]int32{{10, 1000}}}, {[][2]int32{{12, 1100}}}},
			want:  []SnapRecord{{10, 1000, false}, {11, 1050, true}, {12, 1100, false}},
		},
		{
			name:  "three lost spread evenly",
			steps: []step{{[][2]int32{{10, 1000}}}, {[][2]int32{{14, 1200}}}},
			want:  []SnapRecord{{10, 1000, false}, {11, 1050, true}, {12, 1100, true}, {13, 1150, true}, {14, 1200, false}},
		},
		{
			name: "first look walks the ring and skips the gamestate's number",
			// 5 is the gamestate message; 6..8 are in the ring at once.
			steps: []step{{[][2]int32{{6, 600}, {7, 650}, {8, 700}}}},
			want:  []SnapRecord{{6, 600, false}, {7, 650, false}, {8, 700, false}},
		},
		{
			name: "a rate-delayed gap keeps its real times",
			steps: []step{{[][2]int32{{10, 1000}}}, {[][2]int32{{11, 1050}}}, {[][2]int32{{12, 1150}}},
				{[][2]int32{{13, 1200}}}},
			want: []SnapRecord{{10, 1000, false}, {11, 1050, false}, {12, 1150, false}, {13, 1200, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newFakeSource()
			var tr Tracker
			for _, st := range tt.steps {
				for _, r := range st.receive {
					src.receive(r[0], r[1])
				}
				tr.Update(src, nil)
			}
			recsEqual(t, tr.Records(), tt.want)
			if !tr.HaveLatest || tr.LatestNum != tt.want[len(tt.want)-1].Num {
				t.Errorf("latest = %v %d, want %d", tr.HaveLatest, tr.LatestNum, tt.want[len(tt.want)-1].Num)
			}
		})
	}
}

func TestTrackerWindowAndResets(t *testing.T) {
	t.Run("history keeps the newest HistorySize", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		for n := int32(1); n <= HistorySize+10; n++ {
			src.receive(n, n*50)
			tr.Update(src, nil)
		}
		r := tr.Records()
		if len(r) != HistorySize || r[0].Num != 11 || r[len(r)-1].Num != HistorySize+10 {
			t.Fatalf("records %d..%d (%d), want 11..%d (%d)", r[0].Num, r[len(r)-1].Num, len(r), HistorySize+10, HistorySize)
		}
	})
	t.Run("same number reads nothing", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		src.receive(3, 150)
		tr.Update(src, nil)
		g := src.gets
		tr.Update(src, nil)
		tr.Update(src, nil)
		if src.gets != g {
			t.Errorf("GetSnapshot called %d more times for no new snapshot", src.gets-g)
		}
	})
	t.Run("a new cgame starts over", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		a, b := &cgame.CGame{}, &cgame.CGame{}
		src.receive(3, 150)
		tr.Update(src, a)
		src.receive(40, 2000)
		tr.Update(src, b)
		recsEqual(t, tr.Records(), []SnapRecord{{40, 2000, false}})
	})
	t.Run("a number going back starts over", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		src.receive(30, 1500)
		tr.Update(src, nil)
		src2 := newFakeSource()
		src2.receive(2, 100)
		tr.Update(src2, nil)
		recsEqual(t, tr.Records(), []SnapRecord{{2, 100, false}})
	})
	t.Run("a gap past the ring starts over", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		src.receive(10, 500)
		tr.Update(src, nil)
		src.receive(10+proto.PacketBackup+5, 3000)
		src.gets = 0
		tr.Update(src, nil)
		r := tr.Records()
		if len(r) != 1 || r[0].Num != 10+proto.PacketBackup+5 {
			t.Fatalf("records %+v, want only the newest", r)
		}
		if src.gets > proto.PacketBackup+1 {
			t.Errorf("GetSnapshot called %d times, more than the ring", src.gets)
		}
	})
	t.Run("lost at the end gets the last interval", func(t *testing.T) {
		src := newFakeSource()
		var tr Tracker
		src.receive(10, 1000)
		tr.Update(src, nil)
		src.receive(11, 1040)
		tr.Update(src, nil)
		// 12 is the newest but no longer readable (entities overwritten).
		src.newest = 12
		tr.Update(src, nil)
		recsEqual(t, tr.Records(), []SnapRecord{{10, 1000, false}, {11, 1040, false}, {12, 1080, true}})
	})
	t.Run("no source, no snapshot", func(t *testing.T) {
		var tr Tracker
		tr.Update(nil, nil)
		tr.Update(newFakeSource(), nil)
		if len(tr.Records()) != 0 || tr.HaveLatest {
			t.Fatalf("records %+v latest %v", tr.Records(), tr.HaveLatest)
		}
	})
}

func TestTrackerLatest(t *testing.T) {
	src := newFakeSource()
	src.ps[7] = bg.PlayerState{ClientNum: 2, CommandTime: 690, Origin: bg.Vec{X: 100, Y: 200}}
	src.ents[7] = []bg.EntityState{
		{Number: 1, EType: bg.ETPlayer, Pos: bg.Trajectory{Base: bg.Vec{X: 5, Y: 6}}},
		{Number: 3, EType: bg.ETItem, Pos: bg.Trajectory{Base: bg.Vec{X: 9, Y: 9}}},
		{Number: 70, EType: bg.ETMissile},
	}
	src.receive(7, 700)
	var tr Tracker
	tr.Update(src, nil)
	if tr.LatestPS.Origin != (bg.Vec{X: 100, Y: 200}) || tr.LatestTime != 700 {
		t.Fatalf("latest ps %+v time %d", tr.LatestPS.Origin, tr.LatestTime)
	}
	if v, ok := tr.LatestPlayer(1); !ok || v != (bg.Vec{X: 5, Y: 6}) {
		t.Errorf("player 1 = %v %v", v, ok)
	}
	for _, n := range []int32{3, 0, -1, bg.MaxClients, 70} {
		if _, ok := tr.LatestPlayer(n); ok {
			t.Errorf("entity %d reported as a player", n)
		}
	}
	// The next snapshot replaces the positions: player 1 left.
	src.receive(8, 750)
	tr.Update(src, nil)
	if _, ok := tr.LatestPlayer(1); ok {
		t.Error("player 1 kept from an older snapshot")
	}
}

func TestTrackerUpdateAllocs(t *testing.T) {
	src := newFakeSource()
	for n := int32(1); n <= 200; n++ {
		src.times[n] = n * 50
	}
	var tr Tracker
	n := int32(1)
	allocs := testing.AllocsPerRun(100, func() {
		src.newest = n
		tr.Update(src, nil)
		n++
	})
	if allocs != 0 {
		t.Errorf("Update allocates %v times a call", allocs)
	}
}

func BenchmarkTrackerUpdate(b *testing.B) {
	src := newFakeSource()
	var tr Tracker
	n := int32(0)
	b.ReportAllocs()
	for b.Loop() {
		n++
		src.times[n] = n * 50
		delete(src.times, n-proto.PacketBackup)
		src.newest = n
		tr.Update(src, nil)
	}
}
