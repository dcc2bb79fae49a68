package framesync

import (
	"math/rand/v2"
	"sort"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// link is a one-way network path for the tests: each packet is lost with
// probability loss, else arrives latency plus 0..jitter ms after it was
// sent, so packets overtake each other. It is seeded: the same seed gives
// the same losses and delays.
type link struct {
	rng             *rand.Rand
	loss            float64
	latency, jitter int32
	queue           []packet
	seq             int
	sent, lost      int
}

type packet struct {
	at    int32
	seq   int
	data  []byte
	whole bool // a whole-state message, else a frames message
	up    *upPacket
}

func newLink(seed uint64, loss float64, latency, jitter int32) *link {
	return &link{rng: rand.New(rand.NewPCG(seed, seed+1)), loss: loss, latency: latency, jitter: jitter}
}

func (l *link) send(now int32, p packet) {
	l.sent++
	if l.rng.Float64() < l.loss {
		l.lost++
		return
	}
	p.at = now + l.latency + l.rng.Int32N(l.jitter+1)
	p.seq = l.seq
	l.seq++
	l.queue = append(l.queue, p)
}

// due returns the packets arrived by now, in arrival order.
func (l *link) due(now int32) []packet {
	sort.SliceStable(l.queue, func(i, j int) bool { return l.queue[i].at < l.queue[j].at })
	k := 0
	for k < len(l.queue) && l.queue[k].at <= now {
		k++
	}
	out := append([]packet(nil), l.queue[:k]...)
	l.queue = append(l.queue[:0], l.queue[k:]...)
	return out
}

// upPacket is what a client sends the server each frame: its inputs not
// yet confirmed, the last frame it confirmed (the server sends the frames
// after it, coded from it when the client holds it), the frames it misses
// and whether it wants a whole state.
type upPacket struct {
	inputs    []bg.UserCmd
	confirmed int32
	base      bool
	missFrom  int32
	whole     bool
	wholeAt   int32
}

// player is one client of the end-to-end test.
type player struct {
	name         string
	num          int
	joinAt       int32 // frame at which it connects
	sync         *Sync
	up, down     *link
	lead         int32 // the input lead the server last reported
	confirmed    int32 // server side: the frame the client last said it confirmed
	base         bool
	wantWhole    bool
	wholeAt      int32
	checked      int32 // frames up to this one had their hash compared by the test
	firstHash    bool  // the first confirmed frame's hash was compared
	bytesDown    int
	late, inputs int // inputs sent that reached the server late, and all
	framesMsg    int
	buf          [MaxMessageFrames]Frame
	rd           msg.Reader
}

// The end-to-end test of frame sync: a Recorder and several Syncs over
// lossy, jittery links that reorder packets, on arena2 with 4 scripted
// humans and 4 bots, and a fifth human joining mid-match from a whole
// state. Every Sync's state must have the server's hash at every hash
// frame it confirms, and the hash checks must find no mismatch.
func TestEndToEnd(t *testing.T) {
	frames := int32(3000)
	if testing.Short() {
		frames = 600
	}
	cfg := matchConfig()
	cfg.FragLimit = 10
	srv := newTestServer(t, "arena2", cfg, RecorderConfig{})
	for i, name := range []string{"Anvil", "Brick", "Cinder", "Dagger"} {
		if _, err := srv.rec.AddBot(name, 2+i%3); err != nil {
			t.Fatal(err)
		}
	}
	players := []*player{
		{name: "near", up: newLink(1, 0.05, 20, 20), down: newLink(2, 0.05, 20, 20)},
		{name: "jittery", up: newLink(3, 0.05, 40, 60), down: newLink(4, 0.05, 40, 60)},
		{name: "lossy", up: newLink(5, 0.15, 60, 40), down: newLink(6, 0.15, 60, 40)},
		{name: "far", up: newLink(7, 0.05, 150, 40), down: newLink(8, 0.05, 150, 40)},
		{name: "late", joinAt: frames / 2, up: newLink(9, 0.05, 50, 40), down: newLink(10, 0.05, 50, 40)},
	}
	m := srv.rec.Game().Map()
	serverHash := map[int32]uint64{}
	w := msg.NewWriter(make([]byte, 1<<17), msg.Huffman)
	var list []*Frame

	for tick := int32(1); tick <= frames; tick++ {
		now := srv.eng.time + frameMsec
		for _, p := range players {
			if tick == p.joinAt+1 {
				p.num = srv.eng.connect(t, `\name\`+p.name)
				p.sync = NewSync(NewSim(m, game.DefaultConfig()), SyncConfig{Client: p.num})
				p.wantWhole = true
			}
			if p.sync == nil {
				continue
			}
			for _, pk := range p.up.due(now) {
				u := pk.up
				late := srv.rec.Stats().Late
				for i := range u.inputs {
					srv.rec.ClientThink(p.num, &u.inputs[i])
				}
				p.late += srv.rec.Stats().Late - late
				p.inputs += len(u.inputs)
				if u.confirmed > p.confirmed {
					p.confirmed, p.base = u.confirmed, u.base
				}
				if u.missFrom > 0 && u.missFrom-1 < p.confirmed {
					p.confirmed, p.base = u.missFrom-1, false
				}
				if u.whole {
					p.wantWhole, p.wholeAt = true, u.wholeAt
				}
			}
		}

		f := srv.frame()
		if f.HasHash {
			serverHash[f.Number] = f.Hash
		}

		// The server sends each client what it has not confirmed.
		for _, p := range players {
			if p.sync == nil {
				continue
			}
			if p.wantWhole && srv.rec.Newest() >= srv.rec.HashEvery() {
				w.Reset(w.Bytes()[:cap(w.Bytes())], msg.Huffman)
				n, _ := srv.rec.AppendWholeState(w, p.wholeAt)
				p.down.send(now, packet{data: append([]byte(nil), w.Bytes()...), whole: true})
				p.bytesDown += w.Len()
				p.wantWhole = false
				p.confirmed, p.base = n, false
			}
			from := max(p.confirmed+1, srv.rec.Newest()-FrameBuffer+2)
			to := min(srv.rec.Newest(), from+MaxMessageFrames-1)
			if from > to {
				continue // the client has every frame
			}
			list = list[:0]
			for n := from; n <= to; n++ {
				fr, ok := srv.rec.Frame(n)
				if !ok {
					t.Fatalf("frame %d left the buffer", n)
				}
				list = append(list, fr)
			}
			var base *Frame
			if bf, ok := srv.rec.Frame(from - 1); ok && p.base && from-1 == p.confirmed {
				base = bf
			}
			w.Reset(w.Bytes()[:cap(w.Bytes())], msg.Huffman)
			w.WriteLong(srv.rec.InputLead(p.num))
			if err := AppendFrames(w, base, list); err != nil {
				t.Fatal(err)
			}
			p.down.send(now, packet{data: append([]byte(nil), w.Bytes()...)})
			p.bytesDown += w.Len()
			p.framesMsg++
		}

		// Each client takes what arrived, runs its frames and answers.
		for _, p := range players {
			if p.sync == nil {
				continue
			}
			clientTick(t, p, now)
			checkHashes(t, p, serverHash)
		}
	}

	for _, p := range players {
		st := p.sync.Stats()
		t.Logf("%-7s client %d: %+v; inputs late %d of %d; %d B down in %d frame messages (%.0f B each)", p.name, p.num, st, p.late, p.inputs, p.bytesDown, p.framesMsg, float64(p.bytesDown)/float64(p.framesMsg))
		if st.Mismatches != 0 || st.MismatchFrame != 0 {
			t.Errorf("%s: %d hash mismatches, the first at frame %d", p.name, st.Mismatches, st.MismatchFrame)
		}
		if st.HashChecks < int(frames-p.joinAt)/int(srv.rec.HashEvery())/2 {
			t.Errorf("%s: only %d hash checks", p.name, st.HashChecks)
		}
		if st.Rollbacks == 0 {
			t.Errorf("%s: no rollback: the others' inputs were never mispredicted", p.name)
		}
		if st.Confirmed < frames-20 {
			t.Errorf("%s: confirmed only up to frame %d of %d", p.name, st.Confirmed, frames)
		}
		if !p.firstHash {
			t.Errorf("%s: its first confirmed frame's hash was never compared", p.name)
		}
	}
	if st := players[3].sync.Stats(); st.Stalls == 0 {
		t.Errorf("the far client never stalled (ahead %d)", st.Ahead)
	}
	t.Logf("recorder: %+v", srv.rec.Stats())
}

// clientTick delivers the packets that reached p by now, moves its frame
// clock on by the input lead the server reports, and sends its answer.
func clientTick(t *testing.T, p *player, now int32) {
	t.Helper()
	s := p.sync
	for _, pk := range p.down.due(now) {
		p.rd.Reset(pk.data, msg.Huffman)
		if pk.whole {
			if _, err := s.LoadWhole(&p.rd); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			p.checked = s.Confirmed() - 1
			continue
		}
		lead := p.rd.ReadLong()
		n, err := ReadFrames(&p.rd, s, p.buf[:])
		if err != nil {
			continue // coded from a frame this client no longer holds: the next message is not
		}
		p.lead = lead
		for i := 0; i < n; i++ {
			s.Receive(&p.buf[i])
		}
	}
	// The frame clock: one frame a tick, two when the inputs arrive
	// late, none when they are far ahead.
	steps := 1
	switch {
	case p.lead < 1:
		steps = 2
	case p.lead > 3:
		steps = 0
	}
	for i := 0; i < steps; i++ {
		cmd := script(p.num, s.Current()+1)
		s.Advance(&cmd)
	}
	s.Confirm()
	u := &upPacket{confirmed: s.Confirmed()}
	_, u.base = s.Frame(s.Confirmed())
	for n := max(s.Confirmed(), s.Stats().Newest) + 1; n <= s.Current(); n++ {
		if c, ok := s.OwnInput(n); ok {
			u.inputs = append(u.inputs, c)
		}
	}
	if from, _, ok := s.Missing(); ok {
		u.missFrom = from
	}
	if at, ok := s.WantWhole(); ok {
		u.whole, u.wholeAt = true, at
	}
	p.up.send(now, packet{up: u})
}

// checkHashes compares the hash of every hash frame p confirmed since the
// last call with the server's.
func checkHashes(t *testing.T, p *player, serverHash map[int32]uint64) {
	t.Helper()
	s := p.sync
	if !s.Started() {
		return
	}
	for n := p.checked + 1; n <= s.Confirmed(); n++ {
		want, ok := serverHash[n]
		if !ok {
			continue
		}
		got, held := s.ConfirmedHash(n)
		if !held {
			t.Fatalf("%s: confirmed frame %d's state is no longer held", p.name, n)
		}
		if got != want {
			t.Fatalf("%s: frame %d's confirmed state hashes %#x, the server's %#x", p.name, n, got, want)
		}
		p.firstHash = true
	}
	p.checked = s.Confirmed()
}
