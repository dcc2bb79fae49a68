package framesync

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/cmdargs"
	"tremor/net/msg"
)

// relay passes frames through the wire: encoded as one message each,
// coded from the frame before, and decoded.
type relay struct {
	w    *msg.Writer
	r    msg.Reader
	prev *Frame
	out  [1]Frame
	base [1]Frame
}

func newRelay() *relay { return &relay{w: msg.NewWriter(make([]byte, 1<<16), msg.Huffman)} }

// Frame serves the previous frame as the base (FrameSource).
func (rl *relay) Frame(n int32) (*Frame, bool) {
	return &rl.base[0], rl.base[0].Number == n
}

func (rl *relay) pass(tb testing.TB, f *Frame) *Frame {
	tb.Helper()
	rl.w.Reset(rl.w.Bytes()[:cap(rl.w.Bytes())], msg.Huffman)
	base := rl.prev
	if base != nil && f.Number-base.Number != 1 {
		base = nil
	}
	if err := AppendFrames(rl.w, base, []*Frame{f}); err != nil {
		tb.Fatalf("frame %d: %v", f.Number, err)
	}
	if err := rl.w.Err(); err != nil {
		tb.Fatalf("frame %d: %v", f.Number, err)
	}
	rl.r.Reset(rl.w.Bytes(), msg.Huffman)
	if _, err := ReadFrames(&rl.r, rl, rl.out[:]); err != nil {
		tb.Fatalf("frame %d: %v", f.Number, err)
	}
	rl.base[0].CopyFrom(&rl.out[0])
	rl.prev = &rl.base[0]
	return &rl.out[0]
}

// Every frame the Recorder closes, passed through the wire and applied
// to a Sim from the start of the match, leaves the Sim in the server's
// state: the same hash after every frame, through connections, commands,
// team changes, pings, settings, bot_minplayers adding and removing bots,
// the console's addbot, disconnections and map_restarts at the end of
// matches.
func TestReplayMatchesServer(t *testing.T) {
	cases := []struct {
		name   string
		frames int32
		cfg    func(*game.Config)
	}{
		{"ffa with restarts", 2400, func(c *game.Config) { c.FragLimit = 3 }},
		{"team deathmatch", 1200, func(c *game.Config) { c.GameType = bg.GTTeam; c.FriendlyFire = true }},
		{"bot_minplayers", 1200, func(c *game.Config) { c.BotMinPlayers = 5 }},
		{"unlagged off", 600, func(c *game.Config) { c.Unlagged = false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := matchConfig()
			tc.cfg(&cfg)
			srv := newTestServer(t, "arena2", cfg, RecorderConfig{HashEvery: 1})
			sim := NewSim(srv.rec.Game().Map(), game.DefaultConfig())
			rl := newRelay()
			humans := []int{}
			if cfg.BotMinPlayers == 0 {
				for i := 0; i < 3; i++ {
					_, _ = srv.rec.AddBot("Bot"+string(rune('A'+i)), 1+i)
				}
			}
			humans = append(humans, srv.eng.connect(t, `\name\Alice\ip\10.0.0.1\password\x`))
			humans = append(humans, srv.eng.connect(t, `\name\Bob\team\red`))
			restarts, events := 0, map[EventKind]int{}
			for n := int32(1); n <= tc.frames; n++ {
				for k, c := range humans {
					if c < 0 || (int(n)+k)%7 == 0 {
						continue // this input is missing: the last one repeats
					}
					cmd := script(c, n)
					cmd.ServerTime = srv.eng.time + frameMsec
					srv.rec.ClientThink(c, &cmd)
				}
				switch n {
				case 100:
					humans = append(humans, srv.eng.connect(t, `\name\Carol`))
				case 150:
					args := cmdargs.Tokenize(`say "hello there"`)
					srv.rec.ClientCommand(humans[0], &args)
				case 200:
					args := cmdargs.Tokenize("team blue")
					srv.rec.ClientCommand(humans[1], &args)
				case 250:
					srv.rec.ClientUserinfoChanged(humans[1], `\name\Bobby\team\red`)
				case 300:
					srv.eng.DropClient(humans[2], "left")
					humans[2] = -1
				case 350:
					c := srv.rec.Game().Config()
					c.Knockback = 500
					srv.rec.SetConfig(c)
				case 400:
					args := cmdargs.Tokenize("kill")
					srv.rec.ClientCommand(humans[0], &args)
				}
				for k, c := range humans {
					if c >= 0 {
						srv.rec.SetPing(c, 40+int(n/30)%5+k)
					}
				}
				f := srv.frame()
				if f.Number != n {
					t.Fatalf("frame %d closed as %d", n, f.Number)
				}
				for _, e := range f.Events {
					events[e.Kind]++
					if e.Kind == EventInit && e.Restart {
						restarts++
					}
					if strings.Contains(e.Text, "ip") || strings.Contains(e.Text, "password") {
						t.Fatalf("frame %d: event %v carries the engine's keys: %q", n, e.Kind, e.Text)
					}
				}
				got := rl.pass(t, f)
				sim.Apply(got)
				if h := sim.Hash(); !f.HasHash || h != f.Hash {
					var a, b = game.NewState(), game.NewState()
					srv.rec.Game().SaveState(a)
					sim.Save(b)
					what, _ := game.DiffState(b, a)
					t.Fatalf("frame %d: the replay's hash %#x, the server's %#x (has %v): %s", n, h, f.Hash, f.HasHash, what)
				}
			}
			t.Logf("%d frames, events %v, restarts %d, recorder %+v", tc.frames, events, restarts, srv.rec.Stats())
			for _, k := range []EventKind{EventConnect, EventBegin, EventPing} {
				if events[k] == 0 {
					t.Errorf("no %v event recorded", k)
				}
			}
			if tc.name == "ffa with restarts" && restarts == 0 {
				t.Error("no match ended in a map_restart: the restart path went untested")
			}
			if cfg.BotMinPlayers > 0 && events[EventAddBot] != 0 {
				t.Errorf("bot_minplayers' bots were recorded as %d addbot events: they come from RunFrame", events[EventAddBot])
			}
		})
	}
}

// Calls the engine makes from outside the game are recorded; those the
// game makes it make (a bot removed by bot_minplayers is dropped through
// the engine, which calls ClientDisconnect back) are not, and the slots
// BotAllocateClient gives go into the frame.
func TestRecorderEvents(t *testing.T) {
	cfg := matchConfig()
	srv := newTestServer(t, "arena2", cfg, RecorderConfig{})
	f := srv.frame()
	if len(f.Events) != 2 || f.Events[0].Kind != EventConfig || !f.Events[0].Config.ExternalBotInput ||
		f.Events[1].Kind != EventInit || f.Events[1].Seed != srv.eng.seed {
		t.Fatalf("frame 1's events are %+v, want the config (external bot input) and the Init", f.Events)
	}
	n, err := srv.rec.AddBot("Ranger\x00junk", 9)
	if err != nil {
		t.Fatal(err)
	}
	f = srv.frame()
	want := Event{Kind: EventAddBot, Text: "Ranger", Value: 5}
	if len(f.Events) != 1 || f.Events[0] != want || len(f.BotSlots) != 1 || f.BotSlots[0] != int32(n) {
		t.Fatalf("after addbot: events %+v, bot slots %v; want [%+v] and [%d]", f.Events, f.BotSlots, want, n)
	}
	if f.Present != 1<<n {
		t.Errorf("present %#x, want the bot's bit %#x", f.Present, uint64(1)<<n)
	}

	// bot_minplayers 1 with a bot and a human in: the game drops its bot
	// through the engine; nothing but the config is recorded.
	h := srv.eng.connect(t, `\name\Hugo\ip\1.2.3.4`)
	f = srv.frame()
	if len(f.Events) != 2 || f.Events[0].Kind != EventConnect || f.Events[0].Text != `\name\Hugo` || f.Events[1].Kind != EventBegin {
		t.Fatalf("after a connection: %+v", f.Events)
	}
	c := srv.rec.Game().Config()
	c.BotMinPlayers = 1
	srv.rec.SetConfig(c)
	drops := srv.eng.drops
	for i := 0; i < 40 && srv.rec.Game().Connected(n); i++ {
		f = srv.frame()
		for _, e := range f.Events {
			if e.Kind == EventDisconnect {
				t.Fatalf("frame %d recorded a disconnection the game made: %+v", f.Number, e)
			}
		}
	}
	if srv.rec.Game().Connected(n) || srv.eng.drops != drops+1 {
		t.Fatalf("bot_minplayers did not remove the bot (connected %v, drops %d)", srv.rec.Game().Connected(n), srv.eng.drops-drops)
	}

	// A drop from outside the game is recorded.
	srv.eng.DropClient(h, "timed out")
	f = srv.frame()
	if len(f.Events) != 1 || f.Events[0] != (Event{Kind: EventDisconnect, Client: int32(h)}) {
		t.Fatalf("after a drop: %+v", f.Events)
	}
}

// Pings reach the game at frames that are multiples of PingEvery, and
// only when changed.
func TestRecorderPings(t *testing.T) {
	srv := newTestServer(t, "arena2", matchConfig(), RecorderConfig{PingEvery: 4})
	c := srv.eng.connect(t, `\name\P`)
	pings := map[int32][]Event{}
	for n := int32(1); n <= 16; n++ {
		ms := 50
		if n > 6 {
			ms = 2000 // clamped to MaxPing
		}
		srv.rec.SetPing(c, ms)
		f := srv.frame()
		for _, e := range f.Events {
			if e.Kind == EventPing {
				pings[f.Number] = append(pings[f.Number], e)
			}
		}
	}
	want := map[int32][]Event{
		4: {{Kind: EventPing, Client: int32(c), Value: 50}},
		8: {{Kind: EventPing, Client: int32(c), Value: MaxPing}},
	}
	if len(pings) != len(want) {
		t.Fatalf("ping events %v, want %v", pings, want)
	}
	for n, w := range want {
		if len(pings[n]) != 1 || pings[n][0] != w[0] {
			t.Errorf("frame %d: ping events %v, want %v", n, pings[n], w)
		}
	}
}

// Each input lands in the frame of its time; late, early and off-grid
// ones are dropped and counted; a missing input repeats the last one, and
// a client that never sent one plays the zero command.
func TestRecorderInputs(t *testing.T) {
	srv := newTestServer(t, "arena2", matchConfig(), RecorderConfig{})
	a := srv.eng.connect(t, `\name\A`)
	b := srv.eng.connect(t, `\name\B`)
	srv.frame() // frame 1 at 50
	send := func(client int, at int32, move int32) {
		cmd := bg.UserCmd{ServerTime: at, RightMove: move}
		srv.rec.ClientThink(client, &cmd)
	}
	// Frame 2 is at 100.
	send(a, 100, 10)
	send(a, 100, 99)               // a second input for the same frame: ignored
	send(a, 150, 20)               // early by one frame: kept for frame 3
	send(a, 50, 5)                 // late: frame 1 is closed
	send(a, 125, 5)                // off the frames' grid
	send(a, 100+inputWindow*50, 5) // too early
	f := srv.frame()
	if got := f.Inputs[a]; got != (bg.UserCmd{ServerTime: 100, RightMove: 10}) {
		t.Errorf("frame 2: a's input %+v", got)
	}
	if got := f.Inputs[b]; got != (bg.UserCmd{ServerTime: 100}) {
		t.Errorf("frame 2: b never sent an input: %+v, want the zero command", got)
	}
	if f.Present != 1<<a|1<<b {
		t.Errorf("frame 2: present %#x", f.Present)
	}
	if lead := srv.rec.InputLead(a); lead != 1 {
		t.Errorf("a's input lead %d, want 1", lead)
	}
	f = srv.frame() // frame 3: a's early input
	if got := f.Inputs[a]; got != (bg.UserCmd{ServerTime: 150, RightMove: 20}) {
		t.Errorf("frame 3: a's input %+v", got)
	}
	f = srv.frame() // frame 4: a sent nothing: frame 3's repeats
	if got := f.Inputs[a]; got != (bg.UserCmd{ServerTime: 200, RightMove: 20}) {
		t.Errorf("frame 4: a's input %+v, want frame 3's again", got)
	}
	if lead := srv.rec.InputLead(a); lead != -1 {
		t.Errorf("a's input lead %d, want -1", lead)
	}
	st := srv.rec.Stats()
	if st.Late != 1 || st.Early != 1 || st.OffGrid != 1 || st.Inputs != 2 {
		t.Errorf("stats %+v: want 1 late, 1 early, 1 off grid, 2 placed", st)
	}
}
