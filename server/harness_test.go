package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// memNet is an in-memory packet switch for tests that drive the server
// by hand: every address has a queue, WriteTo appends to the
// destination's queue, nothing is lost unless a test drops it. Packet
// buffers are reused, so steady traffic does not allocate.
type memNet struct {
	mu     sync.Mutex
	queues map[netip.AddrPort]*memQueue
	free   [][]byte
	// drop, if set, decides whether a packet is lost.
	drop func(from, to netip.AddrPort, p []byte) bool
}

type memQueue struct {
	pkts []memPacket
	head int
}

type memPacket struct {
	from netip.AddrPort
	data []byte
}

func newMemNet() *memNet { return &memNet{queues: make(map[netip.AddrPort]*memQueue)} }

// memConn is one address on a memNet. ReadFrom never blocks: an empty
// queue reads as a passed deadline.
type memConn struct {
	net  *memNet
	addr netip.AddrPort
}

func (n *memNet) conn(addr string) *memConn {
	return &memConn{net: n, addr: netip.MustParseAddrPort(addr)}
}

// pending returns the packets waiting for addr and empties its queue.
func (n *memNet) pending(addr netip.AddrPort) []memPacket {
	n.mu.Lock()
	defer n.mu.Unlock()
	q := n.queues[addr]
	if q == nil {
		return nil
	}
	out := slices.Clone(q.pkts[q.head:])
	q.pkts, q.head = q.pkts[:0], 0
	return out
}

func (c *memConn) WriteTo(p []byte, to netip.AddrPort) error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.drop != nil && n.drop(c.addr, to, p) {
		return nil
	}
	q := n.queues[to]
	if q == nil {
		q = &memQueue{}
		n.queues[to] = q
	}
	var buf []byte
	if k := len(n.free); k > 0 {
		buf, n.free = n.free[k-1], n.free[:k-1]
	}
	q.pkts = append(q.pkts, memPacket{c.addr, append(buf[:0], p...)})
	return nil
}

func (c *memConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	q := n.queues[c.addr]
	if q == nil || q.head == len(q.pkts) {
		if q != nil {
			q.pkts, q.head = q.pkts[:0], 0
		}
		return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
	}
	pkt := q.pkts[q.head]
	q.pkts[q.head] = memPacket{}
	q.head++
	k := copy(p, pkt.data)
	n.free = append(n.free, pkt.data)
	return k, pkt.from, nil
}

func (c *memConn) LocalAddr() netip.AddrPort       { return c.addr }
func (c *memConn) SetReadDeadline(time.Time) error { return nil }
func (c *memConn) Close() error                    { return nil }

// syncBuffer is a log writer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// harness drives a server on a memNet by hand, with a fake clock.
type harness struct {
	t    testing.TB
	net  *memNet
	conn *memConn
	srv  *Server
	log  *syncBuffer
	now  int32
	cls  []*testClient
	buf  []byte
}

const serverAddr = "10.0.0.1:27960"

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Seed = 42
	cfg.FloodProtect = 0
	return cfg
}

func newHarness(t testing.TB, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, net: newMemNet(), log: &syncBuffer{}, buf: make([]byte, 1<<16)}
	h.conn = h.net.conn(serverAddr)
	srv, err := New(h.conn, cfg, h.log)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	h.srv.Frame(h.now)
	return h
}

// deliver hands every packet waiting for the server to it.
func (h *harness) deliver() {
	for {
		n, from, err := h.conn.ReadFrom(h.buf)
		if err != nil {
			return
		}
		h.srv.Packet(h.now, from, h.buf[:n])
	}
}

// arena returns the game behind the server's game.Game, for what tests
// look at that the engine never asks (InGame, PlayerState).
func (h *harness) arena() *game.Arena {
	h.t.Helper()
	g, ok := h.srv.Game().(*game.Arena)
	if !ok {
		h.t.Fatalf("the server's game is %T, not a *game.Arena", h.srv.Game())
	}
	return g
}

// step advances the clock by ms: clients send (if they move), the server
// reads and runs its frame, clients read.
func (h *harness) step(ms int32) {
	for _, c := range h.cls {
		if c.auto {
			c.tick()
		}
	}
	h.now += ms
	h.deliver()
	h.srv.Frame(h.now)
	for _, c := range h.cls {
		c.drain()
	}
}

// run steps frames of 50 ms for d milliseconds.
func (h *harness) run(d int32) {
	for end := h.now + d; h.now < end; {
		h.step(50)
	}
}

// client adds a memNet client with its own address.
func (h *harness) client(name string) *testClient {
	addr := fmt.Sprintf("10.0.1.%d:%d", len(h.cls)+1, 40000+len(h.cls))
	c := newTestClient(h.t, h.net.conn(addr), netip.MustParseAddrPort(serverAddr), name)
	c.auto = true
	h.cls = append(h.cls, c)
	return c
}

// connect runs the handshake for c until it is active.
func (h *harness) connect(c *testClient) {
	h.t.Helper()
	c.start()
	for i := 0; i < 100 && !c.active(); i++ {
		h.step(50)
	}
	if !c.active() {
		h.t.Fatalf("%s did not become active: state %v, oob %q\nlog:\n%s", c.name, h.srv.Client(c.num).State, c.oob, h.log)
	}
}

// snapRecord is one snapshot a test client decoded.
type snapRecord struct {
	messageNum int32
	header     proto.SnapshotHeader
	usable     bool
	ps         bg.PlayerState
	ents       []bg.EntityState
	size       int
}

type snapFrame struct {
	messageNum int32
	valid      bool
	serverTime int32
	step       int32
	flags      uint8
	ps         bg.PlayerState
	ents       []bg.EntityState
}

// testClient is a minimal Tremor client written from the protocol: the
// handshake, the gamestate, server commands, snapshots with delta
// decoding, client commands and usercmds, scrambled as the server's
// systeminfo says. It is independent of client.
type testClient struct {
	t      testing.TB
	conn   netchan.Conn
	server netip.AddrPort
	name   string
	qport  uint16
	extra  string // more userinfo
	// editUserinfo, if set, changes the connect userinfo.
	editUserinfo func(string) string
	auto         bool // the harness ticks it every step
	// sendMoves makes tick send usercmds (else only acknowledgements).
	sendMoves bool
	noDelta   bool
	// based codes the first usercmd of a packet from the acknowledged
	// snapshot's player state (proto.UsercmdBase), as the real client
	// does, when it decoded that snapshot.
	based bool
	// holdAcks keeps acknowledging an old message (to age the delta base).
	holdAck  int32
	protocol int

	challenge int32
	ch        *netchan.Chan
	num       int

	haveGamestate bool
	gamestateSeq  int32
	gs            proto.Gamestate
	serverID      int32
	scramble      bool
	gamestates    int

	messageAck       int32
	serverCmdSeq     int32
	serverCmds       [proto.MaxReliableCommands]string
	received         []string // server commands in sequence order
	gaps             int
	clientSeq        int32 // last client command queued
	clientAcked      int32 // last client command the server acknowledged
	clientCmds       [proto.MaxReliableCommands]string
	disconnectReason string
	disconnected     bool

	frames   [proto.PacketBackup]snapFrame
	snaps    []snapRecord
	lastSnap snapRecord
	cmdTime  int32
	cmds     []bg.UserCmd

	oob     []string
	prints  []string
	errs    []error
	packets int
	bytesIn int
	slots   int // server command ring slots received

	// Map download (download_test.go): the header carries the
	// downloading server id while downloading is set; blocks received.
	downloading bool
	blocks      []proto.Download

	// State hashes (statehash_test.go), with the snapshot before each.
	hashes []hashRecord
}

func newTestClient(t testing.TB, conn netchan.Conn, server netip.AddrPort, name string) *testClient {
	c := &testClient{t: t, conn: conn, server: server, name: name, qport: uint16(len(name)*997 + 1234),
		sendMoves: true, holdAck: -1, protocol: proto.Version, num: -1}
	c.gs.Reset()
	return c
}

func (c *testClient) sendOOB(text string) {
	_ = c.conn.WriteTo(oob.Packet(text), c.server)
}

// start begins the handshake.
func (c *testClient) start() { c.sendOOB(oob.FormatGetChallenge(int32(c.qport) + 1)) }

func (c *testClient) userinfo() string {
	ui := `\name\` + c.name + `\rate\25000\snaps\20\protocol\` + strconv.Itoa(c.protocol) +
		`\qport\` + strconv.Itoa(int(c.qport)) + `\challenge\` + strconv.Itoa(int(c.challenge))
	ui += c.extra
	if c.editUserinfo != nil {
		ui = c.editUserinfo(ui)
	}
	return ui
}

func (c *testClient) connect() {
	text, err := oob.FormatConnect(c.userinfo())
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendOOB(text)
}

func (c *testClient) active() bool {
	return c.haveGamestate && len(c.snaps) > 0 && c.lastSnap.header.Flags&proto.SnapNotActive == 0
}

// drain reads every waiting packet.
func (c *testClient) drain() {
	buf := make([]byte, 1<<16)
	for {
		n, from, err := c.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if from != c.server {
			continue
		}
		c.handle(buf[:n])
	}
}

func (c *testClient) handle(p []byte) {
	c.packets++
	c.bytesIn += len(p)
	if oob.IsConnectionless(p) {
		text, err := oob.Parse(p)
		if err != nil {
			c.errs = append(c.errs, err)
			return
		}
		c.oob = append(c.oob, text)
		switch cmd := oob.Command(text); {
		case strings.EqualFold(cmd, oob.CmdChallengeResponse):
			ch, clientCh, _, err := oob.ParseChallengeResponse(text)
			if err == nil && c.ch == nil && clientCh == int32(c.qport)+1 {
				c.challenge = ch
				c.connect()
			}
		case strings.EqualFold(cmd, oob.CmdConnectResponse):
			if c.ch == nil {
				c.ch = netchan.New(c.conn, c.server, netchan.ClientSide, c.qport)
				c.sendPacket() // the first packet asks for the gamestate
			}
		case strings.EqualFold(cmd, oob.CmdPrint):
			msgText, _ := oob.ParsePrint(text)
			c.prints = append(c.prints, msgText)
		}
		return
	}
	if c.ch == nil {
		return
	}
	body, ok, err := c.ch.Process(p)
	if err != nil || !ok {
		return
	}
	seq := int32(c.ch.IncomingSequence())
	c.parse(body, seq)
}

func (c *testClient) parse(body []byte, seq int32) {
	// Acknowledge the message even if it cannot be read (a scrambled one
	// before the gamestate): that is how the server learns the gamestate
	// was lost.
	c.messageAck = seq
	r := msg.NewReader(body, msg.Huffman)
	ack := proto.ReadReliableAck(r)
	if c.scramble {
		proto.ScrambleServerMessage(body, uint32(c.challenge), uint32(seq), c.clientCmds[ack&(proto.MaxReliableCommands-1)])
	}
	if r.Err() != nil {
		c.errs = append(c.errs, r.Err())
		return
	}
	c.clientAcked = max(c.clientAcked, ack)
	for {
		op := r.ReadUint8()
		if r.Err() != nil {
			c.errs = append(c.errs, fmt.Errorf("message %d: %w", seq, r.Err()))
			return
		}
		switch op {
		case proto.SvcEOF:
			return
		case proto.SvcNop:
		case proto.SvcServerCommand:
			n, text := proto.ReadServerCommand(r)
			if r.Err() != nil {
				continue
			}
			if n <= c.serverCmdSeq {
				continue
			}
			if n-c.serverCmdSeq > proto.MaxReliableCommands {
				// Garbage, as the real client judges it: a message
				// scrambled with a gamestate's setting not yet received.
				c.errs = append(c.errs, fmt.Errorf("message %d: server command %d beyond the window", seq, n))
				return
			}
			if n != c.serverCmdSeq+1 {
				c.gaps++
			}
			c.serverCmdSeq = n
			c.serverCmds[n&(proto.MaxReliableCommands-1)] = text
			c.slots++
			// A slot carries one or more commands.
			for line := range proto.SplitCommands(text) {
				c.received = append(c.received, line)
				if args := cmdargs.Tokenize(line); args.Argv(0) == "disconnect" {
					c.disconnected = true
					c.disconnectReason = args.Argv(1)
				}
			}
		case proto.SvcGamestate:
			proto.ReadGamestate(r, &c.gs)
			if r.Err() != nil {
				continue
			}
			c.haveGamestate = true
			c.gamestates++
			c.gamestateSeq = seq
			// A new gamestate starts the usercmds again, as a client's
			// clearState does: a restarted clock's times start low.
			c.cmdTime, c.cmds = 0, c.cmds[:0]
			c.num = int(c.gs.ClientNum)
			c.serverCmdSeq = c.gs.CommandSequence
			sys := c.gs.Configstrings[bg.CSSystemInfo]
			id, _ := strconv.Atoi(infostr.ValueForKey(sys, "sv_serverid"))
			c.serverID = int32(id)
			c.scramble = infostr.ValueForKey(sys, "sv_scramble") == "1"
			for i := range c.frames {
				c.frames[i] = snapFrame{messageNum: -1}
			}
		case proto.SvcDownload:
			var d proto.Download
			var buf [proto.DownloadBlockSize]byte
			proto.ReadDownload(r, &d, &buf)
			if r.Err() != nil {
				c.errs = append(c.errs, fmt.Errorf("message %d: %w", seq, r.Err()))
				return
			}
			d.Data = append([]byte(nil), d.Data...)
			c.blocks = append(c.blocks, d)
		case proto.SvcStateHash:
			var sh proto.StateHash
			proto.ReadStateHash(r, &sh)
			if r.Err() != nil {
				c.errs = append(c.errs, fmt.Errorf("message %d: %w", seq, r.Err()))
				return
			}
			c.hashes = append(c.hashes, hashRecord{sh: sh, snap: c.lastSnap, messageNum: seq})
		case proto.SvcSnapshot:
			h := proto.ReadSnapshotHeader(r)
			var fromPS *bg.PlayerState
			var fromEnts []bg.EntityState
			usable := true
			if h.DeltaNum != 0 {
				base := seq - int32(h.DeltaNum)
				f := &c.frames[base&proto.PacketMask]
				if f.messageNum != base || !f.valid {
					usable = false
				} else {
					fromPS, fromEnts = &f.ps, f.ents
					h.Resolve(f.serverTime, f.step, f.flags)
				}
			}
			var ps bg.PlayerState
			ents := proto.ReadSnapshotBody(r, h, fromPS, fromEnts, &c.gs.Baselines, &ps, make([]bg.EntityState, 0, proto.MaxSnapshotEntities))
			if r.Err() != nil {
				continue
			}
			rec := snapRecord{messageNum: seq, header: h, usable: usable, ps: ps, ents: ents, size: len(body)}
			c.frames[seq&proto.PacketMask] = snapFrame{messageNum: seq, valid: usable, serverTime: h.ServerTime, step: h.Step, flags: h.Flags, ps: ps, ents: ents}
			c.snaps = append(c.snaps, rec)
			c.lastSnap = rec
		default:
			c.errs = append(c.errs, fmt.Errorf("message %d: bad op %d", seq, op))
			return
		}
	}
}

// command queues a reliable client command.
func (c *testClient) command(text string) {
	c.clientSeq++
	c.clientCmds[c.clientSeq&(proto.MaxReliableCommands-1)] = text
}

// tick sends one packet: acknowledgements, unacknowledged commands and,
// once the gamestate is in, a usercmd.
func (c *testClient) tick() {
	if c.ch == nil || c.disconnected {
		return
	}
	if c.haveGamestate && c.sendMoves {
		c.cmdTime = max(c.cmdTime+50, c.lastSnap.header.ServerTime)
		cmd := bg.UserCmd{ServerTime: c.cmdTime, RightMove: 127}
		c.cmds = append(c.cmds, cmd)
		if len(c.cmds) > 8 {
			c.cmds = append(c.cmds[:0], c.cmds[len(c.cmds)-8:]...)
		}
	}
	c.sendPacket()
}

// usercmdBase returns the usercmd base of message ack if c.based and it
// decoded that message's snapshot, else nil.
func (c *testClient) usercmdBase(ack int32) *bg.UserCmd {
	if !c.based {
		return nil
	}
	for i := len(c.snaps) - 1; i >= 0; i-- {
		if s := &c.snaps[i]; s.messageNum == ack && s.usable {
			b := proto.UsercmdBase(&s.ps)
			return &b
		}
	}
	return nil
}

// sendPacket writes a client message with the queued usercmds (the last
// two, as cl_packetdup 1 would).
func (c *testClient) sendPacket() {
	w := msg.NewWriter(make([]byte, netchan.MaxMsgLen), msg.Huffman)
	ack := c.messageAck
	if c.holdAck >= 0 {
		ack = c.holdAck
	}
	sid := int32(0)
	if c.haveGamestate {
		sid = c.serverID
	}
	if c.downloading {
		sid = proto.DownloadServerID(sid)
	}
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: sid, MessageAcknowledge: ack, ReliableAcknowledge: c.serverCmdSeq})
	for seq := c.clientAcked + 1; seq <= c.clientSeq; seq++ {
		proto.WriteClientCommand(w, seq, c.clientCmds[seq&(proto.MaxReliableCommands-1)])
	}
	lastCmd := c.serverCmds[c.serverCmdSeq&(proto.MaxReliableCommands-1)]
	if c.haveGamestate && len(c.cmds) > 0 && !c.downloading {
		from := max(0, len(c.cmds)-2)
		key := proto.UsercmdKey(uint32(c.gs.ChecksumFeed), uint32(ack), lastCmd)
		proto.WriteMove(w, key, c.usercmdBase(ack), c.cmds[from:], c.noDelta)
	}
	w.WriteUint8(proto.ClcEOF)
	if w.Err() != nil {
		c.t.Fatal(w.Err())
	}
	body := w.Bytes()
	if c.scramble && c.haveGamestate {
		proto.ScrambleClientMessage(body, uint32(c.challenge), lastCmd)
	}
	if err := c.ch.Transmit(body); err != nil {
		c.t.Fatal(err)
	}
}

// commandsMatching returns the received server commands that start with
// prefix.
func (c *testClient) commandsMatching(prefix string) []string {
	var out []string
	for _, s := range c.received {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// udpServer runs a server on a real UDP socket on 127.0.0.1 until the
// test ends.
type udpServer struct {
	srv  *Server
	log  *syncBuffer
	done chan error
	stop func()
}

func startUDPServer(t testing.TB, cfg Config, setup func(*Server)) *udpServer {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startServerOn(t, conn, cfg, setup)
}

func startServerOn(t testing.TB, conn netchan.Conn, cfg Config, setup func(*Server)) *udpServer {
	t.Helper()
	u := &udpServer{log: &syncBuffer{}, done: make(chan error, 1)}
	srv, err := New(conn, cfg, u.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(srv)
	}
	u.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	go func() { u.done <- srv.Run(ctx) }()
	u.stop = func() {
		cancel()
		select {
		case err := <-u.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return")
		}
		srv.Close()
	}
	t.Cleanup(u.stop)
	return u
}

// udpClient is a test client on its own UDP socket, driven from the test
// goroutine in real time.
func udpClient(t testing.TB, server netip.AddrPort, name string) *testClient {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return newTestClient(t, conn, server, name)
}

// poll runs c in real time (reading, and sending a packet every 50 ms)
// until cond holds or timeout passes; it reports whether cond held.
func (c *testClient) poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	nextSend := time.Now()
	buf := make([]byte, 1<<16)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		if time.Now().After(nextSend) {
			c.tick()
			nextSend = time.Now().Add(50 * time.Millisecond)
		}
		_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		n, from, err := c.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return false
			}
			continue
		}
		if from == c.server {
			c.handle(buf[:n])
		}
	}
	return cond()
}
