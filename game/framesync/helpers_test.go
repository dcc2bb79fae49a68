package framesync

import (
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
	"tremor/maps/arenas"
	"tremor/net/cmdargs"
	"tremor/net/msg"
)

// frameMsec is the tests' server frame: sv_fps 20.
const frameMsec = 50

// loadArena loads an embedded map.
func loadArena(tb testing.TB, name string) *tilemap.Map {
	tb.Helper()
	m, err := arenas.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// testEngine is a server engine for the Recorder's game, as server's
// engine behaves: client slots, bots allocated the lowest free slot,
// DropClient calling the game's ClientDisconnect at once (through the
// Recorder, as the server holds it), console commands (map_restart) run
// after the frame.
type testEngine struct {
	rec     *Recorder
	time    int32
	seed    uint64
	max     int
	used    [bg.MaxClients]bool
	bot     [bg.MaxClients]bool
	info    [bg.MaxClients]string
	pending []string
	drops   int
}

func (e *testEngine) LocateGameData([]game.SharedEntity, int, []bg.PlayerState) {}
func (e *testEngine) SetConfigstring(int, string)                               {}
func (e *testEngine) Configstring(int) string                                   { return "" }
func (e *testEngine) SendServerCommand(int, string)                             {}
func (e *testEngine) Print(string)                                              {}
func (e *testEngine) Command(text string)                                       { e.pending = append(e.pending, text) }

func (e *testEngine) DropClient(n int, _ string) {
	if uint(n) < bg.MaxClients && e.used[n] {
		e.used[n], e.bot[n] = false, false
		e.drops++
		e.rec.ClientDisconnect(n)
	}
}

func (e *testEngine) BotAllocateClient(userinfo string) int {
	for i := 0; i < e.max; i++ {
		if !e.used[i] {
			e.used[i], e.bot[i], e.info[i] = true, true, userinfo
			return i
		}
	}
	return -1
}

// connect admits a human with userinfo and begins it.
func (e *testEngine) connect(tb testing.TB, userinfo string) int {
	tb.Helper()
	for i := 0; i < e.max; i++ {
		if !e.used[i] {
			e.used[i], e.info[i] = true, userinfo
			if denied := e.rec.ClientConnect(i, userinfo, false); denied != "" {
				tb.Fatalf("connect %q: %s", userinfo, denied)
			}
			e.rec.ClientBegin(i)
			return i
		}
	}
	tb.Fatal("no free slot")
	return -1
}

// runCommands carries out the commands the game asked for (map_restart),
// as the server does between frames.
func (e *testEngine) runCommands() {
	for _, c := range e.pending {
		if args := cmdargs.Tokenize(c); args.Argv(0) == "map_restart" {
			e.rec.Shutdown()
			e.seed++
			e.rec.Init(e.time, e.seed, true)
			for i := 0; i < e.max; i++ {
				if !e.used[i] {
					continue
				}
				if e.rec.ClientConnect(i, e.info[i], e.bot[i]) != "" {
					e.DropClient(i, "denied")
					continue
				}
				e.rec.ClientBegin(i)
			}
		}
	}
	e.pending = e.pending[:0]
}

// testServer is a Recorder on a map with its engine.
type testServer struct {
	eng *testEngine
	rec *Recorder
}

// newTestServer starts a match on map name at time 0.
func newTestServer(tb testing.TB, name string, cfg game.Config, rc RecorderConfig) *testServer {
	tb.Helper()
	eng := &testEngine{max: 16, seed: 7}
	rc.FrameMsec = frameMsec
	rec := NewRecorder(eng, loadArena(tb, name), cfg, rc)
	eng.rec = rec
	rec.Init(0, eng.seed, false)
	return &testServer{eng: eng, rec: rec}
}

// frame closes the next frame and runs what the game asked for.
func (s *testServer) frame() *Frame {
	s.eng.time += frameMsec
	s.rec.RunFrame(s.eng.time)
	s.eng.runCommands()
	f, _ := s.rec.Frame(s.rec.Newest())
	return f
}

// matchConfig is the default config with no time limit.
func matchConfig() game.Config {
	cfg := game.DefaultConfig()
	cfg.TimeLimit = 0
	return cfg
}

// script is a scripted human's input of a frame: it runs one way then the
// other, jumps now and then, turns and fires in bursts, each client on
// its own rhythm, so that its input changes every few frames.
func script(client int, frame int32) bg.UserCmd {
	k := int32(client*7 + 3)
	var c bg.UserCmd
	if (frame/(20+k))%2 == 0 {
		c.RightMove = 127
	} else {
		c.RightMove = -127
	}
	if (frame+k)%17 < 3 {
		c.UpMove = 127
	}
	c.Aim = (frame*int32(97+client*31) + k*1000) & 0xffff
	if (frame/(9+k%5))%3 == 0 {
		c.Buttons = bg.ButtonAttack
	}
	c.Weapon = 1 + (frame/(150+k))%4
	return c
}

// wholeMessage encodes the Recorder's whole state of frame want.
func wholeMessage(tb testing.TB, rec *Recorder, want int32) ([]byte, int32) {
	tb.Helper()
	w := msg.NewWriter(make([]byte, 1<<16), msg.Huffman)
	n, ok := rec.AppendWholeState(w, want)
	if !ok {
		tb.Fatal("no saved state to send")
	}
	if err := w.Err(); err != nil {
		tb.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...), n
}
