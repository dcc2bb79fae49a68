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
// entity; a temporary entity's OtherEntity and ClientNum), and a
// reference event is matched with the client's nearest of the same key
// within fsEventSlack.

// Timeline of the run, virtual ms; events are compared between
// fsEventsFrom and fsEventsTo (of the reference's time).
const (
	fsEventsFrom = 8000
	fsEventsTo   = 27000
	fsEventsEnd  = 30000
	fsEventSlack = 450 // the most frames predicted (cl_maxPredictionFrames 8) and a frame
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
	t         int32
}

func playedOf(e *cgame.Event) playedEvent {
	p := playedEvent{t: e.Time, what: fmt.Sprintf("parm %d at %.0f,%.0f to %v", e.Parm, e.Origin.X, e.Origin.Y, e.State.Origin2)}
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

// eventCount is how the client's events compare with the reference's.
type eventCount struct {
	want, played int
	missed       int // reference events the client played none of within fsEventSlack
	extra        int // client events matched with no reference event
	twice        int // of those, copies of a reference event the client played the same in every detail
}

// compareEvents matches the reference's events with the client's, first
// those the same in every detail, then those of the same key, each with
// the nearest within fsEventSlack, and counts those of the window.
func compareEvents(t *testing.T, want, seen []playedEvent) eventCount {
	var c eventCount
	in := func(e playedEvent) bool { return e.t >= fsEventsFrom && e.t < fsEventsTo }
	// matched: 0 not, 1 with the same details, 2 with the same key.
	usedW, usedS := make([]int, len(want)), make([]int, len(seen))
	match := func(how int, same func(a, b playedEvent) bool) {
		for i, e := range want {
			if usedW[i] != 0 {
				continue
			}
			best := -1
			for j, f := range seen {
				if usedS[j] == 0 && same(e, f) && abs32(f.t-e.t) <= fsEventSlack && (best < 0 || abs32(f.t-e.t) < abs32(seen[best].t-e.t)) {
					best = j
				}
			}
			if best >= 0 {
				usedW[i], usedS[best] = how, how
			}
		}
	}
	match(1, func(a, b playedEvent) bool { return a.key == b.key && a.what == b.what })
	match(2, func(a, b playedEvent) bool { return a.key == b.key })
	for i, e := range want {
		if in(e) {
			c.want++
			if usedW[i] == 0 {
				c.missed++
			}
		}
	}
	for j, f := range seen {
		if !in(f) {
			continue
		}
		c.played++
		if usedS[j] != 0 {
			continue
		}
		c.extra++
		for k, g := range seen {
			if k != j && usedS[k] == 1 && g.key == f.key && g.what == f.what && abs32(g.t-f.t) <= fsEventSlack {
				c.twice++
				t.Errorf("%s %s played at %d and again at %d", f.key, f.what, g.t, f.t)
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

// TestFrameSyncEventsPlayedOnce: the client's cgame plays no event twice
// over a session with hundreds of rollbacks; the player's own shots play
// once each, as many as the server's game logged; and it plays about as
// many events as the reference (the rest are bots' events the prediction
// made that the server's game did not, played all the same, and events
// a rollback brought in only after they had ended).
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
	var shots []int32 // the level times of the player's shots
	self := -1
	arena.SetLog(func(e game.LogEntry) {
		if e.Kind == game.LogShot && e.Client == self {
			shots = append(shots, e.Time)
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
	var ownShots []int32 // the render times the client's cgame played the player's shots at
	var ref *cgame.CGame
	var view *refView
	lastFrame := int32(-1)
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
					ownShots = append(ownShots, e.Time)
				}
			}
		}
	}
	if ref == nil {
		t.Fatal("the client never entered the game")
	}
	st, _ := cl.FrameSyncStats()
	t.Logf("client %d: %s", self, st)
	if st.Rollbacks < 100 || st.Mismatches != 0 {
		t.Fatalf("%d rollbacks, %d hash mismatches: the test needs many rollbacks and no desync", st.Rollbacks, st.Mismatches)
	}
	cg := cl.CGame()
	t.Logf("cgame: %d events played, %d seen again after a rollback and not played", cg.Stats.EventsFired, cg.Stats.EventsRolledBack)
	if cg.Stats.EventsRolledBack == 0 {
		t.Error("no event seen again after a rollback: the test shows nothing")
	}

	c := compareEvents(t, want, seen)
	t.Logf("events %d to %d ms: reference %d, client %d (%d matched by none, %d reference events missed), %d played twice",
		fsEventsFrom, fsEventsTo, c.want, c.played, c.extra, c.missed, c.twice)
	if c.want < 200 {
		t.Fatalf("only %d events in the reference", c.want)
	}
	// Bots predicted with their last input make events the server's
	// game does not; with every rollback's events played again it was a
	// quarter more.
	if c.played > c.want+c.want/10 {
		t.Errorf("the client played %d events, the reference %d: more than 10 %% more", c.played, c.want)
	}

	// The player's own shots: the server logs each at the level time
	// before the frame that ran it; the cgame plays it as it shows that
	// frame. Count both over the fire bursts wholly inside the window.
	count := func(ts []int32, from, to int32) int {
		return len(slices.DeleteFunc(slices.Clone(ts), func(t int32) bool { return t < from || t >= to }))
	}
	for b := int32(fsEventsFrom); b+2000 <= fsEventsTo; b += 2000 {
		if got, want := count(ownShots, b, b+2000), count(shots, b-100, b+1900); got != want {
			t.Errorf("burst at %d ms: the cgame played %d of the player's shots, the server's game logged %d", b, got, want)
		}
	}
}
