package session

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/client"
	"tremor/common/console"
	"tremor/common/journal"
	"tremor/net/cmdargs"
	"tremor/server"
)

// The event journal (docs/journal.md): with journal 1 the session
// records everything the two engines consume — the time of each frame,
// its usercmd, the packets the embedded server and the client engine
// read, in the order and at the frame they read them, the console lines
// run between frames, the seeds and the client challenges — and, after
// each frame, the hash of the server's game and of the client's
// predicted player state. PlayJournal rebuilds the session from the
// seeds and runs the recorded frames with no network and no real time,
// checking the hashes frame by frame.

// JournalLimit is the most bytes one journal file takes; recording stops
// there with a message, the file ending whole at its last record.
const JournalLimit = 256 << 20

// JournalExt is the extension of journal files.
const JournalExt = ".jnl"

// JournalDir returns where journals are kept in the data directory.
func JournalDir(dataDir string) string { return filepath.Join(dataDir, "journals") }

// JournalPath returns the file of journal name (".jnl" added if
// missing) in dir.
func JournalPath(dir, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\:`+"\x00") || strings.HasPrefix(name, ".") || len(name) > 128 {
		return "", fmt.Errorf("session: bad journal name %q", name)
	}
	if !strings.HasSuffix(name, JournalExt) {
		name += JournalExt
	}
	return filepath.Join(dir, name), nil
}

// serverHash returns the hash of the embedded server's game after its
// last frame (0 before the first).
func serverHash(srv *server.Server) uint64 {
	_, h, _ := srv.FrameHash()
	return h
}

// predictedHash returns the hash of the cgame's predicted player state
// (0 when it predicted nothing this frame).
func predictedHash(cg *cgame.CGame) uint64 {
	_, h, _ := cg.PredictedHash()
	return h
}

// diffPlayerState names the first field where the recorded player state
// want and the replayed got differ, with both values.
func diffPlayerState(want, got *bg.PlayerState) string {
	f, ok := bg.DiffPlayerState(want, got)
	if !ok {
		return ""
	}
	w, _ := bg.PlayerStateField(want, f)
	g, _ := bg.PlayerStateField(got, f)
	return fmt.Sprintf("field %s is %d, journal has %d", f, g, w)
}

// journalState is the session's journal: a recording or a replay.
type journalState struct {
	rec     *recording
	rp      *replay
	inFrame bool // Frame is running: console lines are consequences, not events
	played  bool // a journal's cvars were applied in this run

	// The server's players and entities after its frame, filled by
	// serverState through addPlayer and addEntity.
	srvState  *journal.ServerState
	addPlayer func(num int, ps *bg.PlayerState)
	addEntity func(es *bg.EntityState)

	// sent, if set (by tests), sees every packet a replay's engines
	// send, on whichever goroutine sends it.
	sent func(from, to netip.AddrPort, p []byte)
}

// recording is a journal being written.
type recording struct {
	f     *os.File
	w     *journal.Writer
	path  string
	cvars []watchedCvar
}

// watchedCvar is a cvar and its modification count when last recorded:
// a change made between frames without a console line (the menu sets
// cvars directly) is recorded at the next frame.
type watchedCvar struct {
	c    *console.Cvar
	mods uint64
}

// replay is a journal being played back.
type replay struct {
	f       *os.File
	r       *journal.Reader
	path    string
	rec     journal.Record
	frames  int           // frames replayed
	cur     journal.Frame // the frame running
	t0      time.Duration // the first frame's client time
	base    time.Duration // real-speed play: the window's time at the first frame
	started bool
	done    bool
	err     error // why it stopped early: a divergence or a damaged file
}

// Divergence is a replay that did not reproduce its journal: the first
// frame whose state differs from the recorded one.
type Divergence struct {
	Frame  int           // the frame, counted from 0
	Time   time.Duration // its client time
	Side   journal.Side  // the engine whose state differs
	Detail string        // what differs: the hashes, the fields
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("journal: replay diverged at frame %d (time %v) on the %v: %s", d.Frame, d.Time, d.Side, d.Detail)
}

// Recording returns the path of the journal being recorded, or "".
func (s *Session) Recording() string {
	if s.jn.rec == nil {
		return ""
	}
	return s.jn.rec.path
}

// startRecording creates a journal in the data directory (named by
// journal_file, or by date and map) and writes the session's start and
// every cvar's value.
func (s *Session) startRecording(st journal.Start) error {
	dir := JournalDir(s.dataDir)
	name := time.Now().Format("20060102-150405") + "-" + st.Map
	if v := s.t.Get("journal_file"); v != nil && v.Value() != "" {
		name = v.Value()
	}
	path, err := JournalPath(dir, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := journal.NewWriter(f, JournalLimit)
	if err != nil {
		f.Close()
		return err
	}
	rec := &recording{f: f, w: w, path: path}
	s.jn.rec = rec
	s.record(w.Start(st))
	seen := make(map[*console.Cvar]bool)
	for _, name := range s.t.CvarNames() {
		if c := s.t.Get(name); c != nil && !seen[c] {
			seen[c] = true
			rec.cvars = append(rec.cvars, watchedCvar{c, c.ModificationCount()})
			s.record(w.Cvar(c.Name(), c.Value()))
		}
	}
	s.t.SetLineObserver(s.journalLine)
	fmtLine(s.stderr, "journal: recording to %s", path)
	return nil
}

// record takes the result of a write to the journal: the first error
// stops the recording, with a message.
func (s *Session) record(err error) {
	if err == nil || s.jn.rec == nil {
		return
	}
	rec := s.jn.rec
	if errors.Is(err, journal.ErrFull) {
		fmtLine(s.stderr, "journal: %s reached %d bytes; recording stopped", rec.path, JournalLimit)
	} else {
		fmtLine(s.stderr, "journal: %s: %v; recording stopped", rec.path, err)
	}
	s.stopRecording()
}

// stopRecording closes the journal being recorded, if any.
func (s *Session) stopRecording() {
	rec := s.jn.rec
	if rec == nil {
		return
	}
	s.jn.rec = nil
	s.t.SetLineObserver(nil)
	err := rec.w.Flush()
	if cerr := rec.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmtLine(s.stderr, "journal: %s: %v", rec.path, err)
		return
	}
	fmtLine(s.stderr, "journal: %s: %d bytes", rec.path, rec.w.Size())
}

// journalLine records a console line run between frames.
func (s *Session) journalLine(line string) {
	if s.jn.rec != nil && !s.jn.inFrame {
		s.record(s.jn.rec.w.Console(line))
	}
}

// setClientHooks gives the client engine the journal's hooks: recording
// or replaying its packets and challenges.
func (s *Session) setClientHooks() {
	switch {
	case s.jn.rec != nil:
		s.c.SetJournalHooks(client.JournalHooks{
			Packet: func(from netip.AddrPort, data []byte, at time.Duration) {
				if rec := s.jn.rec; rec != nil {
					s.record(rec.w.Packet(journal.Client, from, at, data))
				}
			},
			Challenge: func(n int32) int32 {
				if rec := s.jn.rec; rec != nil {
					s.record(rec.w.Challenge(n))
				}
				return n
			},
		})
	case s.jn.rp != nil:
		s.c.SetJournalHooks(client.JournalHooks{
			Source: func(buf []byte) (int, netip.AddrPort, time.Duration, bool) {
				if rp := s.jn.rp; rp != nil {
					return rp.packetAt(journal.Client, buf)
				}
				return 0, netip.AddrPort{}, 0, false
			},
			Challenge: func(n int32) int32 {
				if rp := s.jn.rp; rp != nil && rp.expect(journal.KindChallenge, journal.Client) {
					return rp.rec.Challenge
				}
				return n
			},
		})
	}
}

// journalBegin records the beginning of a frame: its times, flags and
// usercmd.
func (s *Session) journalBegin(now time.Duration, srvTime int32, cmd bg.UserCmd, wantScores bool) {
	rec := s.jn.rec
	if rec == nil {
		return
	}
	for i := range rec.cvars {
		wc := &rec.cvars[i]
		if m := wc.c.ModificationCount(); m != wc.mods {
			wc.mods = m
			s.record(rec.w.Cvar(wc.c.Name(), wc.c.Value()))
		}
	}
	if s.jn.rec == nil {
		return
	}
	var flags byte
	if wantScores {
		flags |= journal.FlagScores
	}
	s.record(rec.w.Frame(journal.Frame{ClientTime: now, ServerTime: srvTime, Flags: flags}))
	if s.jn.rec != nil {
		s.record(rec.w.UserCmd(cmd))
	}
}

// pollServer returns the next packet for the embedded server: from its
// Conn (recorded), or from the journal being replayed.
func (s *Session) pollServer() (int, netip.AddrPort, bool) {
	if rp := s.jn.rp; rp != nil {
		return rp.packet(journal.Server, s.pkt)
	}
	n, from, ok := s.srvConn.poll(s.pkt)
	if ok && s.jn.rec != nil {
		s.record(s.jn.rec.w.Packet(journal.Server, from, 0, s.pkt[:n]))
	}
	return n, from, ok
}

// journalServer records, or checks, the server's hash after its frame.
func (s *Session) journalServer() {
	if s.jn.rec == nil && s.jn.rp == nil {
		return
	}
	h := serverHash(s.srv)
	if rec := s.jn.rec; rec != nil {
		s.record(rec.w.Hash(journal.Server, h))
		if s.jn.rec != nil {
			s.record(rec.w.ServerState(s.serverState()))
		}
		return
	}
	rp := s.jn.rp
	want, ok := rp.expectHash(journal.Server)
	if !ok || !rp.expect(journal.KindServerState, journal.Server) || want == h {
		return
	}
	ft, _, _ := s.srv.FrameHash()
	rp.diverge(journal.Server, fmt.Sprintf("game state hash %016x after the server frame of time %d, journal has %016x: %s",
		h, ft, want, journal.DiffServerState(rp.rec.Server, s.serverState())))
}

// serverState returns the embedded server's players and entities after
// its frame, in a ServerState the session reuses.
func (s *Session) serverState() *journal.ServerState {
	st := s.jn.srvState
	if st == nil {
		st = new(journal.ServerState)
		s.jn.srvState = st
		s.jn.addPlayer = func(num int, ps *bg.PlayerState) {
			st.PlayerIn[num], st.Players[num] = true, *ps
		}
		s.jn.addEntity = func(es *bg.EntityState) {
			if n := es.Number; n >= 0 && n < journal.MaxEntities {
				st.EntityIn[n], st.Entities[n] = true, *es
			}
		}
	}
	st.Clear()
	s.srv.GameStates(s.jn.addPlayer, s.jn.addEntity)
	return st
}

// journalClient records, or checks, the client's predicted state after
// its frame: its hash, and the whole state when there is a cgame.
func (s *Session) journalClient() {
	if s.jn.rec == nil && s.jn.rp == nil {
		return
	}
	cg := s.c.CGame()
	var h uint64
	if cg != nil {
		h = predictedHash(cg)
	}
	if rec := s.jn.rec; rec != nil {
		s.record(rec.w.Hash(journal.Client, h))
		if cg != nil && s.jn.rec != nil {
			s.record(rec.w.PlayerState(&cg.Predicted))
		}
		if s.jn.rec != nil {
			// Every frame reaches the file: a journal of a session that
			// crashed replays up to its last frame.
			s.record(rec.w.Flush())
		}
		return
	}
	rp := s.jn.rp
	if rp.err == nil && rp.challengeLeft() {
		rp.diverge(journal.Client, "the journal has a client challenge the replay did not draw")
	}
	want, ok := rp.expectHash(journal.Client)
	if !ok {
		return
	}
	detail := ""
	if want != h {
		detail = fmt.Sprintf("predicted player state hash %016x, journal has %016x", h, want)
	}
	if cg != nil {
		if !rp.expect(journal.KindPlayerState, 0) {
			return
		}
		if rp.rec.PS != cg.Predicted {
			if detail == "" {
				detail = "predicted player state differs"
			}
			if f := diffPlayerState(&rp.rec.PS, &cg.Predicted); f != "" {
				detail += ": " + f
			}
		}
	}
	if detail != "" {
		rp.diverge(journal.Client, detail)
	}
}

// PlayJournal leaves any game and replays the journal at path, or NAME
// in the data directory's journals folder when path is not a file (a
// journal that cannot be opened leaves the game as it is): the
// embedded server and the client engine are rebuilt from its seeds and
// cvars, over connections that lead nowhere. Frame then plays it at the
// speed it was recorded; ReplayStep and ReplayAll run it as fast as
// they can.
func (s *Session) PlayJournal(path string) error {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		p, err := JournalPath(JournalDir(s.dataDir), path)
		if err != nil {
			return err
		}
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r, err := journal.NewReader(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	rp := &replay{f: f, r: r, path: path}
	if err := r.Next(&rp.rec); err != nil || rp.rec.Kind != journal.KindStart {
		f.Close()
		if err == nil || err == io.EOF {
			err = fmt.Errorf("journal: offset %d: a journal begins with a start record", rp.rec.Offset)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	st := rp.rec.Start
	if !st.ClientAddr.IsValid() {
		return fmt.Errorf("journal: %s is a dedicated server's journal (it has no client); replay it with the server: +set journal 2 +set journal_file %s", path, path)
	}
	s.Disconnect() // the journal opens: leave the game for it
	s.jn.played = true
	for {
		rec, err := r.Peek()
		if err != nil || rec.Kind != journal.KindCvar {
			break
		}
		_ = r.Next(&rp.rec)
		s.replayCvar(rp.rec.Name, rp.rec.Value)
	}
	s.seed = st.ClientSeed
	s.jn.rp = rp
	if err := s.startServer(st.Map, newNullConn(st.ServerAddr, s.jn.sent), newNullConn(st.ClientAddr, s.jn.sent), netip.AddrPort{}, st.ServerSeed); err != nil {
		s.closeReplay()
		return fmt.Errorf("%s: %w", path, err)
	}
	if rp.err != nil {
		err := rp.err
		s.Disconnect()
		return err
	}
	fmtLine(s.stderr, "journal: replaying %s (map %s)", path, st.Map)
	return nil
}

// PlayedJournal reports whether a journal was replayed in this run: its
// cvars then hold the recorded session's values, which the window does
// not save as the player's settings.
func (s *Session) PlayedJournal() bool { return s.jn.played }

// AddJournalCommands registers playjournal on t:
//
//	playjournal NAME   replay journal NAME (a path, or a name in journals/)
func (s *Session) AddJournalCommands(t *console.Table) {
	t.AddCommand("playjournal", "replay a journal: playjournal NAME (docs/journal.md)", func(a *cmdargs.Args) {
		if a.Argc() != 2 {
			t.Printf("usage: playjournal NAME\n")
			return
		}
		if err := s.PlayJournal(a.Argv(1)); err != nil {
			t.Printf("playjournal: %v\n", err)
		}
	})
}

// noReplayCvars are the cvars a replay keeps its own values of: the
// journal's own, where files are, and the LAN port.
var noReplayCvars = [...]string{"journal", "journal_file", "fs_homepath", "net_port", "net_ip", "sv_configdir", "sv_mapdir"}

// replayCvar gives a cvar the value it had when the journal started.
func (s *Session) replayCvar(name, value string) {
	for _, n := range noReplayCvars {
		if strings.EqualFold(n, name) {
			return
		}
	}
	c := s.t.Get(name)
	if c == nil || c.Value() == value {
		return
	}
	if err := s.t.ForceSet(name, value); err != nil {
		fmtLine(s.stderr, "journal: %v", err)
	}
}

// Replaying reports whether a journal is being replayed (and has not
// ended).
func (s *Session) Replaying() bool { return s.jn.rp != nil && !s.jn.rp.done }

// ReplayStatus is what a journal replay has done, for the window to show
// that what plays is a replay, and how it ended.
type ReplayStatus struct {
	Path   string // the journal
	Frames int    // frames replayed so far
	Done   bool   // it ended: at the journal's end, or at Err
	Err    error  // why it stopped early (a *Divergence, a damaged file); nil if it ran to the end
}

// Replay returns the status of the journal replay of this game, if one
// ran (it is forgotten when the game ends).
func (s *Session) Replay() (ReplayStatus, bool) {
	rp := s.jn.rp
	if rp == nil {
		return ReplayStatus{}, false
	}
	return ReplayStatus{Path: rp.path, Frames: rp.frames, Done: rp.done, Err: rp.err}, true
}

// ReplayStep runs the next recorded frame, after the console lines and
// cvar changes that preceded it, and checks the hashes. more is false at the end of the
// journal or when the replay stopped; err then says why it stopped
// early: a *Divergence, or a damaged journal (a *journal.Error).
func (s *Session) ReplayStep() (more bool, err error) {
	rp := s.jn.rp
	if rp == nil {
		return false, errors.New("session: no journal is replaying")
	}
	if rp.done {
		return false, rp.err
	}
	for {
		rec, err := rp.r.Peek()
		if err == io.EOF {
			s.endReplay()
			return false, nil
		}
		if err != nil {
			rp.err = err
			s.endReplay()
			return false, err
		}
		if rec.Kind != journal.KindConsole && rec.Kind != journal.KindCvar {
			break
		}
		_ = rp.r.Next(&rp.rec)
		if rp.rec.Kind == journal.KindCvar {
			s.replayCvar(rp.rec.Name, rp.rec.Value)
			continue
		}
		line := rp.rec.Value
		s.t.ExecuteIsolated(line)
		if s.jn.rp != rp {
			// The line left the game (disconnect, a demo), as it ended
			// the recording.
			fmtLine(s.stderr, "journal: %s: %d frames replayed, every hash as recorded, up to %q", rp.path, rp.frames, line)
			return false, nil
		}
	}
	if !rp.expect(journal.KindFrame, 0) {
		s.endReplay()
		return false, rp.err
	}
	rp.cur = rp.rec.Frame
	if rp.frames == 0 {
		rp.t0 = rp.cur.ClientTime
	}
	if !rp.expect(journal.KindUserCmd, 0) {
		s.endReplay()
		return false, rp.err
	}
	s.frame(rp.cur.ClientTime, rp.rec.Cmd, rp.cur.Flags&journal.FlagScores != 0)
	if rp.err != nil {
		s.endReplay()
		return false, rp.err
	}
	rp.frames++
	return true, nil
}

// ReplayAll runs the rest of the journal as fast as it can and returns
// how many frames it replayed; err as ReplayStep's.
func (s *Session) ReplayAll() (frames int, err error) {
	rp := s.jn.rp
	for {
		more, err := s.ReplayStep()
		if !more {
			if rp == nil {
				return 0, err
			}
			return rp.frames, err
		}
	}
}

// replayFrame plays the journal at the speed it was recorded: it runs
// the recorded frames up to the window's time now (the first call sets
// the start).
func (s *Session) replayFrame(now time.Duration) {
	rp := s.jn.rp
	if !rp.started {
		rp.started, rp.base = true, now
	}
	for !rp.done && (rp.frames == 0 || rp.cur.ClientTime-rp.t0 < now-rp.base) {
		if more, _ := s.ReplayStep(); !more {
			break
		}
	}
}

// endReplay stops the replay, saying why, and leaves the engines as
// they are, to be looked at: Frame no longer runs them.
func (s *Session) endReplay() {
	rp := s.jn.rp
	if rp.done {
		return
	}
	rp.done = true
	if rp.err != nil {
		fmtLine(s.stderr, "%v", rp.err)
	} else {
		fmtLine(s.stderr, "journal: %s: %d frames replayed, every hash as recorded", rp.path, rp.frames)
	}
	rp.f.Close()
}

// closeReplay ends the replay, if any, and forgets it.
func (s *Session) closeReplay() {
	if rp := s.jn.rp; rp != nil {
		if !rp.done {
			rp.done = true
			rp.f.Close()
		}
		s.jn.rp = nil
	}
}

// serverTime returns the server's time for a frame at client time now:
// the recorded one in a replay.
func (s *Session) serverTime(now time.Duration) int32 {
	if rp := s.jn.rp; rp != nil {
		return rp.cur.ServerTime
	}
	return int32((now - s.srvBase) / time.Millisecond)
}

// expect reads the next record, which must be of kind k (and side, for
// packets and hashes); anything else stops the replay.
func (rp *replay) expect(k journal.Kind, side journal.Side) bool {
	if rp.err != nil {
		return false
	}
	if err := rp.r.Next(&rp.rec); err != nil {
		if err == io.EOF {
			err = fmt.Errorf("journal: ends inside frame %d, where a %v record is due", rp.frames, k)
		}
		rp.err = err
		return false
	}
	if rp.rec.Kind != k || (k == journal.KindHash && rp.rec.Side != side) {
		rp.diverge(side, fmt.Sprintf("the journal has a %v record at offset %d where the replay has a %v", rp.rec.Kind, rp.rec.Offset, k))
		return false
	}
	return true
}

// expectHash reads the next record, side's hash.
func (rp *replay) expectHash(side journal.Side) (uint64, bool) {
	if !rp.expect(journal.KindHash, side) {
		return 0, false
	}
	return rp.rec.Hash, true
}

// diverge stops the replay at the current frame.
func (rp *replay) diverge(side journal.Side, detail string) {
	if rp.err == nil {
		rp.err = &Divergence{Frame: rp.frames, Time: rp.cur.ClientTime, Side: side, Detail: detail}
	}
}

// packet returns the next recorded packet of side, if it is the next
// record.
func (rp *replay) packet(side journal.Side, buf []byte) (int, netip.AddrPort, bool) {
	n, from, _, ok := rp.packetAt(side, buf)
	return n, from, ok
}

func (rp *replay) packetAt(side journal.Side, buf []byte) (int, netip.AddrPort, time.Duration, bool) {
	if rp.err != nil {
		return 0, netip.AddrPort{}, 0, false
	}
	rec, err := rp.r.Peek()
	if err != nil || rec.Kind != journal.KindPacket || rec.Side != side {
		return 0, netip.AddrPort{}, 0, false
	}
	_ = rp.r.Next(&rp.rec)
	n := copy(buf, rp.rec.Data)
	return n, rp.rec.From, rp.rec.At, true
}

// challengeLeft reports whether the next record is a client challenge.
func (rp *replay) challengeLeft() bool {
	rec, err := rp.r.Peek()
	return err == nil && rec.Kind == journal.KindChallenge
}

// nullConn is a connection with nothing at the other end: reads wait
// for Close, writes vanish. A replay's engines talk through it.
type nullConn struct {
	local  netip.AddrPort
	closed chan struct{}
	once   sync.Once
	sent   func(from, to netip.AddrPort, p []byte) // nil, or a test's
}

func newNullConn(local netip.AddrPort, sent func(from, to netip.AddrPort, p []byte)) *nullConn {
	return &nullConn{local: local, closed: make(chan struct{}), sent: sent}
}

func (c *nullConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.closed
	return 0, netip.AddrPort{}, net.ErrClosed
}

func (c *nullConn) WriteTo(p []byte, to netip.AddrPort) error {
	if c.sent != nil {
		c.sent(c.local, to, p)
	}
	return nil
}

func (c *nullConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *nullConn) SetReadDeadline(time.Time) error { return nil }
func (c *nullConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
