package cgame

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/msg"
)

// sim is a scripted network in one process: a "server" that runs bg.Pmove
// on the local player's usercmds as they arrive and builds a snapshot
// every svMsec, and the client engine's side of the boundary (Client):
// the usercmd ring and the snapshot ring, with a one-way latency. Real
// time and server time are the same clock, t. It allocates nothing per
// frame once running, so benchmarks and AllocsPerRun can drive it.
type sim struct {
	tb        testing.TB
	m         *tilemap.Map
	t         int32 // now, ms
	lat       int32 // one-way latency, ms
	interp    int32 // render time is t - lat - interp
	frameMsec int32 // client frame length
	svMsec    int32 // server frame length (1000/sv_fps)
	cmdBackup int32 // usercmds the client engine keeps (CMD_BACKUP)
	loss      int   // 1 in loss snapshots is lost (0: none)
	codec     bool  // snapshots go through the real delta codec
	alias     bool  // GetSnapshot hands out the ring's entity slice instead of copying
	fixed     int32 // the server runs pmove_fixed with this pmove_msec (0: variable)
	rng       *rand.Rand

	// client side
	cmds      [simCmdRing]bg.UserCmd
	cmdAt     [simCmdRing]int32 // real time each command was made
	cmdNum    int32
	oracle    bg.PlayerState // the local player after every command, never nudged
	oracleAt  [simCmdRing]bg.PlayerState
	oracleEvs int // predictable events the oracle produced (at most MaxPSEvents per command)
	input     func(s *sim, n int32, cmd *bg.UserCmd)

	// server side
	sv        bg.PlayerState
	svDone    int32 // last command executed
	svEvent   int32 // for PlayerStateToEntityState
	bot       bg.PlayerState
	botEvent  int32
	botCmd    bg.UserCmd
	missile   bg.EntityState
	afterCmd  func(s *sim, n int32) // after the server ran command n
	svFrame   func(s *sim)          // before each snapshot is built
	scmds     [proto.MaxReliableCommands]string
	scmdNum   int32
	checkSelf bool // the server compares itself with the oracle (no nudges)

	// snapshots
	snaps     [simSnapRing]simSnap
	snapNum   int32 // built
	delivered int32 // arrived at the client
	ents      [4]bg.EntityState
	nents     int

	// codec state
	buf      []byte
	w        *msg.Writer
	r        msg.Reader
	gs       proto.Gamestate
	prevPS   bg.PlayerState
	prevTime int32 // server time of the previous snapshot, the base of the next
	prevEnts []bg.EntityState
	havePrev bool
}

const (
	simCmdRing  = 256
	simSnapRing = 64
)

type simSnap struct {
	s      Snapshot
	buf    []bg.EntityState
	arrive int32
	valid  bool
}

type simOpt func(*sim)

func withLatency(lat, interp int32) simOpt { return func(s *sim) { s.lat, s.interp = lat, interp } }
func withLoss(n int) simOpt                { return func(s *sim) { s.loss = n } }
func withCodec() simOpt                    { return func(s *sim) { s.codec = true } }
func withAlias() simOpt                    { return func(s *sim) { s.alias = true } }
func withFrameMsec(ms int32) simOpt        { return func(s *sim) { s.frameMsec = ms } }
func withCmdBackup(n int32) simOpt         { return func(s *sim) { s.cmdBackup = n } }
func withMap(m *tilemap.Map) simOpt        { return func(s *sim) { s.m = m } }
func withPmoveFixed(msec int32) simOpt     { return func(s *sim) { s.fixed = msec } }
func withInput(f func(s *sim, n int32, cmd *bg.UserCmd)) simOpt {
	return func(s *sim) { s.input = f }
}

// flatMap is a closed room with a floor, wide enough to run in.
func flatMap(tb testing.TB) *tilemap.Map {
	tb.Helper()
	m, err := tilemap.FromRows("",
		"..............................",
		"..............................",
		"..............................",
		"..............................",
		"..S........................S..",
	)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func newSim(tb testing.TB, opts ...simOpt) *sim {
	tb.Helper()
	s := &sim{tb: tb, t: 1000, lat: 40, interp: 60, frameMsec: 16, svMsec: 50, cmdBackup: 64,
		rng: rand.New(rand.NewPCG(1, 2)), input: randomInput}
	// interp 60: the render time usually lies between the two newest snapshots.
	for _, o := range opts {
		o(s)
	}
	if s.m == nil {
		m, err := arenas.Load("arena1")
		if err != nil {
			tb.Fatal(err)
		}
		s.m = m
	}
	s.sv = spawnPS(s.m, 0, s.t)
	s.oracle = s.sv
	s.bot = spawnPS(s.m, 1, s.t)
	s.missile = bg.EntityState{Number: 70, EType: bg.ETMissile, Weapon: bg.WPRocketLauncher}
	for i := range s.snaps {
		s.snaps[i].buf = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	}
	s.buf = make([]byte, 1<<14)
	s.w = msg.NewWriter(s.buf, msg.Huffman)
	s.gs.Reset()
	s.prevEnts = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	return s
}

// spawnPS returns a player standing on spawn point i of m, armed.
func spawnPS(m *tilemap.Map, i int, now int32) bg.PlayerState {
	sp := m.Spawns[i%len(m.Spawns)]
	ps := bg.PlayerState{ClientNum: int32(i), CommandTime: now, Origin: bg.TileFeet(sp.X, sp.Y, nil),
		GroundEntity: bg.EntityNumNone, Weapon: bg.WPMachinegun}
	ps.Stats[bg.StatHealth], ps.Stats[bg.StatMaxHealth] = 100, 100
	ps.Stats[bg.StatWeapons] = 1<<bg.WPGauntlet | 1<<bg.WPMachinegun | 1<<bg.WPRocketLauncher
	ps.Ammo[bg.WPGauntlet], ps.Ammo[bg.WPMachinegun], ps.Ammo[bg.WPRocketLauncher] = -1, 100, 10
	return ps
}

// randomInput plays like a restless bot: runs one way or the other for a
// while, jumps, drops, fires and switches weapons now and then.
func randomInput(s *sim, n int32, cmd *bg.UserCmd) {
	prev := s.cmds[(n-1)&(simCmdRing-1)]
	*cmd = bg.UserCmd{ServerTime: cmd.ServerTime, RightMove: prev.RightMove, Aim: prev.Aim, Weapon: prev.Weapon}
	if s.rng.IntN(40) == 0 {
		cmd.RightMove = int32(s.rng.IntN(3)-1) * 127
	}
	if s.rng.IntN(12) == 0 {
		cmd.UpMove = 127
	} else if s.rng.IntN(60) == 0 {
		cmd.UpMove = -127
	}
	if s.rng.IntN(5) == 0 {
		cmd.Buttons |= bg.ButtonAttack
	}
	if s.rng.IntN(150) == 0 {
		cmd.Weapon = simWeapons[s.rng.IntN(len(simWeapons))]
	}
	cmd.Aim = (prev.Aim + int32(s.rng.IntN(2001)) - 1000) & 0xffff
}

var simWeapons = [...]int32{bg.WPGauntlet, bg.WPMachinegun, bg.WPRocketLauncher}

// idleInput stands still.
func idleInput(s *sim, n int32, cmd *bg.UserCmd) {}

// renderTime is the engine's server time estimate: the interpolation
// window behind the newest snapshot's arrival.
func (s *sim) renderTime() int32 { return s.t - s.lat - s.interp }

// frame advances one client frame: server ticks up to the new time,
// snapshot arrivals, and the frame's usercmd.
func (s *sim) frame() {
	end := s.t + s.frameMsec
	for ms := s.t + 1; ms <= end; ms++ {
		s.serverTick(ms)
	}
	s.t = end
	for s.delivered < s.snapNum && s.snaps[(s.delivered+1)&(simSnapRing-1)].arrive <= s.t {
		s.delivered++
	}
	s.cmdNum++
	i := s.cmdNum & (simCmdRing - 1)
	cmd := &s.cmds[i]
	*cmd = bg.UserCmd{}
	s.input(s, s.cmdNum, cmd)
	cmd.ServerTime = s.renderTime()
	s.cmdAt[i] = s.t
	seq := s.oracle.EventSequence
	s.pmove(&s.oracle, cmd)
	s.oracleEvs += int(min((s.oracle.EventSequence-seq)&bg.EventSequenceMask, bg.MaxPSEvents))
	s.oracleAt[i] = s.oracle
}

// pmove runs one usercmd as the server's game does, pmove_fixed included
// (Quake III's ClientThink rounded the command time up to a step).
func (s *sim) pmove(ps *bg.PlayerState, cmd *bg.UserCmd) {
	pm := bg.Pmove{PS: ps, Cmd: *cmd, World: s.m, FixedMsec: s.fixed}
	if s.fixed > 0 {
		pm.Cmd.ServerTime = (pm.Cmd.ServerTime + s.fixed - 1) / s.fixed * s.fixed
	}
	pm.Run()
}

func (s *sim) serverTick(ms int32) {
	for s.svDone < s.cmdNum && s.cmdAt[(s.svDone+1)&(simCmdRing-1)]+s.lat <= ms {
		s.svDone++
		s.pmove(&s.sv, &s.cmds[s.svDone&(simCmdRing-1)])
		if s.checkSelf && s.sv != s.oracleAt[s.svDone&(simCmdRing-1)] {
			s.tb.Fatalf("test server diverged from its oracle at command %d", s.svDone)
		}
		if s.afterCmd != nil {
			s.afterCmd(s, s.svDone)
		}
	}
	if ms%s.svMsec != 0 {
		return
	}
	// the other player: a bot with its own usercmds, one per server frame
	if s.rng.IntN(20) == 0 {
		s.botCmd.RightMove = int32(s.rng.IntN(3)-1) * 127
	}
	s.botCmd.UpMove = 0
	if s.rng.IntN(10) == 0 {
		s.botCmd.UpMove = 127
	}
	s.botCmd.ServerTime = ms
	pm := bg.Pmove{PS: &s.bot, Cmd: s.botCmd, World: s.m}
	pm.Run()
	// a rocket now and then
	if ms%2000 == 0 {
		s.missile.Pos = bg.Trajectory{Type: bg.TrLinear, Time: ms, Base: s.bot.Origin, Delta: bg.Vec{X: bg.Px(900)}}
	}
	if s.svFrame != nil {
		s.svFrame(s)
	}
	s.buildSnapshot(ms)
}

func (s *sim) buildSnapshot(ms int32) {
	s.nents = 0
	var e bg.EntityState
	bg.PlayerStateToEntityState(&s.sv, &e, &s.svEvent)
	s.ents[s.nents], s.nents = e, s.nents+1
	bg.PlayerStateToEntityState(&s.bot, &e, &s.botEvent)
	s.ents[s.nents], s.nents = e, s.nents+1
	if s.missile.Pos.Type != bg.TrStationary {
		s.ents[s.nents], s.nents = s.missile, s.nents+1
	}
	ents := s.ents[:s.nents]

	s.snapNum++
	sl := &s.snaps[s.snapNum&(simSnapRing-1)]
	sl.s = Snapshot{MessageNum: s.snapNum, ServerTime: ms, Ping: 2 * s.lat, PS: s.sv, ServerCommandSequence: s.scmdNum}
	if s.codec {
		s.w.Reset(s.buf, msg.Huffman)
		fromPS, fromEnts := &s.prevPS, s.prevEnts
		h := proto.SnapshotHeader{ServerTime: ms, DeltaNum: 1, BaseTime: s.prevTime}
		if !s.havePrev {
			fromPS, fromEnts, h.DeltaNum = nil, nil, 0
		}
		proto.WriteSnapshot(s.w, h, fromPS, &s.sv, fromEnts, ents, &s.gs.Baselines)
		if err := s.w.Err(); err != nil {
			s.tb.Fatal(err)
		}
		s.r.Reset(s.w.Bytes(), msg.Huffman)
		if s.r.ReadUint8() != proto.SvcSnapshot {
			s.tb.Fatal("sim: not a snapshot")
		}
		got := proto.ReadSnapshotHeader(&s.r)
		got.Resolve(s.prevTime, 0, 0) // written with no step and no flags
		sl.buf = proto.ReadSnapshotBody(&s.r, got, fromPS, fromEnts, &s.gs.Baselines, &sl.s.PS, sl.buf)
		if err := s.r.Err(); err != nil || got.ServerTime != ms {
			s.tb.Fatalf("sim: decoding snapshot: %v", err)
		}
		s.prevPS, s.havePrev, s.prevTime = sl.s.PS, true, ms
		s.prevEnts = append(s.prevEnts[:0], sl.buf...)
	} else {
		sl.buf = append(sl.buf[:0], ents...)
	}
	sl.s.Entities = sl.buf
	sl.arrive = ms + s.lat
	sl.valid = s.loss == 0 || s.rng.IntN(s.loss) != 0
}

// serverCommand queues a reliable server command; it reaches the client
// with the next snapshot.
func (s *sim) serverCommand(text string) {
	s.scmdNum++
	s.scmds[s.scmdNum&(proto.MaxReliableCommands-1)] = text
}

// Client implementation.

func (s *sim) CurrentSnapshotNumber() (int32, int32) {
	return s.delivered, s.snaps[s.delivered&(simSnapRing-1)].s.ServerTime
}

func (s *sim) GetSnapshot(num int32, out *Snapshot) bool {
	if num < 1 || num > s.delivered || num <= s.delivered-proto.PacketBackup {
		return false
	}
	sl := &s.snaps[num&(simSnapRing-1)]
	if !sl.valid {
		return false
	}
	if s.alias {
		*out = sl.s
		return true
	}
	ents := append(out.Entities[:0], sl.s.Entities...)
	*out = sl.s
	out.Entities = ents
	return true
}

func (s *sim) CurrentCmdNumber() int32 { return s.cmdNum }

func (s *sim) GetUserCmd(num int32, cmd *bg.UserCmd) bool {
	if num < 1 || num > s.cmdNum || num <= s.cmdNum-s.cmdBackup {
		return false
	}
	*cmd = s.cmds[num&(simCmdRing-1)]
	return true
}

func (s *sim) ServerTime() int32 { return s.renderTime() }

func (s *sim) Configstring(index int) string {
	switch index {
	case bg.CSServerInfo:
		return `\mapname\arena1`
	case bg.CSMapChecksum:
		return strconv.FormatUint(uint64(s.m.Checksum), 10)
	}
	return ""
}

func (s *sim) GetServerCommand(seq int32) (string, bool) {
	if seq < 1 || seq > s.scmdNum || seq <= s.scmdNum-proto.MaxReliableCommands {
		return "", false
	}
	return s.scmds[seq&(proto.MaxReliableCommands-1)], true
}

// run advances n frames, calling each after every cgame frame.
func (s *sim) run(g *CGame, n int, each func(i int)) {
	for i := 0; i < n; i++ {
		s.frame()
		g.Frame(s.t)
		if each != nil {
			each(i)
		}
	}
}
