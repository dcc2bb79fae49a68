package game_test

import (
	"testing"

	"tremor/bg"
	"tremor/game"
)

// TestTempEntityLifetime: a temporary event entity lives EventValidMsec,
// and its slot is not reused for FreeReuseMsec after that.
func TestTempEntityLifetime(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 1)
	a := c[0]
	h.RunFor(3000) // past the start of the level, when slots are reused at once
	fire := func() int {
		h.PS(a.Num).WeaponTime = 0
		shoot(h, a, bg.WPMachinegun, aimUp)
		ev := h.EntitiesOfType(bg.ETEvents + bg.EvBulletHitWall)
		if len(ev) != 1 {
			t.Fatalf("%d impacts, want 1", len(ev))
		}
		return ev[0]
	}
	first := fire()
	h.RunFor(game.EventValidMsec - 50)
	if !h.Game.EntityInUse(first) {
		t.Fatal("freed before EventValidMsec")
	}
	h.RunFor(100)
	if h.Game.EntityInUse(first) {
		t.Fatal("not freed after EventValidMsec")
	}
	if second := fire(); second == first {
		t.Errorf("slot %d reused at once", first)
	}
	h.RunFor(game.FreeReuseMsec)
	if third := fire(); third != first {
		t.Errorf("slot %d not reused after %d ms (got %d)", first, game.FreeReuseMsec, third)
	}
}

// TestEventBits: an entity's event keeps a two-bit counter that changes
// with every event, and the event is cleared EventValidMsec later.
func TestEventBits(t *testing.T) {
	h, c := start(t, room(t), testConfig(), 1)
	a := c[0]
	ps := h.PS(a.Num)
	var seen []int32
	for i := 0; i < 4; i++ {
		h.Command(a.Num, "kill")
		h.Frame() // the entity gets the event at the end of the frame
		ev := ps.ExternalEvent
		if ev&^bg.EventBits != bg.EvDeath || h.Entity(a.Num).S.Event != ev {
			t.Fatalf("event %#x (entity %#x), want EvDeath", ev, h.Entity(a.Num).S.Event)
		}
		seen = append(seen, ev&bg.EventBits)
		h.RunFor(game.EventValidMsec)
		if ps.ExternalEvent != 0 || h.Entity(a.Num).S.Event != 0 {
			t.Fatalf("event not cleared after %d ms", game.EventValidMsec)
		}
		a.Cmd.Buttons = bg.ButtonAttack
		h.RunUntil(4000, func() bool { return ps.PmType == bg.PMNormal })
		a.Cmd.Buttons = 0
		h.Frame()
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Errorf("event bits %v repeat", seen)
		}
	}
}
