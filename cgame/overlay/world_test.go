package overlay

import (
	"math"
	"testing"

	"tremor/bg"
	"tremor/cgame"
)

func TestLocalOf(t *testing.T) {
	u := float64(bg.UnitsPerPixel)
	tests := []struct {
		name    string
		cg      *cgame.CGame
		latest  bg.PlayerState
		noSnap  bool
		want    Local
		wantErr float64 // ErrorPx
		wantOff float64 // OffsetPx
	}{
		{
			name:   "nil cgame",
			noSnap: true,
		},
		{
			name: "predicting ahead of the server, no error",
			cg: &cgame.CGame{Snap: &cgame.Snapshot{}, Predicting: true,
				Predicted:   bg.PlayerState{CommandTime: 1080, Origin: bg.Vec{X: int32(30 * u), Y: int32(40 * u)}},
				DrawnOrigin: cgame.Point{X: 30 * u, Y: 40 * u}},
			latest: bg.PlayerState{CommandTime: 1000, Origin: bg.Vec{X: 0, Y: 0}},
			want: Local{Valid: true, Server: cgame.Point{}, Predicted: cgame.Point{X: 30 * u, Y: 40 * u},
				Drawn: cgame.Point{X: 30 * u, Y: 40 * u}, Ahead: 80, Predicting: true},
			wantOff: 50,
		},
		{
			name: "a misprediction half decayed",
			cg: &cgame.CGame{Snap: &cgame.Snapshot{}, Predicting: true,
				Predicted:      bg.PlayerState{CommandTime: 1050, Origin: bg.Vec{X: int32(10 * u)}},
				DrawnOrigin:    cgame.Point{X: 13 * u, Y: 4 * u},
				PredictedError: cgame.Point{X: 6 * u, Y: 8 * u},
				DrawnError:     cgame.Point{X: 3 * u, Y: 4 * u}},
			latest: bg.PlayerState{CommandTime: 1000, Origin: bg.Vec{X: int32(10 * u)}},
			want: Local{Valid: true, Server: cgame.Point{X: 10 * u}, Predicted: cgame.Point{X: 10 * u},
				Drawn: cgame.Point{X: 13 * u, Y: 4 * u}, Error: cgame.Point{X: 3 * u, Y: 4 * u},
				ErrorLeft: 0.5, Ahead: 50, Predicting: true},
			wantErr: 5,
		},
		{
			name: "spectators have no box",
			cg: &cgame.CGame{Snap: &cgame.Snapshot{},
				Predicted: bg.PlayerState{PmType: bg.PMSpectator}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			if !tt.noSnap {
				tr.HaveLatest, tr.LatestPS = true, tt.latest
			}
			got := LocalOf(tt.cg, &tr)
			if math.Abs(got.ErrorPx-tt.wantErr) > 1e-9 || math.Abs(got.OffsetPx-tt.wantOff) > 1e-9 {
				t.Errorf("ErrorPx %v OffsetPx %v, want %v %v", got.ErrorPx, got.OffsetPx, tt.wantErr, tt.wantOff)
			}
			got.ErrorPx, got.OffsetPx = 0, 0
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestGhosts(t *testing.T) {
	player := func(n int32, x int32, flags int32) bg.EntityState {
		return bg.EntityState{Number: n, EType: bg.ETPlayer, EFlags: flags, Pos: bg.Trajectory{Type: bg.TrInterpolate, Base: bg.Vec{X: x}}}
	}
	ents := []*cgame.CEntity{
		{Current: player(1, 100, 0), Next: player(1, 200, 0), Interpolate: true, Valid: true, Lerp: cgame.Point{X: 150}},
		{Current: player(2, 300, bg.EFDead), Valid: true, Lerp: cgame.Point{X: 300}},
		{Current: bg.EntityState{Number: 70, EType: bg.ETMissile}, Valid: true},
		{Current: player(4, 10, bg.EFNoDraw), Valid: true},
		{Current: player(5, 500, 0), Next: player(5, 900, 0), Interpolate: false, Valid: true, Lerp: cgame.Point{X: 500}},
	}
	cg := &cgame.CGame{Snap: &cgame.Snapshot{}, NextSnap: &cgame.Snapshot{}, Entities: ents}
	src := newFakeSource()
	src.ents[9] = []bg.EntityState{player(1, 260, 0), player(5, 950, 0)}
	src.receive(9, 900)
	var tr Tracker
	tr.Update(src, cg)

	want := []Ghost{
		{Client: 1, Lerp: cgame.Point{X: 150}, Snap: cgame.Point{X: 100}, Next: cgame.Point{X: 200}, HaveNext: true, Newest: cgame.Point{X: 260}, HaveNewest: true},
		{Client: 2, Lerp: cgame.Point{X: 300}, Snap: cgame.Point{X: 300}, Dead: true},
		// Not interpolated (teleported): no Next, whatever Next holds.
		{Client: 5, Lerp: cgame.Point{X: 500}, Snap: cgame.Point{X: 500}, Newest: cgame.Point{X: 950}, HaveNewest: true},
	}
	dst := make([]Ghost, 0, bg.MaxClients)
	got := Ghosts(dst, cg, &tr)
	if len(got) != len(want) {
		t.Fatalf("ghosts %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ghost %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if a := testing.AllocsPerRun(50, func() { dst = Ghosts(dst, cg, &tr) }); a != 0 {
		t.Errorf("Ghosts allocates %v times", a)
	}
	if g := Ghosts(dst, nil, &tr); len(g) != 0 {
		t.Errorf("nil cgame: %+v", g)
	}
}
