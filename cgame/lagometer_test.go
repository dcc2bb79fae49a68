package cgame

import (
	"testing"

	"tremor/common/proto"
	"tremor/lagometer"
)

// cgame feeds the lagometer one frame sample per frame (render time
// minus the newest snapshot's time, extrapolating or not) and one
// snapshot sample per message number: received with its ping and
// rate-delayed flag, or lost, whether in a gap the engine reported or
// beyond its ring.
func TestLagometerFeed(t *testing.T) {
	c, g := newScripted(t, nil)
	c.add(1000, player(1, 0, 0)).Ping = 40
	s := c.add(1050, player(1, 0, 0))
	s.Ping, s.Flags = 50, proto.SnapRateDelayed
	c.snaps = append(c.snaps, nil) // snapshot 3 lost
	c.add(1150, player(1, 0, 0)).Ping = 60

	c.frame(g, 1000) // between 1 and 2; newest received 1150
	c.frame(g, 1060) // 3 lost, between 2 and 4
	c.frame(g, 1200) // past 4: extrapolating

	wantFrames := []lagometer.Frame{{Offset: 50, Extrapolating: true}, {Offset: -90}, {Offset: -150}}
	if n := g.Lagometer.FrameCount(); n != len(wantFrames) {
		t.Fatalf("%d frame samples, want %d", n, len(wantFrames))
	}
	for age, want := range wantFrames {
		if f, _ := g.Lagometer.Frame(age); f != want {
			t.Errorf("frame age %d = %+v, want %+v", age, f, want)
		}
	}
	wantSnaps := []lagometer.Snapshot{{Ping: 60}, {Lost: true}, {Ping: 50, RateDelayed: true}, {Ping: 40}}
	if n := g.Lagometer.SnapshotCount(); n != len(wantSnaps) {
		t.Fatalf("%d snapshot samples, want %d", n, len(wantSnaps))
	}
	for age, want := range wantSnaps {
		if s, _ := g.Lagometer.Snapshot(age); s != want {
			t.Errorf("snapshot age %d = %+v, want %+v", age, s, want)
		}
	}

	// 40 snapshots arrive at once: the 8 that fell off the engine's ring
	// before cgame read them are lost, the 32 others received.
	const burst = 40
	for k := int32(1); k <= burst; k++ {
		c.add(1200+50*k, player(1, 0, 0)).Ping = 70
	}
	c.frame(g, 1200+50*burst)
	if n := g.Lagometer.SnapshotCount(); n != len(c.snaps) {
		t.Fatalf("%d snapshot samples for %d message numbers", n, len(c.snaps))
	}
	for age := range burst {
		want := lagometer.Snapshot{Ping: 70}
		if age >= proto.PacketBackup {
			want = lagometer.Snapshot{Lost: true}
		}
		if s, _ := g.Lagometer.Snapshot(age); s != want {
			t.Errorf("snapshot age %d = %+v, want %+v", age, s, want)
		}
	}
	if g.Stats.SnapshotsDropped != 1+burst-proto.PacketBackup {
		t.Errorf("%d snapshots dropped, want %d", g.Stats.SnapshotsDropped, 1+burst-proto.PacketBackup)
	}
}

// In frame sync the snapshots are the engine's own frames: the bottom
// graph shows the frames messages the engine reports (FrameMessage),
// not the frames, and a frame drawn while the engine's game stalled is
// marked on the top graph.
func TestLagometerFrameSync(t *testing.T) {
	c, g := newScripted(t, nil)
	g.SetFrameSync(true)
	c.add(1000, player(1, 0, 0))
	c.add(1050, player(1, 0, 0))
	g.FrameMessage(120, 0)
	c.frame(g, 1025) // between the two frames run
	g.FrameMessage(130, 2)
	g.SetStalled(true)
	c.frame(g, 1050) // stalled at the newest frame run
	c.add(1100, player(1, 0, 0))
	g.SetStalled(false)
	c.frame(g, 1075)

	wantFrames := []lagometer.Frame{{Offset: -25}, {Offset: 0, Stalled: true}, {Offset: -25}}
	if n := g.Lagometer.FrameCount(); n != len(wantFrames) {
		t.Fatalf("%d frame samples, want %d", n, len(wantFrames))
	}
	for age, want := range wantFrames {
		if f, _ := g.Lagometer.Frame(age); f != want {
			t.Errorf("frame age %d = %+v, want %+v", age, f, want)
		}
	}
	wantSnaps := []lagometer.Snapshot{{Ping: 130}, {Lost: true}, {Lost: true}, {Ping: 120}}
	if n := g.Lagometer.SnapshotCount(); n != len(wantSnaps) {
		t.Fatalf("%d snapshot samples, want %d: the frames run are not messages", n, len(wantSnaps))
	}
	for age, want := range wantSnaps {
		if s, _ := g.Lagometer.Snapshot(age); s != want {
			t.Errorf("snapshot age %d = %+v, want %+v", age, s, want)
		}
	}
}
