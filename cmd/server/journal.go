package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"tremor/bg"
	"tremor/common/console"
	"tremor/common/journal"
	"tremor/lessons"
	"tremor/server"
)

// journalCvars choose the event journal (docs/journal.md); only the
// command line sets them.
var journalCvars = []console.Decl{
	{Name: "journal", Default: "0", Flags: console.Init | console.Integral, Min: 0, Max: 2,
		Help: "event journal: 1 records every event the server consumes, 2 replays journal_file and exits"},
	{Name: "journal_file", Default: "", Flags: console.Init,
		Help: "journal path, or NAME for journals/NAME.jnl (empty: journals/server-DATE-TIME.jnl when recording)"},
}

// journalLimit caps a journal's size: about 9 hours with 8 clients.
const journalLimit = 256 << 20

// journalPath returns the file journal_file names: a path with a
// directory as it is, a bare NAME as journals/NAME.jnl under the working
// directory; empty names a new file by date and time.
func journalPath(v string) string {
	if v == "" {
		return filepath.Join("journals", "server-"+time.Now().Format("20060102-150405")+".jnl")
	}
	if strings.ContainsRune(v, '/') || strings.ContainsRune(v, filepath.Separator) {
		return v
	}
	if filepath.Ext(v) == "" {
		v += ".jnl"
	}
	return filepath.Join("journals", v)
}

// journalSeed returns a random server seed: a recorded server is seeded
// so that its journal replays, and the seed is in the journal.
func journalSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}

// recorder writes the journal of a dedicated server: the hooks Run calls
// (server.JournalHooks), and the console lines from the command line and
// standard input, which go through it so that each is recorded in the
// frame that runs it.
type recorder struct {
	srv  *server.Server
	f    *os.File
	w    *journal.Writer
	path string
	logw io.Writer

	mu      sync.Mutex
	pending []string // console lines queued from any goroutine

	on       bool  // recording; false once the cap or an error stopped it
	inFrame  bool  // a frame record has been written for this iteration
	frameNow int32 // the server time of that frame record
	hashTime int32 // the server time of the last hash recorded
	hashed   bool
	state    journal.ServerState
	lines    []string // scratch of takeLines
}

// startRecorder creates the journal at path and writes its start (the
// seed and the server's address) and every cvar's value, then hooks the
// server's Run.
func startRecorder(srv *server.Server, seed uint64, path string, logw io.Writer) (*recorder, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	w, err := journal.NewWriter(f, journalLimit)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &recorder{srv: srv, f: f, w: w, path: path, logw: logw, on: true}
	r.record(w.Start(journal.Start{ServerSeed: seed, ServerAddr: srv.Addr()}))
	t := srv.Console()
	seen := make(map[*console.Cvar]bool)
	for _, name := range t.CvarNames() {
		if c := t.Get(name); c != nil && !seen[c] {
			seen[c] = true
			r.record(w.Cvar(c.Name(), c.Value()))
		}
	}
	r.record(w.Flush())
	if !r.on {
		f.Close()
		return nil, fmt.Errorf("journal: %s: %v", path, w.Err())
	}
	srv.SetJournal(&server.JournalHooks{Begin: r.beginFrame, Packet: r.packet, Frame: r.frame, FrameDone: r.frameDone})
	fmt.Fprintf(logw, "journal: recording to %s\n", path)
	return r, nil
}

// Exec queues a console line, recorded and run at the server's next
// frame. Safe from any goroutine.
func (r *recorder) Exec(line string) {
	r.mu.Lock()
	r.pending = append(r.pending, line)
	r.mu.Unlock()
	r.srv.Wake()
}

// record takes the result of a write: the first error stops the
// recording, with a message; the server goes on.
func (r *recorder) record(err error) {
	if err == nil || !r.on {
		return
	}
	r.on = false
	if errors.Is(err, journal.ErrFull) {
		fmt.Fprintf(r.logw, "journal: %s reached %d bytes; recording stopped\n", r.path, journalLimit)
		_ = r.w.Flush()
		return
	}
	fmt.Fprintf(r.logw, "journal: %s: %v; recording stopped\n", r.path, err)
}

// beginFrame writes the frame record of this iteration of Run, once.
func (r *recorder) beginFrame(now int32) {
	if !r.inFrame && r.on {
		r.inFrame, r.frameNow = true, now
		r.record(r.w.Frame(journal.Frame{ServerTime: now}))
	}
}

// packet records a packet handed to Packet at now, with how long before
// the frame's time that was (its arrival, when Run reads packets in
// batches) as the record's time.
func (r *recorder) packet(now int32, from netip.AddrPort, data []byte) {
	if !r.on {
		return
	}
	r.beginFrame(now)
	r.record(r.w.Packet(journal.Server, from, time.Duration(r.frameNow-now)*time.Millisecond, data))
}

func (r *recorder) frame(now int32) {
	r.mu.Lock()
	r.lines = append(r.lines[:0], r.pending...)
	r.pending = r.pending[:0]
	r.mu.Unlock()
	if r.on {
		r.beginFrame(now)
	}
	t := r.srv.Console()
	for _, line := range r.lines {
		if r.on {
			r.record(r.w.Console(line))
		}
		t.Append(line)
	}
}

func (r *recorder) frameDone(int32) {
	r.inFrame = false
	if !r.on {
		return
	}
	ft, h, ok := r.srv.FrameHash()
	if !ok || (r.hashed && ft == r.hashTime) {
		return // no server frame ran
	}
	r.hashTime, r.hashed = ft, true
	r.record(r.w.Hash(journal.Server, h))
	r.state.Collect(r.srv.GameStates)
	r.record(r.w.ServerState(&r.state))
	// Every server frame reaches the file: the journal of a server that
	// crashed replays up to its last frame.
	r.record(r.w.Flush())
}

// Close ends the journal; call it after Run has returned.
func (r *recorder) Close() error {
	r.srv.SetJournal(nil)
	ferr := r.w.Flush()
	cerr := r.f.Close()
	fmt.Fprintf(r.logw, "journal: %s: %d bytes\n", r.path, r.w.Size())
	return errors.Join(ferr, cerr)
}

// replayServer is the dedicated server as a journal.Program: a frame is
// one iteration of Run — the frame's packets handed to Packet, its
// console lines queued, one Frame — and its hash is recorded only when a
// server frame ran in it.
type replayServer struct {
	t   *console.Table
	srv *server.Server

	buf      []byte // a packet handed to Packet
	hashTime int32  // the server frame of the last hash
	hashed   bool   // a server frame has run
	hash     uint64 // its hash, when ran
	ran      bool   // a server frame ran in the last Frame
}

// SetCvar gives a cvar the value it had when the journal started.
func (p *replayServer) SetCvar(name, value string) {
	if c := p.t.Get(name); c != nil && c.Value() != value {
		_ = p.t.ForceSet(name, value)
	}
}

// Console queues a line recorded between frames for the next Frame. A
// dedicated server's journal has none there: its lines are in the frame
// that ran them (journal.Input.Line).
func (p *replayServer) Console(line string) bool {
	p.t.Append(line)
	return true
}

// Frame hands the frame's packets to Packet, queues its console lines
// after the text the game queued while handling them, and runs Frame.
func (p *replayServer) Frame(in *journal.Input) {
	now := in.Frame.ServerTime
	if p.buf == nil {
		p.buf = make([]byte, journal.MaxRecord)
	}
	for {
		n, from, at, ok := in.Packet(journal.Server, p.buf)
		if !ok {
			break
		}
		// The record's time is how long before the frame's the packet
		// was handed over (0 in journals recorded before Run read
		// packets in batches).
		early := min(max(at/time.Millisecond, 0), server.MaxBatchWait)
		p.srv.Packet(now-int32(early), from, p.buf[:n])
	}
	for line, ok := in.Line(); ok; line, ok = in.Line() {
		p.t.Append(line)
	}
	p.srv.Frame(now)
	ft, h, ok := p.srv.FrameHash()
	p.ran = ok && (!p.hashed || ft != p.hashTime)
	if p.ran {
		p.hashTime, p.hash, p.hashed = ft, h, true
	}
}

// ServerHash returns the game's hash when a server frame ran in the
// last Frame.
func (p *replayServer) ServerHash() (uint64, int32, bool) { return p.hash, p.hashTime, p.ran }

// ServerState returns the players and entities.
func (p *replayServer) ServerState(st *journal.ServerState) { st.Collect(p.srv.GameStates) }

// ClientState: a dedicated server has no client.
func (p *replayServer) ClientState() (uint64, *bg.PlayerState, bool) { return 0, nil, false }

// replayJournal runs a server from the journal at path, with no network
// and no real time, and checks the game's hash after every server frame
// (journal.Replay). It returns the replay, whose Frames and Hashes say
// how far it went, with a *journal.Divergence at the first frame that
// differs, a *journal.Error for a damaged file, or another error for a
// file that cannot be opened or is not a dedicated server's journal. log
// receives the server's log (nil discards).
func replayJournal(path string, log io.Writer) (*journal.Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	jr, err := journal.NewReader(f)
	if err != nil {
		return nil, err
	}
	rp, err := journal.NewReplay(jr)
	if err != nil {
		return nil, err
	}
	st := rp.Start()
	if st.ClientAddr.IsValid() {
		return rp, fmt.Errorf("journal: %s is a window client's journal (it has a client address); replay it with tremor +set journal 2", path)
	}
	p := &replayServer{t: newTable(io.Discard)}
	if _, err := rp.Begin(p); err != nil {
		return rp, err
	}
	cfg := server.DefaultConfig()
	cfg.Seed = st.ServerSeed
	p.srv, err = server.New(journal.NewNullConn(st.ServerAddr, nil), cfg, log, server.WithConsole(p.t), server.WithExecFallback(lessons.FS()))
	if err != nil {
		return rp, err
	}
	defer p.srv.Close()
	return rp, rp.Run()
}

// replayMain is the program with journal 2: it replays journal_file and
// prints a summary line; status 0 when every frame matched.
func replayMain(t *console.Table, logw io.Writer) int {
	v := t.Get("journal_file").Value()
	if v == "" {
		fmt.Fprintln(logw, "journal: journal 2 replays journal_file, which is empty")
		return 1
	}
	path := journalPath(v)
	if _, err := os.Stat(path); err != nil {
		if _, err2 := os.Stat(v); err2 == nil {
			path = v
		}
	}
	rp, err := replayJournal(path, logw)
	if err != nil {
		var frames, hashes int
		if rp != nil {
			frames, hashes = rp.Frames(), rp.Hashes()
		}
		fmt.Fprintf(logw, "journal: %s: %d frames replayed (%d server frames as recorded), then: %v\n", path, frames, hashes, err)
		return 1
	}
	fmt.Fprintf(logw, "journal: %s: %d frames replayed, %d server frames, every hash as recorded\n", path, rp.Frames(), rp.Hashes())
	return 0
}
