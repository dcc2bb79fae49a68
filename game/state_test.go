package game_test

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/game/gametest"
	"tremor/maps/arenas"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// lockstep is a game driven the way frame sync drives it: every frame's
// inputs (the bots' commands from ThinkBots, the humans' scripted
// commands) are stamped with the frame's time and go through
// ClientThink in client order before RunFrame runs to that time. The
// inputs are values (frameInput), so that a test can run the same frames
// again after a LoadState, or feed them to a second game.
type lockstep struct {
	tb      testing.TB
	e       *gametest.Engine
	g       *game.Arena
	time    int32
	humans  []int
	players int // clients connected at the start: slots 0..players-1
}

// frameInput is one frame's inputs.
type frameInput struct {
	present uint64 // bit n: cmds[n] runs
	cmds    [bg.MaxClients]bg.UserCmd
	fire    int // a client that fires a rocket (FireForTest) first, if alive; -1 for none
	aim     int32
}

// lockstepConfig is DefaultConfig without limits, with the bots'
// commands given from outside.
func lockstepConfig() game.Config {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	cfg.ExternalBotInput = true
	return cfg
}

// newLockstep starts a game on the embedded arena mapName with bots
// bots of skill 3 and humans scripted humans.
func newLockstep(tb testing.TB, mapName string, seed uint64, cfg game.Config, bots, humans int) *lockstep {
	tb.Helper()
	m, err := arenas.Load(mapName)
	if err != nil {
		tb.Fatal(err)
	}
	e := gametest.NewEngine()
	e.Seed = seed
	l := &lockstep{tb: tb, e: e, g: game.New(e, m, cfg), players: bots + humans}
	e.Game = l.g
	l.g.Init(0, seed, false)
	for i := 0; i < bots; i++ {
		if _, err := l.g.AddBot("bot"+itoa(i), 3); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < humans; i++ {
		info, _ := infostr.SetValueForKey("", "name", "human"+itoa(i))
		n, reason := e.Connect(info)
		if n < 0 {
			tb.Fatal(reason)
		}
		l.humans = append(l.humans, n)
	}
	return l
}

// think makes the inputs of the next frame, the k-th: the bots'
// commands, each human running, turning and firing its machinegun now and
// then, and every seventh frame a rocket from one of the players, in
// turn.
func (l *lockstep) think(k int) *frameInput {
	in := &frameInput{fire: -1}
	t := l.time + gametest.FrameMsec
	in.present = l.g.ThinkBots(t, &in.cmds)
	for j, n := range l.humans {
		c := &in.cmds[n]
		*c = bg.UserCmd{ServerTime: t, Weapon: bg.WPMachinegun, Aim: int32(k*1500+j*20000) & 0xffff}
		c.RightMove = 127
		if (k/40+j)%2 == 0 {
			c.RightMove = -127
		}
		if (k+j)%20 == 0 {
			c.UpMove = 127
		}
		if (k/5+j)%3 == 0 {
			c.Buttons = bg.ButtonAttack
		}
		in.present |= 1 << n
	}
	if k%7 == 0 && l.players > 0 {
		in.fire = (k / 7) % l.players
		in.aim = int32(k*6007) & 0xffff
	}
	return in
}

// apply runs one frame with in.
func (l *lockstep) apply(in *frameInput) {
	t := l.time + gametest.FrameMsec
	if n := in.fire; n >= 0 && l.g.InGame(n) && l.g.PlayerState(n).PmType == bg.PMNormal {
		l.g.FireForTest(n, bg.WPRocketLauncher, in.aim)
	}
	for n := 0; n < bg.MaxClients; n++ {
		if in.present&(1<<n) != 0 {
			cmd := in.cmds[n]
			l.g.ClientThink(n, &cmd)
		}
	}
	l.g.RunFrame(t)
	l.time = t
}

// run runs frames of the game's own inputs, the k-th to the k+n-1-th.
func (l *lockstep) run(k, n int) {
	for i := k; i < k+n; i++ {
		l.apply(l.think(i))
	}
}

// load puts the game back in s.
func (l *lockstep) load(s *game.State) {
	l.g.LoadState(s)
	l.time = s.LevelTime()
}

// save returns a new State holding the game's state.
func (l *lockstep) save() *game.State {
	s := game.NewState()
	l.g.SaveState(s)
	return s
}

// missilesFlying counts the missiles in the game.
func missilesFlying(g *game.Arena) int {
	n := 0
	for i := 0; i < g.NumEntities(); i++ {
		if g.EntityInUse(i) && g.Entity(i).S.EType == bg.ETMissile {
			n++
		}
	}
	return n
}

// TestRollbackIsExact: save, run frames, load, run the same frames: the
// hash after every frame is the one of the first run, with eight bots
// and two humans fighting and missiles flying; and it still is after a
// misprediction (other inputs run from the saved state and dropped).
// With lag compensation on too, as frame sync stamps every command with
// its frame's time.
func TestRollbackIsExact(t *testing.T) {
	for _, unlagged := range []bool{false, true} {
		t.Run(fmt.Sprintf("unlagged=%v", unlagged), func(t *testing.T) {
			cfg := lockstepConfig()
			cfg.Unlagged = unlagged
			l := newLockstep(t, "arena2", 5, cfg, 8, 2)
			l.run(0, 100)
			saved := l.save()

			const frames = 120
			inputs := make([]*frameInput, frames)
			hashes := make([]uint64, frames)
			mostMissiles, mostBots := 0, 0
			for k := range inputs {
				inputs[k] = l.think(100 + k)
				l.apply(inputs[k])
				hashes[k] = l.g.StateHash()
				mostMissiles = max(mostMissiles, missilesFlying(l.g))
				mostBots = max(mostBots, bits.OnesCount64(inputs[k].present)-len(l.humans))
			}
			end := l.save()
			if mostMissiles == 0 || mostBots != 8 {
				t.Fatalf("at most %d missiles flying and %d bots thinking: the test tests little", mostMissiles, mostBots)
			}

			// A misprediction: nobody's commands arrive.
			l.load(saved)
			parted := false
			for k := 0; k < 40; k++ {
				l.apply(&frameInput{fire: -1})
				parted = parted || l.g.StateHash() != hashes[k]
			}
			if !parted {
				t.Fatal("other inputs gave the same hashes: the test cannot tell a rollback from none")
			}

			l.load(saved)
			for k, in := range inputs {
				l.apply(in)
				if h := l.g.StateHash(); h != hashes[k] {
					now := l.save()
					what, _ := game.DiffState(now, end)
					t.Fatalf("frame %d after the load (time %d): hash %#x, first run had %#x (at the end: %s)",
						k, l.time, h, hashes[k], what)
				}
			}
			if what, differs := game.DiffState(l.save(), end); differs {
				t.Errorf("same hashes but the states differ: %s", what)
			}
		})
	}
}

// TestLoadStateClearsSlotsAbove: a state of fewer entity slots than the
// game now uses leaves the slots above as the game would have them
// (unused), and the engine sees the smaller count.
func TestLoadStateClearsSlotsAbove(t *testing.T) {
	l := newLockstep(t, "arena2", 2, lockstepConfig(), 2, 0)
	fresh := l.save()
	n := l.g.NumEntities()
	for k := 0; missilesFlying(l.g) < 20 && k < 200; k++ {
		l.apply(&frameInput{fire: k % 2, aim: int32(k * 3001)})
	}
	if l.g.NumEntities() <= n {
		t.Fatalf("firing rockets left numEntities at %d", n)
	}
	top := l.g.NumEntities()
	l.load(fresh)
	if l.g.NumEntities() != n || len(l.e.Entities()) != n {
		t.Fatalf("numEntities %d, engine sees %d; want %d", l.g.NumEntities(), len(l.e.Entities()), n)
	}
	for i := n; i < top; i++ {
		if l.g.EntityInUse(i) || *l.g.Entity(i) != (game.SharedEntity{}) {
			t.Fatalf("entity %d above numEntities still holds %+v", i, *l.g.Entity(i))
		}
	}
	if what, differs := game.DiffState(l.save(), fresh); differs {
		t.Errorf("loaded state differs from the saved one: %s", what)
	}
}

// TestLoadStateEmptiesUnlagHistory: the lag-compensation history is not
// part of a State; a load empties it, so a shot stamped in the past is
// traced against the present (see State).
func TestLoadStateEmptiesUnlagHistory(t *testing.T) {
	cfg := testConfig()
	cfg.Unlagged, cfg.MaxUnlag = true, 500
	for _, load := range []bool{false, true} {
		s := newUnlagScene(t, cfg)
		if load {
			st := game.NewState()
			s.h.Game.SaveState(st)
			s.h.Game.LoadState(st)
		}
		hit, marks := s.fire(s.t0+100, s.air) // where the target stood 400 ms ago
		if want := !load; hit != want || (len(marks) == 1) != want {
			t.Errorf("load=%v: hit %v with %d EvUnlagged; want hit %v", load, hit, len(marks), want)
		}
	}
}

// TestSaveLoadStateAllocatesNothing: once a State has held a state,
// saving and loading allocate nothing.
func TestSaveLoadStateAllocatesNothing(t *testing.T) {
	l := newLockstep(t, "arena2", 1, lockstepConfig(), 8, 0)
	l.run(0, 200)
	s := l.save()
	if a := testing.AllocsPerRun(50, func() { l.g.SaveState(s); l.g.LoadState(s) }); a != 0 {
		t.Errorf("%.1f allocations per SaveState and LoadState", a)
	}
	other := l.save()
	if a := testing.AllocsPerRun(50, func() { game.DiffState(s, other) }); a != 0 {
		t.Errorf("%.1f allocations per DiffState of equal states", a)
	}
}

// BenchmarkSaveLoadState is one SaveState and one LoadState of a match of
// eight bots on arena2 after ten seconds, with rockets flying.
func BenchmarkSaveLoadState(b *testing.B) {
	l := newLockstep(b, "arena2", 1, lockstepConfig(), 8, 0)
	l.run(0, 200)
	s := l.save()
	b.ReportAllocs()
	for b.Loop() {
		l.g.SaveState(s)
		l.g.LoadState(s)
	}
	b.ReportMetric(float64(s.BytesCopiedForTest()), "bytes/copy")
	b.ReportMetric(float64(l.g.NumEntities()), "entities")
}

// encodeState returns g's whole-state encoding in mode.
func encodeState(tb testing.TB, g *game.Arena, mode msg.Mode) []byte {
	tb.Helper()
	w := msg.NewWriter(make([]byte, 256<<10), mode)
	g.AppendState(w)
	if err := w.Err(); err != nil {
		tb.Fatal(err)
	}
	return w.Bytes()
}

// TestStateWireRoundTrip: a whole state read into a fresh game on the
// same map gives the same hash and DiffState finds nothing; both games
// then run 200 frames of the same inputs and stay equal.
func TestStateWireRoundTrip(t *testing.T) {
	{
		mode := msg.Huffman
		t.Run(mode.String(), func(t *testing.T) {
			a := newLockstep(t, "arena2", 3, lockstepConfig(), 8, 0)
			a.run(0, 200)
			for n := 0; n < bg.MaxClients; n++ {
				if f := bg.PlayerStateTable.Fits(a.g.PlayerState(n)); f != "" {
					t.Fatalf("client %d's %s is wider than its wire field", n, f)
				}
			}
			for i := 0; i < a.g.NumEntities(); i++ {
				if f := bg.EntityStateTable.Fits(&a.g.Entity(i).S); f != "" {
					t.Fatalf("entity %d's %s is wider than its wire field", i, f)
				}
			}
			data := encodeState(t, a.g, mode)
			t.Logf("%s: 8 bots, %d entity slots, %d missiles: %d bytes", mode, a.g.NumEntities(), missilesFlying(a.g), len(data))
			if len(data) > 8<<10 {
				t.Errorf("the whole state takes %d bytes, more than 8 KB", len(data))
			}

			b := newLockstep(t, "arena2", 99, lockstepConfig(), 0, 0)
			if err := b.g.ReadState(msg.NewReader(data, mode)); err != nil {
				t.Fatal(err)
			}
			b.time = a.time
			if ha, hb := a.g.StateHash(), b.g.StateHash(); ha != hb {
				t.Fatalf("hash %#x after reading, sender has %#x", hb, ha)
			}
			if what, differs := game.DiffState(a.save(), b.save()); differs {
				t.Fatalf("read state differs from the sender's: %s", what)
			}
			if len(b.e.Entities()) != a.g.NumEntities() {
				t.Errorf("engine sees %d entities, want %d", len(b.e.Entities()), a.g.NumEntities())
			}
			// A game never started (a client that joins) takes it too.
			m, _ := arenas.Load("arena2")
			e := gametest.NewEngine()
			cold := game.New(e, m, game.DefaultConfig())
			e.Game = cold
			if err := cold.ReadState(msg.NewReader(data, mode)); err != nil {
				t.Fatal(err)
			}
			if cold.StateHash() != a.g.StateHash() || len(e.Entities()) != a.g.NumEntities() {
				t.Error("a game never started reads another state")
			}
			for k := 200; k < 400; k++ {
				in := a.think(k)
				a.apply(in)
				b.apply(in)
				if ha, hb := a.g.StateHash(), b.g.StateHash(); ha != hb {
					what, _ := game.DiffState(a.save(), b.save())
					t.Fatalf("frame %d (time %d): the games part: %s", k, a.time, what)
				}
			}
		})
	}
}

// TestConfigWireRoundTrip: every setting survives AppendConfig and
// ReadConfig; a message cut short is an error and leaves the Config as
// it was.
func TestConfigWireRoundTrip(t *testing.T) {
	cfg := game.Config{GameType: bg.GTTeam, FragLimit: 30, TimeLimit: -1, Knockback: 1 << 30,
		FriendlyFire: true, ForceRespawn: 3, SpawnProtect: 1000, BotMinPlayers: 4, BotSkill: 5,
		Unlagged: true, MaxUnlag: 500, ExternalBotInput: true}
	{
		mode := msg.Huffman
		w := msg.NewWriter(make([]byte, 256), mode)
		game.AppendConfig(w, &cfg)
		var got game.Config
		if err := game.ReadConfig(msg.NewReader(w.Bytes(), mode), &got); err != nil || got != cfg {
			t.Errorf("%s: read %+v, %v; want %+v", mode, got, err, cfg)
		}
		short := game.DefaultConfig()
		if err := game.ReadConfig(msg.NewReader(w.Bytes()[:3], mode), &short); err == nil || short != game.DefaultConfig() {
			t.Errorf("%s: a cut message gave %+v, %v; want an error and no change", mode, short, err)
		}
	}
}

// TestReadStateRefuses: hostile or mismatched states are refused with an
// error that says what is wrong, and the game is left as it was.
func TestReadStateRefuses(t *testing.T) {
	src := newLockstep(t, "arena2", 3, lockstepConfig(), 4, 0)
	src.run(0, 60)
	good := encodeState(t, src.g, msg.Huffman)

	// encodeEdited encodes src's state after edit.
	encodeEdited := func(edit func(s *game.State)) []byte {
		s := src.save()
		edit(s)
		w := msg.NewWriter(make([]byte, 256<<10), msg.Huffman)
		s.Append(w)
		return w.Bytes()
	}
	freeSlot := 10                                            // src has four bots: slots 0..3
	notItem := bg.MaxClients + len(src.save().ItemsForTest()) // the first entity spawned after the items
	if notItem >= src.g.NumEntities() {
		t.Fatalf("no entity after the items (numEntities %d)", src.g.NumEntities())
	}
	other := newLockstep(t, "duel1", 3, lockstepConfig(), 1, 0)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "read past the end"},
		{"cut short", good[:len(good)/2], "read past the end"},
		{"version", func() []byte {
			w := msg.NewWriter(make([]byte, 64), msg.Huffman)
			w.WriteBits(game.StateVersion+1, 8)
			w.WriteBits(0, 32)
			return w.Bytes()
		}(), "version 2, want 1"},
		{"other map", encodeState(t, other.g, msg.Huffman), "of the map with checksum"},
		{"too few entity slots", encodeEdited(func(s *game.State) { *s.NumEntitiesForTest() = 10 }), "10 entity slots in use"},
		{"item not an entity of its own", encodeEdited(func(s *game.State) { s.ItemsForTest()[0] = 3 }), "item 0: entity 3 outside"},
		{"item not an item", encodeEdited(func(s *game.State) { s.ItemsForTest()[0] = notItem }), fmt.Sprintf("item 0: entity %d is not an item", notItem)},
		{"name", encodeEdited(func(s *game.State) { *s.NameForTest(1) = `say "hi"` }), `client 1: name "say \"hi\"" is not one the game gives`},
		{"client without its entity", encodeEdited(func(s *game.State) {
			*s.ConnectedForTest(freeSlot) = 1
			s.PlayerStateForTest(freeSlot).ClientNum = int32(freeSlot)
			*s.NameForTest(freeSlot) = "ghost"
		}), "client 10: connection state 1 with entity 10 in use false"},
		{"player state of another", encodeEdited(func(s *game.State) { s.PlayerStateForTest(2).ClientNum = 5 }), "client 2: player state of client 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := newLockstep(t, "arena2", 8, lockstepConfig(), 2, 0)
			dst.run(0, 20)
			before := dst.save()
			hash := dst.g.StateHash()
			err := dst.g.ReadState(msg.NewReader(tt.data, msg.Huffman))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "game: ") {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if dst.g.StateHash() != hash {
				t.Error("a refused state changed the game's hash")
			}
			if what, differs := game.DiffState(before, dst.save()); differs {
				t.Errorf("a refused state changed the game: %s", what)
			}
		})
	}
}

// TestDiffState: DiffState names the first difference, in the hash's
// order, with both values.
func TestDiffState(t *testing.T) {
	l := newLockstep(t, "arena2", 6, lockstepConfig(), 4, 0)
	l.run(0, 60)
	missile := -1
	for k := 60; missile < 0 && k < 200; k++ {
		l.apply(l.think(k))
		for i := 0; i < l.g.NumEntities(); i++ {
			if l.g.EntityInUse(i) && l.g.Entity(i).S.EType == bg.ETMissile {
				missile = i
				break
			}
		}
	}
	freeEnt := -1
	for i := bg.MaxClients; i < l.g.NumEntities(); i++ {
		if !l.g.EntityInUse(i) {
			freeEnt = i
			break
		}
	}
	if missile < 0 || freeEnt < 0 {
		t.Fatalf("missile %d, free slot %d: the scene lacks one", missile, freeEnt)
	}
	base := l.save()
	ps2 := *l.g.PlayerState(2)
	sh := *l.g.Entity(missile)
	tests := []struct {
		name string
		edit func(s *game.State)
		want string // "" for no difference; a prefix ending in "…" matches a prefix
	}{
		{"equal", func(*game.State) {}, ""},
		{"level time", func(s *game.State) { *s.LevelTimeForTest() += 50 }, fmt.Sprintf("level time is %d, other has %d", l.time, l.time+50)},
		{"random generator", func(s *game.State) { s.ReseedForTest(1) }, "random generator: next draw 0x…"},
		{"client timer", func(s *game.State) { *s.RespawnTimeForTest(1) = 123 }, fmt.Sprintf("client 1: respawnTime is %d, other has 123", *base.RespawnTimeForTest(1))},
		{"player state", func(s *game.State) { s.PlayerStateForTest(2).Origin.Y += 16 },
			fmt.Sprintf("client 2: PlayerState Origin.Y is %d, other has %d", ps2.Origin.Y, ps2.Origin.Y+16)},
		{"connected", func(s *game.State) { *s.ConnectedForTest(12) = 1 }, "client 12: connection state is free, other has connected"},
		{"entity state", func(s *game.State) { s.SharedForTest(missile).S.Pos.Base.X++ },
			fmt.Sprintf("entity %d (missile): Pos.Base.X is %d, other has %d", missile, sh.S.Pos.Base.X, sh.S.Pos.Base.X+1)},
		{"entity's own", func(s *game.State) { *s.NextThinkForTest(missile) = 1 },
			fmt.Sprintf("entity %d (missile): nextThink is %d, other has 1", missile, *base.NextThinkForTest(missile))},
		{"in use", func(s *game.State) { *s.InUseForTest(missile) = false }, fmt.Sprintf("entity %d (missile): in use is true, other has false", missile)},
		{"client before entity", func(s *game.State) {
			s.SharedForTest(missile).S.Pos.Base.X++
			s.PlayerStateForTest(2).Origin.Y += 16
		}, "client 2: PlayerState Origin.Y…"},
		{"level time first", func(s *game.State) {
			*s.LevelTimeForTest() += 50
			s.PlayerStateForTest(2).Origin.Y += 16
		}, "level time…"},
		{"hashed before the rest", func(s *game.State) {
			*s.SplashForTest(missile) = 1
			s.SharedForTest(missile).S.Pos.Base.X++
		}, fmt.Sprintf("entity %d (missile): Pos.Base.X…", missile)},
		{"team score", func(s *game.State) { *s.TeamScoreForTest(bg.TeamRed) = 5 }, "red team score is 0, other has 5"},
		{"config", func(s *game.State) { s.ConfigForTest().FragLimit = 20 }, "config: FragLimit is 0, other has 20"},
		{"name", func(s *game.State) { *s.NameForTest(0) = "Zed" }, `client 0: name is "bot0", other has "Zed"`},
		{"ping", func(s *game.State) { *s.PingForTest(40) = 80 }, "client 40: ping is 0, other has 80"},
		{"splash", func(s *game.State) { *s.SplashForTest(missile) = 1 }, fmt.Sprintf("entity %d (missile): splash is 100, other has 1", missile)},
		{"free slot", func(s *game.State) { *s.FreeTimeForTest(freeEnt) = -7 }, fmt.Sprintf("entity %d (free): freeTime is %d, other has -7", freeEnt, *base.FreeTimeForTest(freeEnt))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := l.save()
			tt.edit(b)
			what, differs := game.DiffState(base, b)
			if tt.want == "" {
				if differs || what != "" {
					t.Errorf("DiffState = %q, %v; want no difference", what, differs)
				}
				return
			}
			ok := what == tt.want
			if p, cut := strings.CutSuffix(tt.want, "…"); cut {
				ok = strings.HasPrefix(what, p)
			}
			if !differs || !ok {
				t.Errorf("DiffState = %q, %v; want %q", what, differs, tt.want)
			}
		})
	}
}

// TestExternalBotInputPlaysAMatch: with Config.ExternalBotInput, bots
// whose commands come from ThinkBots through ClientThink (stamped with
// the time of the frame about to run, before RunFrame) play a whole
// match: they move, fire and frag until the timelimit. RunFrame alone
// does not move them.
func TestExternalBotInputPlaysAMatch(t *testing.T) {
	cfg := game.DefaultConfig()
	cfg.ExternalBotInput = true
	cfg.FragLimit, cfg.TimeLimit = 0, 1
	h := gametest.New(t, "duel1", 1, cfg)
	bots := []int{h.AddBot("Anvil", 4), h.AddBot("Brick", 4), h.AddBot("Cinder", 3), h.AddBot("Dagger", 3)}

	// Without ThinkBots, nothing moves them.
	ct := h.PS(bots[0]).CommandTime
	h.RunFor(1000)
	if h.PS(bots[0]).CommandTime != ct {
		t.Fatalf("bot's command time went from %d to %d with nobody feeding it", ct, h.PS(bots[0]).CommandTime)
	}

	var cmds [bg.MaxClients]bg.UserCmd
	start := h.PS(bots[0]).Origin
	moved := false
	for !h.Game.Intermission() && h.Time() < 70000 {
		next := h.Time() + gametest.FrameMsec
		present := h.Game.ThinkBots(next, &cmds)
		if present != 0b1111 {
			t.Fatalf("time %d: present %b, want the four bots", next, present)
		}
		for _, n := range bots {
			if cmds[n].ServerTime != next {
				t.Fatalf("bot %d's command stamped %d, want %d", n, cmds[n].ServerTime, next)
			}
			spawns := h.PS(n).Persistant[bg.PersSpawnCount]
			h.Game.ClientThink(n, &cmds[n])
			// A respawn at the end of the command starts the new life's
			// command time at the level time.
			respawned := h.PS(n).Persistant[bg.PersSpawnCount] != spawns
			if ct := h.PS(n).CommandTime; ct != next && !respawned {
				t.Fatalf("bot %d's command of time %d ran to %d before RunFrame: ClientThink refused it", n, next, ct)
			}
		}
		h.Frame()
		moved = moved || h.PS(bots[0]).Origin != start
	}
	frags := 0
	for _, n := range bots {
		frags += h.Stats.Frags[n]
	}
	if !h.Game.Intermission() || !moved || h.Stats.TotalShots() == 0 || frags == 0 {
		t.Errorf("intermission %v, moved %v, %d shots, %d frags: want a finished match with all of them",
			h.Game.Intermission(), moved, h.Stats.TotalShots(), frags)
	}
	if p := h.Game.ThinkBots(h.Time()+gametest.FrameMsec, &cmds); p != 0 {
		t.Errorf("ThinkBots during the intermission: present %b, want none", p)
	}
}

// TestNonDeterminismIsCaughtAtItsFrame: two games fed the same inputs
// agree frame after frame until a deliberate non-determinism
// (InjectNonDeterminism) strikes; the hash parts exactly at that frame,
// and DiffState names the entity (or client) and field it changed.
func TestNonDeterminismIsCaughtAtItsFrame(t *testing.T) {
	const at = 3000
	tests := []struct {
		name          string
		bots, humans  int
		rockets       bool
		wantPrefix    string
		wantFieldPart string
	}{
		{"missile", 8, 0, true, "entity ", "(missile): Pos.Delta.X is "},
		{"player", 0, 2, false, "client ", ": PlayerState Velocity.X is "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newLockstep(t, "arena2", 4, lockstepConfig(), tt.bots, tt.humans)
			b := newLockstep(t, "arena2", 4, lockstepConfig(), tt.bots, tt.humans)
			a.g.InjectNonDeterminism(at)
			b.g.InjectNonDeterminism(at)
			for k := 0; ; k++ {
				in := a.think(k)
				if !tt.rockets {
					in.fire = -1
				}
				a.apply(in)
				b.apply(in)
				same := a.g.StateHash() == b.g.StateHash()
				if a.time < at {
					if !same {
						t.Fatalf("time %d: the games part before the injection", a.time)
					}
					continue
				}
				if same {
					t.Fatalf("time %d: the injected non-determinism left the hashes equal", a.time)
				}
				what, differs := game.DiffState(a.save(), b.save())
				if !differs || !strings.HasPrefix(what, tt.wantPrefix) || !strings.Contains(what, tt.wantFieldPart) {
					t.Errorf("DiffState = %q, want %q…%q…", what, tt.wantPrefix, tt.wantFieldPart)
				}
				t.Logf("time %d: %s", a.time, what)
				return
			}
		})
	}
}
