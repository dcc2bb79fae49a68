package server

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/console"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/cmdargs"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/netsim"
	"tremor/net/oob"
	"tremor/net/srclimit"
)

// Timing limits of the main loop.
const (
	// MaxFrameCatchUp is the most time, in milliseconds, one call of
	// Frame catches up with; a longer stall (a debugger, a suspended
	// laptop) is dropped rather than replayed (Quake III's hitch
	// warning).
	MaxFrameCatchUp = 200
	// MaxReadWait is the longest Run waits for a packet before it looks
	// at the clock and the command queue again, in milliseconds.
	MaxReadWait = 10
	// MaxQueuedCommands bounds the console command queue.
	MaxQueuedCommands = 1024
)

// Server is a Tremor dedicated server (Quake III's sv_*.c): it hosts a
// game, held through the game.Game interface, accepts connections on one netchan.Conn, runs server frames
// at sv_fps and sends each client its snapshots.
//
// A Server is owned by one goroutine: the one that calls Run, or, for
// programs and tests that drive it by hand, the one that calls Packet and
// Frame. That goroutine alone executes its console table (see
// WithConsole). Only Exec, Do and Addr may be called from other
// goroutines, and Close once Run has returned.
type Server struct {
	// OnSnapshot, if set, is called for every snapshot built for a
	// client, with the netchan sequence the message goes out with, the
	// player state and the entities exactly as sent. The slices are
	// only valid during the call. It runs on the server goroutine. Set it
	// before Run.
	OnSnapshot func(client int, messageNum int32, ps *bg.PlayerState, ents []bg.EntityState)
	// OnDrop, if set, is called when a client is dropped, with the
	// reason it was given. It runs on the server goroutine.
	OnDrop func(client int, reason string)
	conn   netchan.Conn // reads, and writes when no simulation is on
	sim    *netsim.Conn // the simulated network, once a sv_packet* cvar is set
	out    sendConn     // what every channel writes to
	local  netip.AddrPort
	logw   io.Writer
	cfg    Config // the cvars' fields, bound in t
	engine engine

	t          *console.Table // the console: cvars, commands, buffer
	vars       *console.Vars  // the server's cvars, bound to cfg
	added      []string       // commands the server added to t
	runsBuffer bool           // Frame runs t's command buffer

	queueMu sync.Mutex
	queue   []queued
	wake    chan struct{}

	svs static
	sv  *level

	quit     bool
	redirect *strings.Builder // rcon output, when set

	// Scratch reused by every message, so steady frames allocate nothing.
	w      msg.Writer
	r      msg.Reader
	msgBuf [netchan.MaxMsgLen]byte
	// fsFrames is the scratch list of the frames one message carries.
	fsFrames [framesync.MaxMessageFrames]*framesync.Frame
	readBuf  [1 << 16]byte
	ents     []bg.EntityState
	cmds     [proto.MaxPacketUsercmds]bg.UserCmd
	args     cmdargs.Args
	cm       clientMessage // the client message being read
	// ackScratch takes a message block from a client without the acks
	// carrier, which the message is then refused for.
	ackScratch [proto.MaxMessagesBlock]byte

	sendq     sendQueue       // a frame's packets, sent together (batch.go)
	stateHash proto.StateHash // scratch of sv_hashSnapshots (statehash.go)
	journal   *JournalHooks   // Run's events, for the event journal (journal_run.go)
}

// queued is a function waiting for the server goroutine.
type queued struct {
	fn   func()
	done chan struct{}
}

// static is the state kept for the whole run (Quake III's svs).
type static struct {
	now          int32 // real time in milliseconds, as last given to Packet or Frame
	time         int32 // frame clock: advances by the frame length once per server frame
	residual     int32 // real time not yet run as frames
	lastFrameNow int32
	started      bool
	// replyAt is, while Run handles a batch of packets (batch.go), the
	// time the batch's replies go out at: a packet handed over at its
	// earlier arrival time was held that long (an infoResponse says so).
	// 0 otherwise: replies go out at once.
	replyAt int32

	clients       [bg.MaxClients]client
	challenger    challenger
	queryLimit    srclimit.Limiter[netip.Addr] // getinfo and getstatus, per Source
	queryBudget   srclimit.FloodBudget         // bytes of every getinfo and getstatus answer
	rconLimit     srclimit.Limiter[netip.Addr] // rcon packets, per Source
	refusalLimit  srclimit.Limiter[netip.Addr] // prints refusing a connect, per Source
	rcon          rconGuard
	heartbeats    heartbeats // the masters: their addresses, when the next heartbeat is due
	rng           *rand.Rand
	serverID      int32
	snapFlagCount uint8 // toggles proto.SnapServerCount on every map and restart

	stats Stats
}

// Stats counts what the server refused or dropped, and the connectionless
// traffic, since it started (for status, tools and tests).
type Stats struct {
	// StrayPackets are sequenced packets from an address and qport that
	// have no connection; BadPackets are packets that could not be read.
	StrayPackets, BadPackets int
	// OOBPacketsIn and OOBBytesIn count connectionless packets received
	// (UDP payload); OOBBytesOut the bytes of connectionless replies.
	OOBPacketsIn            int
	OOBBytesIn, OOBBytesOut int64
	// QueriesLimited are getinfo and getstatus not answered because of a
	// per-source limit or the query byte budget.
	QueriesLimited int
	// RepliesTooLarge are handshake and rcon replies not sent because
	// they were longer than the request.
	RepliesTooLarge int
	// SendErrors are packets a batched send (a frame's packets sent
	// together) could not send.
	SendErrors int
	// RconFailures are wrong rcon passwords; RconIgnored rcon packets
	// from a source backing off.
	RconFailures, RconIgnored int
	// CommandsFlooded are client commands ignored by sv_floodProtect,
	// from every client together.
	CommandsFlooded int
	// FloodDrops are clients dropped for flooding commands.
	FloodDrops int
}

// level is the state of the map being played (Quake III's sv), replaced
// by every map command.
type level struct {
	name         string
	m            *tilemap.Map
	file         []byte    // m's file, for downloads; nil if too large (download.go)
	game         game.Game // made by game.New, known only by its interface (Quake III's gvm)
	serverID     int32
	checksumFeed int32
	scramble     bool // sv_scramble latched for this map
	maxClients   int  // sv_maxclients latched for this map
	loading      bool // configstring changes are not sent while set
	gamestate    proto.Gamestate

	// What the game located (LocateGameData).
	ents        []game.SharedEntity
	numEntities int
	ps          []bg.PlayerState

	// The snapshot entity ring every client's snapshots are stored in
	// (Quake III's svs.snapshotEntities).
	snapEnts     []bg.EntityState
	nextSnapEnts int64

	// Frame sync (framesync.go): the latched sv_netmodel, and the
	// Recorder the game runs in when it is framesync (nil with
	// snapshots).
	netModel string
	fs       *framesync.Recorder

	// The game's state hash after the last frame, and that frame's time
	// (statehash.go).
	frameHash     uint64
	frameHashTime int32
	hashed        bool
}

// sendConn is the Conn every channel writes through: the server's
// socket, or its simulation once one is on (which can start at any time).
type sendConn struct{ s *Server }

func (c sendConn) WriteTo(p []byte, to netip.AddrPort) error {
	if c.s.sim != nil {
		return c.s.sim.WriteTo(p, to)
	}
	if c.s.sendq.open > 0 {
		return c.s.sendq.queue(p, to)
	}
	return c.s.conn.WriteTo(p, to)
}
func (c sendConn) ReadFrom(p []byte) (int, netip.AddrPort, error) { return c.s.conn.ReadFrom(p) }

// FragmentSize implements netchan.FragmentSizer: a channel to a peer of a
// transport with a fragment size of its own (a WebRTC peer) uses it.
func (c sendConn) FragmentSize(to netip.AddrPort) int {
	if fs, ok := c.s.conn.(netchan.FragmentSizer); ok {
		return fs.FragmentSize(to)
	}
	return 0
}

func (c sendConn) LocalAddr() netip.AddrPort         { return c.s.local }
func (c sendConn) SetReadDeadline(t time.Time) error { return c.s.conn.SetReadDeadline(t) }
func (c sendConn) Close() error                      { return nil }

// Option is an optional setting of New.
type Option func(*options)

type options struct {
	t            *console.Table
	host         bool
	execFallback fs.FS
}

// WithExecFallback makes exec read from fsys the files sv_configdir does
// not hold: files built into the program (package lessons), never a
// directory of the host — rcon can run exec, and its output shows what a
// file's lines did.
func WithExecFallback(fsys fs.FS) Option {
	return func(o *options) { o.execFallback = fsys }
}

// WithConsole makes the server keep its cvars and commands in t, the
// program's one console table, instead of a table of its own: it binds
// its cvars there (declaring them, or adopting those DeclareCvars
// declared, with the values they have: cfg then gives only Seed and what
// is not a cvar), adds its commands, makes exec read sv_configdir, and
// runs t's command buffer at every Frame. Other goroutines queue text
// with t.Append or Exec; nothing else may execute t. The dedicated
// server's console.
func WithConsole(t *console.Table) Option {
	return func(o *options) { o.t, o.host = t, false }
}

// WithHostConsole is WithConsole for a table the program executes itself
// (t.Execute, once a frame) on the goroutine that drives the server with
// Packet and Frame, instead of Run: the window client and its embedded
// server, one goroutine as in Quake III's Com_Frame. Commands the table
// has already stay the program's.
func WithHostConsole(t *console.Table) Option {
	return func(o *options) { o.t, o.host = t, true }
}

// New returns a server that talks through conn, which it owns from now on
// (Close closes it), logging to log (nil discards). Its cvars hold cfg's
// values (clamped into their ranges) in a console table of its own,
// unless an option gives it the program's (WithConsole). It loads no
// map: run "map NAME" with Exec, or call Map, before clients can connect.
// conn may be a *netsim.Conn; otherwise the server wraps it in one when a
// sv_packet* cvar is first set.
func New(conn netchan.Conn, cfg Config, log io.Writer, opts ...Option) (*Server, error) {
	if conn == nil {
		return nil, errors.New("server: nil conn")
	}
	if log == nil {
		log = io.Discard
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := &Server{conn: conn, local: conn.LocalAddr(), logw: log, cfg: cfg, wake: make(chan struct{}, 1)}
	if sim, ok := conn.(*netsim.Conn); ok {
		s.sim = sim
	}
	if bc, ok := conn.(netchan.BatchConn); ok {
		s.sendq = sendQueue{conn: bc, stats: &s.svs.stats,
			buf: make([]byte, 0, sendQueueBytes), pkts: make([]netchan.Packet, 0, sendQueueLen)}
	}
	s.out = sendConn{s}
	s.engine = engine{s}
	seed := cfg.Seed
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	s.svs.rng = rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	s.svs.serverID = s.svs.rng.Int32N(1<<24) + 1
	s.svs.queryLimit = srclimit.NewLimiter[netip.Addr](QueryBurst, QueryPeriod, MaxQuerySources)
	s.svs.rconLimit = srclimit.NewLimiter[netip.Addr](RconBurst, RconPeriod, MaxQuerySources)
	s.svs.refusalLimit = srclimit.NewLimiter[netip.Addr](RefusalBurst, RefusalPeriod, MaxQuerySources)
	s.svs.queryBudget = srclimit.FloodBudget{FloodPackets: QueryFloodPackets, QuietBurst: QueryQuietBurst, QuietRate: QueryQuietRate}
	var key [32]byte
	if cfg.Seed != 0 {
		for i := range key {
			key[i] = byte(s.svs.rng.Uint32())
		}
	} else {
		_, _ = crand.Read(key[:])
	}
	s.svs.challenger = newChallenger(key[:])
	for i := range s.svs.clients {
		s.svs.clients[i].num = i
		s.svs.clients[i].resetConnection()
	}
	s.ents = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	s.bindConsole(o)
	s.applyNetsim()
	return s, nil
}

// bindConsole binds the server's cvars and adds its commands to the table
// o names, or to a table of its own holding cfg's values.
func (s *Server) bindConsole(o options) {
	if o.t == nil {
		s.t = console.NewTable()
		s.t.SetOutput(logWriter{s})
		s.vars = s.t.BindFields(s.applyCvar)
		s.runsBuffer = true
	} else {
		s.t = o.t
		s.vars = s.t.Bind(s.applyCvar)
		s.runsBuffer = !o.host
	}
	bindCvars(s.vars, &s.cfg)
	s.t.SetFS(configFS{dir: s.t.Get("sv_configdir"), fallback: o.execFallback})
	s.addCommands()
}

// Console returns the server's console table: the program's, or its own.
// Execute it, and set cvars, only on the server goroutine.
func (s *Server) Console() *console.Table { return s.t }

// Addr returns the address the server receives on.
func (s *Server) Addr() netip.AddrPort { return s.local }

// Close closes the server's conn (and its simulation), and takes its
// commands out of the console table and releases its cvars, which stay
// there with their values. Call it after Run has returned, or instead of
// Run.
func (s *Server) Close() error {
	if s.vars != nil {
		s.removeCommands()
		s.vars.Unbind()
		s.vars = nil
	}
	if s.sim != nil {
		return s.sim.Close()
	}
	return s.conn.Close()
}

// Exec queues console text (commands separated by ';' or newlines) on
// the console table's command buffer, which the server goroutine runs at
// its next Frame (or, with WithHostConsole, the program at its next
// Execute). Safe from any goroutine.
func (s *Server) Exec(text string) {
	s.t.Append(text)
	s.wakeUp()
}

// Do runs fn on the server goroutine at its next Frame and waits for it
// to finish: the way for another goroutine to read the server's state
// while Run runs. It returns false, without running fn, if ctx ends
// first.
func (s *Server) Do(ctx context.Context, fn func()) bool {
	done := make(chan struct{})
	s.enqueue(queued{fn: fn, done: done})
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) enqueue(q queued) {
	s.queueMu.Lock()
	if len(s.queue) < MaxQueuedCommands {
		s.queue = append(s.queue, q)
	}
	s.queueMu.Unlock()
	s.wakeUp()
}

// wakeUp makes Run look at its queue and the command buffer at once.
func (s *Server) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
	// Interrupt a blocked read so the command runs at once.
	_ = s.conn.SetReadDeadline(time.Now())
}

// runQueue runs the functions queued by Do, then the console's command
// buffer if the server runs it.
func (s *Server) runQueue() {
	s.queueMu.Lock()
	q := s.queue
	s.queue = nil
	s.queueMu.Unlock()
	for _, c := range q {
		c.fn()
		close(c.done)
	}
	if s.runsBuffer {
		s.t.Execute()
	}
}

// Run runs the server until ctx ends or the quit command: it reads
// packets (waiting at most until the next frame is due), hands them to
// Packet, and calls Frame. On a netchan.BatchConn (UDP on Linux) it
// sleeps until a frame or fragment is due and then reads every packet
// waiting at once, handing each over at its arrival time, and sends a
// frame's packets with one system call (runBatched); on any other conn
// it wakes for every packet. On the way out it tells every client
// "disconnect" and returns nil; it returns an error only if the conn
// fails. It does not close the conn.
func (s *Server) Run(ctx context.Context) error {
	if bc, ok := s.conn.(netchan.BatchConn); ok {
		return s.runBatched(ctx, bc)
	}
	start := time.Now()
	base := s.svs.now
	clock := func() int32 { return base + int32(time.Since(start)/time.Millisecond) }
	for {
		if ctx.Err() != nil || s.quit {
			s.Shutdown("Server shutting down")
			return nil
		}
		now := clock()
		wait := s.nextEvent(now, MaxReadWait)
		select {
		case <-s.wake:
			wait = 0
		default:
		}
		if err := s.conn.SetReadDeadline(start.Add(time.Duration(now-base+max(wait, 0)) * time.Millisecond)); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		n, from, err := s.conn.ReadFrom(s.readBuf[:])
		now = clock()
		s.beginEvent(now)
		switch {
		case err == nil:
			s.packetEvent(now, from, s.readBuf[:n])
		case errors.Is(err, os.ErrDeadlineExceeded):
		case errors.Is(err, net.ErrClosed):
			return fmt.Errorf("server: %w", err)
		default:
			// ICMP errors and the like: note them and go on.
			s.svs.stats.BadPackets++
		}
		s.frameEvent(now)
	}
}

// nextEvent returns how long after real time now something is due: the
// next frame or the next paced fragment, or limit if neither comes
// sooner; 0 or less when one is already due. It compares delays, not
// times, so it stays right when the real-time clock wraps (after 24.8
// days of uptime).
func (s *Server) nextEvent(now, limit int32) int32 {
	wait := limit
	if s.sv != nil {
		wait = min(wait, s.frameMsec()-s.svs.residual)
	}
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.chan_ != nil && c.chan_.HasUnsentFragments() {
			wait = min(wait, c.nextFragmentTime-now)
		}
	}
	return wait
}

// frameMsec returns the length of a server frame.
func (s *Server) frameMsec() int32 { return int32(1000 / s.cfg.FPS) }

func (s *Server) setNow(now int32) {
	s.svs.now = now
	if !s.svs.started {
		s.svs.started = true
		s.svs.lastFrameNow = now
	}
}

// Frame runs the server up to real time now (milliseconds; any origin,
// never going back): queued console commands, as many server frames as
// are due (each advancing the frame clock by 1000/sv_fps ms and running
// the game), then timeouts, pings and the snapshots that are due, and
// finally the fragments the clients' rates allow.
// On a netchan.BatchConn, everything it sends goes out together when it
// returns.
func (s *Server) Frame(now int32) {
	s.beginBatch()
	defer s.endBatch()
	s.setNow(now)
	s.runQueue()
	s.masterHeartbeat()
	elapsed := now - s.svs.lastFrameNow
	s.svs.lastFrameNow = now
	if s.sv == nil {
		s.svs.residual = 0
		s.pumpFragments()
		return
	}
	if elapsed > 0 {
		s.svs.residual += elapsed
	}
	if s.svs.residual > MaxFrameCatchUp+s.frameMsec() {
		s.logf("hitch of %d ms, dropping %d ms", s.svs.residual, s.svs.residual-MaxFrameCatchUp)
		s.svs.residual = MaxFrameCatchUp
	}
	ran := false
	for s.sv != nil && s.svs.residual >= s.frameMsec() {
		fm := s.frameMsec()
		if s.svs.time > proto.RestartTime-fm {
			s.restartClock()
		}
		s.svs.residual -= fm
		s.svs.time += fm
		s.sv.game.RunFrame(s.svs.time)
		s.hashFrame()
		ran = true
		s.runQueue() // what the game asked for (map_restart) runs between frames
	}
	if ran && s.sv != nil {
		for i := range s.svs.clients {
			s.applyUserinfoChange(&s.svs.clients[i])
		}
		s.checkTimeouts()
		s.calcPings()
		s.sendClientMessages()
	}
	s.pumpFragments()
}

// Packet handles one packet received at real time now from addr
// (Quake III's SV_PacketEvent): a connectionless command, or a message
// on a client's channel, matched by address and qport. Anything else is
// dropped.
func (s *Server) Packet(now int32, from netip.AddrPort, data []byte) {
	s.setNow(now)
	if oob.IsConnectionless(data) {
		s.svs.stats.OOBPacketsIn++
		s.svs.stats.OOBBytesIn += int64(len(data))
		s.connectionless(from, data)
		return
	}
	h, err := netchan.PeekHeader(data, netchan.ServerSide)
	if err != nil {
		s.svs.stats.BadPackets++
		return
	}
	c := s.clientByAddr(from, h.Qport)
	if c == nil {
		s.svs.stats.StrayPackets++
		return
	}
	body, ok, err := c.chan_.Process(data)
	if err != nil || !ok {
		return
	}
	if c.state == StateZombie {
		s.zombiePacket(c)
		return
	}
	c.lastPacketTime = now
	if s.cfg.ShowLoss && c.chan_.Dropped() > 0 {
		s.showLoss(c)
	}
	s.executeClientMessage(c, body)
}

// clientByAddr finds the client whose channel is from addr with qport.
// Unlike Quake III it does not follow a client whose port changed (NAT
// rebinding): a packet must come from the exact address, so another
// socket on the same host cannot take over a connection with a copied
// qport.
func (s *Server) clientByAddr(addr netip.AddrPort, qport uint16) *client {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.chan_ != nil && c.state != StateFree && c.chan_.Remote() == addr && c.chan_.Qport() == qport {
			return c
		}
	}
	return nil
}

// Stats returns the server's counters. Owner goroutine only: call it
// through Do while Run runs.
func (s *Server) Stats() Stats { return s.svs.stats }

// Shutdown sends the masters a final heartbeat, drops every client with
// reason, sending each its disconnect message, and shuts the game down.
// The server can load a map again afterwards.
func (s *Server) Shutdown(reason string) {
	s.finalHeartbeat()
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.connected() {
			s.dropClient(c, reason)
		}
	}
	if s.sv != nil {
		s.sv.game.Shutdown()
		s.sv = nil
	}
}

// logf writes a line to the log, or to the rcon reply being built.
// Control and format characters (terminal escapes, carriage returns,
// bidi overrides) that players put in names or text are shown escaped
// (safetext.Text, the clients' convention too).
func (s *Server) logf(format string, args ...any) {
	line := safetext.Text(strings.TrimSuffix(fmt.Sprintf(format, args...), "\n")) + "\n"
	if s.redirect != nil {
		s.redirect.WriteString(line)
	}
	_, _ = io.WriteString(s.logw, line)
}

// Map loads map name, as the map command does, and reports an error if it
// cannot be loaded.
func (s *Server) Map(name string) error { return s.spawnServer(name) }

// MapName returns the map being played, or "" before the first map.
func (s *Server) MapName() string {
	if s.sv == nil {
		return ""
	}
	return s.sv.name
}

// ServerID returns the server id of the map being played (it changes on
// every map and map_restart).
func (s *Server) ServerID() int32 {
	if s.sv == nil {
		return 0
	}
	return s.sv.serverID
}

// Time returns the frame clock: the server time of the last frame, which
// snapshots carry.
func (s *Server) Time() int32 { return s.svs.time }

// Game returns the game being played, or nil before the first map: the
// game.Game interface the engine calls (Quake III's gvm, reached through
// VM_Call), not the type behind it.
func (s *Server) Game() game.Game {
	if s.sv == nil {
		return nil
	}
	return s.sv.game
}

// FrameSyncStats returns the counters of the frame-sync Recorder of the
// running map (what it did with the clients' inputs) and its newest
// frame; ok is false with snapshots. Call it on the server goroutine
// (through Do while Run runs).
func (s *Server) FrameSyncStats() (st framesync.RecorderStats, newest int32, ok bool) {
	if s.sv == nil || s.sv.fs == nil {
		return st, 0, false
	}
	return s.sv.fs.Stats(), s.sv.fs.Newest(), true
}

// Config returns the settings in force.
func (s *Server) Config() Config { return s.cfg }

// Clients returns a copy of every slot that is not free.
func (s *Server) Clients() []ClientInfo {
	var out []ClientInfo
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state == StateFree {
			continue
		}
		out = append(out, s.clientInfo(c))
	}
	return out
}

// Client returns a copy of slot n's state.
func (s *Server) Client(n int) ClientInfo {
	if uint(n) >= bg.MaxClients {
		return ClientInfo{Num: n}
	}
	return s.clientInfo(&s.svs.clients[n])
}

func (s *Server) clientInfo(c *client) ClientInfo {
	ci := ClientInfo{
		Num: c.num, State: c.state, Bot: c.bot, Name: c.name, Userinfo: c.userinfo,
		Ping: c.ping, Rate: s.clientRate(c), SnapshotMsec: int(s.snapshotMsec(c)),
		Snapshots: c.stats.snapshots, SnapshotsFull: c.stats.snapshotsFull,
		SnapshotsRateDelayed: c.stats.snapshotsRateDelayed, SnapshotBytes: c.stats.snapshotBytes,
		Gamestates: c.stats.gamestates, CommandsExecuted: c.stats.commandsExecuted,
		CommandsFlooded: c.stats.commandsFlooded, UserinfoChanges: c.stats.userinfoChanges, Usercmds: c.stats.usercmds, UsercmdsClamped: c.stats.usercmdsClamped,
		UsercmdBasesMissing: c.stats.usercmdBasesMissing,
		ReliableSequence:    c.reliableSequence, ReliableAcknowledge: c.reliableAcknowledge,
		LastClientCommand: c.lastClientCommand,
		Reliable:          proto.ReliableQ3, ReliableBits: c.stats.reliableBits, AckBits: c.stats.ackBits,
	}
	if c.byID() {
		ci.Reliable = proto.ReliableAcks
	}
	if s.sv != nil && s.sv.fs != nil {
		ci.FrameSync = &FrameSyncInfo{
			Acked: c.fs.acked, FramesSent: c.fs.framesSent, FrameMessages: c.fs.frameMessages,
			WholeStates: c.fs.wholeSent, Requests: c.fs.requests, InputLead: s.sv.fs.InputLead(c.num),
		}
	}
	if s.sv != nil && s.sv.game.Connected(c.num) {
		ci.Name = s.sv.game.ClientName(c.num)
	}
	if c.chan_ != nil {
		ci.Addr = c.chan_.Remote()
		ci.Qport = c.chan_.Qport()
		ci.Netchan = c.chan_.Stats()
	}
	return ci
}

// clientRate returns c's rate clamped by sv_minRate and sv_maxRate.
func (s *Server) clientRate(c *client) int {
	lo, hi := max(s.cfg.MinRate, MinRateLimit), MaxRateLimit
	if s.cfg.MaxRate > 0 {
		hi = max(min(s.cfg.MaxRate, MaxRateLimit), lo)
	}
	return max(min(c.rate, hi), lo)
}

// snapshotMsec returns the least time between c's snapshots:
// 1000/min(snaps, sv_fps).
func (s *Server) snapshotMsec(c *client) int32 {
	snaps := max(min(c.snaps, s.cfg.FPS), 1)
	return int32(1000 / snaps)
}

// applyNetsim turns the sv_packet* cvars into the simulation's settings,
// wrapping the conn the first time one is set.
func (s *Server) applyNetsim() {
	cfg := netsim.Config{
		Delay:     time.Duration(s.cfg.PacketDelay) * time.Millisecond,
		Jitter:    time.Duration(s.cfg.PacketJitter) * time.Millisecond,
		Loss:      float64(s.cfg.PacketLoss) / 100,
		Duplicate: float64(s.cfg.PacketDup) / 100,
		Reorder:   float64(s.cfg.PacketReorder) / 100,
		BurstLoss: float64(s.cfg.PacketBurst) / 100,
	}
	if s.sim == nil {
		if cfg == (netsim.Config{}) {
			return
		}
		s.sim = netsim.Wrap(s.conn, cfg, s.svs.rng.Uint64())
		return
	}
	s.sim.SetConfig(cfg)
}

// SetCapture makes the server append every byte it hands its Huffman
// coder to *buf, before coding (nil stops): the captures cmd/hufftrain
// trains the Huffman table on. Owner goroutine only: call it through Do
// while Run runs.
func (s *Server) SetCapture(buf *[]byte) { s.w.Capture = buf }
