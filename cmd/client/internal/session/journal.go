package session

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tremor/bg"
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
// predicted player state (in frame sync, of the client's own game). PlayJournal rebuilds the session from the
// seeds and runs the recorded frames with no network and no real time
// through common/journal's Replay, the loop the dedicated server
// replays with too, the session being its Program (replay): the Replay
// checks the hashes and states frame by frame.

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

// clientState returns what the journal holds of the client after its
// frame, where it has a cgame (else 0 and nil): with snapshots, the hash
// of the cgame's predicted player state (0 when it predicted nothing this
// frame) and that state; in frame sync (sv_netmodel framesync), where the
// client runs the game itself and cgame predicts nothing, the state hash
// of the client's own game at the frame it is at (every frame its Sync
// confirmed, rolled back and predicted led there) and its player's state
// in that game.
func clientState(c *client.Client) (uint64, *bg.PlayerState) {
	cg := c.CGame()
	if cg == nil {
		return 0, nil
	}
	if g := c.FrameSyncGame(); g != nil {
		return g.StateHash(), g.PlayerState(int(c.ClientNum()))
	}
	_, h, _ := cg.PredictedHash()
	return h, &cg.Predicted
}

// journalState is the session's journal: a recording or a replay.
type journalState struct {
	rec     *recording
	rp      *replay
	inFrame bool // Frame is running: console lines are consequences, not events
	played  bool // a journal's cvars were applied in this run

	// The server's players and entities after its frame (serverState).
	srvState *journal.ServerState

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

// replay is a journal being played back: the session as the
// journal.Program that the journal's Replay drives.
type replay struct {
	s       *Session
	f       *os.File
	rp      *journal.Replay
	in      *journal.Input // the frame running: its packets and challenges
	path    string
	t0      time.Duration // the first frame's client time
	base    time.Duration // real-speed play: the window's time at the first frame
	ran     bool          // a frame ran: t0 is set
	started bool          // real-speed play began: base is set
	done    bool          // it ended, and its file is closed
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
	if s.cfg.JournalFile != "" {
		name = s.cfg.JournalFile
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
					return rp.in.Packet(journal.Client, buf)
				}
				return 0, netip.AddrPort{}, 0, false
			},
			Challenge: func(n int32) int32 {
				if rp := s.jn.rp; rp != nil {
					return rp.in.Challenge(n)
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
		n, from, _, ok := rp.in.Packet(journal.Server, s.pkt)
		return n, from, ok
	}
	n, from, ok := s.srvConn.poll(s.pkt)
	if ok && s.jn.rec != nil {
		s.record(s.jn.rec.w.Packet(journal.Server, from, 0, s.pkt[:n]))
	}
	return n, from, ok
}

// journalServer records the server's hash, and its players and
// entities, after its frame. (A replay compares them after the whole
// frame: replay.ServerHash.)
func (s *Session) journalServer() {
	rec := s.jn.rec
	if rec == nil {
		return
	}
	s.record(rec.w.Hash(journal.Server, serverHash(s.srv)))
	if s.jn.rec != nil {
		s.record(rec.w.ServerState(s.serverState()))
	}
}

// serverState returns the embedded server's players and entities after
// its frame, in a ServerState the session reuses.
func (s *Session) serverState() *journal.ServerState {
	if s.jn.srvState == nil {
		s.jn.srvState = new(journal.ServerState)
	}
	s.jn.srvState.Collect(s.srv.GameStates)
	return s.jn.srvState
}

// journalClient records the client's state after its frame
// (clientState): its hash, and the player state when there is a cgame.
// (A replay compares them after the whole frame: replay.ClientState.)
func (s *Session) journalClient() {
	rec := s.jn.rec
	if rec == nil {
		return
	}
	h, ps := clientState(s.c)
	s.record(rec.w.Hash(journal.Client, h))
	if ps != nil && s.jn.rec != nil {
		s.record(rec.w.PlayerState(ps))
	}
	if s.jn.rec != nil {
		// Every frame reaches the file: a journal of a session that
		// crashed replays up to its last frame.
		s.record(rec.w.Flush())
	}
}

// PlayJournal leaves any game and replays the journal at path, or NAME
// in the data directory's journals folder when path is not a file (a
// journal that cannot be opened leaves the game as it is): the
// embedded server and the client engine are rebuilt from its seeds and
// cvars, over connections that lead nowhere. Frame then plays it at the
// speed it was recorded; ReplayStep and ReplayAll run it as fast as
// they can. The replay is common/journal's (journal.Replay), with the
// session as its Program.
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
	jr, err := journal.NewReader(f)
	if err == nil {
		var jrp *journal.Replay
		if jrp, err = journal.NewReplay(jr); err == nil {
			return s.playJournal(f, path, jrp)
		}
	}
	f.Close()
	return fmt.Errorf("%s: %w", path, err)
}

// playJournal replays the journal open in f, whose start rp has read.
func (s *Session) playJournal(f *os.File, path string, jrp *journal.Replay) error {
	st := jrp.Start()
	if !st.ClientAddr.IsValid() {
		f.Close()
		return fmt.Errorf("journal: %s is a dedicated server's journal (it has no client); replay it with the server: +set journal 2 +set journal_file %s", path, path)
	}
	s.Disconnect() // the journal opens: leave the game for it
	s.jn.played = true
	rp := &replay{s: s, f: f, rp: jrp, path: path}
	in, err := jrp.Begin(rp)
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	rp.in = in
	s.seed = st.ClientSeed
	s.jn.rp = rp
	if err := s.startServer(st.Map, journal.NewNullConn(st.ServerAddr, s.jn.sent), journal.NewNullConn(st.ClientAddr, s.jn.sent), netip.AddrPort{}, st.ServerSeed); err != nil {
		s.closeReplay()
		return fmt.Errorf("%s: %w", path, err)
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

// Replaying reports whether a journal is being replayed (and has not
// ended).
func (s *Session) Replaying() bool { return s.jn.rp != nil && !s.jn.rp.done }

// ReplayStatus is what a journal replay has done, for the window to show
// that what plays is a replay, and how it ended.
type ReplayStatus struct {
	Path   string // the journal
	Frames int    // frames replayed so far
	Done   bool   // it ended: at the journal's end, or at Err
	Err    error  // why it stopped early (a *journal.Divergence, a damaged file); nil if it ran to the end
}

// Replay returns the status of the journal replay of this game, if one
// ran (it is forgotten when the game ends).
func (s *Session) Replay() (ReplayStatus, bool) {
	rp := s.jn.rp
	if rp == nil {
		return ReplayStatus{}, false
	}
	return ReplayStatus{Path: rp.path, Frames: rp.rp.Frames(), Done: rp.done, Err: rp.rp.Err()}, true
}

// ReplayStep runs the next recorded frame, after the console lines and
// cvar changes that preceded it, and checks the hashes. more is false at
// the end of the journal or when the replay stopped; err then says why
// it stopped early: a *journal.Divergence, or a damaged journal (a
// *journal.Error).
func (s *Session) ReplayStep() (more bool, err error) {
	rp := s.jn.rp
	if rp == nil {
		return false, errors.New("session: no journal is replaying")
	}
	if rp.done {
		return false, rp.rp.Err()
	}
	more, err = rp.rp.Step()
	if !more && s.jn.rp == rp {
		s.endReplay()
	}
	return more, err
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
			return rp.rp.Frames(), err
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
	for !rp.done && (!rp.ran || rp.in.Frame.ClientTime-rp.t0 < now-rp.base) {
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
	if err := rp.rp.Err(); err != nil {
		fmtLine(s.stderr, "%v", err)
	} else {
		fmtLine(s.stderr, "journal: %s: %d frames replayed, every hash as recorded", rp.path, rp.rp.Frames())
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
		return rp.in.Frame.ServerTime
	}
	return int32((now - s.srvBase) / time.Millisecond)
}

// SetCvar gives a cvar its recorded value (journal.Program).
func (rp *replay) SetCvar(name, value string) {
	s := rp.s
	if c := s.t.Get(name); c == nil || c.Value() == value {
		return
	}
	if err := s.t.ForceSet(name, value); err != nil {
		fmtLine(s.stderr, "journal: %v", err)
	}
}

// Console runs a line recorded between frames; it reports false when
// the line left the game (disconnect, a demo), as it ended the
// recording (journal.Program).
func (rp *replay) Console(line string) bool {
	s := rp.s
	s.t.ExecuteIsolated(line)
	if s.jn.rp != rp {
		fmtLine(s.stderr, "journal: %s: %d frames replayed, every hash as recorded, up to %q", rp.path, rp.rp.Frames(), line)
		return false
	}
	return true
}

// Frame runs one recorded frame through the same code as a live one;
// the engines read the frame's packets and challenges from in
// (journal.Program).
func (rp *replay) Frame(in *journal.Input) {
	if !rp.ran {
		rp.ran, rp.t0 = true, in.Frame.ClientTime
	}
	rp.s.frame(in.Frame.ClientTime, in.Cmd, in.Frame.Flags&journal.FlagScores != 0)
}

// ServerHash returns the embedded server's game hash after the frame:
// recorded after every frame (journal.Program).
func (rp *replay) ServerHash() (uint64, int32, bool) {
	srv := rp.s.srv
	if srv == nil {
		return 0, 0, false
	}
	ft, h, _ := srv.FrameHash()
	return h, ft, true
}

// ServerState returns the embedded server's players and entities
// (journal.Program).
func (rp *replay) ServerState(st *journal.ServerState) { st.Collect(rp.s.srv.GameStates) }

// ClientState returns the client's state after the frame
// (clientState), where a recording records it: when the client engine
// ran, not a demo (journal.Program).
func (rp *replay) ClientState() (uint64, *bg.PlayerState, bool) {
	s := rp.s
	if s.c == nil || s.pb != nil {
		return 0, nil, false
	}
	h, ps := clientState(s.c)
	return h, ps, true
}
