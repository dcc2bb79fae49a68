package headless_test

import (
	"flag"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/client"
	"tremor/game"
	"tremor/net/netsim"
	"tremor/server"
)

// Lag compensation measured end to end: a real server and two real
// client engines (a shooter and a strafing target) in one process, on a
// virtual clock, joined by net/netsim links. The shooter aims at what its
// cgame draws (the target's interpolated position) and holds the
// machinegun's trigger; the game's log counts its shots and hits. Every
// run is deterministic: fixed seeds, simulated time, and the client's
// reader goroutine is waited for before each client frame, so the same
// settings give the same shots.

var unlagDemo = flag.String("unlagdemo", "", "write the shooter's demo of the 150 ms g_unlagged 1 run to this file (for cg_showUnlagged pictures and lessons)")

// vnet is the virtual network: packets wait in queues until the virtual
// clock reaches their arrival time, given by a netsim.Link per direction
// and client.
type vnet struct {
	mu       sync.Mutex
	cond     *sync.Cond
	now      int32 // ms
	srvAddr  netip.AddrPort
	toServer []vpacket
	clients  []*vclientConn
}

type vpacket struct {
	at       int32
	from, to netip.AddrPort
	data     []byte
}

// vserverConn is the server's socket: it only sends (the test hands the
// server its packets with Server.Packet).
type vserverConn struct{ n *vnet }

func (c vserverConn) WriteTo(p []byte, to netip.AddrPort) error {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, cl := range n.clients {
		if cl.addr == to {
			for _, at := range cl.down.Send(time.Duration(n.now)*time.Millisecond, len(p)) {
				cl.pending = append(cl.pending, vpacket{at: int32(at / time.Millisecond), from: n.srvAddr, to: to, data: append([]byte(nil), p...)})
			}
		}
	}
	return nil
}

func (c vserverConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (c vserverConn) LocalAddr() netip.AddrPort       { return c.n.srvAddr }
func (c vserverConn) SetReadDeadline(time.Time) error { return nil }
func (c vserverConn) Close() error                    { return nil }

// vclientConn is a client's socket. Its reader (the client engine's
// goroutine) takes the packets the test made ready; waiting reports when
// it has taken them all and is blocked again, so that they are in the
// engine's inbox before its next Frame.
type vclientConn struct {
	n        *vnet
	addr     netip.AddrPort
	up, down *netsim.Link
	pending  []vpacket // on the way, by arrival
	ready    []vpacket // arrived, not yet read
	waiting  bool      // the reader is blocked with nothing ready
	closed   bool
}

func (c *vclientConn) WriteTo(p []byte, to netip.AddrPort) error {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, at := range c.up.Send(time.Duration(n.now)*time.Millisecond, len(p)) {
		n.toServer = append(n.toServer, vpacket{at: int32(at / time.Millisecond), from: c.addr, to: to, data: append([]byte(nil), p...)})
	}
	return nil
}

func (c *vclientConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	for len(c.ready) == 0 && !c.closed {
		c.waiting = true
		n.cond.Broadcast()
		n.cond.Wait()
	}
	if c.closed {
		return 0, netip.AddrPort{}, net.ErrClosed
	}
	c.waiting = false
	pk := c.ready[0]
	c.ready = c.ready[1:]
	return copy(p, pk.data), pk.from, nil
}

func (c *vclientConn) LocalAddr() netip.AddrPort       { return c.addr }
func (c *vclientConn) SetReadDeadline(time.Time) error { return nil }
func (c *vclientConn) Close() error {
	c.n.mu.Lock()
	c.closed = true
	c.n.cond.Broadcast()
	c.n.mu.Unlock()
	return nil
}

// deliver makes the packets that have arrived by now ready for c's reader
// and waits until it has read them all.
func (c *vclientConn) deliver() {
	n := c.n
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for _, p := range c.pending {
		if p.at <= n.now {
			c.ready = append(c.ready, p)
		} else {
			c.pending[k] = p
			k++
		}
	}
	c.pending = c.pending[:k]
	if len(c.ready) == 0 {
		return
	}
	c.waiting = false
	n.cond.Broadcast()
	for !(c.waiting && len(c.ready) == 0) && !c.closed {
		n.cond.Wait()
	}
}

// arrivedAtServer removes and returns the packets that reached the
// server by now, in arrival order (stable for equal times).
func (n *vnet) arrivedAtServer() []vpacket {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []vpacket
	k := 0
	for _, p := range n.toServer {
		if p.at <= n.now {
			out = append(out, p)
		} else {
			n.toServer[k] = p
			k++
		}
	}
	n.toServer = n.toServer[:k]
	for i := 1; i < len(out); i++ { // insertion sort by arrival, stable
		for j := i; j > 0 && out[j].at < out[j-1].at; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Places on duel1 (tile x, tile y of the player's feet): the shooter at
// the bottom of the central pit, the target running along the one-way
// bridge above it, which shots from below pass through.
const (
	unlagShooterX, unlagShooterY = 21, 19
	unlagBridgeY                 = 12
	unlagBridgeLeft              = 13 // the target turns at these tiles
	unlagBridgeRight             = 26
)

// Timeline of a run, virtual ms.
const (
	unlagPlaceAt  = 3000  // both clients are in; they are put in place
	unlagFireFrom = 4500  // the shooter holds the trigger from here
	unlagFireTo   = 24500 // to here: 20 s, about 200 shots
	unlagEnd      = 25000
	unlagFrameMs  = 8 // client frames: com_maxfps 125
)

// unlagResult is what a run measured.
type unlagResult struct {
	shots, hits int
	rewinds     int   // EvUnlagged the shooter's cgame received
	rewindSum   int64 // their rewind times, ms
}

func (r unlagResult) rate() float64 { return float64(r.hits) / float64(max(r.shots, 1)) }

// unlagRun is the settings of one run.
type unlagRun struct {
	rtt   int     // round trip, ms: each way delays half
	nudge int     // the shooter's cl_timeNudge
	on    bool    // g_unlagged
	fps   int     // sv_fps; 0: the default (20)
	snaps int     // the shooter's snaps; 0: the default (20)
	loss  float64 // share of the server's packets lost on the way down
}

// runUnlag plays one run; if demo is not empty, the shooter records its
// demo there from the moment the players are placed.
func runUnlag(t *testing.T, run unlagRun, demo string) unlagResult {
	t.Helper()
	n := &vnet{srvAddr: netip.MustParseAddrPort("10.0.0.1:27960")}
	n.cond = sync.NewCond(&n.mu)
	cfg := server.DefaultConfig()
	cfg.Seed = 14
	cfg.Game.Unlagged = run.on
	if run.fps > 0 {
		cfg.FPS = run.fps
	}
	cfg.Game.Knockback = 0 // hits must not change the target's path
	cfg.Game.SpawnProtect = 0
	cfg.Game.FragLimit, cfg.Game.TimeLimit = 0, 0
	srv, err := server.New(vserverConn{n}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("duel1"); err != nil {
		t.Fatal(err)
	}
	arena := srv.Game().(*game.Arena)

	link := netsim.Config{Delay: time.Duration(run.rtt/2) * time.Millisecond}
	var res unlagResult
	cls := make([]*client.Client, 2)
	conns := make([]*vclientConn, 2)
	for i := range cls {
		c := &vclientConn{n: n, addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(2 + i)}), 27960),
			up: netsim.NewLink(link, uint64(100+i)), down: netsim.NewLink(link, uint64(200+i))}
		n.clients = append(n.clients, c)
		conns[i] = c
		cgcfg := cgame.DefaultConfig()
		ccfg := client.Config{Name: []string{"shooter", "target"}[i], Seed: uint64(1 + i),
			MaxPackets: client.MaxMaxPackets, CGame: &cgcfg, Logf: func(string, ...any) {}}
		if i == 0 {
			ccfg.TimeNudge, ccfg.Snaps = run.nudge, run.snaps
		}
		cls[i] = client.New(c, ccfg)
	}
	defer func() {
		for _, c := range cls {
			c.Close()
		}
	}()
	shooter, target := -1, -1
	arena.SetLog(func(e game.LogEntry) {
		if e.Client != shooter || shooter < 0 || n.now < unlagFireFrom {
			return
		}
		switch e.Kind {
		case game.LogShot:
			res.shots++
		case game.LogHit:
			if e.Target == target {
				res.hits++
			}
		}
	})

	var right bool // the target's direction
	seen := 0      // the shooter's cgame's Unlagged.Total at its last frame
	for now := int32(0); now <= unlagEnd; now++ {
		n.mu.Lock()
		n.now = now
		n.mu.Unlock()
		if now == 0 {
			for _, c := range cls {
				c.Connect(n.srvAddr)
			}
		}
		for _, p := range n.arrivedAtServer() {
			srv.Packet(now, p.from, p.data)
		}
		srv.Frame(now)
		if now == unlagPlaceAt {
			shooter, target = int(cls[0].ClientNum()), int(cls[1].ClientNum())
			if cls[0].State() != client.Active || cls[1].State() != client.Active {
				t.Fatalf("at %d ms the clients are %v and %v, not active", now, cls[0].State(), cls[1].State())
			}
			place := func(c, x, y int) {
				ps := arena.PlayerState(c)
				ps.Origin = bg.TileFeet(x, y, nil)
				ps.Velocity = bg.Vec{}
				ps.EFlags ^= bg.EFTeleportBit
			}
			place(shooter, unlagShooterX, unlagShooterY)
			place(target, (unlagBridgeLeft+unlagBridgeRight)/2, unlagBridgeY)
			arena.PlayerState(shooter).Ammo[bg.WPMachinegun] = -1 // unlimited
			if run.loss > 0 {                                     // the shooter's snapshots, from now on
				lossy := link
				lossy.Loss = run.loss
				n.mu.Lock()
				conns[0].down.SetConfig(lossy)
				n.mu.Unlock()
			}
			if demo != "" {
				f, err := os.Create(demo)
				if err != nil {
					t.Fatal(err)
				}
				if err := cls[0].StartRecording(f, "unlagged"); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if _, err := cls[0].StopRecording(); err != nil {
						t.Error(err)
					}
				}()
			}
		}
		if target >= 0 {
			// The target never dies: a death would move it.
			arena.PlayerState(target).Stats[bg.StatHealth] = 100
			arena.PlayerState(target).Stats[bg.StatArmor] = 0
		}
		for i, c := range cls {
			if (now+int32(i)*unlagFrameMs/2)%unlagFrameMs != 0 {
				continue
			}
			conns[i].deliver()
			var cmd bg.UserCmd
			if i == 0 {
				cmd = shooterInput(c, target, now)
			} else {
				cmd = targetInput(c, &right, now)
			}
			c.Frame(time.Duration(now)*time.Millisecond, cmd)
			if cg := c.CGame(); i == 0 && cg != nil {
				// The rewound hits the shooter's cgame kept for
				// cg_showUnlagged since its last frame.
				u := &cg.Unlagged
				for k := max(u.Len()-(u.Total-seen), 0); k < u.Len(); k++ {
					if now >= unlagFireFrom {
						res.rewinds++
						res.rewindSum += int64(u.At(k).Msec)
					}
				}
				seen = u.Total
			}
		}
	}
	return res
}

// shooterInput aims at where the shooter's cgame drew the target in its
// last frame — the render time the engine stamps on this command — and
// holds attack from unlagFireFrom to unlagFireTo.
func shooterInput(c *client.Client, target int, now int32) bg.UserCmd {
	cmd := bg.UserCmd{Weapon: bg.WPMachinegun}
	cg := c.CGame()
	if cg == nil || cg.Snap == nil || target < 0 {
		return cmd
	}
	self := cgame.PointOf(cg.Predicted.Origin)
	for _, e := range cg.Entities {
		if int(e.Current.Number) == target {
			cmd.Aim = game.Angle(int64(e.Lerp.X-self.X), int64(e.Lerp.Y-self.Y))
			if now >= unlagFireFrom && now < unlagFireTo {
				cmd.Buttons = bg.ButtonAttack
			}
		}
	}
	return cmd
}

// targetInput runs the target left and right along the bridge, turning
// at its ends, as its own prediction places it.
func targetInput(c *client.Client, right *bool, now int32) bg.UserCmd {
	cg := c.CGame()
	if cg == nil || cg.Snap == nil || now < unlagPlaceAt+500 {
		return bg.UserCmd{}
	}
	x := cg.Predicted.Origin.X
	switch {
	case x <= bg.TileFeet(unlagBridgeLeft, unlagBridgeY, nil).X:
		*right = true
	case x >= bg.TileFeet(unlagBridgeRight, unlagBridgeY, nil).X:
		*right = false
	}
	if *right {
		return bg.UserCmd{RightMove: 127}
	}
	return bg.UserCmd{RightMove: -127}
}

// TestUnlaggedHitRates is the measurement docs/lagcomp.md reports. With
// g_unlagged 1 a client hits the strafing target exactly as often at
// 150 ms round trip as at 0 ms, and with cl_timeNudge 30 too, because
// the command's time is the time its cgame drew the target at; with
// g_unlagged 0 it hits clearly less often at 150 ms, and less often even
// at 0 ms, where the interpolation delay alone (about a snapshot
// interval) moves the target. With server frames that are not the
// client's snapshots (sv_fps 40, snaps 10, 30% of the snapshots lost)
// it still hits nearly always.
func TestUnlaggedHitRates(t *testing.T) {
	runs := []unlagRun{
		{rtt: 0}, {rtt: 0, on: true}, {rtt: 150}, {rtt: 150, on: true}, {rtt: 150, nudge: 30, on: true},
		// Where the server's frames and the snapshots the client
		// interpolates between differ: the estimate's error.
		{rtt: 150, on: true, fps: 40},
		{rtt: 150, on: true, snaps: 10},
		{rtt: 150, on: true, loss: 0.3},
	}
	res := make([]unlagResult, len(runs))
	for i, r := range runs {
		demo := ""
		if i == 3 {
			demo = *unlagDemo
		}
		res[i] = runUnlag(t, r, demo)
		x := res[i]
		fps, snaps := r.fps, r.snaps
		if fps == 0 {
			fps = 20
		}
		if snaps == 0 {
			snaps = client.DefaultSnaps
		}
		on := 0
		if r.on {
			on = 1
		}
		t.Logf("round trip %3d ms, cl_timeNudge %2d, sv_fps %2d, snaps %2d, loss %2.0f%%, g_unlagged %d: %3d hits of %3d shots (%5.1f%%), %3d rewound hits, mean rewind %3d ms",
			r.rtt, r.nudge, fps, snaps, 100*r.loss, on, x.hits, x.shots, 100*x.rate(), x.rewinds, x.rewindSum/int64(max(x.rewinds, 1)))
		if x.shots < 150 {
			t.Fatalf("%+v: only %d shots", r, x.shots)
		}
		if !r.on && x.rewinds != 0 {
			t.Errorf("%+v: %d rewound hits with g_unlagged 0", r, x.rewinds)
		}
		if r.on && x.rewinds != x.hits {
			t.Errorf("%+v: %d rewound hits of %d hits: every hit of a lagged client is rewound", r, x.rewinds, x.hits)
		}
	}
	for i, r := range runs[5:] {
		if x := res[5+i]; x.rate() < 0.95 {
			t.Errorf("%+v: hit rate %.3f; want at least 0.95: the server's frames are not the client's snapshots, but close", r, x.rate())
		}
	}
	off0, on0, off150, on150, nudged := res[0], res[1], res[2], res[3], res[4]
	if on150.hits*on0.shots != on0.hits*on150.shots || nudged.hits*on0.shots != on0.hits*nudged.shots {
		t.Errorf("g_unlagged 1: hit rate %.3f at 0 ms, %.3f at 150 ms, %.3f with cl_timeNudge 30; want them equal",
			on0.rate(), on150.rate(), nudged.rate())
	}
	if on150.rate() < off150.rate()+0.5 {
		t.Errorf("at 150 ms: hit rate %.3f with g_unlagged 1, %.3f without; want at least 0.5 more", on150.rate(), off150.rate())
	}
	if on0.rate() <= off0.rate() {
		t.Errorf("at 0 ms: hit rate %.3f with g_unlagged 1, %.3f without; want more: the interpolation delay is compensated too",
			on0.rate(), off0.rate())
	}
	if d := on150.rewindSum/int64(on150.rewinds) - on0.rewindSum/int64(on0.rewinds); d < 100 || d > 200 {
		t.Errorf("mean rewind grew by %d ms from 0 to 150 ms round trip; want about the round trip", d)
	}
}
