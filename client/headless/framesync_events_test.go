package headless_test

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/client"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/netsim"
	"tremor/server"
)

// Events in frame sync, end to end: a frame-sync server with three bots
// and one client over a link that loses a tenth of the server's packets
// and delays both ways by 60±20 ms, on the virtual clock of the lag
// compensation test (unlag_test.go), so every run is the same. The
// client predicts the bots with their last inputs and rolls back nearly
// every frame. Its cgame's events are compared with those of a reference
// cgame shown the server's own game after every server frame, the way
// the client shows its own (refView): what a cgame sees with no
// rollback. Each event is known by its kind and who made it (the
// entity; a temporary entity's OtherEntity and ClientNum) and by the
// frame it happened in (cgame.Event.Frame); a reference event is matched
// with the client's event of the same key nearest in frame, within
// cgame.MaxEventShift (a rollback may move an event that much and cgame
// still takes it for the one it played).

// Timeline of the run, virtual ms; events are compared whose frames are
// between fsEventsFrom and fsEventsTo.
const (
	fsEventsFrom = 8000
	fsEventsTo   = 27000
	fsEventsEnd  = 30000
)

// refView is a cgame.Client that shows one client's view of the
// server's game after each server frame, as client.publishFrame shows
// the client's own game.
type refView struct {
	g      *game.Arena
	self   int
	num    int32
	latest int32
	snaps  [proto.PacketBackup]cgame.Snapshot
	ents   [proto.PacketBackup][]bg.EntityState
}

// publish makes the server's game as it is now the newest snapshot.
func (v *refView) publish() {
	v.num++
	k := v.num % proto.PacketBackup
	ents := v.ents[k][:0]
	for i := 0; i < v.g.NumEntities() && i < proto.EntityEnd; i++ {
		e := v.g.Entity(i)
		if !e.Linked || e.SvFlags&game.SvfNoClient != 0 || i == v.self {
			continue
		}
		ents = append(ents, e.S)
		ents[len(ents)-1].Number = int32(i)
	}
	v.ents[k] = ents
	v.latest = v.g.LevelTime()
	v.snaps[k] = cgame.Snapshot{MessageNum: v.num, ServerTime: v.latest, Ping: -1, PS: *v.g.PlayerState(v.self), Entities: ents}
}

func (v *refView) CurrentSnapshotNumber() (int32, int32) { return v.num, v.latest }

func (v *refView) GetSnapshot(num int32, s *cgame.Snapshot) bool {
	if num <= 0 || num > v.num || v.num-num >= proto.PacketBackup {
		return false
	}
	*s = v.snaps[num%proto.PacketBackup]
	return true
}

func (v *refView) CurrentCmdNumber() int32               { return 0 }
func (v *refView) GetUserCmd(int32, *bg.UserCmd) bool    { return false }
func (v *refView) ServerTime() int32                     { return v.latest }
func (v *refView) Configstring(int) string               { return "" }
func (v *refView) GetServerCommand(int32) (string, bool) { return "", false }

// playedEvent is one event a cgame played: key says which kind and who
// made it, what adds where and its parm.
type playedEvent struct {
	key, what string
	frame     int32 // the frame it happened in
	t         int32 // the render time it played at
	predicted bool  // played from a frame the client predicted
}

func playedOf(e *cgame.Event) playedEvent {
	p := playedEvent{frame: e.Frame, t: e.Time, predicted: e.Predicted,
		what: fmt.Sprintf("parm %d at %.0f,%.0f to %v", e.Parm, e.Origin.X, e.Origin.Y, e.State.Origin2)}
	switch e.Source {
	case cgame.SourceTemp:
		p.key = fmt.Sprintf("event %d of %d on %d", e.Event, e.State.OtherEntity, e.State.ClientNum)
	case cgame.SourceEntity:
		p.key = fmt.Sprintf("event %d of entity %d", e.Event, e.Entity)
	default:
		p.key = fmt.Sprintf("own event %d", e.Event)
	}
	return p
}

// eventCount is how the client's events compare with the reference's,
// over the events whose frames are in the window.
type eventCount struct {
	want, played int
	missed       int // reference events the client played none of
	extra        int // client events matched with no reference event
	confirmed    int // of those, played from a frame the client had confirmed
	twice        int // client events played again the same in every detail, frame included
	late         int // matched client events played EventValidMsec or more after their frame
}

// matchEvents pairs each reference event with a client event of the same
// key within cgame.MaxEventShift, nearest frames first; match[i] is the
// client event of reference event i, or -1.
func matchEvents(want, seen []playedEvent) []int {
	type pair struct{ i, j, d int }
	var pairs []pair
	for i, e := range want {
		for j, f := range seen {
			if d := abs32(f.frame - e.frame); f.key == e.key && d <= cgame.MaxEventShift {
				pairs = append(pairs, pair{i, j, int(d)})
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return a.d - b.d })
	match := make([]int, len(want))
	for i := range match {
		match[i] = -1
	}
	used := make([]bool, len(seen))
	for _, p := range pairs {
		if match[p.i] < 0 && !used[p.j] {
			match[p.i], used[p.j] = p.j, true
		}
	}
	return match
}

// compareEvents counts how the client's events compare with the
// reference's in the window, and reports each played twice.
func compareEvents(t *testing.T, want, seen []playedEvent) eventCount {
	var c eventCount
	in := func(e playedEvent) bool { return e.frame >= fsEventsFrom && e.frame < fsEventsTo }
	match := matchEvents(want, seen)
	used := make([]bool, len(seen))
	for i, e := range want {
		if j := match[i]; j >= 0 {
			used[j] = true
			if in(seen[j]) && seen[j].t-seen[j].frame >= cgame.EventValidMsec {
				c.late++
			}
		}
		if in(e) {
			c.want++
			if match[i] < 0 {
				c.missed++
				t.Errorf("%s in frame %d never played", e.key, e.frame)
			}
		}
	}
	for j, f := range seen {
		if !in(f) {
			continue
		}
		c.played++
		if !used[j] {
			c.extra++
			if !f.predicted {
				c.confirmed++
				t.Errorf("%s %s in frame %d, played from a confirmed frame, is none of the server's", f.key, f.what, f.frame)
			}
		}
		for _, g := range seen[:j] {
			if g.key == f.key && g.frame == f.frame && g.what == f.what {
				c.twice++
				t.Errorf("%s %s in frame %d played at %d and again at %d", f.key, f.what, f.frame, g.t, f.t)
				break
			}
		}
	}
	return c
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// TestFrameSyncEventsPlayedOnce: over a session with hundreds of
// rollbacks the client's cgame plays every event the server's game made,
// in the frame it happened in or at most cgame.MaxEventShift from it,
// those a rollback brought in after they had ended included; it plays
// none twice; and every event it plays that the server's game did not
// make comes from a frame it predicted (bots predicted with their last
// input: played all the same, nothing is unplayed). The player's own
// shots are checked against the server's log the same way.
func TestFrameSyncEventsPlayedOnce(t *testing.T) {
	n := &vnet{srvAddr: netip.MustParseAddrPort("10.0.0.1:27960")}
	n.cond = sync.NewCond(&n.mu)
	cfg := server.DefaultConfig()
	cfg.Seed = 27
	cfg.NetModel = proto.NetModelFrameSync
	cfg.Game.FragLimit, cfg.Game.TimeLimit = 0, 0
	srv, err := server.New(vserverConn{n}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 3")
	rec, ok := srv.Game().(*framesync.Recorder)
	if !ok {
		t.Fatalf("the server's game is a %T, not a frame-sync Recorder", srv.Game())
	}
	arena := rec.Game()
	period := int32(1000 / cfg.FPS)
	var shots []int32 // the frames of the player's shots: the server logs each at the level time before the frame that ran it
	self := -1
	arena.SetLog(func(e game.LogEntry) {
		if e.Kind == game.LogShot && e.Client == self {
			shots = append(shots, e.Time+period)
		}
	})

	link := netsim.Config{Delay: 60 * time.Millisecond, Jitter: 20 * time.Millisecond}
	down := link
	down.Loss = 0.1
	conn := &vclientConn{n: n, addr: netip.MustParseAddrPort("10.0.0.2:27960"),
		up: netsim.NewLink(link, 101), down: netsim.NewLink(down, 201)}
	n.clients = append(n.clients, conn)
	cgcfg := cgame.DefaultConfig()
	cl := client.New(conn, client.Config{Name: "player", Seed: 1, CGame: &cgcfg, Logf: func(string, ...any) {}})
	defer cl.Close()

	var want, seen []playedEvent
	var ownShots []playedEvent // the player's shots the client's cgame played
	var ref *cgame.CGame
	var view *refView
	lastFrame, started := int32(-1), int32(0)
	for now := int32(0); now <= fsEventsEnd; now++ {
		n.mu.Lock()
		n.now = now
		n.mu.Unlock()
		if now == 0 {
			cl.Connect(n.srvAddr)
		}
		for _, p := range n.arrivedAtServer() {
			srv.Packet(now, p.from, p.data)
		}
		srv.Frame(now)
		if ref == nil && cl.State() == client.Active {
			self = int(cl.ClientNum())
			started = cl.FrameSyncGame().LevelTime()
			view = &refView{g: arena, self: self}
			ref = cgame.New(view, arena.Map(), &cgcfg)
			ref.SetFrameSync(true)
		}
		if ref != nil && arena.LevelTime() != lastFrame {
			lastFrame = arena.LevelTime()
			view.publish()
			ref.Frame(now)
			for i := range ref.Events {
				want = append(want, playedOf(&ref.Events[i]))
			}
		}
		if now%8 != 0 { // client frames at 125 a second
			continue
		}
		conn.deliver()
		// Run left and right, jump now and then, and fire in bursts.
		cmd := bg.UserCmd{RightMove: 127}
		if (now/1500)%2 == 1 {
			cmd.RightMove = -127
		}
		if now%700 < 100 {
			cmd.UpMove = 127
		}
		if now%2000 < 1200 {
			cmd.Buttons = bg.ButtonAttack
		}
		cl.Frame(time.Duration(now)*time.Millisecond, cmd)
		if cg := cl.CGame(); cg != nil && ref != nil {
			for i := range cg.Events {
				e := &cg.Events[i]
				seen = append(seen, playedOf(e))
				if e.Source != cgame.SourceTemp && e.Source != cgame.SourceEntity && e.Event == bg.EvFireWeapon {
					ownShots = append(ownShots, seen[len(seen)-1])
				}
			}
		}
	}
	if ref == nil {
		t.Fatal("the client never entered the game")
	}
	st, _ := cl.FrameSyncStats()
	t.Logf("client %d: %s", self, st)
	// Every frame of the window ran on the client, confirmed in the end:
	// it entered before the window, never resynchronised (a whole state
	// would skip frames: their events, the server's, are the only ones
	// a client may never play), and its game stayed the server's.
	if st.Rollbacks < 100 || st.Mismatches != 0 || st.Resyncs != 0 || started >= fsEventsFrom {
		t.Fatalf("%d rollbacks, %d hash mismatches, %d resyncs, in the game at %d ms: the test needs many rollbacks, no desync, no frame skipped, and the client's game from before %d ms",
			st.Rollbacks, st.Mismatches, st.Resyncs, started, fsEventsFrom)
	}
	cg := cl.CGame()
	t.Logf("cgame: %d events played, %d found again in frames run again and not played, %d lost", cg.Stats.EventsFired, cg.Stats.EventsRolledBack, cg.Stats.FrameEventsLost)
	if cg.Stats.EventsRolledBack == 0 || cg.Stats.FrameEventsLost != 0 {
		t.Error("no event found again after a rollback (the test shows nothing), or events lost before cgame played them")
	}

	c := compareEvents(t, want, seen)
	t.Logf("events in frames %d to %d ms: reference %d, client %d; %d missed, %d played by the client only (%d from confirmed frames), %d twice, %d played %d ms or more after their frame",
		fsEventsFrom, fsEventsTo, c.want, c.played, c.missed, c.extra, c.confirmed, c.twice, c.late, cgame.EventValidMsec)
	if c.want < 200 {
		t.Fatalf("only %d events in the reference", c.want)
	}
	if c.late == 0 {
		t.Error("no event played after its EventValidMsec: the test shows no event a rollback brought in late")
	}

	// The player's own shots against the server's log: each logged shot
	// played once, and every other played from a predicted frame (the
	// client did not yet know the player was dead).
	var logged []playedEvent
	for _, f := range shots {
		logged = append(logged, playedEvent{key: "own event " + fmt.Sprint(bg.EvFireWeapon), frame: f})
	}
	match := matchEvents(logged, ownShots)
	used := make([]bool, len(ownShots))
	inWindow := 0
	for i, e := range logged {
		if e.frame < fsEventsFrom || e.frame >= fsEventsTo {
			continue
		}
		inWindow++
		if match[i] < 0 {
			t.Errorf("the player's shot of frame %d, logged by the server, never played", e.frame)
		} else {
			used[match[i]] = true
		}
	}
	for j, f := range ownShots {
		if f.frame >= fsEventsFrom && f.frame < fsEventsTo && !used[j] && !f.predicted {
			t.Errorf("the player's shot of frame %d, played from a confirmed frame, is not in the server's log", f.frame)
		}
	}
	if inWindow < 20 {
		t.Errorf("the server logged %d of the player's shots in the window: the test shows nothing", inWindow)
	}
}
