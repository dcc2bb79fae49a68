package fx

import (
	"math"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
)

func TestEventSound(t *testing.T) {
	tests := []struct {
		name string
		ev   int32
		parm int32
		want Sound
	}{
		{"rocket", bg.EvFireWeapon, bg.WPRocketLauncher, SoundRocketLauncher},
		{"rail", bg.EvFireWeapon, bg.WPRailgun, SoundRailgun},
		{"no weapon", bg.EvFireWeapon, bg.WPNone, SoundNone},
		{"bad weapon", bg.EvFireWeapon, 99, SoundNone},
		{"jump", bg.EvJump, 0, SoundJump},
		{"soft landing", bg.EvLand, LandSoundSpeed - 1, SoundNone},
		{"hard landing", bg.EvLand, LandSoundSpeed, SoundLand},
		{"health pickup", bg.EvItemPickup, bg.ItemByClass("item_health"), SoundPickup},
		{"weapon pickup", bg.EvItemPickup, bg.ItemByClass("weapon_railgun"), SoundWeaponPickup},
		{"quad pickup", bg.EvItemPickup, bg.ItemByClass("item_quad"), SoundQuad},
		{"bad item", bg.EvItemPickup, 1000, SoundPickup},
		{"explosion", bg.EvMissileMiss, 0, SoundExplosion},
		{"pain", bg.EvPain, 50, SoundPain},
		{"obituary", bg.EvObituary, 0, SoundNone},
		{"step", bg.EvStep, 8, SoundNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := cgame.Event{Event: tt.ev, Parm: tt.parm}
			if got := EventSound(&e); got != tt.want {
				t.Errorf("EventSound(%d, %d) = %v, want %v", tt.ev, tt.parm, got, tt.want)
			}
		})
	}
}

func TestEventCueVolume(t *testing.T) {
	at := func(px float64) cgame.Point { return cgame.Point{X: px * bg.UnitsPerPixel} }
	tests := []struct {
		name   string
		entity int32
		source cgame.EventSource
		x      float64 // px from the listener
		ok     bool
		vol    float64
	}{
		{"own predicted, far", 3, cgame.SourcePredicted, 5000, true, 1},
		{"own external", 3, cgame.SourceExternal, 0, true, 1},
		{"other near", 7, cgame.SourceEntity, 100, true, 1},
		{"other mid", 7, cgame.SourceEntity, (FullVolumeDistance + HearingDistance) / 2, true, (1 + MinVolume) / 2},
		{"other far", 7, cgame.SourceEntity, HearingDistance + 1, false, 0},
		{"temp at own number", 3, cgame.SourceTemp, HearingDistance + 1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := cgame.Event{Event: bg.EvJump, Entity: tt.entity, Source: tt.source, Origin: at(tt.x)}
			c, ok := EventCue(&e, 3, cgame.Point{})
			if ok != tt.ok || (ok && (c.Sound != SoundJump || c.Volume < tt.vol-1e-9 || c.Volume > tt.vol+1e-9)) {
				t.Errorf("EventCue = %+v, %v; want volume %v, %v", c, ok, tt.vol, tt.ok)
			}
		})
	}
}

func TestFeedback(t *testing.T) {
	g := &cgame.CGame{}
	g.Predicted.ClientNum = 2
	g.Predicted.Persistant[bg.PersHits] = 40
	g.Predicted.DamageEvent = 9
	var f Feedback
	step := func(now int32) { g.RealTime = now; f.Update(g) }

	step(1000)
	if f.HitTime != 0 || f.DamageTime != 0 || len(f.Cues) != 0 {
		t.Fatalf("first frame: hit %d damage %d cues %v; want nothing (counters only taken in)", f.HitTime, f.DamageTime, f.Cues)
	}

	g.Predicted.Persistant[bg.PersHits] = 47
	step(1016)
	if f.HitTime != 1016 || f.HitCount != 7 || len(f.Cues) != 1 || f.Cues[0].Sound != SoundHit {
		t.Errorf("hit: time %d count %d cues %v; want 1016, 7, [hit]", f.HitTime, f.HitCount, f.Cues)
	}
	step(1032)
	if len(f.Cues) != 0 || f.HitTime != 1016 {
		t.Errorf("no change: cues %v hit time %d; want none, 1016", f.Cues, f.HitTime)
	}

	g.Predicted.Persistant[bg.PersHits] = 0 // map restart
	step(1048)
	if f.HitTime != 1016 || len(f.Cues) != 0 {
		t.Errorf("hits reset: marked a hit")
	}

	g.Predicted.DamageEvent = 10
	g.Predicted.DamageCount = 0 // a push on a protected player
	step(1064)
	if f.DamageTime != 0 {
		t.Errorf("push without damage flashed at %d", f.DamageTime)
	}
	g.Predicted.DamageEvent, g.Predicted.DamageCount, g.Predicted.DamageDir = 11, 35, 16384
	step(1080)
	if f.DamageTime != 1080 || f.DamageCount != 35 || f.DamageDir != 16384 {
		t.Errorf("damage: %d %d %d; want 1080 35 16384", f.DamageTime, f.DamageCount, f.DamageDir)
	}

	health, rail := bg.ItemByClass("item_health"), bg.ItemByClass("weapon_railgun")
	g.Events = []cgame.Event{
		{Event: bg.EvItemPickup, Parm: health, Entity: 2, Source: cgame.SourceExternal},
		{Event: bg.EvItemPickup, Parm: rail, Entity: 5, Source: cgame.SourceEntity}, // someone else's
		{Event: bg.EvItemPickup, Parm: rail, Entity: 2, Source: cgame.SourceExternal},
	}
	step(1096)
	if f.Pickups() != 2 || f.PickupAt(0).Text != "+25 Health" || f.PickupAt(1).Text != "Railgun" {
		t.Errorf("pickups: %d %q %q; want 2 \"+25 Health\" \"Railgun\"", f.Pickups(), f.PickupAt(0).Text, f.PickupAt(1).Text)
	}
	if len(f.Cues) != 3 {
		t.Errorf("pickup cues: %v; want 3", f.Cues)
	}

	g.Predicted.ClientNum = 4 // a new connection: counters taken in again
	g.Predicted.Persistant[bg.PersHits] = 500
	g.Events = nil
	step(1112)
	if f.HitTime != 1016 {
		t.Errorf("client change marked a hit")
	}
}

func TestFeedbackAllocs(t *testing.T) {
	g := &cgame.CGame{Events: []cgame.Event{{Event: bg.EvJump, Source: cgame.SourcePredicted}}}
	var f Feedback
	f.Update(g)
	n := testing.AllocsPerRun(100, func() {
		g.Predicted.Persistant[bg.PersHits]++
		f.Update(g)
	})
	if n != 0 {
		t.Errorf("Update allocates %v times per frame", n)
	}
}

func TestPickupText(t *testing.T) {
	tests := []struct {
		class, want string
	}{
		{"item_health", "+25 Health"},
		{"item_health_mega", "Mega Health"},
		{"item_armor_shard", "+5 Armor"},
		{"ammo_bullets", "+50 Bullets"},
		{"weapon_rocketlauncher", "Rocket Launcher"},
		{"item_quad", "Quad Damage"},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			if got := PickupText(bg.ItemByClass(tt.class)); got != tt.want {
				t.Errorf("PickupText = %q, want %q", got, tt.want)
			}
		})
	}
	for _, n := range []int32{-1, 0, int32(len(bg.Items))} {
		if s := PickupText(n); s != "" {
			t.Errorf("PickupText(%d) = %q, want \"\"", n, s)
		}
	}
}

func TestItemSpots(t *testing.T) {
	m, err := tilemap.FromRows("", "##########", "#S.+....S#", "##########")
	if err != nil {
		t.Fatal(err)
	}
	var s ItemSpots
	s.Reset(m)
	if len(s.Spots) != 1 {
		t.Fatalf("%d spots, want 1", len(s.Spots))
	}
	sp := &s.Spots[0]
	item := bg.Vec{X: int32(sp.X) * bg.UnitsPerPixel, Y: int32(sp.Y) * bg.UnitsPerPixel}
	ce := &cgame.CEntity{Current: bg.EntityState{EType: bg.ETItem, ModelIndex: sp.Item, Pos: bg.Trajectory{Base: item}}}
	g := &cgame.CGame{Snap: &cgame.Snapshot{}, Time: 5000}
	g.Snap.PS.Origin = item

	// In view without the item before it was ever seen: waiting, start unknown.
	s.Update(g)
	if !sp.Known || sp.Present {
		t.Fatalf("first look without the item: known %v present %v; want true false", sp.Known, sp.Present)
	}
	if _, ok := sp.RespawnFraction(g.Time); ok {
		t.Errorf("respawn fraction known for an item never seen to go")
	}

	g.Entities = []*cgame.CEntity{ce}
	s.Update(g)
	if !sp.Present {
		t.Fatalf("item in the frame not present")
	}

	// Out of the server's view: its absence says nothing.
	g.Entities = nil
	g.Snap.PS.Origin.X += (ViewWidth/2 + 100) * bg.UnitsPerPixel
	s.Update(g)
	if !sp.Present {
		t.Errorf("item out of view marked gone")
	}

	// In view and gone: waiting since now.
	g.Snap.PS.Origin = item
	g.Time = 6000
	s.Update(g)
	if sp.Present || sp.GoneAt != 6000 {
		t.Fatalf("picked item: present %v gone at %d; want false 6000", sp.Present, sp.GoneAt)
	}
	wait := bg.Items[sp.Item].Respawn * 1000
	if f, ok := sp.RespawnFraction(6000 + wait/2); !ok || f != 0.5 {
		t.Errorf("half way: %v %v; want 0.5 true", f, ok)
	}
	if f, _ := sp.RespawnFraction(6000 + 2*wait); f != 1 {
		t.Errorf("past the wait: %v; want 1", f)
	}
}

func TestParticles(t *testing.T) {
	var ps Particles
	ps.Add(Particle{Life: 0}) // dead on arrival
	ps.Add(Particle{Life: 1, VX: 10, Gravity: 100})
	ps.Add(Particle{Life: 0.05})
	if ps.Len() != 2 {
		t.Fatalf("Len = %d, want 2", ps.Len())
	}
	ps.Step(0.1)
	if ps.Len() != 1 {
		t.Fatalf("after 0.1 s: Len = %d, want 1", ps.Len())
	}
	p := ps.Live()[0]
	if p.X != 1 || p.VY != 10 {
		t.Errorf("moved to x %v vy %v; want 1, 10", p.X, p.VY)
	}
	ps.Step(float32(math.NaN())) // ignored
	ps.Step(5)                   // clamped to 0.1
	if ps.Len() != 1 || ps.Live()[0].Age > 0.21 {
		t.Errorf("stall not clamped: len %d age %v", ps.Len(), ps.Live()[0].Age)
	}
	for i := 0; i < MaxParticles+10; i++ {
		ps.Add(Particle{Life: 1})
	}
	if ps.Len() != MaxParticles {
		t.Errorf("full pool: Len = %d, want %d", ps.Len(), MaxParticles)
	}
	if n := testing.AllocsPerRun(10, func() { ps.Add(Particle{Life: 1}); ps.Step(0.01) }); n != 0 {
		t.Errorf("Add+Step allocate %v", n)
	}
}

func BenchmarkFeedbackUpdate(b *testing.B) {
	g := &cgame.CGame{Events: make([]cgame.Event, 8)}
	for i := range g.Events {
		g.Events[i] = cgame.Event{Event: bg.EvFireWeapon, Parm: bg.WPMachinegun, Entity: int32(i), Source: cgame.SourceEntity}
	}
	var f Feedback
	b.ReportAllocs()
	for b.Loop() {
		f.Update(g)
	}
}

func BenchmarkParticlesStep(b *testing.B) {
	var ps Particles
	var r Rand
	for i := 0; i < MaxParticles; i++ {
		ps.Add(Particle{Life: 1e9, VX: r.Range(-50, 50), VY: r.Range(-50, 50), Gravity: 100, Drag: 0.5})
	}
	b.ReportAllocs()
	for b.Loop() {
		ps.Step(1.0 / 60)
	}
}
