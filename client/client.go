package client

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/netsim"
	"tremor/net/oob"
)

// Sizes of the client's rings and limits of what it sends.
const (
	// CmdBackup is how many usercmds the client keeps, for packet
	// duplication and for prediction (CMD_BACKUP). A power of two.
	CmdBackup = 64
	// CmdMask masks a command number into the CmdBackup ring.
	CmdMask = CmdBackup - 1
	// MaxParseEntities is the size of the ring that holds the entities of
	// the snapshots in the snapshot ring (MAX_PARSE_ENTITIES): room for
	// proto.PacketBackup snapshots of proto.MaxSnapshotEntities each.
	MaxParseEntities = proto.PacketBackup * proto.MaxSnapshotEntities
	// MaxClientCommandLen is the longest reliable command the client
	// sends, the longest string a message carries.
	MaxClientCommandLen = msg.MaxStringChars
	// MaxUnackedCommandBytes bounds the text of the reliable commands not
	// yet acknowledged, each counted with its 6 bytes of framing, so that
	// a usercmd packet carrying all of them always fits in a message.
	MaxUnackedCommandBytes = 8192
	// MaxReceivedPacket is the read buffer of one packet; longer ones are
	// truncated (and then fail netchan's checks).
	MaxReceivedPacket = 2048
	// inboxLen is how many received packets wait for the next Frame
	// before new ones are dropped, as a full socket buffer would.
	inboxLen = 128
	// commandFraming is what a reliable command costs besides its text:
	// the op, the sequence and the string terminator.
	commandFraming = 6
	// ConnectsPerChallenge is how many connect packets go out with one
	// challenge. When all of them go unanswered, the server may have
	// forgotten the challenge (it expires, and a flood of getchallenge
	// requests can push it out), so the client asks for a fresh one.
	ConnectsPerChallenge = 3
)

// Errors AddReliableCommand returns.
var (
	ErrNotConnected    = errors.New("client: not connected to a server")
	ErrCommandTooLong  = errors.New("client: reliable command too long")
	ErrCommandBadByte  = errors.New("client: reliable command contains a zero byte")
	ErrCommandRingFull = errors.New("client: reliable command ring full: the server has not acknowledged the earlier commands")
)

// Hooks are optional callbacks the client makes from inside Frame (and
// from Disconnect), on the caller's goroutine. They must not call back
// into the Client, except for its read-only methods.
type Hooks struct {
	// StateChange is called on every change of connection state.
	StateChange func(from, to State)
	// ServerCommand is called for every reliable server command, in
	// sequence order and exactly once, after the engine has executed its
	// own part (configstrings, disconnect, map_restart). text is as the
	// server sent it: pass what is shown of it through safetext.
	ServerCommand func(seq int32, text string)
	// Snapshot is called for every snapshot parsed, usable or not. ps and
	// ents are valid during the call only.
	Snapshot func(info SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState)
	// Print is called with the text of a connectionless print from the
	// server (a refusal to connect, for instance), its control characters
	// but newlines written as escapes (safetext.Text).
	Print func(text string)
}

// SnapshotInfo describes one parsed snapshot.
type SnapshotInfo struct {
	MessageNum int32 // netchan sequence of the message that carried it
	ServerTime int32
	DeltaNum   int32 // message number it was delta-coded from; -1 for a full snapshot
	Flags      int32 // proto.Snap* flags
	Bytes      int   // size of the message that carried it, without the netchan header
	// EntitiesChanged counts the entities the delta spent bits on:
	// changed, added or removed against its base (all of them when full).
	EntitiesChanged int
	// Valid: decoded from a usable base. An invalid snapshot was read and
	// thrown away; the client asks for a full one next.
	Valid bool
}

// snapshot is one entry of the snapshot ring (Quake III's clSnapshot_t).
type snapshot struct {
	valid       bool // decoded from a usable base: a possible delta base
	usable      bool // newer than the snapshot before it: shown to cgame
	messageNum  int32
	deltaNum    int32
	serverTime  int32
	flags       int32
	ping        int32
	serverCmd   int32 // server command sequence when it was parsed
	firstEntity int64 // virtual index into parseEntities
	numEntities int
	ps          bg.PlayerState
	arrived     int32 // realtime it was parsed at
	step        int32 // the server's time per message (proto.SnapshotHeader.Step)
}

// outPacket remembers one usercmd packet sent (Quake III's outPacket_t).
type outPacket struct {
	realtime   int32 // when it was sent
	serverTime int32 // server time of its newest command
	cmdNumber  int32 // newest command number when it was sent
}

// connection is the client's state for one connection, from Connect to
// the next Connect (Quake III's clientConnection_t, clc). Connect replaces
// it whole; it outlives the drop that ends the connection, so Dropped,
// EverActive and the configstrings stay readable.
type connection struct {
	serverAddr       netip.AddrPort
	ch               *netchan.Chan
	challenge        int32 // the server's, from challengeResponse
	clientChallenge  int32 // ours, in getchallenge; new for every challenge asked
	challenges       int   // challenges accepted by this connection attempt
	connects         int   // connect packets sent by this connection attempt
	resendNow        bool
	connectTime      int32
	connectPackets   int    // getchallenge or connect packets sent in this state
	serverMessage    string // last connectionless print
	lastPacketTime   int32
	lastPacketSent   int32
	timeoutCount     int
	everActive       bool
	dropKind         DropKind
	dropReason       string
	userinfoModified bool
	scramble         bool

	serverMessageSequence int32
	reliableSequence      int32
	reliableAcknowledge   int32
	reliableBytes         int
	reliableCommands      [proto.MaxReliableCommands]string
	serverCommandSequence int32
	serverCommands        [proto.MaxReliableCommands]string
	bcs                   proto.BigConfigstring
	gs                    proto.Gamestate // the configstrings change by server commands

	acks *clientAcks // the acks carrier (acks.go), nil on the rings

	dl     *download // the map download in progress (download.go), nil if none
	dlBuf  [proto.DownloadBlockSize]byte
	dlUsed downloadUsage // what the connection's downloads used (download.go)
}

// newConnection returns the state of a connection starting at realtime
// now (what CL_Connect_f clears of clc).
func newConnection(now int32) connection {
	conn := connection{lastPacketTime: now, lastPacketSent: now}
	conn.gs.Reset()
	return conn
}

// active is the client's state for one gamestate: from a gamestate to the
// next one, or to the end of the connection (Quake III's
// clientActive_t, cl, which CL_ClearState zeroes): the snapshots, the
// usercmds, the time synchronisation and the cgame.
type active struct {
	serverID     int32
	world        *tilemap.Map
	snap         snapshot // the newest usable snapshot
	lastValid    int32    // message number of the newest valid snapshot, 0 if none
	newSnapshots bool
	snapshots    [proto.PacketBackup]snapshot
	parseEntNum  int64
	cmdNumber    int32
	cmds         [CmdBackup]bg.UserCmd
	outPackets   [proto.PacketBackup]outPacket

	serverTime      int32 // render time: estimate minus cl_timeNudge
	oldServerTime   int32
	serverTimeDelta int32 // server time minus realtime
	extrapolated    bool  // a frame since the last snapshot ran past it

	cg *cgame.CGame // the client game of this gamestate, nil until made (cgame.go)

	fs *frameSync // frame sync (framesync.go); nil with snapshots
}

// packet is a received packet waiting for Frame.
type packet struct {
	n    int
	from netip.AddrPort
	at   time.Duration // when the reader got it, on the reader's clock (since epoch)
	buf  [MaxReceivedPacket]byte
}

// Client is one client engine: one connection to one server at a time.
// It is not safe for concurrent use: one goroutine calls Frame and the
// other methods (a goroutine of its own reads the socket).
type Client struct {
	// Hooks are called from Frame; set them before the first Frame.
	Hooks Hooks

	cfg   Config
	out   *countConn   // what the client writes to: counts, then impairs
	sim   *netsim.Conn // the impairments of cl_packetdelay etc.
	inbox chan *packet
	free  chan *packet
	done  chan struct{} // closed when the reader returns

	closeOnce sync.Once
	closed    atomic.Bool
	inboxDrop atomic.Uint64
	received  atomic.Uint64 // packets the reader queued (tests wait on it)

	// cls (clientStatic_t): the whole run, here and below conn and
	// active.
	realtime  int32
	frameMsec int32
	lastNow   time.Duration // the latest time given to Frame
	state     State
	stats     Stats
	// ackScratch takes a message block a server sends before its packet
	// acks, which the message is then refused for.
	ackScratch [proto.MaxMessagesBlock]byte
	qport      uint16
	maps       map[string]*tilemap.Map
	oobBuf     []byte
	args       cmdargs.Args
	lastError  error
	parseEnts  []bg.EntityState // MaxParseEntities; active.parseEntNum indexes it

	conn   connection // clc: one connection (Connect to the next Connect)
	active active     // cl: one gamestate (a gamestate to the next, or to the end of the connection)

	auto autoNudge // cl_autoNudge: gap samples and the delay chosen (autonudge.go)

	// The frame-sync counters of the last frame-sync gamestate that
	// ended (framesync.go).
	fsLast   FrameSyncStats
	fsLastOK bool

	journal journalState // the event journal's hooks (journal.go)

	hash hashCheck // the server's snapshot state hashes checked (statehash.go)

	// Demos (demo_*.go).
	rec            *recorder // the recording in progress, nil if none
	playback       bool      // the messages come from a demo (Playback)
	newGamestate   bool      // a gamestate was parsed in the message being handled
	autoRecordDemo bool      // cl_autoRecordDemo
	demoDir        string    // where cl_autoRecordDemo writes

	// Diagnostics (netgraph.go, shownet.go).
	epoch   time.Time     // origin of the reader's arrival times
	arrival time.Duration // arrival time of the packet being handled
	graph   netGraph
	shownet shownet

	// fields counts the delta fields c.w and c.r code (FieldStats).
	fields msg.FieldStats

	// scratch
	w       msg.Writer
	r       msg.Reader
	wbuf    [netchan.MaxMsgLen]byte
	moveBuf [proto.MaxPacketUsercmds]bg.UserCmd
	cmdBase bg.UserCmd // the first usercmd's base, for usercmdBase
	ps      bg.PlayerState
}

// New returns a disconnected client that talks through conn, which it
// owns from now on (Close closes it), and starts the goroutine that reads
// it. The packets it sends pass through a netsim.Conn whose impairments
// the Config sets.
func New(conn netchan.Conn, cfg Config) *Client {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))
	c := &Client{
		cfg:       cfg,
		inbox:     make(chan *packet, inboxLen),
		free:      make(chan *packet, inboxLen),
		done:      make(chan struct{}),
		qport:     uint16(rng.Uint32N(0xFFFF)), // never 0xFFFF: netchan.ValidQport
		maps:      make(map[string]*tilemap.Map),
		oobBuf:    make([]byte, 0, oob.MaxPacketLen),
		parseEnts: make([]bg.EntityState, MaxParseEntities),
	}
	for range inboxLen {
		c.free <- new(packet)
	}
	c.w.SetFieldStats(&c.fields)
	c.r.SetFieldStats(&c.fields)
	c.sim = netsim.Wrap(conn, cfg.netsim(), cfg.Seed^0x9e3779b97f4a7c15)
	c.out = &countConn{Conn: c.sim, c: c}
	c.epoch = time.Now()
	c.initShownet()
	c.conn.gs.Reset()
	go c.readLoop(conn)
	return c
}

// MaxCloseWait bounds how long Close waits for the packets the
// impairments (cl_packetdelay...) still hold, the last disconnect
// among them.
const MaxCloseWait = time.Second

// Close disconnects if needed and closes the connection, once the
// packets held back by cl_packetdelay and its kin have left (at most
// MaxCloseWait). The client is unusable afterwards.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.state != Disconnected {
			c.Disconnect()
		}
		for deadline := time.Now().Add(MaxCloseWait); c.sim.Stats().QueuedBytes > 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		c.closed.Store(true)
		err = c.sim.Close()
		<-c.done
	})
	return err
}

// readLoop reads packets into free buffers and queues them for Frame. A
// packet that finds no free buffer is dropped.
func (c *Client) readLoop(conn netchan.Conn) {
	defer close(c.done)
	var spill [MaxReceivedPacket]byte
	for {
		var p *packet
		select {
		case p = <-c.free:
		default:
		}
		buf := spill[:]
		if p != nil {
			buf = p.buf[:]
		}
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if p != nil {
				c.free <- p
			}
			if c.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				time.Sleep(time.Millisecond) // a transient socket error: do not spin
			}
			continue
		}
		if p == nil {
			c.inboxDrop.Add(1)
			continue
		}
		p.n, p.from, p.at = n, from, time.Since(c.epoch)
		c.inbox <- p // never blocks: the inbox holds every buffer
		c.received.Add(1)
	}
}

// readPackets handles every packet that arrived since the last frame.
func (c *Client) readPackets() {
	if c.replayPackets() {
		return
	}
	for {
		select {
		case p := <-c.inbox:
			c.arrival = p.at
			c.journalPacket(p)
			c.packetEvent(p.from, p.buf[:p.n])
			c.free <- p
		default:
			return
		}
	}
}

// countConn counts what the client sends (UDP payload bytes), before
// the impairments decide its fate.
type countConn struct {
	netchan.Conn
	c *Client
}

func (c *countConn) WriteTo(p []byte, to netip.AddrPort) error {
	cl := c.c
	cl.stats.PacketsUp++
	cl.stats.BytesUp += uint64(len(p))
	cl.graph.packetOut(cl.realtime, len(p))
	return c.Conn.WriteTo(p, to)
}

// FragmentSize implements netchan.FragmentSizer by asking the Conn it
// counts for (netsim's, which asks the transport's): the channel to a
// WebRTC server cuts and reads fragments at the size the server uses for
// this client.
func (c *countConn) FragmentSize(to netip.AddrPort) int {
	if fs, ok := c.Conn.(netchan.FragmentSizer); ok {
		return fs.FragmentSize(to)
	}
	return 0
}

// Config returns the settings in force, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// SetConfig changes the settings at once. A changed name, rate, snaps
// or carrier of reliable commands (Reliable, which the server applies
// from the next gamestate) is sent to the server as a userinfo command;
// the impairments apply to the next packet sent.
func (c *Client) SetConfig(cfg Config) {
	cfg = cfg.withDefaults()
	old := c.cfg
	c.cfg = cfg
	if cfg.Name != old.Name || cfg.Rate != old.Rate || cfg.Snaps != old.Snaps || cfg.Reliable != old.Reliable {
		c.conn.userinfoModified = true
	}
	c.sim.SetConfig(cfg.netsim())
	c.applyShownet()
}

// State returns the connection state.
func (c *Client) State() State { return c.state }

// ServerAddr returns the address of the server the client connects or
// connected to.
func (c *Client) ServerAddr() netip.AddrPort { return c.conn.serverAddr }

// LocalAddr returns the client's own address.
func (c *Client) LocalAddr() netip.AddrPort { return c.sim.LocalAddr() }

// Qport returns the client's qport.
func (c *Client) Qport() uint16 { return c.qport }

// Dropped tells how the last connection ended and why; NotDropped while
// connected or before the first connection. The reason often holds the
// server's words (a kick, a refusal); its control characters are written
// as escapes (safetext.Line), so it can be printed or drawn as it is.
func (c *Client) Dropped() (DropKind, string) { return c.conn.dropKind, c.conn.dropReason }

// EverActive reports whether the current or last connection reached the
// Active state.
func (c *Client) EverActive() bool { return c.conn.everActive }

// LastError returns the last problem met in the server's messages (a
// malformed message, a configstring out of range), for diagnostics.
func (c *Client) LastError() error { return c.lastError }

// Map returns the map of the current gamestate, nil before one.
func (c *Client) Map() *tilemap.Map { return c.active.world }

// ClientNum returns the client's number in the current gamestate.
func (c *Client) ClientNum() int32 { return c.conn.gs.ClientNum }

// ServerID returns the server id of the current gamestate.
func (c *Client) ServerID() int32 { return c.active.serverID }

// Realtime returns the client's clock in milliseconds, as of the last
// Frame.
func (c *Client) Realtime() int32 { return c.realtime }

// Connect starts connecting to the server at addr (the connect command),
// disconnecting first from any other server. The first getchallenge goes
// out at the next Frame.
func (c *Client) Connect(addr netip.AddrPort) {
	if c.state != Disconnected {
		c.drop(DropByUser, "connecting to "+addr.String())
	}
	c.resetConnection()
	c.conn.serverAddr = addr
	c.conn.clientChallenge = c.newChallenge()
	c.conn.resendNow = true
	c.setState(Connecting)
}

// newClientChallenge returns a random positive client challenge. It comes
// from crypto/rand, not from the seeded generator, so that someone who
// forges the server's address cannot predict it.
func newClientChallenge() int32 {
	var b [4]byte
	for {
		_, _ = crand.Read(b[:]) // never fails (Go 1.24+)
		if n := int32(binary.LittleEndian.Uint32(b[:]) & math.MaxInt32); n != 0 {
			return n
		}
	}
}

// askChallengeAgain goes back to Connecting with a fresh client
// challenge, after the server refused the challenge or left
// ConnectsPerChallenge connects unanswered; it gives up instead when
// ConnectTries challenges have been tried.
func (c *Client) askChallengeAgain() {
	if c.conn.challenges >= c.cfg.ConnectTries {
		reason := "server " + c.conn.serverAddr.String() + " did not accept the connection after " + strconv.Itoa(c.conn.connects) + " tries"
		if c.conn.serverMessage != "" {
			reason += ": " + c.conn.serverMessage
		}
		c.drop(DropError, reason)
		return
	}
	c.conn.challenge = 0
	c.conn.clientChallenge = c.newChallenge()
	c.conn.connectPackets = 0
	c.conn.resendNow = true
	c.setState(Connecting)
}

// Reconnect connects again to the last server (the reconnect command).
// It does nothing if the client never connected.
func (c *Client) Reconnect() {
	if !c.conn.serverAddr.IsValid() {
		return
	}
	addr := c.conn.serverAddr
	if c.state != Disconnected {
		c.drop(DropByUser, "reconnecting")
	}
	c.Connect(addr)
}

// Disconnect leaves the server (the disconnect command): the server is
// told with a reliable "disconnect", sent in three packets in case some
// are lost.
func (c *Client) Disconnect() {
	c.drop(DropByUser, "disconnected")
}

// drop ends the connection.
func (c *Client) drop(kind DropKind, reason string) {
	if c.state == Disconnected {
		return
	}
	if c.state >= Connected && c.conn.ch != nil {
		if c.conn.reliableSequence-c.conn.reliableAcknowledge < proto.MaxReliableCommands-1 {
			c.addCommand("disconnect")
		}
		for range 3 {
			c.writePacket()
		}
	}
	// The reason may quote the server (a disconnect command, a print):
	// every output shows it, so it is made safe once, here.
	c.conn.dropKind, c.conn.dropReason = kind, safetext.Line(reason)
	if c.rec != nil {
		if _, err := c.StopRecording(); err != nil {
			c.logf("stoprecord: %v", err)
		}
	}
	c.setState(Disconnected)
	c.clearState()
	c.conn.ch = nil
}

// setState changes the state and tells the StateChange hook.
func (c *Client) setState(s State) {
	old := c.state
	if old == s {
		return
	}
	c.state = s
	if s == Active {
		c.conn.everActive = true
	}
	if c.Hooks.StateChange != nil {
		c.Hooks.StateChange(old, s)
	}
}

// resetConnection forgets everything about the previous connection
// (Quake III's clc) and its gamestate (cl).
func (c *Client) resetConnection() {
	c.conn = newConnection(c.realtime)
	c.clearState()
}

// clearState forgets everything tied to one gamestate (Quake III's
// CL_ClearState): the cgame, snapshots, usercmds, the time
// synchronisation.
func (c *Client) clearState() {
	if st, ok := c.FrameSyncStats(); ok && c.active.fs != nil {
		c.fsLast, c.fsLastOK = st, true // kept for reports after the gamestate ends
	}
	c.active = active{}
	c.graph.resetJitter()
}

// Frame runs one client frame at time now (the time since any fixed
// origin; it never runs backwards) with the player's input for this
// frame (Quake III's CL_Frame): it reads the packets that arrived, checks
// for a timeout, stores input as a usercmd (its ServerTime is set here),
// sends a usercmd packet when one is due, resends the handshake and
// updates the server-time estimate.
func (c *Client) Frame(now time.Duration, input bg.UserCmd) {
	// The realtime is now in milliseconds modulo 2^32, and the frame's
	// length the difference, so that a client running 24.8 days goes on
	// past 2^31 ms (every use of the realtime is a difference); a clock
	// that went back gives a frame of 0.
	now = max(now, c.lastNow)
	c.lastNow = now
	rt := int32(int64(now / time.Millisecond))
	c.frameMsec = rt - c.realtime
	c.realtime = rt
	c.stats.Frames++
	c.stats.InboxDropped = c.inboxDrop.Load()

	c.readPackets()
	c.checkTimeout()
	c.checkUserinfo()
	if c.active.fs != nil {
		c.frameSyncFrame(input) // the frames due, their usercmds and the render time
	} else {
		c.createCmd(input)
	}
	c.downloadFrame()
	c.sendCmd()
	c.checkForResend()
	if c.active.fs == nil {
		c.setCGameTime()
	}
	c.cgameFrame()
}

// checkTimeout drops a connection whose server has been silent for
// cl_timeout over several frames (CL_CheckTimeout).
func (c *Client) checkTimeout() {
	if c.state < Connected {
		return
	}
	if time.Duration(c.realtime-c.conn.lastPacketTime)*time.Millisecond > c.cfg.Timeout {
		c.conn.timeoutCount++
		if c.conn.timeoutCount > 5 {
			c.drop(DropError, "server connection timed out")
		}
		return
	}
	c.conn.timeoutCount = 0
}

// checkUserinfo sends a changed userinfo (CL_CheckUserinfo).
func (c *Client) checkUserinfo() {
	if !c.conn.userinfoModified || c.state < Connected {
		return
	}
	if c.AddReliableCommand("userinfo "+cmdargs.Quote(c.userinfo())) == nil {
		c.conn.userinfoModified = false
	}
}

// userinfo returns the client's userinfo: name, rate, snaps, and the
// carrier of reliable commands it asks for when it is not Quake III's.
func (c *Client) userinfo() string {
	info := ""
	set := func(k, v string) {
		if s, err := infostr.SetValueForKey(info, k, v); err == nil {
			info = s
		}
	}
	set("name", sanitizeInfo(c.cfg.Name))
	set("rate", strconv.Itoa(c.cfg.Rate))
	set("snaps", strconv.Itoa(c.cfg.Snaps))
	if c.cfg.Reliable == proto.ReliableAcks {
		set(proto.ReliableKey, proto.ReliableAcks)
	}
	return info
}

// sanitizeInfo replaces the bytes an info value cannot hold.
func sanitizeInfo(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch == '\\' || ch == ';' || ch == '"' || ch < ' ' {
			b[i] = '_'
		}
	}
	if len(b) > 32 {
		b = b[:32]
	}
	return string(b)
}

// checkForResend sends getchallenge or connect every ResendInterval
// while the handshake is in progress (CL_CheckForResend). It gives up
// after ConnectTries getchallenge packets without an answer; after
// ConnectsPerChallenge connect packets without a connectResponse it asks
// for a fresh challenge, and gives up when ConnectTries challenges have
// been tried.
func (c *Client) checkForResend() {
	if c.state != Connecting && c.state != Challenging {
		return
	}
	if !c.conn.resendNow && time.Duration(c.realtime-c.conn.connectTime)*time.Millisecond < c.cfg.ResendInterval {
		return
	}
	if c.state == Challenging && c.conn.connectPackets >= ConnectsPerChallenge {
		c.askChallengeAgain()
		if c.state != Connecting {
			return
		}
	}
	if c.state == Connecting && c.conn.connectPackets >= c.cfg.ConnectTries {
		reason := "no answer from " + c.conn.serverAddr.String() + " after " + strconv.Itoa(c.conn.connectPackets) + " tries"
		if c.conn.serverMessage != "" {
			reason += ": " + c.conn.serverMessage
		}
		c.drop(DropError, reason)
		return
	}
	c.conn.resendNow = false
	c.conn.connectTime = c.realtime
	c.conn.connectPackets++
	switch c.state {
	case Connecting:
		c.sendOOB(oob.FormatGetChallenge(c.conn.clientChallenge))
	case Challenging:
		c.conn.connects++
		info := c.userinfo()
		for _, kv := range [...][2]string{
			{"protocol", strconv.Itoa(proto.Version)},
			{"qport", strconv.Itoa(int(c.qport))},
			{"challenge", strconv.Itoa(int(c.conn.challenge))},
		} {
			if s, err := infostr.SetValueForKey(info, kv[0], kv[1]); err == nil {
				info = s
			}
		}
		text, err := oob.FormatConnect(info)
		if err != nil {
			c.drop(DropError, "cannot build the connect request: "+err.Error())
			return
		}
		c.sendOOB(text)
	}
}

// sendOOB sends a connectionless packet to the server.
func (c *Client) sendOOB(text string) {
	c.oobBuf = oob.AppendPacket(c.oobBuf[:0], text)
	if c.cfg.ShowPackets {
		c.showConnectionless(netchan.Outgoing, len(c.oobBuf), text)
	}
	_ = c.out.WriteTo(c.oobBuf, c.conn.serverAddr) // a lost packet is resent
}
