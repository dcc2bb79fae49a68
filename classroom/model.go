package classroom

import (
	"fmt"
	"io"
	"net/netip"
	"time"
	"tremor/client/headless"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
	"tremor/internal/inspect"
	"tremor/net/netchan"
	"tremor/net/netsim"
	"tremor/net/oob"
	"tremor/server"
)

// Timing of the model.
const (
	// Step is the virtual time of one step: the server gets the packets
	// that arrived and runs the frames due every Step.
	Step = time.Millisecond
	// FrameInterval is the virtual time between two client frames: 60
	// frames a second, whatever the speed.
	FrameInterval = time.Second / 60
	// MinSpeed and MaxSpeed bound the speed of the virtual clock
	// (virtual seconds per real second).
	MinSpeed, MaxSpeed = 0.05, 1.0
	// MaxAdvance bounds the virtual time one Advance runs, so a long
	// stall of the window does not make it run seconds of steps at once.
	MaxAdvance = 250 * time.Millisecond
	// MaxEvents is how many packets the log keeps.
	MaxEvents = 4096
	// KeepDecoded is how many of the newest packets keep their decoded
	// text (Event.Msg), about 5 s of traffic: a decoded snapshot is
	// kilobytes.
	KeepDecoded = 512
	// DefaultMap is the map a classroom starts on: small enough to show
	// whole in a third of the window.
	DefaultMap = "duel1"
)

// Config says what a classroom runs.
type Config struct {
	Map  string // empty: DefaultMap
	Bots int    // bots the server adds besides the two players
	// Seed makes the links' decisions and the qports reproducible; 0
	// uses 1.
	Seed uint64
	// Log receives the server's log and the panes' console output,
	// prefixed "sv: ", "p1: ", "p2: "; nil discards them.
	Log io.Writer
	// Keys say which keys play each player, for the switch that gives
	// a player to a bot and back; empty: DefaultKeys.
	Keys [2]string
}

// Input is what a player's keys hold down this frame.
type Input struct {
	Left, Right, Jump, Down, Attack bool
}

// Model is a classroom: the server and two players on one virtual
// clock. It is not safe for concurrent use: one goroutine calls Advance
// and reads it.
type Model struct {
	cfg Config
	log io.Writer

	now       time.Duration // virtual time since New
	residue   time.Duration // virtual time not yet stepped
	nextFrame time.Duration // virtual time of the next client frame
	speed     float64
	paused    bool

	svT   *console.Table
	srv   *server.Server
	sconn *serverConn

	players [2]*Player
	insp    *inspect.Inspector

	events  [MaxEvents]Event
	nextID  uint64 // ID of the next event
	buf     []byte
	svTime  int32 // server time of the states below
	svPS    []ServerPlayer
	svEnts  []bg.EntityState
	svCount int // server frames seen

	selected uint64 // the packet shown decoded (inspect, a click)
	ctl      controls
}

// ServerPlayer is one player as the server holds it.
type ServerPlayer struct {
	Num int
	PS  bg.PlayerState
}

// New starts a classroom: the server on cfg.Map with cfg.Bots bots, and
// both players connecting to it.
func New(cfg Config) (*Model, error) {
	if cfg.Map == "" {
		cfg.Map = DefaultMap
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	m := &Model{cfg: cfg, log: log, speed: 1, insp: inspect.New(), nextID: 1,
		buf: make([]byte, netchan.MaxLoopbackPacket), nextFrame: FrameInterval}
	for i := range m.players {
		srvEnd, cliEnd := netchan.NewLoopback()
		m.players[i] = &Player{Num: i, m: m, srvEnd: srvEnd, cliEnd: cliEnd, fields: newFieldRates(),
			srvAddr: srvEnd.LocalAddr(), cliAddr: cliEnd.LocalAddr(),
			up:   path{link: netsim.NewLink(netsim.Config{}, cfg.Seed*0x9e3779b97f4a7c15+uint64(2*i+1))},
			down: path{link: netsim.NewLink(netsim.Config{}, cfg.Seed*0x9e3779b97f4a7c15+uint64(2*i+2))},
		}
	}
	m.svT = console.NewTable()
	m.svT.SetOutput(console.Prefixed(log, "sv: "))
	server.DeclareCvars(m.svT)
	m.sconn = &serverConn{m: m, local: m.players[0].srvAddr}
	scfg := server.DefaultConfig()
	scfg.Seed = cfg.Seed ^ 0x5e5e
	srv, err := server.New(m.sconn, scfg, console.Prefixed(log, "sv: "), server.WithHostConsole(m.svT))
	if err != nil {
		return nil, fmt.Errorf("classroom: %w", err)
	}
	if err := srv.Map(cfg.Map); err != nil {
		srv.Close()
		return nil, fmt.Errorf("classroom: map %s: %w", cfg.Map, err)
	}
	m.srv = srv
	if cfg.Bots > 0 {
		m.svT.ExecuteString(fmt.Sprintf("addbot %d", cfg.Bots))
	}
	for i, p := range m.players {
		p.start(fmt.Sprintf("Player %d", i+1), cfg.Seed+uint64(i)*0x51ed)
	}
	m.watchServer()
	m.refresh()
	m.takeServerState()
	return m, nil
}

// Close disconnects the players and stops the server.
func (m *Model) Close() {
	for _, p := range m.players {
		if p.C != nil {
			p.C.Close()
		}
	}
	if m.srv != nil {
		m.srv.Shutdown("Classroom over")
		m.srv.Close()
		m.srv = nil
	}
}

// Now returns the virtual time since New.
func (m *Model) Now() time.Duration { return m.now }

// Speed returns the virtual clock's speed (virtual seconds per real second).
func (m *Model) Speed() float64 { return m.speed }

// SetSpeed sets the clock's speed, clamped to MinSpeed..MaxSpeed.
func (m *Model) SetSpeed(s float64) {
	if s != s { // NaN
		s = 1
	}
	m.speed = min(MaxSpeed, max(MinSpeed, s))
	m.refresh()
}

// Paused reports whether the clock stands still.
func (m *Model) Paused() bool { return m.paused }

// SetPaused stops or restarts the clock.
func (m *Model) SetPaused(p bool) {
	m.paused = p
	m.refresh()
}

// Player returns player i (0: P1, 1: P2).
func (m *Model) Player(i int) *Player { return m.players[i] }

// Server returns the embedded server.
func (m *Model) Server() *server.Server { return m.srv }

// ServerConsole returns the server's console table (the `sv` prefix).
func (m *Model) ServerConsole() *console.Table { return m.svT }

// Map returns the map being played, or nil.
func (m *Model) Map() *tilemap.Map {
	for _, p := range m.players {
		if mp := p.C.Map(); mp != nil {
			return mp
		}
	}
	return nil
}

// ServerTime returns the server time of the state ServerPlayers and
// ServerEntities hold: the last server frame's.
func (m *Model) ServerTime() int32 { return m.svTime }

// ServerFrames returns how many server frames the model has seen.
func (m *Model) ServerFrames() int { return m.svCount }

// ServerPlayers returns every player in the game as the server held it
// after its last frame. The slice is the model's, valid until the next Advance.
func (m *Model) ServerPlayers() []ServerPlayer { return m.svPS }

// ServerEntities returns every linked entity as the server held it
// after its last frame. The slice is the model's, valid until the next
// Advance.
func (m *Model) ServerEntities() []bg.EntityState { return m.svEnts }

// Advance runs the model for real time real: real × speed of virtual
// time (at most MaxAdvance), in Steps; nothing while paused.
func (m *Model) Advance(real time.Duration) {
	if m.paused || real <= 0 {
		return
	}
	m.residue += min(MaxAdvance, time.Duration(float64(real)*m.speed))
	for m.residue >= Step {
		m.residue -= Step
		m.step()
	}
}

// Run advances the virtual clock by d at once, whatever the speed and
// even while paused: the tests' and the `step` command's clock.
func (m *Model) Run(d time.Duration) {
	for end := m.now + d; m.now+Step <= end; {
		m.step()
	}
}

// step runs one Step: the packets that arrived reach the server, the
// server runs the frames due, and at each FrameInterval both clients
// get their packets and run a frame.
func (m *Model) step() {
	m.now += Step
	ms := int32(m.now / time.Millisecond)
	for _, p := range m.players {
		for {
			n, from, _, ok := p.arrive(Up)
			if !ok {
				break
			}
			m.srv.Packet(ms, from, m.buf[:n])
		}
	}
	before := m.srv.Time()
	m.srv.Frame(ms)
	if m.srv.Time() != before {
		m.takeServerState()
	}
	if m.now < m.nextFrame {
		return
	}
	m.nextFrame += FrameInterval
	for _, p := range m.players {
		p.frame()
	}
	m.sampleFields(ms)
}

// takeServerState copies the players and entities the server holds.
func (m *Model) takeServerState() {
	m.svTime = m.srv.Time()
	m.svCount++
	m.svPS, m.svEnts = m.svPS[:0], m.svEnts[:0]
	m.srv.GameStates(func(num int, ps *bg.PlayerState) {
		if m.srv.Client(num).State == server.StateActive { // not a player still loading the map
			m.svPS = append(m.svPS, ServerPlayer{Num: num, PS: *ps})
		}
	}, func(es *bg.EntityState) {
		m.svEnts = append(m.svEnts, *es)
	})
}

// send logs a packet player's client (Up) or the server (Down) sends,
// and lets the link decide when its copies arrive.
func (m *Model) send(player int, d Dir, data []byte) {
	p := m.players[player]
	pa, from, to, idir := &p.up, p.cliAddr, p.srvAddr, inspect.ClientToServer
	if d == Down {
		pa, from, to, idir = &p.down, p.srvAddr, p.cliAddr, inspect.ServerToClient
	}
	id := m.nextID
	m.nextID++
	if id > KeepDecoded {
		m.events[(id-KeepDecoded-1)%MaxEvents].Msg = inspect.Message{}
	}
	e := &m.events[(id-1)%MaxEvents]
	units, acked := e.units[:0], e.acked[:0] // their arrays, reused
	*e = Event{ID: id, Player: player, Dir: d, Bytes: len(data), Sent: m.now, Netchan: !oob.IsConnectionless(data),
		units: units, acked: acked}
	if msgs := m.insp.Feed(idir, from, to, data, m.now); len(msgs) > 0 {
		e.Msg = msgs[0]
	}
	e.Kind, e.Reliable = classify(&e.Msg)
	frameNumbers(e)
	e.Sequence = e.Msg.Sequence
	arr := pa.link.Send(m.now, len(data))
	e.Copies = copy(e.Arrive[:], arr)
	if e.Copies == 0 {
		e.Arrive[0] = m.now + pa.link.Config().Delay // where it would have been
	}
	if !e.Netchan {
		pa.stale = false
	}
	if pa.stale {
		// The old connection's, after a reconnect: drawn, not counted.
		for _, at := range arr {
			pa.push(at, id, e.Netchan, pa.gen-1, data)
		}
		return
	}
	c := &pa.counts
	c.Sent++
	c.Bytes += uint64(len(data))
	switch e.Kind {
	case KindFrames:
		c.FrameMessages++
	case KindWhole:
		c.WholeStates++
	case KindFrameRequest:
		c.FrameRequests++
	}
	if e.Netchan {
		c.NetchanSent++
	}
	switch e.Copies {
	case 0:
		c.Lost++
		if e.Netchan {
			c.NetchanLost++
		}
	case 2:
		c.Duplicated++
		if e.Netchan {
			c.NetchanDuplicated++
		}
	}
	for _, at := range arr {
		pa.push(at, id, e.Netchan, pa.gen, data)
	}
	if e.Copies > 0 {
		m.markLate(e)
	}
	m.trackReliable(p, e)
}

// markLate marks the packets sent before e, the same way, that arrive
// after it.
func (m *Model) markLate(e *Event) {
	for id := e.ID - 1; id > 0 && e.ID-id < MaxEvents; id-- {
		o := &m.events[(id-1)%MaxEvents]
		if o.Done() < e.Sent-10*time.Second {
			break // long arrived: nothing older can arrive after e
		}
		if o.Player == e.Player && o.Dir == e.Dir && o.Copies > 0 && o.Arrive[0] > e.Arrive[0] {
			o.late = true
		}
	}
}

// delivered counts a copy handed to its receiver, unless it was sent
// before the player's last reconnect.
func (m *Model) delivered(p *Player, d Dir, f *flight) {
	pa := &p.up
	if d == Down {
		pa = &p.down
	}
	if f.gen != pa.gen {
		return
	}
	pa.counts.Delivered++
	if f.netchan {
		pa.counts.NetchanDelivered++
	}
}

// Event returns the packet logged as id, if the log still holds it.
func (m *Model) Event(id uint64) (*Event, bool) {
	if id == 0 || id >= m.nextID || m.nextID-id > MaxEvents {
		return nil, false
	}
	return &m.events[(id-1)%MaxEvents], true
}

// Select makes packet id the one shown decoded (0: none), from its
// first line.
func (m *Model) Select(id uint64) {
	if id != m.selected {
		m.ctl.panel = 0
	}
	m.selected = id
}

// Selected returns the packet shown decoded, 0 if none.
func (m *Model) Selected() uint64 { return m.selected }

// LastEvent returns the newest packet logged, if any.
func (m *Model) LastEvent() (*Event, bool) { return m.Event(m.nextID - 1) }

// Events calls fn for every packet logged whose send time is at most
// now and whose last copy arrives (or, lost, would have arrived) after
// now-linger, oldest first: the packets a lane shows.
func (m *Model) Events(linger time.Duration, fn func(e *Event)) {
	first := uint64(1)
	if m.nextID > MaxEvents {
		first = m.nextID - MaxEvents
	}
	// Walk back to the oldest packet still showing: packets leave in
	// order, and none stays in flight longer than 10 s of delay.
	start := m.nextID
	for id := m.nextID - 1; id >= first && id > 0; id-- {
		e := &m.events[(id-1)%MaxEvents]
		if e.Sent+10*time.Second+linger < m.now {
			break
		}
		start = id
	}
	for id := start; id < m.nextID; id++ {
		e := &m.events[(id-1)%MaxEvents]
		if e.Sent <= m.now && e.Done()+linger >= m.now {
			fn(e)
		}
	}
}

// Counts returns the packet counts of one direction of player i's link.
func (m *Model) Counts(i int, d Dir) Counts {
	if d == Down {
		return m.players[i].down.counts
	}
	return m.players[i].up.counts
}

// Player is one of the two players: its console table, its client
// engine (which runs its cgame), its input and its link.
type Player struct {
	Num int // 0: P1, 1: P2
	// T is the player's console table: the client's cvars, the link's
	// and the pane's (the `p1`/`p2` prefix).
	T *console.Table
	// C is the client engine.
	C *client.Client
	// In is what the player's keys hold down; the window sets it every
	// frame. With cl_bot 1 a bot plays instead.
	In Input

	m              *Model
	cv             paneCvars // its cvars (cvars.go)
	up, down       path
	srvEnd, cliEnd *netchan.LoopbackConn
	srvAddr        netip.AddrPort // the server's end of the pair, which the client connects to
	cliAddr        netip.AddrPort
	conn           *clientConn
	inbox          []arrival
	inboxN, inHead int
	aim            int32
	bot            headless.BotDriver
	snap           cgame.Snapshot
	seed           uint64
	fields         fieldRates // its connection's delta fields a second
	// asked is the carrier of reliable commands (cl_reliable) the
	// client asked for when it last connected; a change reconnects it.
	asked string
	// fsAsked are cl_maxPredictionFrames and cl_rollbackFrames as the
	// client last took them; a change in frame sync reconnects it, since
	// the client reads them at a gamestate.
	fsAsked [2]int
	sync    syncWatch // its Sync, in frame sync (framesync.go)
	cpu     frameCPU
}

// arrival is a packet that reached the client, waiting for its frame.
type arrival struct {
	data []byte
	from netip.AddrPort
	at   time.Duration
}

// start makes the player's console table and client and connects it.
func (p *Player) start(name string, seed uint64) {
	p.T = console.NewTable()
	p.T.SetOutput(console.Prefixed(p.m.log, fmt.Sprintf("p%d: ", p.Num+1)))
	p.bindCvars(name)
	p.addCommands()
	p.conn = &clientConn{m: p.m, player: p.Num, local: p.cliAddr, remote: p.srvAddr, done: make(chan struct{})}
	p.seed = seed
	p.C = client.New(p.conn, p.clientConfig())
	p.C.SetJournalHooks(client.JournalHooks{Source: p.source})
	p.apply()
	p.asked = p.cv.client.Reliable
	p.fsAsked = p.frameSyncCvars()
	p.C.Connect(p.srvAddr)
}

// Reconnect connects the player again (the pane's reconnect command),
// so that a carrier chosen with cl_reliable applies from a fresh
// connection (the server decides the carrier at every gamestate, so a
// map_restart would apply it too, mid-connection). The link's counts and the reliable commands followed
// start again with the new connection; the old one's packets still on
// their way arrive, uncounted.
func (p *Player) Reconnect() {
	p.asked = p.cv.client.Reliable
	p.fsAsked = p.frameSyncCvars()
	p.C.Reconnect()
	for _, pa := range [...]*path{&p.up, &p.down} {
		pa.gen++
		pa.counts = Counts{}
		pa.rel.reset()
	}
	p.down.stale = true
	p.m.refresh()
}

// Carrier returns the carrier of reliable commands the player's
// connection uses: "acks" (the acks carrier, seed 001) or "q3" (Quake
// III's rings), and the carrier its cl_reliable asks for.
func (p *Player) Carrier() (now, asked string) {
	now = "q3"
	if p.C != nil && p.C.Acks().On {
		now = "acks"
	}
	return now, p.cv.client.Reliable
}

// frameSyncCvars returns cl_maxPredictionFrames and cl_rollbackFrames.
func (p *Player) frameSyncCvars() [2]int {
	return [2]int{p.cv.client.MaxPrediction, p.cv.client.RollbackFrames}
}

// clientConfig reads the engine's settings from the player's cvars,
// without the engine's own impairments: the player's link is the
// model's (the cl_packet* cvars set its uplink).
func (p *Player) clientConfig() client.Config {
	c := p.cv.client.Config()
	c.PacketDelay, c.PacketJitter, c.PacketLoss, c.PacketDuplicate, c.PacketReorder, c.PacketBurst = 0, 0, 0, 0, 0, 0
	c.CGame = &p.cv.client.CGame
	c.Seed = p.seed
	c.Logf = func(format string, args ...any) { p.T.Printf(format+"\n", args...) }
	return c
}

// apply gives the engine, the cgame and the links the cvars' values.
func (p *Player) apply() {
	if p.C == nil {
		return
	}
	p.C.SetConfig(p.clientConfig())
	p.up.link.SetConfig(p.cv.link(Up).config())
	p.down.link.SetConfig(p.cv.link(Down).config())
	if p.asked != "" && p.cv.client.Reliable != p.asked {
		p.T.Printf("cl_reliable %s: reconnecting, so that the new carrier starts with a fresh connection (the server chooses it at every gamestate)\n", p.cv.client.Reliable)
		p.Reconnect()
		return
	}
	if fs := p.frameSyncCvars(); fs != p.fsAsked {
		p.fsAsked = fs
		if p.sync.on {
			p.T.Printf("cl_maxPredictionFrames %d, cl_rollbackFrames %d: reconnecting, the client takes them at a gamestate\n", fs[0], fs[1])
			p.Reconnect()
			return
		}
	}
	p.m.refresh()
}

// arrive takes the next packet due on p's path in direction d, carries it
// through the loopback ends and counts it delivered (a packet the ends
// refuse is dropped and the next one taken). It returns the packet's
// length in m.buf, its sender and when it arrived, or ok false when no
// packet is left due.
func (p *Player) arrive(d Dir) (n int, from netip.AddrPort, at time.Duration, ok bool) {
	m := p.m
	q, src, dst, to := &p.up, p.cliEnd, p.srvEnd, p.srvAddr
	if d == Down {
		q, src, dst, to = &p.down, p.srvEnd, p.cliEnd, p.cliAddr
	}
	for {
		f, due := q.due(m.now)
		if !due {
			return 0, netip.AddrPort{}, 0, false
		}
		n, from, ok := p.carry(src, dst, to, f.data, m.buf)
		q.recycle(f.data)
		if ok {
			m.delivered(p, d, &f)
			return n, from, f.at, true
		}
	}
}

// carry sends data through the loopback pair from src to dst (whose
// address is to) and reads it out at dst into buf.
func (p *Player) carry(src, dst *netchan.LoopbackConn, to netip.AddrPort, data, buf []byte) (int, netip.AddrPort, bool) {
	if err := src.WriteTo(data, to); err != nil {
		return 0, netip.AddrPort{}, false
	}
	n, from, err := dst.ReadFrom(buf)
	return n, from, err == nil
}

// frame hands the client the packets that arrived and runs its frame.
func (p *Player) frame() {
	m := p.m
	for {
		n, from, at, ok := p.arrive(Down)
		if !ok {
			break
		}
		if p.inboxN == len(p.inbox) {
			p.inbox = append(p.inbox, arrival{})
		}
		a := &p.inbox[p.inboxN]
		a.data, a.from, a.at = append(a.data[:0], m.buf[:n]...), from, at
		p.inboxN++
	}
	start := time.Now()
	p.C.Frame(m.now, p.command())
	p.cpu.add(m.now, time.Since(start))
	p.inboxN, p.inHead = 0, 0
	p.watchSync()
}

// frameCPU measures the real time a client's frames take (its engine,
// its cgame and, in frame sync, its game), as a mean over each second of
// virtual time.
type frameCPU struct {
	sum     time.Duration
	n       int
	startAt time.Duration // virtual time the second being measured began
	mean    time.Duration // of the last whole second; 0 before the first
	// all and frames count every frame since the player started.
	all    time.Duration
	frames int
}

// add counts a frame that took d at virtual time now.
func (f *frameCPU) add(now, d time.Duration) {
	f.sum += d
	f.n++
	f.all += d
	f.frames++
	if now-f.startAt >= time.Second {
		f.mean = f.sum / time.Duration(f.n)
		f.sum, f.n, f.startAt = 0, 0, now
	}
}

// source is the client's packet source (client.JournalHooks.Source): the
// packets frame queued, in arrival order.
func (p *Player) source(buf []byte) (int, netip.AddrPort, time.Duration, bool) {
	if p.inHead >= p.inboxN {
		return 0, netip.AddrPort{}, 0, false
	}
	a := &p.inbox[p.inHead]
	p.inHead++
	return copy(buf, a.data), a.from, a.at, true
}

// command returns this frame's usercmd: the keys', or the bot's.
func (p *Player) command() bg.UserCmd {
	if p.cv.bot {
		return p.bot.Input(p.C, "classroom", botSkill, 0xc1a55+uint64(p.Num))
	}
	var cmd bg.UserCmd
	if p.In.Right {
		cmd.RightMove += 127
		p.aim = 0
	}
	if p.In.Left {
		cmd.RightMove -= 127
		p.aim = 1 << 15 // half a turn: left
	}
	switch {
	case p.In.Jump:
		cmd.UpMove = 127
	case p.In.Down:
		cmd.UpMove = -127
	}
	if p.In.Attack {
		cmd.Buttons |= bg.ButtonAttack
	}
	cmd.Aim = p.aim
	return cmd
}

// CGame returns the player's cgame, nil before its first gamestate.
func (p *Player) CGame() *cgame.CGame {
	if p.C.State() != client.Active {
		return nil
	}
	return p.C.CGame()
}

// Figures are the counters a class reads aloud from a player pane.
type Figures struct {
	// Cmd is the newest usercmd the client made; Unacked how many of its
	// usercmds no snapshot has acknowledged yet (newer than the command
	// time of the newest snapshot's player state).
	Cmd     int32
	Unacked int
	// ServerCmd is the number of the last usercmd the server executed
	// for this player (the one whose time is the server's command time),
	// -1 when it is not in the client's ring.
	ServerCmd int32
	// SnapsBehind is how far the drawn world is behind the server's
	// present, in snapshot intervals: (server time - render time) /
	// the snapshot interval.
	SnapsBehind float64
	// Mispredictions counts cgame's prediction misses.
	Mispredictions int
	// Ping is the round trip of the client's newest snapshots
	// (client.Ping: the mean of the last client.PingWindow and their
	// spread), so that it follows a change of the link within a second.
	Ping client.Ping
	// Up and Down are the link's packet counts.
	Up, Down Counts
	// FrameCPU is the real time the client's frames took over the last
	// whole second of virtual time, on the mean (its engine, its cgame,
	// and in frame sync its own game with its rollbacks); 0 before the
	// first second. It is read from the wall clock, so other work on the
	// machine makes it larger: compare the panes and the models with it.
	FrameCPU time.Duration
	// FrameSync: the player's gamestate is in frame sync, and Sync holds
	// its counters (framesync.go); the usercmd and snapshot figures above
	// are then those of its inputs and of the frames its Sync ran.
	FrameSync bool
	Sync      SyncFigures
}

// Figures returns the pane's counters now.
func (p *Player) Figures() Figures {
	f := Figures{ServerCmd: -1, Up: p.up.counts, Down: p.down.counts, FrameCPU: p.cpu.mean}
	f.Sync, f.FrameSync = p.syncFigures()
	c := p.C
	cg := p.CGame()
	if cg == nil {
		return f
	}
	f.Cmd = c.CurrentCmdNumber()
	f.Mispredictions = cg.Stats.PredictionMisses
	f.Ping = c.Ping()
	num, _ := c.CurrentSnapshotNumber()
	if c.GetSnapshot(num, &p.snap) {
		var cmd bg.UserCmd
		for n := f.Cmd; n > f.Cmd-client.CmdBackup && c.GetUserCmd(n, &cmd); n-- {
			if cmd.ServerTime <= p.snap.PS.CommandTime {
				break
			}
			f.Unacked++
		}
	}
	self := c.ClientNum()
	for _, sp := range p.m.svPS {
		if int32(sp.Num) != self {
			continue
		}
		var cmd bg.UserCmd
		for n := f.Cmd; n > f.Cmd-client.CmdBackup && c.GetUserCmd(n, &cmd); n-- {
			if cmd.ServerTime == sp.PS.CommandTime {
				f.ServerCmd = n
				break
			}
		}
	}
	if ci := p.m.srv.Client(int(self)); ci.SnapshotMsec > 0 {
		f.SnapsBehind = float64(p.m.svTime-cg.Time) / float64(ci.SnapshotMsec)
	}
	return f
}
