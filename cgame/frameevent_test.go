package cgame

import (
	"testing"

	"tremor/bg"
)

// frameScript is a script whose engine runs the game itself (frame sync)
// and gives the events it found in the frames it ran: events[i] is frame
// event i+1, of which it holds the newest hold (0: all).
type frameScript struct {
	*script
	events []FrameEvent
	seq    map[int32]int32 // snapshot number: the newest frame event found by then
	hold   int
	played []int32 // the frames of the events cgame played
}

func (c *frameScript) SnapshotEventSequence(num int32) (int32, bool) {
	s, ok := c.seq[num]
	return s, ok
}

func (c *frameScript) GetFrameEvent(seq int32, e *FrameEvent) bool {
	n := int32(len(c.events))
	if seq <= 0 || seq > n || c.hold > 0 && n-seq >= int32(c.hold) {
		return false
	}
	*e = c.events[seq-1]
	return true
}

// Test frame events: frame is the level time of the frame, pass the
// engine's pass that found them, after the level time of the state it
// began from.
func tempEvent(frame, pass, after, slot, ev, other int32) FrameEvent {
	return FrameEvent{Frame: frame, Pass: pass, After: after, Source: SourceTemp, Event: ev, Entity: slot,
		Origin: bg.Vec{X: slot * 10},
		State:  bg.EntityState{Number: slot, EType: bg.ETEvents + ev, OtherEntity: other, ClientNum: 3}}
}

func entityEvent(frame, pass, after, entity, ev int32) FrameEvent {
	return FrameEvent{Frame: frame, Pass: pass, After: after, Source: SourceEntity, Event: ev, Entity: entity,
		Origin: bg.Vec{X: entity * 10},
		State:  bg.EntityState{Number: entity, EType: bg.ETPlayer, Event: ev}}
}

func ownEvent(frame, pass, after, ev int32) FrameEvent {
	return FrameEvent{Frame: frame, Pass: pass, After: after, Source: SourcePlayerState, Event: ev}
}

// In frame sync with a FrameEventSource, cgame plays the events the
// engine found in every frame it ran, up to each snapshot as it becomes
// current, and not the snapshots' own. An event is not played again when
// one played in an earlier pass, of a frame this pass runs again, is the
// same (a temporary entity's whatever its slot and details; an entity's
// of the same entity; the player's own) and at most MaxEventShift away,
// in the same frame first, then the nearest standing for it, each for
// one event a pass. An event first
// found when its frame ran again plays then, however old.
func TestFrameEventsPlayedOnce(t *testing.T) {
	// Pass 1 began after the whole state of 950; the others are
	// rollbacks.
	hit := func(frame, pass, after, slot int32) FrameEvent {
		return tempEvent(frame, pass, after, slot, bg.EvBulletHitWall, 2)
	}
	p1 := func(frame, slot int32) FrameEvent { return hit(frame, 1, 950, slot) }
	type snap struct {
		ents   []bg.EntityState
		events []FrameEvent // found by the engine since the snapshot before
	}
	ev := func(e ...FrameEvent) snap { return snap{events: e} }
	kill := tempEvent(1050, 2, 1000, 95, bg.EvObituary, 1)
	tests := []struct {
		name                     string
		snaps                    []snap
		played, rolledBack, lost int
		hold                     int
		last                     int32 // the frame of the last event played (0: any)
	}{
		{"played once", []snap{{}, ev(p1(1050, 90))}, 1, 0, 0, 0, 0},
		{"run again in another slot", []snap{{}, ev(p1(1050, 90)), ev(hit(1050, 2, 1000, 91), tempEvent(1100, 2, 1000, 92, bg.EvExplosion, 2))}, 2, 1, 0, 0, 0},
		{"run again twice", []snap{{}, ev(p1(1050, 90)), ev(hit(1050, 2, 1000, 91)), ev(hit(1050, 3, 1000, 90))}, 1, 2, 0, 0, 0},
		{"two real hits, one predicted", []snap{{}, ev(p1(1050, 90)), ev(hit(1050, 2, 1000, 91), hit(1050, 2, 1000, 92))}, 2, 1, 0, 0, 0},
		{"two predicted, both again", []snap{{}, ev(p1(1050, 90), p1(1050, 91)), ev(hit(1050, 2, 1000, 91), hit(1050, 2, 1000, 90))}, 2, 2, 0, 0, 0},
		{"another event of the frame", []snap{{}, ev(p1(1050, 90)), ev(tempEvent(1050, 2, 1000, 90, bg.EvExplosion, 2))}, 2, 0, 0, 0, 0},
		{"another shooter", []snap{{}, ev(p1(1050, 90)), ev(tempEvent(1050, 2, 1000, 90, bg.EvBulletHitWall, 4))}, 2, 0, 0, 0, 0},
		{"moved a frame", []snap{{}, ev(p1(1050, 90)), ev(hit(1100, 2, 1000, 90))}, 1, 1, 0, 0, 0},
		{"moved too far", []snap{{}, ev(p1(1050, 90)), ev(hit(1050+MaxEventShift+50, 2, 1000, 90))}, 2, 0, 0, 0, 0},
		{"the nearest stands for it", []snap{{}, ev(p1(1050, 90), p1(1150, 91)), ev(hit(1150, 2, 1000, 90), hit(1250, 2, 1000, 91))}, 3, 1, 0, 0, 0},
		{"played in a frame not run again", []snap{{}, ev(p1(1050, 90)), ev(hit(1100, 2, 1050, 90))}, 2, 0, 0, 0, 0},
		{"same frame, same pass", []snap{{}, ev(p1(1050, 90)), ev(p1(1050, 91))}, 2, 0, 0, 0, 0},
		{"the same frame first", []snap{{}, ev(p1(1100, 90)), ev(hit(1050, 2, 1000, 91), hit(1100, 2, 1000, 90))}, 2, 1, 0, 0, 1050},
		{"moved again", []snap{{}, ev(p1(1150, 90)), ev(hit(1100, 2, 1000, 90)), ev(hit(1150, 3, 1050, 90))}, 1, 2, 0, 0, 0},
		{"confirmed where it moved to", []snap{{}, ev(p1(1150, 90)), ev(hit(1100, 2, 1000, 90)), ev(hit(1200, 3, 1100, 90))}, 2, 1, 0, 0, 0},
		{"entity event again", []snap{{}, ev(entityEvent(1050, 1, 950, 5, bg.EvPain)), ev(entityEvent(1050, 2, 1000, 5, bg.EvPain))}, 1, 1, 0, 0, 0},
		{"another entity's", []snap{{}, ev(entityEvent(1050, 1, 950, 5, bg.EvPain)), ev(entityEvent(1050, 2, 1000, 6, bg.EvPain))}, 2, 0, 0, 0, 0},
		{"own event again, and a new one", []snap{{}, ev(ownEvent(1050, 1, 950, bg.EvJump)), ev(ownEvent(1050, 2, 1000, bg.EvJump), ownEvent(1100, 2, 1000, bg.EvJump))}, 2, 1, 0, 0, 0},
		{"found only when run again", []snap{{}, ev(p1(1050, 90)), {}, {}, {}, {}, {}, {}, {}, ev(kill)}, 2, 0, 0, 0, 0},
		{"not the snapshots' events", []snap{{}, {ents: []bg.EntityState{{Number: 90, EType: bg.ETEvents + bg.EvExplosion}}}}, 0, 0, 0, 0, 0},
		{"no longer held", []snap{{}, ev(p1(1050, 90), p1(1050, 91), p1(1050, 92))}, 1, 0, 2, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, _ := newScripted(t, nil)
			c := &frameScript{script: sc, seq: map[int32]int32{}, hold: tt.hold}
			g := New(c, emptyMap(t), nil)
			g.SetFrameSync(true)
			played, obituaries := 0, 0
			for i, sn := range tt.snaps {
				st := 1000 + int32(i)*50
				s := c.add(st, sn.ents...)
				for _, e := range sn.events {
					e.Predicted = e.Entity%2 == 0 // the engine says which frames it predicted
					c.events = append(c.events, e)
				}
				c.seq[s.MessageNum] = int32(len(c.events))
				c.frame(g, st)
				for _, e := range g.Events {
					if e.Time != st || e.Origin.X != float64(e.Entity*10) || e.Predicted != (e.Entity%2 == 0) {
						t.Errorf("snapshot at %d: %+v: want Time %d, Origin at 10 × Entity, Predicted as found", st, e, st)
					}
				}
				played += len(g.Events)
				for _, e := range g.Events {
					c.played = append(c.played, e.Frame)
				}
				obituaries = g.Obituaries.Total
			}
			if played != tt.played || g.Stats.EventsRolledBack != tt.rolledBack || g.Stats.FrameEventsLost != tt.lost {
				t.Errorf("played %d, %d not played again, %d lost; want %d, %d, %d",
					played, g.Stats.EventsRolledBack, g.Stats.FrameEventsLost, tt.played, tt.rolledBack, tt.lost)
			}
			if want := g.Stats.EventsFired; played != want {
				t.Errorf("played %d, EventsFired %d", played, want)
			}
			if n := len(c.played); tt.last != 0 && (n == 0 || c.played[n-1] != tt.last) {
				t.Errorf("played the events of frames %v, want the last of frame %d", c.played, tt.last)
			}
			if tt.name == "found only when run again" && obituaries != 1 {
				t.Errorf("%d obituaries, want the kill", obituaries)
			}
		})
	}
}

// The events the engine found after a snapshot wait until it becomes
// current, and a cgame made in the middle of a game starts with the
// events of its first snapshot, not those of the past.
func TestFrameEventsWaitForTheirSnapshot(t *testing.T) {
	sc, _ := newScripted(t, nil)
	c := &frameScript{script: sc, seq: map[int32]int32{}}
	for i, ev := range []int32{bg.EvJump, bg.EvLand, bg.EvPain, bg.EvJump} {
		st := 1000 + int32(i)*50
		s := c.add(st)
		c.events = append(c.events, FrameEvent{Frame: st, Pass: 1, After: 950, Source: SourceEntity, Event: ev, Entity: 5})
		c.seq[s.MessageNum] = int32(len(c.events))
	}
	g := New(c, emptyMap(t), nil)
	g.SetFrameSync(true)
	c.latest, c.render = 3, 1100 // the engine has made snapshot 3 (at 1100) and 4 is not made yet
	g.Frame(1100)
	if len(g.Events) != 1 || g.Events[0].Event != bg.EvPain || g.Events[0].Frame != 1100 {
		t.Fatalf("first frame played %+v; want only the pain of snapshot 3", g.Events)
	}
	c.latest, c.render = 4, 1125
	g.Frame(1125) // snapshot 4 is NextSnap, not current yet
	if len(g.Events) != 0 {
		t.Fatalf("played %+v before its snapshot", g.Events)
	}
	c.render = 1150
	g.Frame(1150)
	if len(g.Events) != 1 || g.Events[0].Event != bg.EvJump || g.Events[0].Frame != 1150 {
		t.Fatalf("played %+v; want the jump of snapshot 4", g.Events)
	}
}
