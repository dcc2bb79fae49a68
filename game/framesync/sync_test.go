package framesync

import (
	"fmt"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// pair is a server and one client's Sync, wired by hand: the test decides
// which frames reach the Sync and when.
type pair struct {
	srv   *testServer
	me    int
	other int
	sync  *Sync
	sent  []Frame // copies of the frames the server closed, by number-1
}

// newPair starts a server with two humans (no bots, whose input changes
// every frame), runs it to its first hash frame and starts a Sync for the
// first human from the whole state.
func newPair(t *testing.T, cfg SyncConfig) *pair {
	t.Helper()
	p := &pair{srv: newTestServer(t, "arena2", matchConfig(), RecorderConfig{HashEvery: 1})}
	p.me = p.srv.eng.connect(t, `\name\Me`)
	p.other = p.srv.eng.connect(t, `\name\Other`)
	p.serverFrames(t, 5, bg.UserCmd{RightMove: 127})
	cfg.Client = p.me
	p.sync = NewSync(NewSim(p.srv.rec.Game().Map(), game.DefaultConfig()), cfg)
	p.deliver(5) // the inputs to predict from
	data, n := wholeMessage(t, p.srv.rec, 5)
	if n != 5 {
		t.Fatalf("whole state of frame %d, want 5", n)
	}
	loaded, err := p.sync.LoadWhole(msg.NewReader(data, msg.Huffman))
	if err != nil || !loaded {
		t.Fatalf("LoadWhole: loaded %v, %v", loaded, err)
	}
	return p
}

// serverFrames closes k frames on the server with the other human playing
// cmd and this client playing what the Sync ran as its own input (or
// nothing).
func (p *pair) serverFrames(t *testing.T, k int, cmd bg.UserCmd) {
	t.Helper()
	for i := 0; i < k; i++ {
		at := p.srv.eng.time + frameMsec
		c := cmd
		c.ServerTime = at
		p.srv.rec.ClientThink(p.other, &c)
		if p.sync != nil {
			if own, ok := p.sync.OwnInput(p.srv.rec.Newest() + 1); ok {
				p.srv.rec.ClientThink(p.me, &own)
			}
		}
		f := p.srv.frame()
		var cp Frame
		cp.CopyFrom(f)
		p.sent = append(p.sent, cp)
	}
}

// deliver gives the Sync the server's frames ns.
func (p *pair) deliver(ns ...int32) {
	for _, n := range ns {
		p.sync.Receive(&p.sent[n-1])
	}
}

// advance runs k client frames with a fixed own input.
func (p *pair) advance(k int) (ran int) {
	for i := 0; i < k; i++ {
		cmd := bg.UserCmd{RightMove: -127}
		if p.sync.Advance(&cmd) {
			ran++
		}
	}
	return ran
}

// Frames that arrive out of order wait for the ones before them; only a
// run without gaps confirms, and Missing names the gap.
func TestSyncOutOfOrder(t *testing.T) {
	p := newPair(t, SyncConfig{})
	p.advance(4) // frames 6..9 predicted
	p.serverFrames(t, 4, bg.UserCmd{RightMove: 127})
	p.deliver(8, 9, 7)
	p.sync.Confirm()
	if c := p.sync.Confirmed(); c != 5 {
		t.Fatalf("confirmed %d with frame 6 missing, want 5", c)
	}
	if from, to, ok := p.sync.Missing(); !ok || from != 6 || to != 6 {
		t.Fatalf("missing %d..%d (%v), want 6..6", from, to, ok)
	}
	p.deliver(6)
	p.sync.Confirm()
	if c := p.sync.Confirmed(); c != 9 {
		t.Fatalf("confirmed %d, want 9", c)
	}
	if _, _, ok := p.sync.Missing(); ok {
		t.Error("something still missing")
	}
	p.deliver(7) // again
	if st := p.sync.Stats(); st.Duplicates != 1 || st.HashChecks != 4 || st.Mismatches != 0 {
		t.Errorf("stats %+v: want 1 duplicate, 4 hash checks, no mismatch", st)
	}
	// A gap after a held frame: 10 missing, 11 and 13 held.
	p.serverFrames(t, 4, bg.UserCmd{RightMove: 127})
	p.deliver(11, 13)
	if from, to, ok := p.sync.Missing(); !ok || from != 10 || to != 10 {
		t.Errorf("missing %d..%d (%v), want 10..10", from, to, ok)
	}
	p.deliver(10)
	p.sync.Confirm()
	if from, to, ok := p.sync.Missing(); !ok || from != 12 || to != 12 {
		t.Errorf("missing %d..%d (%v), want 12..12", from, to, ok)
	}
}

// Advance stalls rather than predict more than MaxPrediction frames past
// the last confirmed one, and goes on once frames confirm.
func TestSyncStall(t *testing.T) {
	p := newPair(t, SyncConfig{MaxPrediction: 6})
	if ran := p.advance(10); ran != 6 {
		t.Fatalf("ran %d frames without confirmation, want 6", ran)
	}
	st := p.sync.Stats()
	if st.Stalls != 4 || !st.Stalled || st.Ahead != 6 {
		t.Fatalf("stats %+v: want 4 stalls, stalled, 6 ahead", st)
	}
	p.serverFrames(t, 2, bg.UserCmd{RightMove: 127})
	p.deliver(6, 7)
	if ran := p.advance(3); ran != 2 {
		t.Fatalf("ran %d frames after 2 confirmed, want 2", ran)
	}
	if st := p.sync.Stats(); st.Stalls != 5 || st.Confirmed != 7 || st.Current != 13 {
		t.Errorf("stats %+v: want 5 stalls, confirmed 7, current 13", st)
	}
}

// A confirmed frame that differs from its prediction rolls the game back
// to the state before it, and every frame from it to the current one runs
// again; the counts say how many.
func TestSyncRollback(t *testing.T) {
	cases := []struct {
		name      string
		changeAt  int32 // first frame where the other player's input changes (0: never)
		rollbacks int
		resim     int
	}{
		{"predicted right", 0, 0, 0},
		{"wrong from the first", 6, 1, 6},
		{"wrong from the fourth", 9, 1, 3},
		{"wrong at the last", 11, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, SyncConfig{})
			p.advance(6) // frames 6..11, the other predicted to keep moving right
			for n := int32(6); n <= 11; n++ {
				cmd := bg.UserCmd{RightMove: 127}
				if tc.changeAt != 0 && n >= tc.changeAt {
					cmd = bg.UserCmd{RightMove: -127, UpMove: 127}
				}
				p.serverFrames(t, 1, cmd)
			}
			p.deliver(6, 7, 8, 9, 10, 11)
			p.sync.Confirm()
			st := p.sync.Stats()
			if st.Rollbacks != tc.rollbacks || st.Resimulated != tc.resim || st.Confirmed != 11 || st.Current != 11 {
				t.Fatalf("stats %+v: want %d rollbacks, %d frames again, confirmed and current 11", st, tc.rollbacks, tc.resim)
			}
			if st.Mismatches != 0 || st.HashChecks != 6 {
				t.Errorf("%d mismatches in %d checks", st.Mismatches, st.HashChecks)
			}
			h, _ := p.sync.ConfirmedHash(11)
			if want := p.sent[10].Hash; h != want {
				t.Errorf("frame 11's hash %#x, the server's %#x", h, want)
			}
		})
	}
}

// A rollback re-predicts the frames after the confirmed ones with the new
// last confirmed inputs, so that the frames still predicted run as they
// will confirm when the other player keeps its new input.
func TestSyncRepredicts(t *testing.T) {
	p := newPair(t, SyncConfig{})
	p.advance(6) // 6..11
	p.serverFrames(t, 6, bg.UserCmd{RightMove: -127})
	p.deliver(6, 7, 8)
	p.sync.Confirm() // rollback at 6, 9..11 predicted again with the new input
	p.deliver(9, 10, 11)
	p.sync.Confirm()
	if st := p.sync.Stats(); st.Rollbacks != 1 || st.Resimulated != 6 || st.Confirmed != 11 {
		t.Fatalf("stats %+v: want 1 rollback of 6 frames, the re-predicted 9..11 confirmed as they were", st)
	}
}

// A frame whose hash differs from the client's state leaves a mismatch
// pending and asks for a whole state of that frame; the frames after it
// are not checked until it comes (they differ too).
func TestSyncHashMismatch(t *testing.T) {
	p := newPair(t, SyncConfig{})
	p.serverFrames(t, 3, bg.UserCmd{RightMove: 127})
	p.sent[6].Hash ^= 1 // frame 7
	p.deliver(6, 7, 8)
	p.advance(1)
	st := p.sync.Stats()
	if st.Mismatches != 1 || st.MismatchFrame != 7 || st.HashChecks != 2 {
		t.Fatalf("stats %+v: want 1 mismatch at frame 7, the second of 2 checks (frame 8 unchecked)", st)
	}
	if n, ok := p.sync.WantWhole(); !ok || n != 7 {
		t.Fatalf("want whole %d (%v), want frame 7", n, ok)
	}
	data, n := wholeMessage(t, p.srv.rec, 7)
	if n != 7 {
		t.Fatalf("whole state of frame %d", n)
	}
	if loaded, err := p.sync.LoadWhole(msg.NewReader(data, msg.Huffman)); err != nil || !loaded {
		t.Fatalf("LoadWhole: %v %v", loaded, err)
	}
	st = p.sync.Stats()
	if st.Resyncs != 1 || st.MismatchFrame != 0 || st.Diff != "" || st.Confirmed != 7 {
		t.Errorf("after the whole state: %+v (the states were equal: no difference to name)", st)
	}
	if _, ok := p.sync.WantWhole(); ok {
		t.Error("still wants a whole state")
	}
	// The same whole state again is of no use.
	if loaded, err := p.sync.LoadWhole(msg.NewReader(data, msg.Huffman)); err != nil || loaded {
		t.Errorf("LoadWhole of an old frame again: loaded %v, %v", loaded, err)
	}
}

// A client too far behind the server for its frame buffer wants a whole
// state.
func TestSyncTooFarBehind(t *testing.T) {
	p := newPair(t, SyncConfig{})
	f := p.sent[0]
	f.Number = 5 + FrameBuffer
	p.sync.Receive(&f)
	if n, ok := p.sync.WantWhole(); !ok || n != f.Number {
		t.Errorf("want whole %d (%v), want %d", n, ok, f.Number)
	}
	if st := p.sync.Stats(); st.TooFar != 1 {
		t.Errorf("too far %d", st.TooFar)
	}
}

// A whole state of another map, or a broken one, leaves the Sync as it
// was.
func TestSyncLoadWholeErrors(t *testing.T) {
	p := newPair(t, SyncConfig{})
	p.serverFrames(t, 5, bg.UserCmd{RightMove: 127})
	other := newTestServer(t, "arena1", matchConfig(), RecorderConfig{HashEvery: 1})
	other.frame()
	foreign, _ := wholeMessage(t, other.rec, 1)
	good, _ := wholeMessage(t, p.srv.rec, 10)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"another map", foreign, "another map"},
		{"cut short", good[:len(good)/2], "frame 10"},
		{"empty", nil, "header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded, err := p.sync.LoadWhole(msg.NewReader(tc.data, msg.Huffman))
			if err == nil || loaded || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadWhole: loaded %v, error %v; want an error saying %q", loaded, err, tc.want)
			}
			if c := p.sync.Confirmed(); c != 5 {
				t.Errorf("confirmed %d after the error, want 5", c)
			}
		})
	}
}

// A client joining mid-match from a whole state has the server's hash at
// its first confirmed frame (the whole state's), and at every hash frame
// after it.
func TestJoinMidMatch(t *testing.T) {
	srv := newTestServer(t, "arena2", matchConfig(), RecorderConfig{})
	for _, name := range []string{"Anvil", "Brick", "Cinder"} {
		if _, err := srv.rec.AddBot(name, 3); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 600; i++ {
		srv.frame()
	}
	me := srv.eng.connect(t, `\name\Latecomer`)
	for i := 0; i < 7; i++ {
		srv.frame()
	}
	data, n := wholeMessage(t, srv.rec, srv.rec.Newest())
	t.Logf("whole state of frame %d: %d bytes", n, len(data))
	s := NewSync(NewSim(srv.rec.Game().Map(), game.DefaultConfig()), SyncConfig{Client: me})
	if _, err := s.LoadWhole(msg.NewReader(data, msg.Huffman)); err != nil {
		t.Fatal(err)
	}
	f, _ := srv.rec.Frame(n)
	if h, ok := s.ConfirmedHash(n); !ok || !f.HasHash || h != f.Hash {
		t.Fatalf("the first confirmed frame %d hashes %#x (%v), the server's %#x", n, h, ok, f.Hash)
	}
	for k := n + 1; k <= srv.rec.Newest(); k++ {
		f, _ := srv.rec.Frame(k)
		s.Receive(f)
	}
	for i := 0; i < 100; i++ {
		f := srv.frame()
		s.Receive(f)
		cmd := script(me, s.Current()+1)
		s.Advance(&cmd)
	}
	s.Confirm()
	st := s.Stats()
	if st.Mismatches != 0 || st.HashChecks < 20 || st.Confirmed != srv.rec.Newest() {
		t.Errorf("stats %+v: want no mismatch in 20 or more checks, confirmed %d", st, srv.rec.Newest())
	}
}

// A deliberate non-determinism in the server's game (an unseeded draw
// moving a missile or a player) is caught by the hash at the frame it
// happens, and the whole state the client then asks for names the entity
// or player and the field.
func TestNonDeterminismCaught(t *testing.T) {
	srv := newTestServer(t, "arena2", matchConfig(), RecorderConfig{HashEvery: 1})
	for _, name := range []string{"Anvil", "Brick", "Cinder", "Dagger"} {
		if _, err := srv.rec.AddBot(name, 5); err != nil {
			t.Fatal(err)
		}
	}
	me := srv.eng.connect(t, `\name\Witness`)
	srv.frame()
	data, _ := wholeMessage(t, srv.rec, 1)
	s := NewSync(NewSim(srv.rec.Game().Map(), game.DefaultConfig()), SyncConfig{Client: me})
	if _, err := s.LoadWhole(msg.NewReader(data, msg.Huffman)); err != nil {
		t.Fatal(err)
	}
	const injectFrame = 300
	srv.rec.Game().InjectNonDeterminism(injectFrame * frameMsec)
	for i := 0; i < 400; i++ {
		if own, ok := s.OwnInput(srv.rec.Newest() + 1); ok {
			srv.rec.ClientThink(me, &own)
		}
		s.Receive(srv.frame())
		cmd := script(me, s.Current()+1)
		s.Advance(&cmd)
		if at, ok := s.WantWhole(); ok {
			if at != injectFrame {
				t.Fatalf("the hash mismatch was found at frame %d, the non-determinism happened at %d", at, injectFrame)
			}
			data, n := wholeMessage(t, srv.rec, at)
			if n != at {
				t.Fatalf("the server sent frame %d's whole state, asked for %d", n, at)
			}
			if _, err := s.LoadWhole(msg.NewReader(data, msg.Huffman)); err != nil {
				t.Fatal(err)
			}
		}
	}
	st := s.Stats()
	t.Logf("named: %s", st.Diff)
	if st.Mismatches != 1 || st.Resyncs != 1 {
		t.Fatalf("stats %+v: want the one mismatch and one resync", st)
	}
	prefix := fmt.Sprintf("frame %d: ", injectFrame)
	entity := strings.Contains(st.Diff, "(missile): Pos.Delta.X is ")
	player := strings.Contains(st.Diff, ": PlayerState Velocity.X is ")
	if !strings.HasPrefix(st.Diff, prefix) || !entity && !player {
		t.Errorf("the difference named is %q: want %q then a missile's Pos.Delta.X or a player's Velocity.X", st.Diff, prefix)
	}
}

// A rollback keeps where every player stood in the frames it ran again:
// before, as predicted (the other still running right), and after, as the
// server ran them; the first TrailFrames of a longer one.
func TestSyncRollbackTrail(t *testing.T) {
	cases := []struct {
		name              string
		ahead             int   // frames predicted before the confirmations
		changeAt          int32 // first frame where the other's input changes (0: never)
		number            int
		from, to          int32
		kept              int
		maxPred, statesSz int
	}{
		{"predicted right", 6, 0, 0, 0, 0, 0, 0, 0},
		{"wrong from the fourth", 6, 9, 1, 9, 11, 3, 0, 0},
		{"longer than the trail", 40, 6, 1, 6, 45, TrailFrames, 40, 64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, SyncConfig{MaxPrediction: tc.maxPred, States: tc.statesSz})
			if ran := p.advance(tc.ahead); ran != tc.ahead {
				t.Fatalf("ran %d frames ahead, want %d", ran, tc.ahead)
			}
			server := map[int32]bg.Vec{} // the other player's origin after each frame, on the server
			last := int32(5 + tc.ahead)
			for n := int32(6); n <= last; n++ {
				cmd := bg.UserCmd{RightMove: 127}
				if tc.changeAt != 0 && n >= tc.changeAt {
					cmd = bg.UserCmd{RightMove: -127, UpMove: 127}
				}
				p.serverFrames(t, 1, cmd)
				server[n] = p.srv.rec.Game().PlayerState(p.other).Origin
				p.deliver(n)
			}
			p.sync.Confirm()
			rb := p.sync.LastRollback()
			if rb.Number != tc.number || rb.From != tc.from || rb.To != tc.to || rb.Kept != tc.kept {
				t.Fatalf("rollback %d of frames %d..%d, %d kept; want %d of %d..%d, %d kept",
					rb.Number, rb.From, rb.To, rb.Kept, tc.number, tc.from, tc.to, tc.kept)
			}
			if tc.number == 0 {
				return
			}
			if rb.Confirmed != last {
				t.Errorf("confirmed %d after the rollback, want %d", rb.Confirmed, last)
			}
			both := uint64(1)<<p.me | uint64(1)<<p.other
			for i := range rb.Kept {
				n := rb.From + int32(i)
				for _, pos := range []*Positions{&rb.Before[i], &rb.After[i]} {
					if pos.Present&both != both {
						t.Fatalf("frame %d: players %#x, want both of %#x", n, pos.Present, both)
					}
				}
				if got, want := rb.After[i].Origin[p.other], server[n]; got != want {
					t.Errorf("frame %d: the other re-simulated at %v, the server had it at %v", n, got, want)
				}
				if i > 0 && rb.Before[i].Origin[p.other] == rb.After[i].Origin[p.other] {
					t.Errorf("frame %d: the other predicted where it was re-simulated, %v", n, rb.After[i].Origin[p.other])
				}
			}
		})
	}
}

// observerLog is an Observer that writes down what it is told, and checks
// that the frames it is told of follow each other: each frame run comes
// after the one before it, run or loaded, at the frame's time.
type observerLog struct {
	t     *testing.T
	sync  *Sync // set once the Sync is made
	at    int32 // the frame the game is at, by the calls
	calls []string
}

func (o *observerLog) FrameRun(n int32, confirmed bool) {
	if n != o.at+1 {
		o.t.Errorf("frame %d run with the game at frame %d", n, o.at)
	}
	if lt := o.sync.Sim().Game().LevelTime(); lt != n*frameMsec {
		o.t.Errorf("frame %d run: the game is at %d ms, want %d", n, lt, n*frameMsec)
	}
	o.at = n
	call := fmt.Sprintf("predict %d", n)
	if confirmed {
		call = fmt.Sprintf("run %d", n)
	}
	o.calls = append(o.calls, call)
}

func (o *observerLog) StateLoaded(n int32) {
	o.at = n
	o.calls = append(o.calls, fmt.Sprintf("load %d", n))
}

// The Observer is told of every frame the Sync runs, predicted, confirmed
// or run again, and of every state it loads, in order: a rollback loads
// the state before the first frame that differs, runs the confirmed
// frames from it and predicts the rest again; frames confirmed past the
// current one simply run; a whole state of an earlier frame (a
// resynchronisation after a hash mismatch) is loaded and the frames after
// it run again.
func TestSyncObserver(t *testing.T) {
	cases := []struct {
		name     string
		changeAt int32 // first frame where the other's input changes (0: never)
		confirm  int32 // frames 6..confirm are delivered after 6..11 ran predicted
		resync   bool  // then a whole state of frame 7 is loaded and 8..confirm confirm again
		want     string
	}{
		{"predicted right", 0, 11, false, ""},
		{"wrong from the fourth", 9, 11, false, "load 8, run 9, run 10, run 11"},
		{"wrong, fewer confirmed", 8, 9, false, "load 7, run 8, run 9, predict 10, predict 11"},
		{"confirmed past the current frame", 0, 13, false, "run 12, run 13"},
		{"wrong, and past the current frame", 10, 13, false, "load 9, run 10, run 11, run 12, run 13"},
		{"whole state of an earlier frame", 0, 11, true, "load 7, run 8, run 9, run 10, run 11"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &observerLog{t: t}
			p := newPair(t, SyncConfig{Observer: o})
			o.sync = p.sync
			if got, want := strings.Join(o.calls, ", "), "load 5"; got != want {
				t.Fatalf("the first whole state: %q, want %q", got, want)
			}
			p.advance(6)
			if got, want := strings.Join(o.calls[1:], ", "), "predict 6, predict 7, predict 8, predict 9, predict 10, predict 11"; got != want {
				t.Fatalf("predicting: %q, want %q", got, want)
			}
			o.calls = o.calls[:0]
			var whole []byte // frame 7's, while the server keeps it
			for n := int32(6); n <= tc.confirm; n++ {
				cmd := bg.UserCmd{RightMove: 127}
				if tc.changeAt != 0 && n >= tc.changeAt {
					cmd = bg.UserCmd{RightMove: -127, UpMove: 127}
				}
				p.serverFrames(t, 1, cmd)
				if tc.resync && n == 7 {
					p.sent[6].Hash ^= 1 // frame 7 mismatches: a whole state of it is wanted
					whole, _ = wholeMessage(t, p.srv.rec, 7)
				}
				p.deliver(n)
			}
			p.sync.Confirm()
			if tc.resync {
				if n, ok := p.sync.WantWhole(); !ok || n != 7 {
					t.Fatalf("want whole %d (%v), want frame 7", n, ok)
				}
				o.calls = o.calls[:0]
				if loaded, err := p.sync.LoadWhole(msg.NewReader(whole, msg.Huffman)); err != nil || !loaded {
					t.Fatalf("LoadWhole: %v %v", loaded, err)
				}
				p.sync.Confirm()
			}
			if got := strings.Join(o.calls, ", "); got != tc.want {
				t.Errorf("confirming: %q, want %q", got, tc.want)
			}
			if st, want := p.sync.Stats(), max(tc.confirm, 11); st.Current != want || o.at != want {
				t.Errorf("the Sync is at frame %d, the Observer was told %d; want %d", st.Current, o.at, want)
			}
		})
	}
}
