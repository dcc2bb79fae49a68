package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// The hostile server (issue 23): a minimal Tremor server, written on
// proto, netchan and oob as docs/protocol.md describes the server's side,
// that a real client joins and that then performs one attack on it. It
// answers getchallenge and connect, sends a gamestate, runs the map
// download of docs/download.md, and sends a full snapshot every
// snapStep of server time (every tick of real time) once the client is
// in the game. It reads client messages only as far as it needs: the
// header, the reliable commands, not the usercmds.

// snapStep is the server time between two snapshots, and snapTick the
// real time: sv_fps 20.
const (
	snapStep = 50
	snapTick = 50 * time.Millisecond
)

// The escape sequences of issue 23: set the terminal's title, clear its
// screen, make it type the cursor position into its own input; and the
// 8-bit CSI, which some terminals also take for ESC [.
const (
	escTitle = "\x1b]0;TITLE\x07"
	escClear = "\x1b[2J"
	escAsk   = "\x1b[6n"
	escCSI   = "\u009b2J"
)

// evilText is a line that is a terminal command if printed raw. evilInfo
// is one an info string can hold (no CR, LF, '\\', ';' or '"').
const (
	evilText = "hostile" + escTitle + escClear + escAsk + escCSI + "\r\tend"
	evilInfo = "Evil" + escTitle + escClear + escAsk + escCSI + "\x08"
)

// serverAttack is one attack of hostile server.
type serverAttack struct {
	name, help string
	// time returns the server time of the k-th snapshot (from 0).
	time func(k int) int32
}

// forward returns a clock starting at start and advancing snapStep a
// snapshot, wrapping as an int32 clock does.
func forward(start int64) func(int) int32 {
	return func(k int) int32 { return int32(start + int64(k)*snapStep) }
}

// timebackAfter is how many snapshots of the timeback attack move
// forward before the time turns back.
const timebackAfter = 20

var serverAttacks = []serverAttack{
	{"timewrap", "server times from 2^31-3000 ms, 50 ms a snapshot (player state's CommandTime with them): past the client's limit at once, wrapping negative after 3 s",
		forward(1<<31 - 3000)},
	{"timelimit", "server times from 1 s below the client's limit (0x7F000000 ms), 50 ms a snapshot, up past it",
		forward(int64(proto.MaxServerTime) - 1000)},
	{"timeback", "server times that advance for 1 s, then run backwards 50 ms a snapshot within one map",
		func(k int) int32 {
			if k < timebackAfter {
				return int32(100_000 + k*snapStep)
			}
			return int32(100_000 + (2*(timebackAfter-1)-k)*snapStep)
		}},
	{"escape", "terminal escapes in a connectionless print, the hostname, player names, print/chat/cp/cs commands and a reliable disconnect reason",
		forward(1000)},
	{"escapeprint", "the escapes of escape, ending with a connectionless print and, after 3.5 s of silence, a connectionless disconnect: the print is the reason",
		forward(1000)},
	{"shadowmap", "serves a map of its own as arena1 (other content and checksum) for the client to download, then tells it to go",
		forward(1000)},
}

// findServerAttack returns the attack called name.
func findServerAttack(name string) (serverAttack, bool) {
	for _, a := range serverAttacks {
		if a.name == name {
			return a, true
		}
	}
	return serverAttack{}, false
}

// serverResult is what hostile server prints.
type serverResult struct {
	Attack string `json:"attack"`
	Listen string `json:"listen"`
	// Map, MapChecksum and MapBytes describe the map the gamestate names.
	Map         string `json:"map"`
	MapChecksum uint32 `json:"map_checksum"`
	MapBytes    int    `json:"map_bytes"`
	// Sessions are the clients that joined, in order.
	Sessions []*sessionReport `json:"sessions"`
	// Ended is "clients" when -clients sessions ended, "duration" when
	// -duration ran out first.
	Ended     string  `json:"ended"`
	DurationS float64 `json:"duration_s"`
	// Errors are the first packets it could not read, and why.
	Errors []string `json:"errors,omitempty"`
}

// sessionReport is one client's session.
type sessionReport struct {
	Client     string `json:"client"`
	Name       string `json:"name"`
	Gamestates int    `json:"gamestates"`
	Entered    bool   `json:"entered"`
	Snapshots  int    `json:"snapshots"`
	// FirstTime and LastTime are the first and last snapshots' server
	// times, MinTime and MaxTime the least and greatest sent.
	FirstTime int32 `json:"first_time"`
	LastTime  int32 `json:"last_time"`
	MinTime   int32 `json:"min_time"`
	MaxTime   int32 `json:"max_time"`
	// BadSnapshots counts the snapshots whose time a client must refuse
	// (negative, past proto.MaxServerTime, or before the previous one);
	// FirstBadTime is the first one's, BadSinceUnixMs when it went.
	BadSnapshots   int   `json:"bad_snapshots"`
	FirstBadTime   int32 `json:"first_bad_time"`
	BadSinceUnixMs int64 `json:"bad_since_unix_ms"`
	// Left is how the session ended: "disconnect" (the client said so),
	// "silent" (nothing from it for -idle), "replaced" (it connected
	// again, or another client did after it was told to go), "" (still
	// on when the server stopped). LeftUnixMs is when.
	Left       string `json:"left"`
	LeftUnixMs int64  `json:"left_unix_ms"`
	// LeftAfterBadMs is the time from the first bad snapshot to the
	// end of the session, -1 without either.
	LeftAfterBadMs float64 `json:"left_after_bad_ms"`
	// Told: the server sent it a disconnect (reliable or connectionless).
	Told bool `json:"told"`
	// Downloads counts the downloads started (headers sent), DownloadsDone
	// the "donedl" received, DownloadBytes the file bytes sent, resends
	// included.
	Downloads     int `json:"downloads"`
	DownloadsDone int `json:"downloads_done"`
	DownloadBytes int `json:"download_bytes"`
	// ClientCommands counts the reliable commands the client sent.
	ClientCommands int `json:"client_commands"`
	// Commands and Prints are the reliable server commands and the
	// connectionless prints sent to it.
	Commands []string `json:"commands"`
	Prints   []string `json:"prints"`
}

// maxErrors is how many unreadable packets a result lists.
const maxErrors = 20

// hostileServer is the server: one socket, one client at a time.
type hostileServer struct {
	conn   netchan.Conn
	attack serverAttack
	idle   time.Duration

	mapName string
	mapFile []byte // the bytes the download sends
	m       *tilemap.Map

	challenges map[netip.AddrPort]int32
	sess       *session
	ended      int // sessions over
	serverID   int32
	res        serverResult
}

// session is one client's connection.
type session struct {
	hs        *hostileServer
	rep       *sessionReport
	addr      netip.AddrPort
	challenge int32
	ch        *netchan.Chan
	r         msg.Reader
	wbuf      [netchan.MaxMsgLen]byte

	gs        proto.Gamestate
	gsSent    bool
	gsAt      time.Time
	entered   bool
	dlHeader  bool // the message being read is a downloading client's
	dl        *serverDownload
	lastHeard time.Time
	over      bool

	reliableSeq int32 // server commands queued
	reliableAck int32 // acknowledged by the client
	commands    [proto.MaxReliableCommands]string
	clientSeq   int32 // last client command executed

	ticks       int // ticks in the game
	snaps       int
	lastTime    int32
	silentUntil time.Time // escapeprint: send nothing before
}

// serverDownload is a download in progress (go-back-N, as
// server/download.go, with a window of downloadWindow blocks).
type serverDownload struct {
	blocks   int32 // data blocks: block numbers run 0..blocks
	acked    int32 // the client has every block below this one
	xmit     int32 // the next block to send
	progress time.Time
}

const downloadWindow = 8

// errNoMoves ends the reading of a client message at its usercmds,
// which the hostile server has no use for.
var errNoMoves = errors.New("usercmds not read")

// runServer is hostile server.
func runServer(args []string, _, stderr io.Writer) (any, error) {
	fs := flag.NewFlagSet("hostile server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listenAddr := fs.String("listen", "127.0.0.1:27960", "UDP address to listen on (port 0: any; the address is printed on stderr)")
	attackName := fs.String("attack", "", "the attack: "+serverAttackNames())
	duration := fs.Duration("duration", 30*time.Second, "the longest it runs")
	clients := fs.Int("clients", 1, "end once this many client sessions have ended")
	idle := fs.Duration("idle", 3*time.Second, "a client silent this long has gone")
	if err := fs.Parse(args); err != nil {
		return nil, errUsage
	}
	a, ok := findServerAttack(*attackName)
	if !ok {
		fmt.Fprintf(stderr, "hostile server: -attack must be one of %s, not %q\n", serverAttackNames(), *attackName)
		fs.Usage()
		return nil, errUsage
	}
	if *clients < 1 || *duration <= 0 || *idle <= 0 {
		fmt.Fprintln(stderr, "hostile server: -clients, -duration and -idle must be positive")
		return nil, errUsage
	}
	hs, err := newHostileServer(a, *idle)
	if err != nil {
		return nil, err
	}
	conn, err := listen(*listenAddr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	hs.conn = conn
	hs.res.Listen = conn.LocalAddr().String()
	fmt.Fprintf(stderr, "hostile server: attack %s listening on %s\n", a.name, conn.LocalAddr())
	if err := hs.run(*duration, *clients); err != nil {
		return nil, err
	}
	return &hs.res, nil
}

// serverAttackNames lists the attacks for the usage.
func serverAttackNames() string {
	names := make([]string, len(serverAttacks))
	for i, a := range serverAttacks {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// newHostileServer prepares the map of attack a: arena1 itself, or for
// shadowmap another map under its name.
func newHostileServer(a serverAttack, idle time.Duration) (*hostileServer, error) {
	hs := &hostileServer{attack: a, idle: idle, mapName: "arena1",
		challenges: map[netip.AddrPort]int32{}, serverID: rand.Int32N(200) + 1}
	hs.res.Attack = a.name
	var err error
	if a.name == "shadowmap" {
		hs.mapFile, err = shadowMap()
	} else {
		hs.mapFile, err = arenas.ReadFrom("", hs.mapName)
	}
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", hs.mapName, err)
	}
	if hs.m, err = tilemap.Parse(hs.mapName+".map", hs.mapFile); err != nil {
		return nil, fmt.Errorf("map %s: %w", hs.mapName, err)
	}
	hs.res.Map, hs.res.MapChecksum, hs.res.MapBytes = hs.mapName, hs.m.Checksum, len(hs.mapFile)
	return hs, nil
}

// shadowMap returns the map shadowmap serves as arena1: the built-in
// duel1 with a first line of its own, a valid map whose checksum is not
// arena1's.
func shadowMap() ([]byte, error) {
	duel, err := arenas.ReadFrom("", "duel1")
	if err != nil {
		return nil, err
	}
	data := append([]byte("# Served as arena1 by hostile server: not the built-in arena1.\n"), duel...)
	builtin, err := arenas.Load("arena1")
	if err != nil {
		return nil, err
	}
	m, err := tilemap.Parse("arena1.map", data)
	if err != nil {
		return nil, err
	}
	if m.Checksum == builtin.Checksum {
		return nil, errors.New("the shadow map has the built-in arena1's checksum")
	}
	return data, nil
}

// run serves until clients sessions have ended or d has passed.
func (hs *hostileServer) run(d time.Duration, clients int) error {
	start := time.Now()
	deadline := start.Add(d)
	buf := make([]byte, 1<<16)
	nextTick := start
	defer func() {
		if s := hs.sess; s != nil && !s.over {
			s.finishReport()
		}
		hs.res.DurationS = time.Since(start).Seconds()
	}()
	for {
		now := time.Now()
		if hs.ended >= clients {
			hs.res.Ended = "clients"
			return nil
		}
		if !now.Before(deadline) {
			hs.res.Ended = "duration"
			return nil
		}
		if !now.Before(nextTick) {
			if s := hs.sess; s != nil && !s.over {
				s.tick(now)
			}
			nextTick = now.Add(snapTick)
		}
		_ = hs.conn.SetReadDeadline(earlier(nextTick, deadline))
		n, from, err := hs.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("reading from %s: %w", hs.conn.LocalAddr(), err)
		}
		hs.packet(from, buf[:n], time.Now())
	}
}

// fail notes a packet it could not read.
func (hs *hostileServer) fail(format string, args ...any) {
	if len(hs.res.Errors) < maxErrors {
		hs.res.Errors = append(hs.res.Errors, fmt.Sprintf(format, args...))
	}
}

// sendOOB sends a connectionless packet.
func (hs *hostileServer) sendOOB(to netip.AddrPort, text string) {
	if err := hs.conn.WriteTo(oob.Packet(text), to); err != nil {
		hs.fail("sending %q to %s: %v", oob.Command(text), to, err)
	}
}

// packet handles one packet from from.
func (hs *hostileServer) packet(from netip.AddrPort, p []byte, now time.Time) {
	if oob.IsConnectionless(p) {
		text, err := oob.Parse(p)
		if err != nil {
			hs.fail("connectionless packet from %s: %v", from, err)
			return
		}
		hs.connectionless(from, text, now)
		return
	}
	s := hs.sess
	if s == nil || s.over || from != s.addr {
		return // not the client of the session
	}
	body, ok, err := s.ch.Process(p)
	if err != nil {
		hs.fail("packet from %s: %v", from, err)
		return
	}
	if !ok {
		return
	}
	s.lastHeard = now
	s.message(body, now)
}

// connectionless answers getchallenge and connect.
func (hs *hostileServer) connectionless(from netip.AddrPort, text string, now time.Time) {
	switch cmd := oob.Command(text); {
	case strings.EqualFold(cmd, oob.CmdGetChallenge):
		clientCh, err := oob.ParseGetChallenge(text)
		if err != nil {
			hs.fail("getchallenge from %s: %v", from, err)
			return
		}
		ch, ok := hs.challenges[from]
		if !ok {
			if len(hs.challenges) >= 1024 {
				clear(hs.challenges) // bounded, whoever asks
			}
			ch = rand.Int32N(1<<30) + 1
			hs.challenges[from] = ch
		}
		hs.sendOOB(from, oob.FormatChallengeResponse(ch, clientCh))
	case strings.EqualFold(cmd, oob.CmdConnect):
		info, err := oob.ParseConnect(text)
		if err != nil {
			hs.fail("connect from %s: %v", from, err)
			return
		}
		ch, ok := hs.challenges[from]
		if !ok || infostr.ValueForKey(info, "challenge") != strconv.Itoa(int(ch)) {
			hs.sendOOB(from, oob.FormatPrint(oob.BadChallengePrint))
			return
		}
		if s := hs.sess; s != nil && !s.over {
			switch {
			case s.addr == from && s.challenge == ch:
				hs.sendOOB(from, oob.FormatConnectResponse(ch)) // a connect resent
				return
			case s.addr != from && !s.rep.Told:
				hs.sendOOB(from, oob.FormatPrint("Server is full.\n"))
				return
			}
			s.finish("replaced", now)
		}
		q, err := strconv.Atoi(infostr.ValueForKey(info, "qport"))
		if err != nil || q < 0 || q > 0xFFFF {
			hs.fail("connect from %s: qport %q", from, infostr.ValueForKey(info, "qport"))
			return
		}
		s := &session{hs: hs, addr: from, challenge: ch, lastHeard: now,
			rep: &sessionReport{Client: from.String(), Name: infostr.ValueForKey(info, "name"), LeftAfterBadMs: -1}}
		s.ch = netchan.New(hs.conn, from, netchan.ServerSide, uint16(q))
		hs.sess = s
		hs.res.Sessions = append(hs.res.Sessions, s.rep)
		hs.sendOOB(from, oob.FormatConnectResponse(ch))
		if hs.escapes() {
			s.print(evilText)
		}
	}
}

// escapes reports whether the attack sends escape sequences.
func (hs *hostileServer) escapes() bool {
	return hs.attack.name == "escape" || hs.attack.name == "escapeprint"
}

// print sends a connectionless print.
func (s *session) print(text string) {
	s.rep.Prints = append(s.rep.Prints, text)
	s.hs.sendOOB(s.addr, oob.FormatPrint(text))
}

// finish ends the session.
func (s *session) finish(how string, now time.Time) {
	if s.over {
		return
	}
	s.over = true
	s.rep.Left, s.rep.LeftUnixMs = how, now.UnixMilli()
	s.finishReport()
	s.hs.ended++
}

// finishReport completes the report's derived fields.
func (s *session) finishReport() {
	r := s.rep
	if r.BadSinceUnixMs != 0 && r.LeftUnixMs != 0 {
		r.LeftAfterBadMs = float64(r.LeftUnixMs - r.BadSinceUnixMs)
	}
}

// message reads one client message, then sends the gamestate if the
// client has none.
func (s *session) message(body []byte, now time.Time) {
	s.dlHeader = false
	err := proto.ParseClientMessage(&s.r, body, s, nil)
	if err != nil && !errors.Is(err, errNoMoves) {
		s.hs.fail("message from %s: %v", s.addr, err)
	}
	if s.over {
		return
	}
	if !s.gsSent || !s.entered && s.dl == nil && !s.dlHeader && now.Sub(s.gsAt) > time.Second {
		s.sendGamestate(now) // the first, or a lost one
	}
}

// ClientHeader takes a message's header (proto.ClientHandler).
func (s *session) ClientHeader(h proto.ClientHeader, _ []byte) (bool, error) {
	h = h.Resolve(s.hs.serverID, int32(s.ch.OutgoingSequence())-1, s.reliableSeq)
	if h.ReliableAcknowledge > s.reliableAck && h.ReliableAcknowledge <= s.reliableSeq {
		s.reliableAck = h.ReliableAcknowledge
	}
	s.dlHeader = s.gsSent && h.ServerID == proto.DownloadServerID(s.hs.serverID)
	if s.gsSent && h.ServerID == s.hs.serverID && !s.entered {
		s.entered, s.rep.Entered = true, true
	}
	return false, nil
}

// ClientCommand runs a reliable client command (proto.ClientHandler).
func (s *session) ClientCommand(seq int32, text string) error {
	if err := proto.CheckCommandWindow(seq, s.clientSeq); err != nil {
		return err
	}
	if seq <= s.clientSeq {
		return nil // had it
	}
	s.clientSeq = seq
	s.rep.ClientCommands++
	args := cmdargs.Tokenize(text)
	now := time.Now()
	switch args.Argv(0) {
	case "disconnect":
		s.finish("disconnect", now)
	case "download":
		if !s.dlHeader || args.Argv(1) != s.hs.mapName {
			return nil
		}
		size := int32(len(s.hs.mapFile))
		s.dl = &serverDownload{blocks: proto.DownloadBlocks(size), progress: now}
		s.rep.Downloads++
	case "nextdl":
		n, err := strconv.Atoi(args.Argv(1))
		if s.dl == nil || err != nil || n < 0 {
			return nil
		}
		if next := int32(min(n+1, int(s.dl.blocks)+1)); next > s.dl.acked {
			s.dl.acked, s.dl.progress = next, now
			s.dl.xmit = max(s.dl.xmit, next)
		}
	case "donedl":
		if s.dl == nil {
			return nil
		}
		s.dl = nil
		s.rep.DownloadsDone++
		s.sendGamestate(now)
	}
	return nil
}

// MoveKey stops the reading at the usercmds (proto.ClientHandler).
func (s *session) MoveKey(bool) (uint32, *bg.UserCmd, *[proto.MaxPacketUsercmds]bg.UserCmd, error) {
	return 0, nil, nil, errNoMoves
}

// Move is never called: MoveKey stops the reading (proto.ClientHandler).
func (s *session) Move([]bg.UserCmd, bool, error) error { return nil }

// command queues a reliable server command.
func (s *session) command(text string) {
	s.reliableSeq++
	s.commands[s.reliableSeq&(proto.MaxReliableCommands-1)] = text
	s.rep.Commands = append(s.rep.Commands, text)
}

// begin starts a message: the reliable acknowledge and every server
// command the client has not acknowledged.
func (s *session) begin() *msg.Writer {
	w := msg.NewWriter(s.wbuf[:], msg.Huffman)
	proto.WriteReliableAck(w, s.clientSeq)
	for i := max(s.reliableAck+1, s.reliableSeq-proto.MaxReliableCommands+1); i <= s.reliableSeq; i++ {
		proto.WriteServerCommand(w, i, s.commands[i&(proto.MaxReliableCommands-1)])
	}
	return w
}

// send ends a message and sends it.
func (s *session) send(w *msg.Writer) {
	w.WriteUint8(proto.SvcEOF)
	if err := w.Err(); err != nil {
		s.hs.fail("writing a message to %s: %v", s.addr, err)
		return
	}
	if err := s.ch.Transmit(w.Bytes()); err != nil {
		s.hs.fail("sending a message to %s: %v", s.addr, err)
		return
	}
	if err := s.ch.Flush(); err != nil {
		s.hs.fail("sending the fragments of a message to %s: %v", s.addr, err)
	}
}

// sendGamestate sends the gamestate of the map.
func (s *session) sendGamestate(now time.Time) {
	hs := s.hs
	gs := &s.gs
	gs.Reset()
	host := "hostile"
	own, other := `\n\`+s.rep.Name+`\t\0`, ""
	if hs.escapes() {
		host = evilInfo
		own = `\n\` + evilInfo + `\t\0`
		other = `\n\` + evilInfo + `2\t\0`
	}
	serverInfo := `\sv_hostname\` + host + `\mapname\` + hs.mapName + `\sv_fps\20\protocol\` + strconv.Itoa(proto.Version)
	if infostr.Validate(serverInfo) != nil {
		serverInfo = `\sv_hostname\hostile\mapname\` + hs.mapName
	}
	gs.Configstrings[bg.CSServerInfo] = serverInfo
	gs.Configstrings[bg.CSSystemInfo] = proto.FormatSystemInfo(hs.serverID, false)
	gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(hs.m.Checksum), 10)
	gs.Configstrings[bg.CSPlayers] = own
	gs.Configstrings[bg.CSPlayers+1] = other
	gs.ClientNum = 0
	gs.ChecksumFeed = rand.Int32()
	gs.CommandSequence = s.reliableSeq
	w := s.begin()
	proto.WriteGamestate(w, gs)
	s.send(w)
	s.gsSent, s.gsAt = true, now
	s.rep.Gamestates++
}

// tick is one tick of real time: download blocks, a snapshot, the
// attack's next step.
func (s *session) tick(now time.Time) {
	if now.Sub(s.lastHeard) > s.hs.idle {
		s.finish("silent", now)
		return
	}
	if s.dl != nil {
		s.sendBlocks(now)
		return
	}
	if !s.entered || now.Before(s.silentUntil) {
		return
	}
	if s.attackStep(now) {
		s.snapshot(now)
	}
	s.ticks++
}

// sendBlocks sends the download blocks the window allows, going back to
// the first unacknowledged one after a second without progress.
func (s *session) sendBlocks(now time.Time) {
	dl := s.dl
	if dl.xmit >= dl.acked+downloadWindow && now.Sub(dl.progress) > time.Second {
		dl.xmit, dl.progress = dl.acked, now
	}
	file := s.hs.mapFile
	for ; dl.xmit <= dl.blocks && dl.xmit < dl.acked+downloadWindow; dl.xmit++ {
		d := proto.Download{Block: dl.xmit}
		if d.Block == 0 {
			d.Name, d.Size, d.Checksum = s.hs.mapName, int32(len(file)), s.hs.m.Checksum
		} else {
			from := int(d.Block-1) * proto.DownloadBlockSize
			d.Data = file[from:min(from+proto.DownloadBlockSize, len(file))]
			s.rep.DownloadBytes += len(d.Data)
		}
		w := s.begin()
		proto.WriteDownload(w, &d)
		s.send(w)
	}
}

// snapshot sends the next full snapshot, its time the attack's.
func (s *session) snapshot(now time.Time) {
	t := s.hs.attack.time(s.snaps)
	bad := t < 0 || t > proto.MaxServerTime || s.snaps > 0 && t < s.lastTime
	r := s.rep
	if s.snaps == 0 {
		r.FirstTime, r.MinTime, r.MaxTime = t, t, t
	}
	r.MinTime, r.MaxTime = min(r.MinTime, t), max(r.MaxTime, t)
	if bad {
		if r.BadSnapshots == 0 {
			r.FirstBadTime, r.BadSinceUnixMs = t, now.UnixMilli()
		}
		r.BadSnapshots++
	}
	s.snaps++
	s.lastTime, r.LastTime, r.Snapshots = t, t, s.snaps
	ps := bg.PlayerState{CommandTime: t, ClientNum: 0, PmType: bg.PMNormal,
		GroundEntity: bg.EntityNumNone, Weapon: bg.WPMachinegun, WeaponState: bg.WeaponReady}
	if len(s.hs.m.Spawns) > 0 {
		sp := s.hs.m.Spawns[0]
		ps.Origin = bg.TileFeet(sp.X, sp.Y, nil)
	}
	ps.Stats[bg.StatHealth], ps.Stats[bg.StatMaxHealth] = 100, 100
	ps.Stats[bg.StatWeapons] = 1<<bg.WPGauntlet | 1<<bg.WPMachinegun
	w := s.begin()
	proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: t, Step: snapStep}, nil, &ps, nil, nil, &s.gs.Baselines)
	s.send(w)
}

// escapeTicks is when (in ticks in the game) the escape attacks send
// each of their texts, and when shadowmap tells the client to go.
const (
	escPrintTick  = 2
	escChatTick   = 3
	escCSTick     = 4
	escOOBTick    = 5
	escEndTick    = 10
	shadowEndTick = 10
	// escSilence is how long escapeprint stays silent before its
	// connectionless disconnect: a client believes one only from a
	// server silent for 3 s.
	escSilence = 3500 * time.Millisecond
)

// attackStep runs the attack's step of this tick and reports whether a
// snapshot goes too.
func (s *session) attackStep(now time.Time) bool {
	switch s.hs.attack.name {
	case "escape", "escapeprint":
		switch s.ticks {
		case escPrintTick:
			s.command("print " + cmdargs.QuoteText(evilText))
		case escChatTick:
			s.command("chat " + cmdargs.QuoteText(evilInfo+": "+evilText))
			s.command("tchat " + cmdargs.QuoteText(evilInfo+": "+evilText))
			s.command("cp " + cmdargs.QuoteText(evilText))
		case escCSTick:
			s.command("cs " + strconv.Itoa(bg.CSPlayers+2) + " " + cmdargs.QuoteText(`\n\`+evilInfo+`3\t\0`))
		case escOOBTick:
			s.print(evilText)
		case escEndTick:
			s.rep.Told = true
			if s.hs.attack.name == "escape" {
				s.command("disconnect " + cmdargs.QuoteText(evilText))
				break
			}
			s.print(evilText)
			s.silentUntil = now.Add(escSilence)
			return false
		}
		if s.hs.attack.name == "escapeprint" && s.ticks > escEndTick {
			s.hs.sendOOB(s.addr, oob.CmdDisconnect)
			return false
		}
	case "shadowmap":
		if s.ticks == shadowEndTick {
			s.rep.Told = true
			s.command(`disconnect "hostile: the map was served"`)
		}
	}
	return true
}
