package framesync

import (
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// benchConfig is a match that never ends: no frag or time limit.
func benchConfig() game.Config {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	return cfg
}

// botServer starts arena2 with 8 bots and runs it warm frames.
func botServer(tb testing.TB, warm int) *testServer {
	tb.Helper()
	srv := newTestServer(tb, "arena2", benchConfig(), RecorderConfig{})
	for _, name := range []string{"Anvil", "Brick", "Cinder", "Dagger", "Ember", "Flint", "Garnet", "Hatchet"} {
		if _, err := srv.rec.AddBot(name, 3); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < warm; i++ {
		srv.frame()
	}
	return srv
}

// The Recorder's frame with 8 bots on arena2: ThinkBots, the inputs, the
// game's frame, the hash and saved state every fifth frame. Steady state
// allocates nothing.
func BenchmarkRecorderFrame(b *testing.B) {
	srv := botServer(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		srv.frame()
	}
}

// recordFrames returns copies of n frames of 8 bots on arena2.
func recordFrames(tb testing.TB, n int) []Frame {
	srv := botServer(tb, 100)
	out := make([]Frame, n)
	for i := range out {
		out[i].CopyFrom(srv.frame())
	}
	return out
}

// Frames messages of 8 bots playing (their real inputs), each coded from
// the frame before the message, of 1 frame (sent once) and of 4 frames
// (the frames of a round trip sent again until acknowledged). B/frame is
// the size of a frame in the message; the hash every fifth frame
// included.
func BenchmarkAppendFrames(b *testing.B) {
	frames := recordFrames(b, 400)
	for _, per := range []int{1, 4} {
		b.Run(map[int]string{1: "1frame", 4: "4frames"}[per], func(b *testing.B) {
			w := msg.NewWriter(make([]byte, 1<<16), msg.Huffman)
			list := make([]*Frame, per)
			bits, msgs := 0, 0
			i := 1
			b.ReportAllocs()
			for b.Loop() {
				if i+per > len(frames) {
					i = 1
				}
				for k := range list {
					list[k] = &frames[i+k]
				}
				w.Reset(w.Bytes()[:cap(w.Bytes())], msg.Huffman)
				if err := AppendFrames(w, &frames[i-1], list); err != nil {
					b.Fatal(err)
				}
				bits += w.Len() * 8
				msgs++
				i++
			}
			b.ReportMetric(float64(bits)/8/float64(msgs*per), "B/frame")
			b.ReportMetric(float64(bits)/8/float64(msgs), "B/msg")
		})
	}
}

// Reading those messages allocates nothing.
func BenchmarkReadFrames(b *testing.B) {
	frames := recordFrames(b, 400)
	for _, per := range []int{1, 4} {
		b.Run(map[int]string{1: "1frame", 4: "4frames"}[per], func(b *testing.B) {
			var msgs [][]byte
			w := msg.NewWriter(make([]byte, 1<<16), msg.Huffman)
			list := make([]*Frame, per)
			for i := 1; i+per <= len(frames); i++ {
				for k := range list {
					list[k] = &frames[i+k]
				}
				w.Reset(w.Bytes()[:cap(w.Bytes())], msg.Huffman)
				if err := AppendFrames(w, &frames[i-1], list); err != nil {
					b.Fatal(err)
				}
				msgs = append(msgs, append([]byte(nil), w.Bytes()...))
			}
			src := &indexSource{frames: frames}
			out := make([]Frame, MaxMessageFrames)
			var r msg.Reader
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(msgs[i], msg.Huffman)
				if _, err := ReadFrames(&r, src, out); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % len(msgs)
			}
		})
	}
}

// indexSource serves recorded frames by number without searching.
type indexSource struct{ frames []Frame }

func (s *indexSource) Frame(n int32) (*Frame, bool) {
	i := int(n - s.frames[0].Number)
	if i < 0 || i >= len(s.frames) {
		return nil, false
	}
	return &s.frames[i], true
}

// holdScript is a human who keeps an input for a while: it changes every
// 30 to 51 frames depending on the client, so that a rollback happens
// when one of the others changes.
func holdScript(client int, frame int32) bg.UserCmd {
	period := int32(30 + client*3)
	phase := (frame + int32(client)*11) / period
	c := bg.UserCmd{Aim: (phase * 9000) & 0xffff, Weapon: 1 + phase%4}
	if phase%2 == 0 {
		c.RightMove = 127
	} else {
		c.RightMove = -127
	}
	if phase%3 == 0 {
		c.Buttons = bg.ButtonAttack
	}
	return c
}

// session is a recorded match of 8 scripted humans on arena2: the frames,
// and the whole state the client (human 0) starts from.
type session struct {
	whole  []byte
	start  int32
	frames []Frame // frames[0] is frame start+1
	me     int
	m      *game.Arena
}

func recordSession(tb testing.TB, n int, script func(int, int32) bg.UserCmd) *session {
	srv := newTestServer(tb, "arena2", benchConfig(), RecorderConfig{})
	var humans []int
	for i := 0; i < 8; i++ {
		humans = append(humans, srv.eng.connect(tb, `\name\P`+string(rune('A'+i))))
	}
	s := &session{me: humans[0], m: srv.rec.Game()}
	play := func() *Frame {
		next := srv.rec.Newest() + 1
		for _, c := range humans {
			cmd := script(c, next)
			cmd.ServerTime = srv.eng.time + frameMsec
			srv.rec.ClientThink(c, &cmd)
		}
		return srv.frame()
	}
	for i := 0; i < 100; i++ {
		play()
	}
	s.whole, s.start = wholeMessage(tb, srv.rec, srv.rec.Newest())
	s.frames = make([]Frame, n)
	for i := range s.frames {
		s.frames[i].CopyFrom(play())
	}
	return s
}

// newSync starts a Sync for the session's client from its whole state.
func (s *session) newSync(tb testing.TB) *Sync {
	sy := NewSync(NewSim(s.m.Map(), game.DefaultConfig()), SyncConfig{Client: s.me})
	if _, err := sy.LoadWhole(msg.NewReader(s.whole, msg.Huffman)); err != nil {
		tb.Fatal(err)
	}
	return sy
}

// A client frame of the Sync with 8 players, confirmations arriving 6
// frames behind: each op receives one frame, confirms it, and predicts
// one frame. With humans who hold their inputs a while the predictions
// are mostly right and a rollback of 6 frames happens now and then; with
// bots, whose aim changes every frame, every confirmation rolls 6 frames
// back. Steady state allocates nothing.
func BenchmarkSync(b *testing.B) {
	for _, tc := range []struct {
		name   string
		script func(int, int32) bg.UserCmd
	}{
		{"humans", holdScript},
		{"turning", script},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const lag = 6
			s := recordSession(b, 1200, tc.script)
			var sy *Sync
			i := 0
			rollbacks, resim, ops := 0, 0, 0
			var warm SyncStats // the counters when the timer started
			count := func() {
				st := sy.Stats()
				rollbacks += st.Rollbacks - warm.Rollbacks
				resim += st.Resimulated - warm.Resimulated
				if st.Mismatches != 0 {
					b.Fatalf("%d hash mismatches", st.Mismatches)
				}
			}
			restart := func() {
				b.StopTimer()
				if sy != nil {
					count()
				}
				sy = s.newSync(b)
				for i = 0; i < lag; i++ {
					cmd := tc.script(s.me, sy.Current()+1)
					sy.Advance(&cmd)
				}
				// Warm up: every state of the ring saved once (a State's
				// item list is allocated at its first save).
				for ; i < lag+DefaultStates; i++ {
					sy.Receive(&s.frames[i-lag])
					cmd := tc.script(s.me, sy.Current()+1)
					sy.Advance(&cmd)
				}
				warm = sy.Stats()
				b.StartTimer()
			}
			restart()
			b.ReportAllocs()
			for b.Loop() {
				if i >= len(s.frames) {
					restart()
				}
				sy.Receive(&s.frames[i-lag])
				cmd := tc.script(s.me, sy.Current()+1)
				if !sy.Advance(&cmd) {
					b.Fatal("stalled")
				}
				i++
				ops++
			}
			count()
			b.ReportMetric(float64(rollbacks)/float64(ops), "rollbacks/op")
			b.ReportMetric(float64(resim)/float64(ops), "resim/op")
		})
	}
}
