package classroom

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/console"
	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/internal/testutil"
	"tremor/lessons"
)

// frameSyncModel starts a classroom with one bot and both players played
// by bots, P1 on lag ms each way, runs the lines (cvars to set before the
// switch) and switches the server to frame sync, then runs it for run.
func frameSyncModel(t *testing.T, lag string, lines []string, run time.Duration) (*Model, *testutil.LockedBuffer) {
	t.Helper()
	m := newModel(t, 1)
	out := new(testutil.LockedBuffer)
	con := programTable(m, out)
	for _, l := range append([]string{"p1 cl_bot 1", "p2 cl_bot 1", "p1 lag " + lag}, lines...) {
		con.ExecuteString(l)
	}
	con.ExecuteString("netmodel framesync")
	m.Run(run)
	return m, out
}

// TestNetModelSwitch switches the classroom's server to frame sync and
// back, as a class does with `netmodel`: both players get a gamestate in
// the new model without reconnecting, the controls follow, and the lanes
// carry each model's messages: inputs up and frames messages down (a
// whole state first) in frame sync, delta snapshots down with snapshots.
func TestNetModelSwitch(t *testing.T) {
	m := newModel(t, 1)
	var out testutil.LockedBuffer
	con := programTable(m, &out)
	if now, asked := m.NetModel(); now != NetModelSnapshots || asked != NetModelSnapshots {
		t.Fatalf("NetModel() = %s, %s at the start", now, asked)
	}
	id := m.Server().ServerID()
	since := m.nextID
	con.ExecuteString("netmodel framesync")
	m.Run(3 * time.Second)
	if now, asked := m.NetModel(); now != NetModelFrameSync || asked != NetModelFrameSync {
		t.Fatalf("NetModel() = %s, %s after netmodel framesync", now, asked)
	}
	if m.Server().ServerID() == id {
		t.Error("no map_restart: the server id is the same")
	}
	kinds := lanesSince(m, since)
	for i := range 2 {
		p := m.Player(i)
		if !m.FrameSync(i) || !p.C.FrameSync() || m.Counts(i, Up).Sent == 0 {
			t.Fatalf("P%d: in frame sync %v (client %v)", i+1, m.FrameSync(i), p.C.FrameSync())
		}
		if !strings.HasPrefix(m.Title(2*i), "P"+string(rune('1'+i))+": frame sync") {
			t.Errorf("P%d's title %q", i+1, m.Title(2*i))
		}
		if sw := m.Switches(2 * i); sw[0].Label != "max prediction 12" || sw[0].Lines[0] != "p"+string(rune('1'+i))+" cl_maxPredictionFrames 8" {
			t.Errorf("P%d's first switch %+v, want frame sync's stall limit", i+1, sw[0])
		}
		k := kinds[i]
		if k[Down][KindWhole] != 1 || k[Down][KindFrames] == 0 || k[Up][KindUsercmd] == 0 {
			t.Errorf("P%d's lanes since the switch: down %v, up %v; want one whole state, frames messages, inputs", i+1, k[Down], k[Up])
		}
		if c := m.Counts(i, Down); c.WholeStates != 1 || c.FrameMessages != uint64(k[Down][KindFrames]) {
			t.Errorf("P%d's counts: %d whole states, %d frames messages; the lane has %d", i+1, c.WholeStates, c.FrameMessages, k[Down][KindFrames])
		}
	}
	if sw := m.Switches(PaneServer); sw[2].Label != "model: frame sync" || sw[2].Lines[0] != "netmodel snapshots" {
		t.Errorf("the server's model switch %+v", sw[2])
	}
	con.ExecuteString("inspect last p1 down")
	if e, ok := m.Event(m.Selected()); !ok || e.Kind != KindFrames || e.FirstFrame <= 0 || e.LastFrame < e.FirstFrame ||
		!strings.Contains(Headline(e), "frames "+strconv.Itoa(int(e.FirstFrame))) {
		t.Errorf("the newest packet to P1: %v %+v", ok, e)
	}

	since = m.nextID
	for _, l := range m.Switches(PaneServer)[2].Lines { // clicked: back to snapshots
		con.ExecuteString(l)
	}
	m.Run(2 * time.Second)
	kinds = lanesSince(m, since)
	for i := range 2 {
		if m.FrameSync(i) || m.Player(i).C.FrameSync() {
			t.Errorf("P%d still in frame sync", i+1)
		}
		if k := kinds[i]; k[Down][KindDelta] == 0 || k[Down][KindFrames] != 0 {
			t.Errorf("P%d's downlink back on snapshots: %v", i+1, k[Down])
		}
	}
	if m.Switches(PaneP1)[0].Label != "prediction on" {
		t.Errorf("P1's first switch %+v after snapshots again", m.Switches(PaneP1)[0])
	}
}

// lanesSince counts the kinds of the packets logged from event id on,
// per player and direction, after the first gamestate each got.
func lanesSince(m *Model, id uint64) [2][2]map[Kind]int {
	var k [2][2]map[Kind]int
	for i := range k {
		for d := range k[i] {
			k[i][d] = map[Kind]int{}
		}
	}
	seen := [2]bool{}
	for ; id < m.nextID; id++ {
		e, ok := m.Event(id)
		if !ok {
			continue
		}
		if e.Kind == KindGamestate {
			seen[e.Player] = true
		}
		if seen[e.Player] {
			k[e.Player][e.Dir][e.Kind]++
		}
	}
	return k
}

// TestFrameSyncCounters runs P1 on 150 ms each way and P2 on a clean link
// in frame sync, bots at both keyboards, and reads the panes as a class
// would: the counters move, every rollback is counted in the rollbacks a
// second, and the ghost trail is the last rollback's frames, the ones up
// to the last confirmed frame exactly where the server had each player.
func TestFrameSyncCounters(t *testing.T) {
	m, _ := frameSyncModel(t, "150", nil, 3*time.Second)
	// The server's players after each of its frames, by frame number.
	server := map[int32]map[int]bg.Vec{}
	record := func() {
		if _, newest, ok := m.Server().FrameSyncStats(); ok && server[newest] == nil {
			pos := map[int]bg.Vec{}
			for _, sp := range m.ServerPlayers() {
				pos[sp.Num] = sp.PS.Origin
			}
			server[newest] = pos
		}
	}
	var before [2]SyncFigures
	for i := range 2 {
		before[i] = m.Player(i).Figures().Sync
	}
	checked := 0
	for end := m.Now() + 5*time.Second; m.Now() < end; {
		m.Run(Step)
		record()
		rb, age := m.Rollback(0)
		if rb == nil || age != 0 || rb.Confirmed < rb.From {
			continue
		}
		// A rollback this step: its confirmed frames are the server's.
		for k := 0; k < rb.Kept && rb.From+int32(k) <= rb.Confirmed; k++ {
			n := rb.From + int32(k)
			after := &rb.After[k]
			if server[n] == nil {
				continue // before the test recorded the server's frames
			}
			if after.Present == 0 {
				t.Fatalf("frame %d of the trail has no one", n)
			}
			for q := 0; q < bg.MaxClients; q++ {
				if after.Present&(1<<q) == 0 {
					continue
				}
				if want, ok := server[n][q]; ok && after.Origin[q] != want {
					t.Fatalf("rollback %d, frame %d: client %d re-run at %v, the server had %v (%v)", rb.Number, n, q, after.Origin[q], want, ok)
				}
			}
			checked++
		}
	}
	for i := range 2 {
		f := m.Player(i).Figures()
		s, b := f.Sync, before[i]
		t.Logf("P%d: %s; %d rollbacks a second, the last ran %d frames again; frame cpu %v", i+1, s.Stats, s.RollbacksPerSecond, s.LastRollback, f.FrameCPU)
		if !f.FrameSync || s.Stats.Confirmed <= b.Stats.Confirmed || s.Stats.Current <= s.Stats.Confirmed-1 {
			t.Errorf("P%d: confirmed %d -> %d, current %d", i+1, b.Stats.Confirmed, s.Stats.Confirmed, s.Stats.Current)
		}
		if s.Stats.Rollbacks <= b.Stats.Rollbacks || s.RollbacksPerSecond <= 0 || s.LastRollback <= 0 || s.Stats.Resimulated <= b.Stats.Resimulated {
			t.Errorf("P%d: rollbacks %d -> %d (%d a second, the last of %d frames), frames run again %d -> %d", i+1,
				b.Stats.Rollbacks, s.Stats.Rollbacks, s.RollbacksPerSecond, s.LastRollback, b.Stats.Resimulated, s.Stats.Resimulated)
		}
		if s.Stats.HashChecks <= b.Stats.HashChecks || s.Stats.Mismatches != 0 {
			t.Errorf("P%d: hash checks %d -> %d, %d mismatches", i+1, b.Stats.HashChecks, s.Stats.HashChecks, s.Stats.Mismatches)
		}
	}
	// P1's round trip is 6 frames: it runs further ahead than P2 and
	// runs more frames again at each rollback.
	p1, p2 := m.Player(0).Figures().Sync, m.Player(1).Figures().Sync
	if p1.Stats.Ahead <= p2.Stats.Ahead || p1.Stats.MaxResimulated <= p2.Stats.MaxResimulated {
		t.Errorf("P1 %d ahead, at most %d frames again; P2 %d, %d: want P1 more", p1.Stats.Ahead, p1.Stats.MaxResimulated, p2.Stats.Ahead, p2.Stats.MaxResimulated)
	}
	t.Logf("%d frames of P1's trails checked against the server's", checked)
	if checked == 0 {
		t.Error("no rollback with a confirmed frame was seen as it happened")
	}
}

// TestFrameSyncStalls sets P1's stall limit under its round trip (4
// frames, against 6 frames of 150 ms each way): P1 stalls, never runs
// more than 4 frames past its last confirmed one and shows STALL, but
// its inputs still go on time (a stalled client sends the input of each
// frame its clock reaches): most reach the server before their frames;
// P2 on its clean link never stalls. A change of the limit in frame sync reconnects the
// player, which takes it at its gamestate.
func TestFrameSyncStalls(t *testing.T) {
	m, _ := frameSyncModel(t, "150", []string{"p1 cl_maxPredictionFrames 4"}, 3*time.Second)
	r0, _, _ := m.Server().FrameSyncStats()
	var stalling, ahead int
	for end := m.Now() + 3*time.Second; m.Now() < end; {
		m.Run(FrameInterval)
		f := m.Player(0).Figures().Sync
		if f.Stalling {
			stalling++
		}
		ahead = max(ahead, int(f.Stats.Ahead))
	}
	p1, p2 := m.Player(0).Figures().Sync, m.Player(1).Figures().Sync
	r1, _, _ := m.Server().FrameSyncStats()
	t.Logf("P1: %s; P2: %s; server: %d inputs late, %d repeated in 3 s", p1.Stats, p2.Stats, r1.Late-r0.Late, r1.Repeats-r0.Repeats)
	if p1.Stats.Stalls == 0 || stalling == 0 || ahead > 4 || p1.MaxPrediction != 4 {
		t.Errorf("P1: %d stalls, STALL shown in %d frames, at most %d ahead (limit %d); want stalls at 4 ahead", p1.Stats.Stalls, stalling, ahead, p1.MaxPrediction)
	}
	if p2.Stats.Stalls != 0 || p2.Stalling {
		t.Errorf("P2 on a clean link stalled %d times", p2.Stats.Stalls)
	}
	// 60 frames in 3 s: when a stalled client held its inputs back too,
	// every one of them came late (60); now the clock's settling.
	if late := r1.Late - r0.Late; late > 30 {
		t.Errorf("%d of P1's inputs arrived late at the server in 60 frames: a stall holds the inputs back", late)
	}

	was := m.Counts(0, Up).Sent
	m.Player(0).T.ExecuteString("cl_maxPredictionFrames 16")
	if m.Counts(0, Up).Sent >= was {
		t.Fatalf("cl_maxPredictionFrames 16 in frame sync: no reconnect (%d packets up before, %d after)", was, m.Counts(0, Up).Sent)
	}
	m.Run(5 * time.Second)
	f := m.Player(0).Figures().Sync
	stalls := f.Stats.Stalls
	m.Run(2 * time.Second)
	f = m.Player(0).Figures().Sync
	if !m.FrameSync(0) || f.MaxPrediction != 16 || f.Stats.Stalls != stalls {
		t.Errorf("P1 with 16 frames of prediction: in frame sync %v, %d stalls in 2 s (%s)", m.FrameSync(0), f.Stats.Stalls-stalls, f.Stats)
	}
}

// TestClassifyFrameSync checks the lanes' kinds of frame sync's
// messages, from the inspector's decoded operations: a whole state
// before frames, frames before a snapshot's absence, a frame request
// before the inputs that ride with it; and the frames each carried.
func TestClassifyFrameSync(t *testing.T) {
	frames := func(ns ...int32) inspect.Op {
		fs := &inspect.Frames{}
		for _, n := range ns {
			fs.Frames = append(fs.Frames, inspect.FrameInfo{Number: n})
		}
		return inspect.Op{Name: inspect.OpFrames, Frames: fs}
	}
	whole := inspect.Op{Name: inspect.OpWholeState, WholeState: &inspect.WholeState{Frame: 40}}
	cmd := inspect.Op{Name: inspect.OpServerCommand, Command: &inspect.Command{Sequence: 3}}
	move := inspect.Op{Name: inspect.OpMove}
	request := inspect.Op{Name: inspect.OpFrameRequest, FrameRequest: &proto.FrameRequest{From: 12}}
	tests := []struct {
		name        string
		ops         []inspect.Op
		kind        Kind
		reliable    bool
		first, last int32
		whole       int32
		headline    string
	}{
		{"frames", []inspect.Op{frames(94, 95, 96)}, KindFrames, false, 94, 96, 0, "frames 94-96, "},
		{"one frame and a command", []inspect.Op{cmd, frames(7)}, KindFrames, true, 7, 7, 0, "frames 7, "},
		{"no frame", []inspect.Op{frames()}, KindFrames, false, 0, 0, 0, "frames, "},
		{"whole state then frames", []inspect.Op{whole, frames(41, 42)}, KindWhole, false, 41, 42, 40, "whole state of frame 40, then frames 41-42, "},
		{"inputs", []inspect.Op{move}, KindUsercmd, false, 0, 0, 0, "usercmd, "},
		{"inputs and a request", []inspect.Op{move, request}, KindFrameRequest, false, 0, 0, 0, "frame request, "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Event{Msg: inspect.Message{Kind: inspect.KindMessage, Ops: tt.ops}, Dir: Down}
			e.Kind, e.Reliable = classify(&e.Msg)
			frameNumbers(e)
			if e.Kind != tt.kind || e.Reliable != tt.reliable || e.FirstFrame != tt.first || e.LastFrame != tt.last || e.WholeFrame != tt.whole {
				t.Fatalf("%v reliable %v, frames %d-%d, whole %d; want %v %v, %d-%d, %d", e.Kind, e.Reliable, e.FirstFrame, e.LastFrame, e.WholeFrame,
					tt.kind, tt.reliable, tt.first, tt.last, tt.whole)
			}
			if h := Headline(e); !strings.Contains(h, ": "+tt.headline) {
				t.Errorf("headline %q, want %q in it", h, tt.headline)
			}
		})
	}
}

// TestLessonD runs lessons/classroom4.cfg (classroom lesson D,
// docs/teaching.md) line by line on a classroom, a `wait N` as N frames
// of the window (60 a second): it ends in frame sync with P1 on 150 ms
// each way at a quarter speed, P1 stalling at the default limit, a ghost
// trail to draw, and P2 on its clean link neither stalling nor as far
// ahead.
func TestLessonD(t *testing.T) {
	b, err := fs.ReadFile(lessons.FS(), "lessons/classroom4.cfg")
	if err != nil {
		t.Fatal(err)
	}
	var m *Model
	var out testutil.LockedBuffer
	var con *console.Table
	lines := 0
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch f := strings.Fields(l); {
		case len(f) == 0 || strings.HasPrefix(l, "//") || f[0] == "echo":
		case f[0] == "classroom":
			bots, err := strconv.Atoi(f[len(f)-1])
			if m != nil || len(f) != 3 || err != nil {
				t.Fatalf("%q: want one classroom MAP BOTS line, first", l)
			}
			if m, err = New(Config{Map: f[1], Bots: bots, Seed: 7}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.Close)
			con = programTable(m, &out)
		case m == nil:
			t.Fatalf("%q before the classroom line", l)
		case f[0] == "wait":
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			m.Run(time.Duration(n) * FrameInterval)
		default:
			con.ExecuteString(l)
			lines++
		}
	}
	if strings.Contains(out.String(), "usage") || strings.Contains(out.String(), "unknown") {
		t.Fatalf("the lesson's lines were refused:\n%s", out.String())
	}
	m.Run(5 * time.Second) // the class watches
	p1, p2 := m.Player(0).Figures().Sync, m.Player(1).Figures().Sync
	t.Logf("%d lines; P1: %s; P2: %s", lines, p1.Stats, p2.Stats)
	if now, _ := m.NetModel(); now != NetModelFrameSync || !m.FrameSync(0) || !m.FrameSync(1) || m.Speed() != 0.25 {
		t.Fatalf("after the lesson: model %s, players in frame sync %v %v, speed %v", now, m.FrameSync(0), m.FrameSync(1), m.Speed())
	}
	if m.Title(PaneP1) != "P1: frame sync, 150 ms each way" || m.Title(PaneP2) != "P2: frame sync" {
		t.Errorf("titles %q, %q", m.Title(PaneP1), m.Title(PaneP2))
	}
	if p1.Stats.Stalls == 0 || p1.MaxPrediction != 8 || p2.Stats.Stalls != 0 || p1.Stats.Ahead <= p2.Stats.Ahead {
		t.Errorf("P1 %d stalls at %d ahead (limit %d), P2 %d stalls at %d ahead: want P1 stalling further ahead", p1.Stats.Stalls, p1.Stats.Ahead, p1.MaxPrediction, p2.Stats.Stalls, p2.Stats.Ahead)
	}
	if rb, _ := m.Rollback(0); rb == nil || rb.Kept == 0 || rb.After[rb.Kept-1].Present == 0 {
		t.Errorf("P1 has no ghost trail to draw: %+v", rb)
	}
}

// TestFeltDelay presses right on P1 (150 ms each way, keys, no bots) in
// both models and times, in virtual time, when P1's own pane moves it,
// when the server does, and when P2's pane does: both models show P1 its
// own move at once (snapshots predict it, frame sync runs it in its own
// game), the server a lane later, P2 after that.
func TestFeltDelay(t *testing.T) {
	for _, model := range []string{NetModelSnapshots, NetModelFrameSync} {
		t.Run(model, func(t *testing.T) {
			m := newModel(t, 0)
			var out testutil.LockedBuffer
			con := programTable(m, &out)
			con.ExecuteString("p1 lag 150")
			con.ExecuteString("netmodel " + model)
			m.Run(8 * time.Second)
			p1, p2 := m.Player(0), m.Player(1)
			num := p1.C.ClientNum()
			const moved = 2 * bg.UnitsPerPixel
			own := func() float64 { return p1.CGame().DrawnOrigin.X }
			onServer := func() float64 {
				for _, sp := range m.ServerPlayers() {
					if int32(sp.Num) == num {
						return float64(sp.PS.Origin.X)
					}
				}
				return 0
			}
			inP2 := func() float64 {
				for _, ce := range p2.CGame().Entities {
					if ce.Current.EType == bg.ETPlayer && ce.Current.Number == num {
						return ce.Lerp.X
					}
				}
				return -1 // not in P2's snapshot (out of its view)
			}
			x0 := [3]float64{own(), onServer(), inP2()}
			p1.In.Right = true
			pressed := m.Now()
			var at [3]time.Duration
			for m.Now()-pressed < 2*time.Second && (at[0] == 0 || at[1] == 0 || at[2] == 0) {
				m.Run(Step)
				for k, x := range [3]float64{own(), onServer(), inP2()} {
					if at[k] == 0 && x0[k] >= 0 && x > x0[k]+moved {
						at[k] = m.Now() - pressed
					}
				}
			}
			t.Logf("%s: P1 sees itself move %v after the key, the server %v, P2 %v (0: not in view)", model, at[0], at[1], at[2])
			// In frame sync P1 runs at its prediction limit (8 frames
			// past the last confirmed, about its round trip): a key
			// pressed during a stall goes to the server at once but runs
			// in P1's own game when its frame may, up to two frames on.
			limit := 3 * FrameInterval
			if model == NetModelFrameSync {
				limit += 2 * 50 * time.Millisecond
			}
			if at[0] == 0 || at[0] > limit {
				t.Errorf("P1's own pane moved %v after the key, want within %v", at[0], limit)
			}
			if at[1] < 150*time.Millisecond {
				t.Errorf("the server moved P1 %v after the key, want at least the lane's 150 ms", at[1])
			}
			if x0[2] >= 0 && at[2] < at[1] {
				t.Errorf("P2 saw P1 move %v after the key, before the server did (%v)", at[2], at[1])
			}
		})
	}
}

// BenchmarkModels is lesson D's costs, each model on the same links (P1
// 150 ms each way, without loss and losing 10 % each way; P2 clean; bots
// at both keyboards, duel1 with one bot):
// an op is one client frame of the whole classroom (60 a second of
// virtual time); P1-cpu-ms is P1's client's own frame (engine, cgame and
// in frame sync its game and rollbacks), P1-up-B/s and P1-down-B/s its
// link's bytes a second, both ways, over the run.
func BenchmarkModels(b *testing.B) {
	for _, c := range []struct{ model, loss string }{
		{NetModelSnapshots, "0"}, {NetModelFrameSync, "0"}, {NetModelSnapshots, "10"}, {NetModelFrameSync, "10"},
	} {
		model := c.model
		b.Run(model+"/loss="+c.loss, func(b *testing.B) {
			m, err := New(Config{Map: DefaultMap, Bots: 1, Seed: 7})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			t := console.NewTable()
			m.AddCommands(t)
			for _, l := range []string{"p1 cl_bot 1", "p2 cl_bot 1", "p1 lag 150", "p1 loss " + c.loss, "netmodel " + model} {
				t.ExecuteString(l)
			}
			m.Run(10 * time.Second)
			p1 := m.Player(0)
			up, down, start := m.Counts(0, Up).Bytes, m.Counts(0, Down).Bytes, m.Now()
			cpu, frames := p1.cpu.all, p1.cpu.frames
			for b.Loop() {
				m.Run(FrameInterval)
			}
			cpu, frames = p1.cpu.all-cpu, p1.cpu.frames-frames
			secs := (m.Now() - start).Seconds()
			b.ReportMetric(float64(m.Counts(0, Up).Bytes-up)/secs, "P1-up-B/s")
			b.ReportMetric(float64(m.Counts(0, Down).Bytes-down)/secs, "P1-down-B/s")
			if frames > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(frames), "P1-cpu-ms")
			}
		})
	}
}
