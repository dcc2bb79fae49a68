package client

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
	"tremor/game/framesync"
	"tremor/net/netchan"
	"tremor/server"
)

// The client's CPU per frame in the two net models (docs/netcode.md §8,
// docs/PERFORMANCE.md): one client engine with its cgame against a real
// server in the same process, arena2 with 7 server bots (8 players), on
// one virtual clock, the link delaying every packet by the same time
// each way. Only the client's part is timed: the packets that arrived
// handed to it, then its Frame — with snapshots, parsing them and
// predicting; in frame sync, taking the frames messages, Advance with its
// rollbacks and re-simulation, and publishing each frame run to cgame.
// The server's steps run with the timer stopped.

// Benchmark session constants.
const (
	nmBots       = 7                // server bots: 8 players with the client
	nmFrameMsec  = 1000.0 / 60      // client frames at com_maxfps 60
	nmWarm       = 10 * time.Second // virtual time played before timing
	nmSlots      = 1024             // packets a link holds in flight
	nmSlotBytes  = netchan.MaxLoopbackPacket
	nmMaxConnect = 5 * time.Second // virtual time to become active
)

// nmPacket is one packet in flight on an nmLink.
type nmPacket struct {
	at   int32 // virtual ms of arrival
	data []byte
}

// nmLink delays the packets sent one way by a fixed time, in buffers made
// once: sending allocates nothing.
type nmLink struct {
	delay      int32
	slots      [nmSlots]nmPacket
	head, tail int // slots[head:tail] (mod nmSlots) are in flight
	now        *int32
}

func (l *nmLink) send(p []byte) {
	if l.tail-l.head == nmSlots {
		return // full: lost, as UDP would
	}
	s := &l.slots[l.tail%nmSlots]
	s.at = *l.now + l.delay
	s.data = append(s.data[:0], p...)
	l.tail++
}

// arrived returns the next packet that has arrived by now, or nil.
func (l *nmLink) arrived(now int32) []byte {
	if l.head == l.tail || l.slots[l.head%nmSlots].at > now {
		return nil
	}
	p := l.slots[l.head%nmSlots].data
	l.head++
	return p
}

// nmConn is one end of the session: what it writes goes on its link; it
// is never read (the session hands packets over itself).
type nmConn struct {
	local netip.AddrPort
	link  *nmLink
	done  chan struct{}
}

func (c *nmConn) WriteTo(p []byte, to netip.AddrPort) error { c.link.send(p); return nil }
func (c *nmConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.done
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (c *nmConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *nmConn) SetReadDeadline(time.Time) error { return nil }
func (c *nmConn) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	return nil
}

// nmSession is a server and one client on a virtual clock.
type nmSession struct {
	srv          *server.Server
	c            *Client
	up, down     nmLink
	srvAddr, cli netip.AddrPort
	now          int32 // virtual ms
	frames       int   // client frames run
	// input is the player's command at virtual time t: nmRunJumpFire
	// unless set.
	input func(t int32) bg.UserCmd
	// svNow is the virtual time of the server's last frame.
	svNow int32
}

// nmRunJumpFire runs left and right, jumping and firing.
func nmRunJumpFire(t int32) bg.UserCmd {
	cmd := bg.UserCmd{RightMove: 127, Aim: (t / 7) % 360}
	if (t/2000)%2 == 1 {
		cmd.RightMove = -127
	}
	if t%700 < 100 {
		cmd.UpMove = 127
	}
	if t%1000 < 400 {
		cmd.Buttons = bg.ButtonAttack
	}
	return cmd
}

// serverTime returns the server's time now: its last frame's time and
// the virtual time since.
func (s *nmSession) serverTime() int32 { return s.srv.Time() + s.now - s.svNow }

// newNMSession starts arena2 in netModel with bots bots and connects a
// client with its cgame over links of delay each way, then plays nmWarm.
// maxPred is the client's cl_maxPredictionFrames (0: the default).
func newNMSession(tb testing.TB, netModel string, delay time.Duration, bots, maxPred int) *nmSession {
	tb.Helper()
	s := &nmSession{
		input:   nmRunJumpFire,
		srvAddr: netip.MustParseAddrPort("127.0.0.1:27960"),
		cli:     netip.MustParseAddrPort("127.0.0.1:50000"),
	}
	s.up.delay, s.down.delay = int32(delay/time.Millisecond), int32(delay/time.Millisecond)
	for _, l := range []*nmLink{&s.up, &s.down} {
		l.now = &s.now
		for i := range l.slots {
			l.slots[i].data = make([]byte, 0, netchan.MaxPacketLen+netchan.MaxHeaderLen)
		}
	}
	scfg := server.DefaultConfig()
	scfg.Seed = 27
	scfg.NetModel = netModel
	scfg.Game.FragLimit, scfg.Game.TimeLimit = 0, 0
	srv, err := server.New(&nmConn{local: s.srvAddr, link: &s.down, done: make(chan struct{})}, scfg, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	if err := srv.Map("arena2"); err != nil {
		tb.Fatal(err)
	}
	if bots > 0 {
		srv.Exec(fmt.Sprintf("addbot %d", bots))
	}
	s.srv = srv
	cg := cgame.DefaultConfig()
	s.c = New(&nmConn{local: s.cli, link: &s.up, done: make(chan struct{})},
		Config{Name: "Bench", Seed: 9, CGame: &cg, MaxPredictionFrames: maxPred, Logf: func(string, ...any) {}})
	tb.Cleanup(func() { s.c.Close() })
	s.c.Connect(s.srvAddr)
	for s.c.State() != Active {
		if time.Duration(s.now)*time.Millisecond > nmMaxConnect {
			tb.Fatalf("%s: client not active after %v: state %v, %v", netModel, nmMaxConnect, s.c.State(), s.c.LastError())
		}
		s.serverSteps()
		s.clientFrame()
	}
	if s.c.FrameSync() != (netModel == proto.NetModelFrameSync) {
		tb.Fatalf("client frame sync %v in %s", s.c.FrameSync(), netModel)
	}
	for time.Duration(s.now)*time.Millisecond < nmWarm {
		s.serverSteps()
		s.clientFrame()
	}
	players := 0
	for _, ci := range srv.Clients() {
		if ci.State == server.StateActive {
			players++
		}
	}
	if players != bots+1 {
		tb.Fatalf("%s: %d players in the game, want %d", netModel, players, bots+1)
	}
	return s
}

// serverSteps runs the server, a virtual ms at a time, up to the next
// client frame: the client's packets that arrived, then its frames due.
func (s *nmSession) serverSteps() {
	next := int32(float64(s.frames+1) * nmFrameMsec)
	for s.now < next {
		s.now++
		for p := s.up.arrived(s.now); p != nil; p = s.up.arrived(s.now) {
			s.srv.Packet(s.now, s.cli, p)
		}
		before := s.srv.Time()
		s.srv.Frame(s.now)
		if s.srv.Time() != before {
			s.svNow = s.now
		}
	}
}

// clientFrame hands the client the server's packets that arrived and
// runs its frame with the session's input.
func (s *nmSession) clientFrame() {
	for p := s.down.arrived(s.now); p != nil; p = s.down.arrived(s.now) {
		s.c.packetEvent(s.srvAddr, p)
	}
	s.frames++
	t := s.now
	cmd := s.input(t)
	s.c.Frame(time.Duration(t)*time.Millisecond, cmd)
}

// BenchmarkNetModelFrame measures a client frame in each net model with
// 8 players on arena2, at 40 and 150 ms each way; frame sync at 150 ms
// also with cl_maxPredictionFrames 12 and 16 (the default is
// framesync.DefaultMaxPrediction). One op is one client frame at 60
// frames a second (three to a 20 Hz server frame). Beside ns/op:
// rollbacks/frame, resim/frame (frames a rollback ran again), sim/frame
// (game frames the client ran, every kind), stalls/frame and frames/msg
// (frames in a frames message, every copy) in frame sync, snaps/frame
// with snapshots; down-B/s and up-B/s are the client's UDP payload bytes
// a second of virtual time (netchan headers included). Both allocate nothing in steady state
// but the server commands' strings (TestNetModelFrameDoesNotAllocate).
func BenchmarkNetModelFrame(b *testing.B) {
	cases := []struct {
		model   string
		delay   time.Duration
		maxPred int
	}{
		{proto.NetModelSnapshots, 40 * time.Millisecond, 0},
		{proto.NetModelSnapshots, 150 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 40 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 150 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 150 * time.Millisecond, 12},
		{proto.NetModelFrameSync, 150 * time.Millisecond, 16},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s/%dms", tc.model, tc.delay/time.Millisecond)
		if tc.maxPred != 0 {
			name += fmt.Sprintf("/maxpred%d", tc.maxPred)
		}
		b.Run(name, func(b *testing.B) {
			s := newNMSession(b, tc.model, tc.delay, nmBots, tc.maxPred)
			before, _ := s.c.FrameSyncStats()
			st0, t0 := s.c.Stats(), s.now
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				s.serverSteps()
				b.StartTimer()
				s.clientFrame()
			}
			b.StopTimer()
			if s.c.State() != Active {
				b.Fatalf("client left the game: %v %v", s.c.State(), s.c.LastError())
			}
			n := float64(b.N)
			st1, secs := s.c.Stats(), float64(s.now-t0)/1000
			b.ReportMetric(float64(st1.BytesDown-st0.BytesDown)/secs, "down-B/s")
			b.ReportMetric(float64(st1.BytesUp-st0.BytesUp)/secs, "up-B/s")
			if after, ok := s.c.FrameSyncStats(); ok {
				if after.Mismatches != 0 {
					b.Fatalf("%d hash mismatches: %s", after.Mismatches, after.Diff)
				}
				b.ReportMetric(float64(after.Rollbacks-before.Rollbacks)/n, "rollbacks/frame")
				b.ReportMetric(float64(after.Resimulated-before.Resimulated)/n, "resim/frame")
				b.ReportMetric(float64(after.Simulated-before.Simulated)/n, "sim/frame")
				b.ReportMetric(float64(after.Stalls-before.Stalls)/n, "stalls/frame")
				b.ReportMetric(float64(after.Frames-before.Frames)/float64(after.FrameMessages-before.FrameMessages), "frames/msg")
			} else {
				b.ReportMetric(float64(st1.Snapshots-st0.Snapshots)/n, "snaps/frame")
			}
		})
	}
}

// TestNetModelFrameDoesNotAllocate holds both models' client frames,
// with the cgame, to no allocation in steady state, on a 40 ms link: 300
// frames (5 s, 100 server frames) after 10 s of play and 5 s more to
// settle. It counts, with every allocation profiled, those made under
// nmSession.clientFrame, so that the goroutines of the client and of
// the runtime are not counted; the one thing read into new memory, a
// server command's string (proto.ReadServerCommand: a configstring, a
// print, a chat line, or a copy the rings send again), is left out, and
// so is the runtime's one-time cache of a type assertion's answers.
// Frame sync must have rolled back in the window.
func TestNetModelFrameDoesNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 20 s of virtual time per model")
	}
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	for _, model := range []string{proto.NetModelSnapshots, proto.NetModelFrameSync} {
		t.Run(model, func(t *testing.T) {
			s := newNMSession(t, model, 40*time.Millisecond, nmBots, 0)
			play := func(frames int) {
				for range frames {
					s.serverSteps()
					s.clientFrame()
				}
			}
			play(300)
			before := clientFrameAllocs()
			fs0, _ := s.c.FrameSyncStats()
			cmds := s.c.conn.serverCommandSequence
			play(300)
			after := clientFrameAllocs()
			if s.c.State() != Active {
				t.Fatalf("client left the game: %v %v", s.c.State(), s.c.LastError())
			}
			for stack, n := range after {
				if n -= before[stack]; n != 0 {
					t.Errorf("%d allocations in 300 client frames at %s", n, stackText(stack))
				}
			}
			if fs1, ok := s.c.FrameSyncStats(); ok && fs1.Rollbacks == fs0.Rollbacks {
				t.Errorf("no rollback in 300 frames: %v", fs1)
			}
			t.Logf("%d server commands in the window", s.c.conn.serverCommandSequence-cmds)
		})
	}
}

// clientFrameAllocs returns the objects allocated so far under
// nmSession.clientFrame but not under proto.ReadServerCommand, per
// stack, from the memory profile (runtime.MemProfileRate 1), after two
// collections so that the profile holds every allocation made.
func clientFrameAllocs() map[[32]uintptr]int64 {
	runtime.GC()
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	var recs []runtime.MemProfileRecord
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	out := make(map[[32]uintptr]int64)
	for _, r := range recs {
		// Left out too: the runtime's cache of an interface type
		// assertion's answers at one call site (proto's h.(FrameHandler)),
		// which the runtime builds once, at a random one of the first
		// thousand or so assertions (runtime.typeAssert), so that the
		// window caught it now and then.
		if onStack(r.Stack(), "tremor/client.(*nmSession).clientFrame") && !onStack(r.Stack(), "tremor/common/proto.ReadServerCommand") &&
			!onStack(r.Stack(), "runtime.buildTypeAssertCache") && !onStack(r.Stack(), "runtime.buildInterfaceSwitchCache") {
			out[r.Stack0] = r.AllocObjects
		}
	}
	return out
}

// onStack reports whether the function named fn is on stack.
func onStack(stack []uintptr, fn string) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if f.Function == fn {
			return true
		}
		if !more {
			return false
		}
	}
}

// stackText names the functions of a profile stack, innermost first.
func stackText(stack [32]uintptr) string {
	var b strings.Builder
	frames := runtime.CallersFrames(stack[:])
	for {
		f, more := frames.Next()
		if f.Function != "" {
			fmt.Fprintf(&b, "\n\t%s:%d", f.Function, f.Line)
		}
		if !more || strings.HasSuffix(f.Function, ".clientFrame") {
			return b.String()
		}
	}
}

// nmDelays are what a player of a session sees late or early.
type nmDelays struct {
	// input: from the client frame whose command first pressed a run key
	// to the first frame that drew the player moved, ms, mean and most,
	// over presses samples.
	inputMean, inputMax float64
	presses             int
	// stalls counts the frame-sync stalls while the input was timed.
	stalls int
	// world: the render time (cgame's Time, the time the others and the
	// world are drawn at) minus the server's time at that moment, ms,
	// mean, least and most over the frames: negative is the past.
	worldMean, worldMin, worldMax float64
}

// nmPressMsec spaces the presses of measureDelays: not a multiple of the
// server's or the client's frame, so that the presses fall at every
// phase of both.
const nmPressMsec = 1517

// measureDelays measures a session's nmDelays: the input delay alone on
// the map (no bot to push the player), then the world's with nmBots.
// maxPred is cl_maxPredictionFrames (0: the default).
func measureDelays(tb testing.TB, model string, delay time.Duration, maxPred int) nmDelays {
	var d nmDelays
	// Run right or left for 300 ms every nmPressMsec, still in between
	// (friction stops the player well before the next press).
	s := newNMSession(tb, model, delay, 0, maxPred)
	st0, _ := s.c.FrameSyncStats()
	s.input = func(t int32) bg.UserCmd {
		switch {
		case t%nmPressMsec >= 300:
			return bg.UserCmd{}
		case (t/nmPressMsec)%2 == 0:
			return bg.UserCmd{RightMove: 127}
		}
		return bg.UserCmd{RightMove: -127}
	}
	var last, before float64 // drawn X in the last two frames
	var press int32          // virtual time of the press being timed, 0 none
	held := false
	for range 40 * nmPressMsec * 60 / 1000 { // 40 presses
		s.serverSteps()
		s.clientFrame()
		x := s.c.CGame().DrawnOrigin.X
		down := s.input(s.now).RightMove != 0
		if down && !held && last == before { // pressed, standing still
			press = s.now
		}
		held = down
		if press != 0 && x != last {
			ms := float64(s.now - press)
			d.inputMean += ms
			d.inputMax = max(d.inputMax, ms)
			d.presses++
			press = 0
		}
		before, last = last, x
	}
	if d.presses > 0 {
		d.inputMean /= float64(d.presses)
	}
	st1, _ := s.c.FrameSyncStats()
	d.stalls = st1.Stalls - st0.Stalls
	s = newNMSession(tb, model, delay, nmBots, maxPred)
	d.worldMin, d.worldMax = 1e9, -1e9
	const frames = 600
	for range frames {
		s.serverSteps()
		s.clientFrame()
		off := float64(s.c.CGame().Time - s.serverTime())
		d.worldMean += off
		d.worldMin, d.worldMax = min(d.worldMin, off), max(d.worldMax, off)
	}
	d.worldMean /= frames
	return d
}

// TestNetModelDelays measures what each model makes a player wait for,
// on links of 0, 40 and 150 ms each way (frame sync at 150 ms also with
// cl_maxPredictionFrames 12), and holds each to its model: with
// snapshots the player's own input moves it in the frame it is pressed
// (prediction) and the world is drawn in the past, at least the link's
// delay behind the server; in frame sync the world is drawn ahead of the
// server (predicted), and, while the game does not stall, the player's
// own input shows within a game frame and a client frame (the frame it
// is run in, drawn between the last two). With 12 frames of prediction
// a 150 ms link does not stall. -v prints the figures (docs/netcode.md
// §8).
func TestNetModelDelays(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 3 min of virtual time")
	}
	const clientFrame = 17 // ms, com_maxfps 60
	cases := []struct {
		model   string
		delay   time.Duration
		maxPred int
	}{
		{proto.NetModelSnapshots, 0, 0},
		{proto.NetModelSnapshots, 40 * time.Millisecond, 0},
		{proto.NetModelSnapshots, 150 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 0, 0},
		{proto.NetModelFrameSync, 40 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 150 * time.Millisecond, 0},
		{proto.NetModelFrameSync, 150 * time.Millisecond, 12},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s/%dms", tc.model, tc.delay/time.Millisecond)
		if tc.maxPred != 0 {
			name += fmt.Sprintf("/maxpred%d", tc.maxPred)
		}
		t.Run(name, func(t *testing.T) {
			d := measureDelays(t, tc.model, tc.delay, tc.maxPred)
			t.Logf("input %.1f ms mean, %.0f most, over %d presses, %d stalls; world drawn at %+.1f ms (%+.0f to %+.0f) from the server's time",
				d.inputMean, d.inputMax, d.presses, d.stalls, d.worldMean, d.worldMin, d.worldMax)
			if d.presses < 30 {
				t.Fatalf("%d presses timed, want 30 or more of 40", d.presses)
			}
			oneWay := float64(tc.delay / time.Millisecond)
			if tc.model == proto.NetModelSnapshots {
				if d.inputMax > 0 {
					t.Errorf("own input drawn %.0f ms late at most: prediction shows it in the frame it is pressed", d.inputMax)
				}
				if d.worldMax > -oneWay {
					t.Errorf("world drawn at %+.0f ms at the latest: it cannot be newer than the server's time less the link's %.0f ms", d.worldMax, oneWay)
				}
				return
			}
			if tc.maxPred == 12 && d.stalls != 0 {
				t.Errorf("%d stalls with 12 frames of prediction on a %v link", d.stalls, tc.delay)
			}
			if d.stalls == 0 && d.inputMax > framesync.DefaultFrameMsec+clientFrame {
				t.Errorf("own input drawn %.0f ms late at most without a stall, want within a game frame and a client frame (%d ms)", d.inputMax, framesync.DefaultFrameMsec+clientFrame)
			}
			if d.worldMin <= 0 {
				t.Errorf("world drawn at %+.0f ms at the earliest: frame sync draws its prediction, ahead of the server", d.worldMin)
			}
		})
	}
}
