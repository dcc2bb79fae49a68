package journal

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"tremor/bg"
)

// A Program is what a Replay plays a journal into: the engines of one
// program — the dedicated server (cmd/server), or the window client's
// session with its embedded server (cmd/client/internal/session) —
// rebuilt from the journal's start record over connections that lead
// nowhere. The Replay calls it on one goroutine, in the journal's order.
type Program interface {
	// SetCvar gives a recorded cvar its value: those recorded at the
	// start, and those set between frames without a console line. The
	// Replay never passes a cvar that does not replay (Replayed).
	SetCvar(name, value string)
	// Console runs a console line recorded between two frames (the
	// window client's), before the frame that follows. It returns false
	// when the line left the game (disconnect, a demo played), as it
	// ended the recording: the replay ends there, with no error.
	Console(line string) bool
	// Frame runs one recorded frame: its times and usercmd are in's, and
	// its engines read the packets, console lines and client challenges
	// of the frame from in, in their order.
	Frame(in *Input)
	// ServerHash returns the server game's state hash after the frame
	// and the time of the server frame it was taken after. ok is false
	// where the program records no hash for this frame: the dedicated
	// server records one only after a frame in which a server frame ran,
	// the window client after every frame its embedded server runs.
	ServerHash() (hash uint64, frameTime int32, ok bool)
	// ServerState fills st with the server's players and entities after
	// the frame (ServerState.Collect). The Replay asks for it only when
	// the game's hash differs, to name the player or entity that does.
	ServerState(st *ServerState)
	// ClientState returns the client's hash after the frame and its
	// predicted player state (nil without a cgame): with snapshots the
	// hash of that state (0 when nothing was predicted); in frame sync,
	// where the client runs the game itself, the state hash of its game
	// at the frame it is at, and its player's state there. ok is false
	// where the program ran no client frame: always, for the dedicated
	// server.
	ClientState() (hash uint64, ps *bg.PlayerState, ok bool)
}

// Divergence is a replay that did not reproduce its journal: the first
// frame whose result differs from the recorded one, on which side, and
// what differs. It is the one kind of divergence a journal replay
// reports, for both programs that replay (docs/journal.md); a snapshot
// that a client decoded differently from the one its server built is
// another thing, a proto.SnapshotMismatch.
type Divergence struct {
	Frame int // the frame, counted from 0: the frames before it replayed as recorded
	// Time is the frame's recorded time: the client's for a window
	// client's journal, the server's for a dedicated server's.
	Time   time.Duration
	Side   Side  // the engine whose result differs
	Offset int64 // the journal offset of the record that differs
	// Player is the client slot whose player state differs (the local
	// player's, for the client's predicted state), Entity the number of
	// the entity that differs; -1 when it is not a player, or not an
	// entity, or none can be named.
	Player, Entity int
	// Field is the first field that differs, as bg names it
	// ("CommandTime", "Pos.Base.X"); "" when none can be named.
	Field string
	// Detail says what differs: the hashes, the player or entity, the
	// field with both values, or the record the replay did not expect.
	Detail string
}

// Error says where the replay diverged, on which side, and what differs.
func (d *Divergence) Error() string {
	return fmt.Sprintf("journal: replay diverged at frame %d (time %v) on the %v: %s", d.Frame, d.Time, d.Side, d.Detail)
}

// noReplay are the cvars a replay leaves at the replaying program's
// values, for every program that replays: the journal's own (a replay
// records nothing and replays nothing else), where files are (the
// replaying machine's folders), the sockets and ports (a replay opens
// none) and the master servers (a replay sends nothing). journaltest's
// CheckNoReplay is the test that a program's cvars of those kinds are
// all here.
var noReplay = [...]string{
	"journal", "journal_file",
	"fs_homepath", "sv_configdir", "sv_mapdir", "cpuprofile",
	"net_ip", "net_port", "cl_lanPort", "cl_lanPorts", "sv_webPort", "sv_webDir", "sv_webICEPort",
	"sv_master1", "sv_master2", "sv_master3", "sv_master4", "sv_master5",
	"cl_master1", "cl_master2", "cl_master3", "cl_master4", "cl_master5",
}

// Replayed reports whether a replay gives cvar name (in any case) its
// recorded value: every cvar but those that name what belongs to the
// machine the replay runs on.
func Replayed(name string) bool {
	for _, n := range noReplay {
		if strings.EqualFold(n, name) {
			return false
		}
	}
	return true
}

// Input is one recorded frame as a Program runs it: its times, its
// usercmd, and what each engine read in it, in order. Before the first
// frame it holds the client challenges drawn at the start (Begin).
type Input struct {
	Frame  Frame      // the frame record: the client's and the server's time, the flags
	Cmd    bg.UserCmd // the frame's usercmd, when HasCmd
	HasCmd bool       // the journal has the frame's usercmd (the window client's)

	packets    []inputPacket
	data       []byte // the packets' bytes
	next       [2]int // per side, the index in packets to look from
	read       [2]int // per side, the packets read
	lines      []string
	nextLine   int
	challenges []int32
	drawn      int  // challenges returned
	extra      bool // a challenge was drawn beyond the recorded ones
}

type inputPacket struct {
	side     Side
	from     netip.AddrPort
	at       time.Duration
	off, end int // in data
}

// reset empties in for the next frame, keeping its buffers.
func (in *Input) reset() {
	packets, data, lines, challenges := in.packets[:0], in.data[:0], in.lines[:0], in.challenges[:0]
	*in = Input{packets: packets, data: data, lines: lines, challenges: challenges}
}

func (in *Input) addPacket(side Side, from netip.AddrPort, at time.Duration, data []byte) {
	off := len(in.data)
	in.data = append(in.data, data...)
	in.packets = append(in.packets, inputPacket{side, from, at, off, len(in.data)})
}

// Packet copies the next packet side's engine read in this frame into
// buf and returns its length, its source and when its reader got it
// (the time the packet record holds); ok is false when side read no
// more. Its signature is client.JournalHooks.Source's, the side added.
func (in *Input) Packet(side Side, buf []byte) (n int, from netip.AddrPort, at time.Duration, ok bool) {
	if side > Client {
		return 0, netip.AddrPort{}, 0, false
	}
	for i := in.next[side]; i < len(in.packets); i++ {
		if p := &in.packets[i]; p.side == side {
			in.next[side] = i + 1
			in.read[side]++
			return copy(buf, in.data[p.off:p.end]), p.from, p.at, true
		}
	}
	in.next[side] = len(in.packets)
	return 0, netip.AddrPort{}, 0, false
}

// Line returns the next console line run in this frame (the dedicated
// server's, which queues them for its Frame after the frame's packets);
// ok is false when there is none left.
func (in *Input) Line() (line string, ok bool) {
	if in.nextLine == len(in.lines) {
		return "", false
	}
	in.nextLine++
	return in.lines[in.nextLine-1], true
}

// Challenge returns the client challenge the recording drew where the
// replay drew drawn: its signature is client.JournalHooks.Challenge's.
// Past the recorded ones it returns drawn, and the frame diverges.
func (in *Input) Challenge(drawn int32) int32 {
	if in.drawn == len(in.challenges) {
		in.extra = true
		return drawn
	}
	in.drawn++
	return in.challenges[in.drawn-1]
}

// count returns how many packets of side the frame holds.
func (in *Input) count(side Side) int {
	n := 0
	for i := range in.packets {
		if in.packets[i].side == side {
			n++
		}
	}
	return n
}

// expected is what the journal holds after one frame's inputs: the
// states the replay must reproduce.
type expected struct {
	frameAt int64 // the frame record's offset
	eof     bool  // the journal ended inside the frame

	// The game's hash srv at offset srvAt, and the players and entities
	// after it: the Reader's own, which no other serverstate record
	// changes before the check.
	srvHash  bool
	srv      uint64
	srvAt    int64
	srvState *ServerState

	// The client's hash cli at offset cliAt, and its predicted player
	// state ps at offset psAt when it had a cgame (psIn).
	cliHash bool
	cli     uint64
	cliAt   int64
	psIn    bool
	ps      bg.PlayerState
	psAt    int64
}

// Replay plays a journal back into a Program, one frame at a time, and
// checks after each frame that the program's states are the recorded
// ones, stopping at the first that is not with a *Divergence. The same
// loop replays a dedicated server's journal and a window client's:
//
//	rp, err := journal.NewReplay(r)   // the start record: rp.Start()
//	in, err := rp.Begin(p)            // the cvars; then start p's engines, reading in
//	for { more, err := rp.Step(); ... } // or rp.Run()
//
// A Replay is not safe for concurrent use.
type Replay struct {
	r       *Reader
	p       Program
	start   Start
	rec     Record
	in      Input
	exp     expected
	got     *ServerState // the program's, when the game's hash differs
	frames  int
	hashes  int
	begun   bool
	stepped bool // Step ran: the start's challenges were checked
	done    bool
	err     error
}

// NewReplay reads the start record of the journal r reads; Start returns
// it, so that the program can check the journal is one of its own and
// build its engines from the seeds and addresses.
func NewReplay(r *Reader) (*Replay, error) {
	rp := &Replay{r: r}
	err := r.Next(&rp.rec)
	if err == io.EOF {
		return nil, &Error{Offset: HeaderLen, Msg: "a journal begins with a start record; this one ends after its header"}
	}
	if err != nil {
		return nil, err
	}
	if rp.rec.Kind != KindStart {
		return nil, &Error{Offset: rp.rec.Offset, Msg: fmt.Sprintf("a journal begins with a start record, not a %v record", rp.rec.Kind)}
	}
	rp.start = rp.rec.Start
	return rp, nil
}

// Start returns the journal's start record.
func (rp *Replay) Start() Start { return rp.start }

// Begin gives p the cvars recorded at the start (but those that do not
// replay) and reads the client challenges drawn before the first frame.
// It returns the Input that holds them: p then starts its engines, the
// client drawing its challenge from it. The first Step checks they were
// all drawn.
func (rp *Replay) Begin(p Program) (*Input, error) {
	if rp.begun {
		return nil, errors.New("journal: Begin called twice on one replay")
	}
	rp.p, rp.begun = p, true
	rp.in.reset()
	for {
		next, err := rp.r.Peek()
		if err == io.EOF {
			return &rp.in, nil
		}
		if err != nil {
			return nil, err
		}
		switch next.Kind {
		case KindCvar:
			_ = rp.r.Next(&rp.rec)
			rp.setCvar()
		case KindChallenge:
			_ = rp.r.Next(&rp.rec)
			rp.in.challenges = append(rp.in.challenges, rp.rec.Challenge)
		default:
			return &rp.in, nil
		}
	}
}

// Input returns the frame being replayed, or before the first the
// challenges drawn at the start. Its address does not change: a program
// may keep it.
func (rp *Replay) Input() *Input { return &rp.in }

// Frames returns the number of frames replayed as recorded.
func (rp *Replay) Frames() int { return rp.frames }

// Hashes returns the number of server hashes found as recorded.
func (rp *Replay) Hashes() int { return rp.hashes }

// Done reports whether the replay has ended: at the journal's end, at a
// line that left the game, or at Err.
func (rp *Replay) Done() bool { return rp.done }

// Err returns why the replay stopped early: a *Divergence, a damaged
// journal (an *Error), or nil.
func (rp *Replay) Err() error { return rp.err }

// Run replays every frame left and returns Step's error.
func (rp *Replay) Run() error {
	for {
		if more, err := rp.Step(); !more {
			return err
		}
	}
}

// Step replays the next frame: it gives the program the cvars and
// console lines recorded before it, reads the frame's records, runs
// Program.Frame and compares the program's states with the recorded
// ones — the server's first, then the client's. more is false once the
// replay has ended; err then says why it stopped early: a *Divergence,
// or a damaged journal (an *Error, or a journal that ends inside a
// frame).
func (rp *Replay) Step() (more bool, err error) {
	if rp.done {
		return false, rp.err
	}
	if !rp.begun {
		return false, errors.New("journal: Step before Begin")
	}
	if !rp.stepped {
		// The challenges drawn at the start.
		rp.stepped = true
		if err := rp.checkChallenges(); err != nil {
			return rp.stop(err)
		}
	}
	for {
		next, err := rp.r.Peek()
		if err == io.EOF {
			return rp.stop(nil)
		}
		if err != nil {
			return rp.stop(err)
		}
		if next.Kind == KindCvar {
			_ = rp.r.Next(&rp.rec)
			rp.setCvar()
			continue
		}
		if next.Kind != KindConsole {
			break
		}
		_ = rp.r.Next(&rp.rec)
		if !rp.p.Console(rp.rec.Value) {
			return rp.stop(nil)
		}
	}
	if err := rp.readFrame(); err != nil {
		return rp.stop(err)
	}
	rp.p.Frame(&rp.in)
	if err := rp.check(); err != nil {
		return rp.stop(err)
	}
	rp.frames++
	return true, nil
}

// stop ends the replay with err (nil: it ran to its end).
func (rp *Replay) stop(err error) (bool, error) {
	rp.done, rp.err = true, err
	return false, err
}

// setCvar passes the cvar record just read to the program, if it
// replays.
func (rp *Replay) setCvar() {
	if Replayed(rp.rec.Name) {
		rp.p.SetCvar(rp.rec.Name, rp.rec.Value)
	}
}

// readFrame reads one frame's records: its inputs into rp.in, its
// hashes and states into rp.exp. The frame ends before the next frame
// record, before a console or cvar record that follows one of its
// hashes (the window client's lines between frames), or at the end of
// the file.
func (rp *Replay) readFrame() error {
	in, exp := &rp.in, &rp.exp
	in.reset()
	*exp = expected{}
	rec := &rp.rec
	_ = rp.r.Next(rec) // Step peeked it
	if rec.Kind != KindFrame {
		return &Error{Offset: rec.Offset, Msg: fmt.Sprintf("a %v record where a frame is due", rec.Kind)}
	}
	in.Frame, exp.frameAt = rec.Frame, rec.Offset
	for {
		next, err := rp.r.Peek()
		if err == io.EOF {
			exp.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		hashed := exp.srvHash || exp.cliHash
		if next.Kind == KindFrame || hashed && (next.Kind == KindConsole || next.Kind == KindCvar) {
			return nil
		}
		_ = rp.r.Next(rec)
		switch rec.Kind {
		case KindUserCmd:
			if in.HasCmd {
				return rp.misplaced("a second usercmd")
			}
			in.Cmd, in.HasCmd = rec.Cmd, true
		case KindPacket:
			in.addPacket(rec.Side, rec.From, rec.At, rec.Data)
		case KindConsole:
			in.lines = append(in.lines, rec.Value)
		case KindChallenge:
			in.challenges = append(in.challenges, rec.Challenge)
		case KindHash:
			if err := rp.readHash(); err != nil {
				return err
			}
		default:
			return rp.misplaced(fmt.Sprintf("a %v record", rec.Kind))
		}
	}
}

// misplaced is the error for a record that has no place where it is.
func (rp *Replay) misplaced(what string) error {
	return &Error{Offset: rp.rec.Offset, Msg: fmt.Sprintf("%s inside frame %d", what, rp.frames)}
}

// readHash takes the hash record just read, and the state record that
// follows it: the server's always, the client's when it had a cgame.
func (rp *Replay) readHash() error {
	rec, exp := &rp.rec, &rp.exp
	if rec.Side == Client {
		if exp.cliHash {
			return rp.misplaced("a second client hash")
		}
		exp.cliHash, exp.cli, exp.cliAt = true, rec.Hash, rec.Offset
		if next, err := rp.r.Peek(); err == nil && next.Kind == KindPlayerState {
			_ = rp.r.Next(rec)
			exp.ps, exp.psIn, exp.psAt = rec.PS, true, rec.Offset
		}
		return nil
	}
	if exp.srvHash {
		return rp.misplaced("a second server hash")
	}
	exp.srvHash, exp.srv, exp.srvAt = true, rec.Hash, rec.Offset
	err := rp.r.Next(rec)
	if err == io.EOF {
		return fmt.Errorf("journal: ends inside frame %d, where a serverstate record is due", rp.frames)
	}
	if err != nil {
		return err
	}
	if rec.Kind != KindServerState {
		return &Error{Offset: rec.Offset, Msg: fmt.Sprintf("a %v record where a serverstate is due", rec.Kind)}
	}
	exp.srvState = rec.Server
	return nil
}

// diverge returns the divergence of the frame being checked.
func (rp *Replay) diverge(side Side, at int64, format string, args ...any) *Divergence {
	t := time.Duration(rp.in.Frame.ServerTime) * time.Millisecond
	if rp.start.ClientAddr.IsValid() {
		t = rp.in.Frame.ClientTime
	}
	return &Divergence{Frame: rp.frames, Time: t, Side: side, Offset: at, Player: -1, Entity: -1,
		Detail: fmt.Sprintf(format, args...)}
}

// check compares the program's states after the frame with the
// journal's: the server's inputs read and its game's hash, then the
// client's inputs and its predicted player state.
func (rp *Replay) check() error {
	if err := rp.checkRead(Server); err != nil {
		return err
	}
	if err := rp.checkServer(); err != nil {
		return err
	}
	if err := rp.checkChallenges(); err != nil {
		return err
	}
	if err := rp.checkRead(Client); err != nil {
		return err
	}
	return rp.checkClient()
}

// checkRead checks that side's engine read the frame's packets (and the
// server its console lines).
func (rp *Replay) checkRead(side Side) error {
	in := &rp.in
	if n := in.count(side); in.read[side] != n {
		return rp.diverge(side, rp.exp.frameAt, "the replay's %v read %d of the %d packets the journal has it read in this frame", side, in.read[side], n)
	}
	if side == Server && in.nextLine != len(in.lines) {
		return rp.diverge(side, rp.exp.frameAt, "the replay's server ran %d of the %d console lines the journal has in this frame", in.nextLine, len(in.lines))
	}
	return nil
}

// checkChallenges checks that the client drew the challenges the
// journal has, and no more.
func (rp *Replay) checkChallenges() error {
	in := &rp.in
	switch {
	case in.drawn < len(in.challenges):
		return rp.diverge(Client, rp.exp.frameAt, "the journal has a client challenge the replay did not draw")
	case in.extra:
		return rp.diverge(Client, rp.exp.frameAt, "the replay drew a client challenge the journal does not have")
	}
	return nil
}

// ends is the error for a journal that ends where a record is due.
func (rp *Replay) ends(what string) error {
	return fmt.Errorf("journal: ends inside frame %d, where %s is due", rp.frames, what)
}

// checkRan compares whether the program has side's state after the
// frame (ok: it ran what) with whether the journal has side's hash (at
// offset at).
func (rp *Replay) checkRan(side Side, ok, recorded bool, at int64, what string) error {
	switch {
	case ok && !recorded && rp.exp.eof:
		return rp.ends("a hash record")
	case ok && !recorded:
		return rp.diverge(side, rp.exp.frameAt, "the replay ran %s where the journal has no %v hash in this frame", what, side)
	case !ok && recorded:
		return rp.diverge(side, at, "the journal has a %v hash at offset %d where the replay ran no %v frame", side, at, side)
	}
	return nil
}

// checkServer compares the game's hash, naming the player or entity and
// the field that differ when it is not the recorded one.
func (rp *Replay) checkServer() error {
	exp := &rp.exp
	h, ft, ok := rp.p.ServerHash()
	if err := rp.checkRan(Server, ok, exp.srvHash, exp.srvAt, fmt.Sprintf("a server frame (time %d)", ft)); err != nil || !ok {
		return err
	}
	if h == exp.srv {
		rp.hashes++
		return nil
	}
	if rp.got == nil {
		rp.got = new(ServerState)
	}
	rp.p.ServerState(rp.got)
	d := rp.diverge(Server, exp.srvAt, "game state hash %016x after the server frame of time %d, journal has %016x: ", h, ft, exp.srv)
	var what string
	d.Player, d.Entity, d.Field, what = diffServerState(exp.srvState, rp.got)
	d.Detail += what
	return d
}

// checkClient compares the client's hash (Program.ClientState) and its
// predicted player state when there is a cgame, naming the first field
// that differs.
func (rp *Replay) checkClient() error {
	exp := &rp.exp
	h, ps, ok := rp.p.ClientState()
	if err := rp.checkRan(Client, ok, exp.cliHash, exp.cliAt, "a client frame"); err != nil || !ok {
		return err
	}
	switch {
	case ps == nil && exp.psIn:
		return rp.diverge(Client, exp.psAt, "the journal has a predicted player state at offset %d where the replay has no cgame", exp.psAt)
	case ps != nil && !exp.psIn && exp.eof:
		return rp.ends("a playerstate record")
	case ps != nil && !exp.psIn:
		return rp.diverge(Client, exp.cliAt, "the replay predicted a player state where the journal has none after the hash at offset %d", exp.cliAt)
	}
	var d *Divergence
	if h != exp.cli {
		d = rp.diverge(Client, exp.cliAt, "client hash %016x, journal has %016x", h, exp.cli)
	}
	if ps != nil && *ps != exp.ps {
		if d == nil {
			d = rp.diverge(Client, exp.psAt, "predicted player state differs")
		}
		d.Player = int(ps.ClientNum)
		if f, what := diffPlayerState(&exp.ps, ps); f != "" {
			d.Field = f
			d.Detail += ": " + what
		}
	}
	if d != nil {
		return d
	}
	return nil
}

// diffPlayerState names the first field where the recorded player state
// want and the replayed got differ, and says it with both values.
func diffPlayerState(want, got *bg.PlayerState) (field, what string) {
	f, ok := bg.DiffPlayerState(want, got)
	if !ok {
		return "", ""
	}
	w, _ := bg.PlayerStateField(want, f)
	g, _ := bg.PlayerStateField(got, f)
	return f, fmt.Sprintf("field %s is %d, journal has %d", f, g, w)
}

// NullConn is a connection with nothing at the other end, over which a
// replay's engines talk (a netchan.Conn): reads wait for Close, writes
// vanish. It has the address the journal recorded.
type NullConn struct {
	local  netip.AddrPort
	closed chan struct{}
	once   sync.Once
	sent   func(from, to netip.AddrPort, p []byte)
}

// NewNullConn returns a NullConn at local. sent, if not nil, sees every
// packet written, on the writer's goroutine: a test compares what the
// replayed engines send with what the recorded ones read.
func NewNullConn(local netip.AddrPort, sent func(from, to netip.AddrPort, p []byte)) *NullConn {
	return &NullConn{local: local, closed: make(chan struct{}), sent: sent}
}

// ReadFrom waits for Close and returns net.ErrClosed.
func (c *NullConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.closed
	return 0, netip.AddrPort{}, net.ErrClosed
}

// WriteTo drops p, after showing it to sent.
func (c *NullConn) WriteTo(p []byte, to netip.AddrPort) error {
	if c.sent != nil {
		c.sent(c.local, to, p)
	}
	return nil
}

// LocalAddr returns the recorded address.
func (c *NullConn) LocalAddr() netip.AddrPort { return c.local }

// SetReadDeadline does nothing: reads wait for Close.
func (c *NullConn) SetReadDeadline(time.Time) error { return nil }

// Close ends the waiting reads.
func (c *NullConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
