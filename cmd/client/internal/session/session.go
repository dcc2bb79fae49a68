// Package session is the Tremor client without its window: the client
// engine (which runs the cgame), the cvars that drive them and, after a
// map command, the server engine embedded in the same process. cmd/client
// drives it once per frame and draws what it holds; tests drive it
// directly.
//
// The embedded server shares the client's console table (one console per
// process, as in Quake III): its cvars and commands are the table's, so a
// change made on the client's console, by a script, by the menu or by
// rcon on the server is one change, seen by both and saved with the
// client's settings when the cvar is archived. The server runs on the
// goroutine that calls Frame, which also executes the table: Frame hands
// it the packets that arrived and runs its frames before the client's,
// as Quake III's Com_Frame ran SV_Frame before CL_Frame.
package session

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
	"tremor/common/journal"
	"tremor/common/safetext"
	"tremor/lessons"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/server"
)

// Session is the game without the window: the client engine (which runs
// the cgame) and, after +map, the embedded server it talks to over the
// loopback netchan.
type Session struct {
	t      *console.Table
	stderr io.Writer
	seed   uint64

	srv     *server.Server
	srvConn *pollConn
	srvBase time.Duration  // the client time the server's clock starts from
	lastNow time.Duration  // the time of the last Frame
	lanAddr netip.AddrPort // the server's UDP port, if open
	webURL  string         // the page browsers on the LAN open to join it, if served
	pkt     []byte

	jn journalState // the event journal recorded or replayed (journal.go)

	c  *client.Client
	pb *client.Playback // a demo playing, instead of c
	// lastServer is the address the last connect joined, for a
	// reconnect after disconnect (reconnect.go).
	lastServer string

	cfg      Config        // the cvars' values (cvars.go)
	vars     *console.Vars // their binding
	onMaxFPS func()        // OnMaxFPS's

	names     [bg.MaxClients]string
	lastScore int32          // realtime of the last score request
	fsNotes   frameSyncNotes // what the snapshots' cvars do in frame sync (framesync_notes.go)

	dataDir string // where demos are recorded (DataDir/demos)
}

// SetDataDir sets the data directory: demos are recorded in its demos
// folder and found there by PlayDemo.
func (s *Session) SetDataDir(dir string) { s.dataDir = dir }

// DataDir returns the data directory.
func (s *Session) DataDir() string { return s.dataDir }

// PlayDemo leaves any game and plays the demo at path, or NAME in the
// data directory's demos folder when path is not a file.
func (s *Session) PlayDemo(path string) error {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		p, err := client.DemoPath(client.DemoDir(s.dataDir), path)
		if err != nil {
			return err
		}
		path = p
	}
	s.Disconnect()
	pb, err := client.OpenDemo(path, client.PlaybackConfig{Client: s.clientConfig(), CGame: &s.cfg.Client.CGame})
	if err != nil {
		return fmt.Errorf("demo %s: %w", path, err)
	}
	s.pb = pb
	return nil
}

// Map returns the map of the level being played or watched, or nil.
func (s *Session) Map() *tilemap.Map {
	if c := s.Engine(); c != nil {
		return c.Map()
	}
	return nil
}

// Playback returns the demo playing, or nil.
func (s *Session) Playback() *client.Playback { return s.pb }

// Engine returns the client engine that feeds the cgame: the demo's
// while one plays, else the live one (nil before any).
func (s *Session) Engine() *client.Client {
	if s.pb != nil {
		return s.pb.Client()
	}
	return s.c
}

// New returns a session whose cvars are in t, printing to stderr, where
// the window passes its console (standard error and the scrollback, as
// t's output): cg_showmiss's lines, the journal's and demos' messages,
// and the embedded server's log, each line prefixed "server: "; seed
// makes the qport reproducible.
//
// New binds the session's cvars (bindCvars), adopting the values of
// those a program registered from Cvars, and declares the embedded
// server's (server.DeclareCvars) if they are not yet. Close releases
// them.
func New(t *console.Table, stderr io.Writer, seed uint64) *Session {
	declareServerCvars(t)
	s := &Session{t: t, stderr: stderr, seed: seed}
	s.vars = t.Bind(nil)
	bindCvars(s.vars, &s.cfg, s)
	s.cfg.Client.CGame.Logf = func(format string, args ...any) { fmtLine(stderr, format, args...) }
	return s
}

// StartMap loads map name on the embedded server, starting the server and
// connecting to it the first time.
func (s *Session) StartMap(name string) error {
	if strings.ContainsAny(name, "\";\n") || name == "" {
		return fmt.Errorf("session: bad map name %q", name)
	}
	if rp := s.jn.rp; rp != nil && rp.done {
		s.Disconnect() // a replay that ended: its engines lead nowhere
	}
	if s.srv != nil {
		return s.srv.Map(name)
	}
	a, b := netchan.NewLoopback()
	conn, lan := s.openLAN(a)
	var seed uint64 // the server draws its own, unless a journal records it
	if s.cfg.Journal == 1 {
		seed = s.seed*0x9e3779b97f4a7c15 | 1
	}
	return s.startServer(name, newPollConn(conn), b, lan, seed)
}

// startServer starts the embedded server on conn with map name and
// connects the client to it over clientConn; seed seeds the server (0:
// a seed of its own). With journal 1 it starts recording first.
func (s *Session) startServer(name string, conn, clientConn netchan.Conn, lan netip.AddrPort, seed uint64) error {
	logw := console.Prefixed(s.stderr, "server: ")
	cfg := server.DefaultConfig()
	cfg.Seed = seed
	srv, err := server.New(conn, cfg, logw, server.WithHostConsole(s.t), server.WithExecFallback(lessons.FS()))
	if err != nil {
		conn.Close()
		clientConn.Close()
		return err
	}
	if err := srv.Map(name); err != nil {
		srv.Close()
		clientConn.Close()
		return err
	}
	pc, _ := conn.(*pollConn)
	s.srv, s.srvConn, s.srvBase, s.lanAddr = srv, pc, s.lastNow, lan
	if s.pkt == nil {
		s.pkt = make([]byte, netchan.MaxLoopbackPacket)
	}
	if s.cfg.Journal == 1 && seed != 0 && s.jn.rp == nil {
		st := journal.Start{ClientSeed: s.seed, ServerSeed: seed, Map: name, ServerAddr: srv.Addr(), ClientAddr: clientConn.LocalAddr()}
		if err := s.startRecording(st); err != nil {
			fmtLine(s.stderr, "journal: not recording: %v", err)
		}
	}
	s.open(clientConn, srv.Addr())
	return nil
}

// LANAddr returns the embedded server's UDP address, if it opened one.
func (s *Session) LANAddr() (netip.AddrPort, bool) {
	return s.lanAddr, s.srv != nil && s.lanAddr.IsValid()
}

// WebURL returns the address of the page that lets a browser on the LAN
// join the embedded server ("http://192.168.1.20:27960/"), or "" when it
// serves none (sv_webPort 0, no LAN port, no server).
func (s *Session) WebURL() string {
	if s.srv == nil {
		return ""
	}
	return s.webURL
}

// Server returns the embedded server, or nil. It belongs to the
// goroutine that calls Frame.
func (s *Session) Server() *server.Server { return s.srv }

// serverFrame gives the embedded server the packets that arrived and runs
// its frames up to now.
func (s *Session) serverFrame(now int32) {
	if s.srv == nil {
		return
	}
	for {
		n, from, ok := s.pollServer()
		if !ok {
			break
		}
		s.srv.Packet(now, from, s.pkt[:n])
	}
	s.srv.Frame(now)
	s.journalServer()
}

// open replaces the client engine with one over conn connecting to addr.
func (s *Session) open(conn netchan.Conn, addr netip.AddrPort) {
	if s.pb != nil {
		s.pb.Close()
		s.pb = nil
	}
	if s.c != nil {
		s.c.Close()
	}
	s.c = client.New(conn, s.clientConfig())
	s.setClientHooks()
	s.applyAutoRecord()
	s.c.Connect(addr)
}

// ApplyConfig gives the engine the cvars' current values.
func (s *Session) ApplyConfig() {
	if s.c != nil {
		s.c.SetConfig(s.clientConfig())
	}
}

// applyAutoRecord gives the engine cl_autoRecordDemo's value.
func (s *Session) applyAutoRecord() {
	if s.c != nil {
		s.c.SetAutoRecordDemo(s.cfg.AutoRecordDemo, client.DemoDir(s.dataDir))
	}
}

// Frame runs the engine, and with it the cgame, for one client frame.
// While a journal replays (PlayJournal), it runs the recorded frames up
// to now instead, ignoring cmd and wantScores.
func (s *Session) Frame(now time.Duration, cmd bg.UserCmd, wantScores bool) {
	if s.jn.rp != nil {
		s.replayFrame(now)
		return
	}
	s.frame(now, cmd, wantScores)
}

// frame runs one frame: the embedded server's, then the client's.
func (s *Session) frame(now time.Duration, cmd bg.UserCmd, wantScores bool) {
	s.jn.inFrame = true
	defer func() { s.jn.inFrame = false }()
	s.lastNow = now
	srvTime := s.serverTime(now)
	s.journalBegin(now, srvTime, cmd, wantScores)
	s.serverFrame(srvTime)
	if s.pb != nil {
		s.playFrame(now)
		return
	}
	c := s.c
	if c == nil {
		return
	}
	c.Frame(now, cmd)
	s.journalClient()
	s.fsNotes.frame(s.stderr, c.State() == client.Active && c.FrameSync(), &s.cfg.Client)
	if c.State() != client.Active {
		return
	}
	s.takeNames(c)
	if wantScores && c.Realtime()-s.lastScore >= 1000 {
		s.lastScore = c.Realtime()
		_ = c.AddReliableCommand("score")
	}
}

// takeNames reads every player's name from c's configstrings.
func (s *Session) takeNames(c *client.Client) {
	for i := range s.names {
		s.names[i] = safetext.Line(infostr.ValueForKey(c.Configstring(bg.CSPlayers+i), "n"))
	}
}

// playFrame runs one frame of the demo; at its end it closes it and
// says why it ended.
func (s *Session) playFrame(now time.Duration) {
	s.pb.Frame(now)
	s.takeNames(s.pb.Client())
	if ended, err := s.pb.Ended(); ended {
		if err != nil {
			fmtLine(s.stderr, "demo: %v", err)
		} else {
			fmtLine(s.stderr, "demo: end")
		}
		s.pb.Close()
		s.pb = nil
	}
}

// Active returns the cgame to draw, or nil.
func (s *Session) Active() *cgame.CGame {
	if s.pb != nil {
		return s.pb.CGame()
	}
	if s.c == nil || s.c.State() != client.Active {
		return nil
	}
	return s.c.CGame()
}

// Status returns a line about the connection when not in the game.
func (s *Session) Status() string {
	if s.pb != nil {
		if s.pb.CGame() == nil {
			return "demo: loading..."
		}
		return ""
	}
	if s.c == nil {
		return "not connected: +map NAME or +connect HOST[:PORT]"
	}
	switch st := s.c.State(); st {
	case client.Active:
		return ""
	case client.Disconnected:
		_, reason := s.c.Dropped()
		return "disconnected: " + reason
	default:
		return st.String() + "..."
	}
}

// Intermission reports whether the match is over and the scores are
// shown (CSIntermission).
func (s *Session) Intermission() bool {
	c := s.Engine()
	return c != nil && c.Configstring(bg.CSIntermission) == "1"
}

// Clock returns the level start time and the time limit in minutes.
func (s *Session) Clock() (start int32, limit int) {
	c := s.Engine()
	if c == nil {
		return 0, 0
	}
	st, _ := strconv.Atoi(c.Configstring(bg.CSLevelStartTime))
	limit, _ = strconv.Atoi(infostr.ValueForKey(c.Configstring(bg.CSServerInfo), "timelimit"))
	return int32(st), limit
}

// Disconnect leaves the game and stops the embedded server, if any; the
// session can start or join another afterwards.
func (s *Session) Disconnect() {
	s.stopRecording()
	s.closeReplay()
	if s.pb != nil {
		s.pb.Close()
		s.pb = nil
	}
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
	if s.srv != nil {
		s.srv.Shutdown("Server shutting down")
		s.srv.Close()
		s.srv, s.srvConn, s.lanAddr, s.webURL = nil, nil, netip.AddrPort{}, ""
	}
}

// Close disconnects, stops the embedded server and releases the
// session's cvars, which stay in the table with their values.
func (s *Session) Close() {
	s.Disconnect()
	if s.vars != nil {
		s.vars.Unbind()
		s.vars = nil
	}
}

// fmtLine prints a line to w, its control characters but newlines
// written as escapes (safetext.Text): a journal's or a demo's text came
// from a server once.
func fmtLine(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, safetext.Text(fmt.Sprintf(format, args...)))
}

// Client returns the client engine, nil before Connect or StartMap.
func (s *Session) Client() *client.Client { return s.c }

// Names returns every client's name by client number, as of the last
// Frame.
func (s *Session) Names() *[bg.MaxClients]string { return &s.names }

// pollConn reads its Conn on a goroutine of its own into a queue that
// the session empties without waiting: the embedded server runs on the
// session's goroutine, which cannot block in a read.
type pollConn struct {
	netchan.Conn
	q *netchan.PacketRing
}

// pollQueueLen is how many packets wait for the next frame at most; more
// are dropped, as a full socket buffer drops them.
const pollQueueLen = 1024

func newPollConn(c netchan.Conn) *pollConn {
	p := &pollConn{Conn: c, q: netchan.NewPacketRing(pollQueueLen)}
	go p.pump()
	return p
}

func (p *pollConn) pump() {
	buf := make([]byte, netchan.MaxLoopbackPacket)
	for {
		n, from, err := p.Conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.q.Push(buf[:n], from)
	}
}

// FragmentSize implements netchan.FragmentSizer for what it wraps: the
// LAN port's WebRTC peers (package rtc) have a fragment size of their
// own.
func (p *pollConn) FragmentSize(to netip.AddrPort) int {
	if fs, ok := p.Conn.(netchan.FragmentSizer); ok {
		return fs.FragmentSize(to)
	}
	return 0
}

// poll returns the oldest packet waiting, if any.
func (p *pollConn) poll(b []byte) (int, netip.AddrPort, bool) { return p.q.Pop(b) }

// ReadFrom never waits: the session hands the server its packets.
func (p *pollConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	if n, from, ok := p.q.Pop(b); ok {
		return n, from, nil
	}
	return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
}

// SetReadDeadline does nothing: the pump's reads never time out.
func (p *pollConn) SetReadDeadline(time.Time) error { return nil }
