package cgame

import (
	"testing"

	"tremor/bg"
)

// rollbackScript is a script whose engine runs the game itself (frame
// sync) and says which snapshots follow a rollback, and from when.
type rollbackScript struct {
	*script
	from map[int32]int32 // snapshot number: the level time the rollback before it ran again from
}

func (c *rollbackScript) SnapshotRollback(num int32) (int32, bool) {
	t, ok := c.from[num]
	return t, ok
}

// In frame sync an event played from a predicted frame and seen again
// after a rollback ran its frame again (in another slot, changed in its
// details, with the counter bits it had before) plays once; two real
// events play twice, and so does an event of a frame the rollback did
// not reach. The local player's own events play from the frames once.
func TestFrameSyncEventsOnce(t *testing.T) {
	temp := func(n, ev, x int32) bg.EntityState {
		return bg.EntityState{Number: n, EType: bg.ETEvents + ev, OtherEntity: 2, Pos: bg.Trajectory{Base: bg.Vec{X: x, Y: 64}}}
	}
	pain := func(counter int32) bg.EntityState {
		e := player(5, 0, 0)
		e.Event, e.EventParm = bg.EvPain|counter<<bg.EventBitsShift, 40
		return e
	}
	type snap struct {
		ents     []bg.EntityState
		rollback int32 // the level time the rollback before this snapshot ran again from; 0: none
		jumps    int32 // the local player's EventSequence, every event a jump
	}
	hit, boom := temp(90, bg.EvBulletHitWall, 320), temp(90, bg.EvExplosion, 320)
	tests := []struct {
		name   string
		snaps  []snap
		played int
	}{
		{"moved to another slot", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{temp(91, bg.EvBulletHitWall, 320)}, rollback: 1050}}, 1},
		{"another slot, no rollback", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{temp(91, bg.EvBulletHitWall, 320)}}}, 2},
		{"hit elsewhere once run again", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{temp(90, bg.EvBulletHitWall, 500)}, rollback: 1000}}, 1},
		{"moved and hit elsewhere", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{temp(91, bg.EvBulletHitWall, 500)}, rollback: 1050}}, 1},
		{"two real hits", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{hit, temp(91, bg.EvBulletHitWall, 500)}, rollback: 1050}}, 2},
		{"another event in its slot", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{boom}, rollback: 1050}}, 2},
		{"played before the rollback's frames", []snap{{}, {ents: []bg.EntityState{hit}}, {}, {ents: []bg.EntityState{temp(91, bg.EvBulletHitWall, 320)}, rollback: 1100}}, 2},
		{"gone of age", []snap{{}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{hit}}, {ents: []bg.EntityState{hit}}, {}, {ents: []bg.EntityState{temp(91, bg.EvBulletHitWall, 320)}, rollback: 1050}}, 2},
		{"entity event back after a rollback", []snap{{ents: []bg.EntityState{player(5, 0, 0)}}, {ents: []bg.EntityState{pain(1)}}, {ents: []bg.EntityState{pain(2)}}, {ents: []bg.EntityState{pain(1)}, rollback: 1050}}, 2},
		{"entity event back, no rollback", []snap{{ents: []bg.EntityState{player(5, 0, 0)}}, {ents: []bg.EntityState{pain(1)}}, {ents: []bg.EntityState{pain(2)}}, {ents: []bg.EntityState{pain(1)}}}, 3},
		{"own events", []snap{{}, {jumps: 1}, {jumps: 1, rollback: 1000}, {jumps: 2}, {jumps: 2, rollback: 1100}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, _ := newScripted(t, nil)
			c := &rollbackScript{script: sc, from: map[int32]int32{}}
			g := New(c, emptyMap(t), nil)
			g.SetFrameSync(true)
			played := 0
			for i, sn := range tt.snaps {
				st := 1000 + int32(i)*50
				s := c.add(st, sn.ents...)
				for k := range sn.jumps {
					bg.AddPredictableEvent(&s.PS, bg.EvJump, k)
				}
				if sn.rollback != 0 {
					c.from[s.MessageNum] = sn.rollback
				}
				c.frame(g, st)
				played += len(g.Events)
			}
			if played != tt.played {
				t.Errorf("played %d events, want %d", played, tt.played)
			}
			if want := g.Stats.EventsFired; played != want {
				t.Errorf("played %d, EventsFired %d", played, want)
			}
		})
	}
}
