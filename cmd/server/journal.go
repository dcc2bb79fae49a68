package main

import (
	crand "crypto/rand"
	"encoding/binary"
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
	addP     func(int, *bg.PlayerState)
	addE     func(*bg.EntityState)
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
	r.addP = func(n int, ps *bg.PlayerState) { r.state.PlayerIn[n], r.state.Players[n] = true, *ps }
	r.addE = func(es *bg.EntityState) {
		if n := es.Number; n >= 0 && n < journal.MaxEntities {
			r.state.EntityIn[n], r.state.Entities[n] = true, *es
		}
	}
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
	r.state.Clear()
	r.srv.GameStates(r.addP, r.addE)
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

// Divergence is a replay that did not reproduce its journal: the first
// frame (an iteration of the server's Run: packets handed to Packet,
// then one Frame) whose result differs.
type Divergence struct {
	Frame  int   // frames replayed before it, counting from 0
	Time   int32 // the frame's recorded time, ms
	Offset int64 // the journal offset of the record that differs
	Detail string
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("journal: replay diverged at frame %d (time %d ms): %s", d.Frame, d.Time, d.Detail)
}

// ReplayResult counts what a replay checked.
type ReplayResult struct {
	Frames int // Run iterations replayed
	Hashes int // server frames whose game hash matched the journal's
}

// noReplayCvars keep the replaying program's values: the journal's own,
// the socket, where files are, and the masters (a replay sends nothing).
var noReplayCvars = []string{"journal", "journal_file", "net_ip", "net_port", "sv_configdir", "sv_mapdir",
	"sv_master1", "sv_master2", "sv_master3", "sv_master4", "sv_master5"}

// discardConn is the replay's network: reads wait for Close, writes
// vanish.
type discardConn struct {
	addr   netip.AddrPort
	closed chan struct{}
	once   sync.Once
}

func (c *discardConn) WriteTo(p []byte, to netip.AddrPort) error { return nil }
func (c *discardConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	<-c.closed
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (c *discardConn) LocalAddr() netip.AddrPort         { return c.addr }
func (c *discardConn) SetReadDeadline(t time.Time) error { return nil }
func (c *discardConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// replayJournal runs a server from the journal at path, with no network
// and no real time, and checks the game's hash after every server frame.
// It returns a *Divergence at the first frame that differs, a
// *journal.Error for a damaged file, or another error for a file that
// cannot be opened or is not a dedicated server's journal. log receives
// the server's log (nil discards).
func replayJournal(path string, log io.Writer) (ReplayResult, error) {
	var res ReplayResult
	f, err := os.Open(path)
	if err != nil {
		return res, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	jr, err := journal.NewReader(f)
	if err != nil {
		return res, err
	}
	var rec journal.Record
	if err := jr.Next(&rec); err != nil {
		if err == io.EOF {
			return res, fmt.Errorf("journal: %s: empty (a header and no start record)", path)
		}
		return res, err
	}
	if rec.Kind != journal.KindStart {
		return res, &journal.Error{Offset: rec.Offset, Msg: "a journal begins with a start record"}
	}
	st := rec.Start
	if st.ClientAddr.IsValid() {
		return res, fmt.Errorf("journal: %s is a window client's journal (it has a client address); replay it with tremor +set journal 2", path)
	}
	t := console.NewTable()
	t.SetOutput(io.Discard)
	t.Register(netCvars...)
	t.Register(journalCvars...)
	server.DeclareCvars(t)
	for {
		p, err := jr.Peek()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, err
		}
		if p.Kind != journal.KindCvar {
			break
		}
		_ = jr.Next(&rec)
		replayCvar(t, rec.Name, rec.Value)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = st.ServerSeed
	conn := &discardConn{addr: st.ServerAddr, closed: make(chan struct{})}
	srv, err := server.New(conn, cfg, log, server.WithConsole(t), server.WithExecFallback(lessons.FS()))
	if err != nil {
		return res, err
	}
	defer srv.Close()

	var (
		want, got journal.ServerState
		addP      = func(n int, ps *bg.PlayerState) { got.PlayerIn[n], got.Players[n] = true, *ps }
		addE      = func(es *bg.EntityState) {
			if n := es.Number; n >= 0 && n < journal.MaxEntities {
				got.EntityIn[n], got.Entities[n] = true, *es
			}
		}
		hashTime int32
		hashed   bool
	)
	for {
		err := jr.Next(&rec)
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if rec.Kind != journal.KindFrame {
			return res, &journal.Error{Offset: rec.Offset, Msg: fmt.Sprintf("a %v record where a frame is due", rec.Kind)}
		}
		now := rec.Frame.ServerTime
		for {
			p, err := jr.Peek()
			if err == io.EOF {
				break
			}
			if err != nil {
				return res, err
			}
			if p.Kind != journal.KindPacket && p.Kind != journal.KindConsole {
				break
			}
			_ = jr.Next(&rec)
			if rec.Kind == journal.KindPacket {
				if rec.Side != journal.Server {
					return res, &journal.Error{Offset: rec.Offset, Msg: "a client's packet in a dedicated server's journal"}
				}
				// The record's time is how long before the frame's the
				// packet was handed over (0 in journals recorded before
				// Run read packets in batches).
				early := min(max(rec.At/time.Millisecond, 0), server.MaxBatchWait)
				srv.Packet(now-int32(early), rec.From, rec.Data)
			} else {
				t.Append(rec.Value)
			}
		}
		srv.Frame(now)
		ft, h, ok := srv.FrameHash()
		ran := ok && (!hashed || ft != hashTime)
		if ran {
			hashTime, hashed = ft, true
		}
		p, err := jr.Peek()
		switch {
		case err == io.EOF:
			if ran {
				return res, fmt.Errorf("journal: ends inside frame %d, where a hash record is due", res.Frames)
			}
			res.Frames++
			return res, nil
		case err != nil:
			return res, err
		}
		if p.Kind != journal.KindHash {
			if ran {
				return res, &Divergence{Frame: res.Frames, Time: now, Offset: p.Offset,
					Detail: fmt.Sprintf("the replay ran a server frame (time %d) where the journal has a %v record at offset %d, not its hash", ft, p.Kind, p.Offset)}
			}
			res.Frames++
			continue
		}
		_ = jr.Next(&rec)
		if !ran {
			return res, &Divergence{Frame: res.Frames, Time: now, Offset: rec.Offset,
				Detail: fmt.Sprintf("the journal has a game hash at offset %d where the replay ran no server frame", rec.Offset)}
		}
		wantHash, at := rec.Hash, rec.Offset
		if err := jr.Next(&rec); err != nil {
			if err == io.EOF {
				return res, fmt.Errorf("journal: ends inside frame %d, where a serverstate record is due", res.Frames)
			}
			return res, err
		}
		if rec.Kind != journal.KindServerState {
			return res, &journal.Error{Offset: rec.Offset, Msg: fmt.Sprintf("a %v record where a serverstate is due", rec.Kind)}
		}
		if h != wantHash {
			want = *rec.Server
			got.Clear()
			srv.GameStates(addP, addE)
			return res, &Divergence{Frame: res.Frames, Time: now, Offset: at,
				Detail: fmt.Sprintf("game state hash %016x after the server frame of time %d, journal has %016x: %s", h, ft, wantHash, journal.DiffServerState(&want, &got))}
		}
		res.Hashes++
		res.Frames++
	}
}

// replayCvar gives a cvar the value it had when the journal started.
func replayCvar(t *console.Table, name, value string) {
	for _, n := range noReplayCvars {
		if strings.EqualFold(n, name) {
			return
		}
	}
	if c := t.Get(name); c != nil && c.Value() != value {
		_ = t.ForceSet(name, value)
	}
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
	res, err := replayJournal(path, logw)
	if err != nil {
		fmt.Fprintf(logw, "journal: %s: %d frames replayed (%d server frames as recorded), then: %v\n", path, res.Frames, res.Hashes, err)
		return 1
	}
	fmt.Fprintf(logw, "journal: %s: %d frames replayed, %d server frames, every hash as recorded\n", path, res.Frames, res.Hashes)
	return 0
}
