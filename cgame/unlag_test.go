package cgame

import (
	"testing"

	"tremor/bg"
)

// An EvUnlagged entity is kept for the overlay when the local player
// fired the shot, and ignored when someone else did.
func TestUnlaggedHitsKeepOwnShots(t *testing.T) {
	g := &CGame{Snap: &Snapshot{PS: bg.PlayerState{ClientNum: 3}}, Time: 5000}
	mark := func(shooter, target int32) *bg.EntityState {
		return &bg.EntityState{EType: bg.ETEvents + bg.EvUnlagged, OtherEntity: shooter, ClientNum: target,
			Pos: bg.Trajectory{Type: bg.TrStationary, Base: bg.Vec{X: 1600, Y: 3200}}, Origin2: bg.Vec{X: 2400, Y: 3200}, EventParm: 180}
	}
	g.fire(0, bg.EvUnlagged, 180, 70, Point{}, SourceTemp, mark(4, 3))
	if g.Unlagged.Total != 0 {
		t.Fatalf("another player's rewound hit was kept: %+v", g.Unlagged.At(0))
	}
	for i := 0; i < MaxUnlaggedHits+2; i++ {
		g.Time = 5000 + int32(i)
		g.fire(0, bg.EvUnlagged, 180, 70, Point{}, SourceTemp, mark(3, int32(i)))
	}
	if g.Unlagged.Total != MaxUnlaggedHits+2 || g.Unlagged.Len() != MaxUnlaggedHits {
		t.Fatalf("total %d, held %d; want %d, %d", g.Unlagged.Total, g.Unlagged.Len(), MaxUnlaggedHits+2, MaxUnlaggedHits)
	}
	want := UnlaggedHit{Target: MaxUnlaggedHits + 1, Rewound: Point{1600, 3200}, Server: Point{2400, 3200}, Msec: 180, Time: 5000 + MaxUnlaggedHits + 1}
	if got := g.Unlagged.At(MaxUnlaggedHits - 1); got != want {
		t.Errorf("newest %+v, want %+v", got, want)
	}
	if got := g.Unlagged.At(0).Target; got != 2 {
		t.Errorf("oldest held is target %d, want 2", got)
	}
}
