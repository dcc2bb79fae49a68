package framesync

import (
	"fmt"
	"math/bits"
	"strconv"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// Defaults of SyncConfig.
const (
	DefaultStates        = 64
	DefaultMaxPrediction = 12
)

// SyncConfig holds a Sync's settings; a zero field takes its default.
type SyncConfig struct {
	// Client is the client's own number in the game (its input is the
	// one Advance takes).
	Client int
	// States is the size of the ring of saved states, and of the rings
	// of frames received, predicted and of own inputs (default 64). It
	// must exceed MaxPrediction.
	States int
	// MaxPrediction is cl_maxPredictionFrames: Advance stalls rather
	// than run more frames than this past the last confirmed one
	// (default 8).
	MaxPrediction int
	// FrameMsec is the server's frame period in ms, used until two
	// consecutive confirmed frames give it (default 50).
	FrameMsec int32
	// HashEvery is the server's sv_frameHashEvery: the Sync hashes the
	// state of each frame whose number is a multiple of it as it runs
	// the frame (default 5). A confirmed frame with a hash that the
	// Sync did not hash beforehand costs two loads of a saved state.
	HashEvery int32
	// Observer, if set, is told of every frame the Sync runs and of
	// every state it puts the game back in (nil: nobody is).
	Observer Observer
}

// Observer watches a Sync's game frame by frame, whatever the frame
// (predicted, confirmed, or run again by a rollback or after a whole
// state): what the game did in each frame is seen there, and only there,
// since the frames run again are never given out. The Sync calls it
// synchronously; it may read the game (Sim.Game) and must not change it.
type Observer interface {
	// FrameRun says the Sync has just run frame n (the game is in its
	// state); confirmed says it ran as the server's (its inputs
	// confirmed, and every frame before it), not predicted.
	FrameRun(n int32, confirmed bool)
	// StateLoaded says the Sync has put the game back in the saved
	// state of frame n, a rollback's or a whole state's: the next frame
	// run follows it, not the last one run.
	StateLoaded(n int32)
}

// SyncStats are a Sync's counters, for the HUD, the classroom and reports.
type SyncStats struct {
	Current        int32 // the frame the game is at
	Confirmed      int32 // the last confirmed frame: every frame up to it is the server's
	Newest         int32 // the newest frame number received
	Ahead          int32 // Current - Confirmed: frames predicted
	Stalled        bool  // the last Advance stalled
	Simulated      int   // frames run, every kind
	Predicted      int   // frames run ahead of their confirmation (the first time)
	Rollbacks      int   // rollbacks: a confirmed frame differed from its prediction
	Resimulated    int   // frames run again by rollbacks
	MaxResimulated int   // the most frames one rollback ran again
	Stalls         int   // Advance calls that stalled at MaxPrediction
	Resyncs        int   // whole states loaded after the first
	WholeIgnored   int   // whole states not loaded: not after the last confirmed frame, and not wanted
	HashChecks     int   // confirmed frames whose hash was compared
	// Mismatches counts the hashes that differed: the desyncs caught.
	// After one, no hash is compared until a whole state repairs the
	// game.
	Mismatches int
	// MismatchFrame is the first frame whose hash differed since the
	// last whole state (0: none); a whole state is wanted.
	MismatchFrame int32
	// Diff names the first difference between the client's own state of
	// a frame and the server's whole state of it, found as the whole
	// state was loaded ("frame F: what"), or "".
	Diff       string
	Duplicates int // frames received again, or already confirmed
	TooFar     int // frames received further ahead than the ring holds
}

// TrailFrames is the most frames a Rollback keeps the positions of.
const TrailFrames = 32

// Positions is where the players stood after a frame: Origin[n] for each
// client n whose bit is set in Present (the clients whose input the frame
// ran: the players in the game, humans and bots).
type Positions struct {
	Present uint64
	Origin  [bg.MaxClients]bg.Vec
}

// Rollback is a Sync's last rollback, kept to be shown (the classroom's
// ghost trail): the frames it ran again and where every player stood
// after each of them, as first predicted (Before) and as run again
// (After). Frames From..Confirmed ran as the server's; the ones after
// them up to To were predicted again. Only the first TrailFrames frames
// keep their positions: Before[i] and After[i] are frame From+i, for i
// below Kept. The Sync fills it in place, without allocating.
type Rollback struct {
	// Number counts the rollbacks (Stats().Rollbacks when it happened);
	// 0: none yet. A new rollback changes it.
	Number    int
	From, To  int32
	Confirmed int32
	Kept      int
	Before    [TrailFrames]Positions
	After     [TrailFrames]Positions
}

// Sync is a client's rollback machine over a Sim (seed 003's "time
// machine"): a ring of saved states, the client's own input of each frame,
// the frames received from the server (out of order, buffered until
// every frame before them is in: only a contiguous run confirms),
// prediction of the frames past the last confirmed one with the others'
// last confirmed inputs and no events, rollback to the last correctly
// predicted state when a confirmed frame differs from its prediction and
// re-simulation to the current frame, a stall rather than predict more
// than MaxPrediction frames ahead, a check of the state hash of every
// confirmed frame that carries one, and the frames to ask the server for.
// A Sync starts with a whole state (LoadWhole). It allocates nothing in
// steady state.
type Sync struct {
	sim  *Sim
	cfg  SyncConfig
	size int32

	started   bool
	current   int32
	confirmed int32
	newest    int32
	period    int32

	// Rings indexed by frame number modulo size.
	states    []*game.State
	stateNum  []int32 // frame of each saved state; 0 for none
	stateTime []int32
	hashNum   []int32 // frame whose hash hashes holds; 0 for none
	hashes    []uint64
	recv      []Frame // frames received (Number 0: none)
	pred      []Frame // the frame each predicted frame ran as
	own       []bg.UserCmd
	ownNum    []int32

	// base is what frames past the last confirmed one are predicted
	// from: its Present and inputs.
	base  Frame
	whole *game.State // a whole state being read

	// pos holds where the players stood after each frame run, by ring
	// slot (posNum: its frame; 0 for none), for the last rollback.
	pos    []Positions
	posNum []int32
	last   Rollback

	stats SyncStats
}

// NewSync returns the rollback machine over sim, waiting for a whole
// state.
func NewSync(sim *Sim, cfg SyncConfig) *Sync {
	if cfg.States <= 0 {
		cfg.States = DefaultStates
	}
	if cfg.MaxPrediction <= 0 {
		cfg.MaxPrediction = DefaultMaxPrediction
	}
	if cfg.MaxPrediction >= cfg.States {
		cfg.MaxPrediction = cfg.States - 1
	}
	if cfg.FrameMsec <= 0 {
		cfg.FrameMsec = DefaultFrameMsec
	}
	if cfg.HashEvery <= 0 {
		cfg.HashEvery = DefaultHashEvery
	}
	n := cfg.States
	s := &Sync{
		sim: sim, cfg: cfg, size: int32(n), period: cfg.FrameMsec,
		states: make([]*game.State, n), stateNum: make([]int32, n), stateTime: make([]int32, n),
		hashNum: make([]int32, n), hashes: make([]uint64, n),
		recv: make([]Frame, n), pred: make([]Frame, n),
		own: make([]bg.UserCmd, n), ownNum: make([]int32, n),
		pos: make([]Positions, n), posNum: make([]int32, n),
		whole: game.NewState(),
	}
	for i := range s.states {
		s.states[i] = game.NewState()
	}
	return s
}

// Sim returns the simulation the Sync drives.
func (s *Sync) Sim() *Sim { return s.sim }

// Stats returns the counters.
func (s *Sync) Stats() SyncStats {
	st := s.stats
	st.Current, st.Confirmed, st.Newest = s.current, s.confirmed, s.newest
	st.Ahead = s.current - s.confirmed
	return st
}

// LastRollback returns the last rollback, with where the players stood
// in the frames it ran again (Number 0: none yet). It is the Sync's own,
// changed by the next Advance, Confirm or LoadWhole: read it, do not keep
// it or change it.
func (s *Sync) LastRollback() *Rollback { return &s.last }

// Started reports whether the Sync has loaded a whole state.
func (s *Sync) Started() bool { return s.started }

// Period returns the time between two frames, in ms: the step between
// the last two confirmed frames (SyncConfig.FrameMsec before two came).
// Advance stamps each input with the time of the frame after the current
// one, this much later.
func (s *Sync) Period() int32 { return s.period }

// Current returns the frame the game is at.
func (s *Sync) Current() int32 { return s.current }

// Confirmed returns the last confirmed frame.
func (s *Sync) Confirmed() int32 { return s.confirmed }

// slot returns the ring index of frame n.
func (s *Sync) slot(n int32) int { return int(uint32(n) % uint32(s.size)) }

// Frame returns received frame n while the ring still holds it (the
// frames a frames message may be coded from: FrameSource).
func (s *Sync) Frame(n int32) (*Frame, bool) {
	if n <= 0 {
		return nil, false
	}
	f := &s.recv[s.slot(n)]
	return f, f.Number == n
}

// ConfirmedHash returns the state hash of confirmed frame n if the ring
// still holds its state, hashing it then if it was not hashed (which costs
// two loads of a saved state).
func (s *Sync) ConfirmedHash(n int32) (uint64, bool) {
	if !s.started || n > s.confirmed || s.stateNum[s.slot(n)] != n {
		return 0, false
	}
	return s.hashOf(n), true
}

// Receive takes a frame from the server; the Sync keeps a copy. Frames
// may come in any order and more than once: one already held or
// confirmed is counted as a duplicate, one further ahead of the last
// confirmed frame than the ring holds is dropped (and counted).
func (s *Sync) Receive(f *Frame) {
	if f.Number <= 0 {
		return
	}
	if f.Number > s.newest {
		s.newest = f.Number
	}
	if s.started && f.Number <= s.confirmed {
		s.stats.Duplicates++
		return
	}
	if s.started && f.Number-s.confirmed > s.size {
		s.stats.TooFar++
		return
	}
	r := &s.recv[s.slot(f.Number)]
	if r.Number == f.Number {
		s.stats.Duplicates++
		return
	}
	r.CopyFrom(f)
}

// Advance confirms what the frames received allow, rolling back if a
// confirmed frame differs from what was predicted, then runs the next
// frame with own as the client's input, predicting the others'. It stamps
// own.ServerTime with that frame's time (and cuts its fields to what the
// wire carries): that is the command to send to the server. It returns
// false, running nothing, before the first whole state and when the
// next frame would be more than MaxPrediction frames past the last
// confirmed one (a stall).
func (s *Sync) Advance(own *bg.UserCmd) bool {
	if !s.started {
		return false
	}
	s.confirm()
	n := s.current + 1
	if n-s.confirmed > int32(s.cfg.MaxPrediction) {
		s.stats.Stalls++
		s.stats.Stalled = true
		return false
	}
	s.stats.Stalled = false
	bg.UserCmdTable.Truncate(own)
	own.ServerTime = s.stateTime[s.slot(s.current)] + s.period
	i := s.slot(n)
	s.own[i], s.ownNum[i] = *own, n
	s.predict(n)
	s.stats.Predicted++
	return true
}

// Confirm confirms what the frames received allow, as Advance does first
// (for an engine that wants the confirmed state before its next frame).
func (s *Sync) Confirm() {
	if s.started {
		s.confirm()
	}
}

// OwnInput returns the client's input of frame n while the ring holds it
// (to send again until the server has it).
func (s *Sync) OwnInput(n int32) (bg.UserCmd, bool) {
	i := s.slot(n)
	return s.own[i], n > 0 && s.ownNum[i] == n
}

// held reports whether received frame n is in the ring.
func (s *Sync) held(n int32) bool { return s.recv[s.slot(n)].Number == n }

// confirm moves the last confirmed frame over every received frame that
// follows it without a gap. Frames the game ran as predicted and that
// match are confirmed as they are; from the first that differs (or was
// not run yet) the game goes back to the state before it and runs the
// confirmed frames, then predicts again up to the current frame.
func (s *Sync) confirm() {
	first := s.confirmed + 1
	last := s.confirmed
	resim := int32(0)
	for n := first; s.held(n) && n-s.confirmed <= s.size; n++ {
		if resim == 0 && (n > s.current || !samePrediction(&s.pred[s.slot(n)], &s.recv[s.slot(n)])) {
			resim = n
		}
		last = n
	}
	if last == s.confirmed {
		return
	}
	if resim == 0 {
		s.setConfirmed(last)
	} else {
		old := s.current
		if resim <= old {
			s.keepTrail(&s.last.Before, resim, old)
			s.sim.Load(s.states[s.slot(resim-1)])
			if s.cfg.Observer != nil {
				s.cfg.Observer.StateLoaded(resim - 1)
			}
		}
		for n := resim; n <= last; n++ {
			s.run(n, &s.recv[s.slot(n)], true)
		}
		s.setConfirmed(last)
		for n := last + 1; n <= old; n++ {
			s.predict(n)
		}
		if resim <= old {
			k := int(old - resim + 1)
			s.stats.Rollbacks++
			s.stats.Resimulated += k
			s.stats.MaxResimulated = max(s.stats.MaxResimulated, k)
			s.keepTrail(&s.last.After, resim, old)
			s.last.Number, s.last.From, s.last.To, s.last.Confirmed = s.stats.Rollbacks, resim, old, last
			s.last.Kept = min(k, TrailFrames)
		}
	}
	for n := first; n <= last; n++ {
		if f := &s.recv[s.slot(n)]; f.HasHash {
			s.checkHash(n, f.Hash)
		}
	}
}

// setConfirmed makes n, a held frame the game has run as the server did,
// the last confirmed one: the base of the predictions after it.
func (s *Sync) setConfirmed(n int32) {
	f := &s.recv[s.slot(n)]
	if prev, ok := s.Frame(n - 1); ok && f.Time-prev.Time > 0 {
		s.period = f.Time - prev.Time
	}
	s.base.Present = f.Present
	s.base.Inputs = f.Inputs
	s.confirmed = n
}

// predict builds the prediction of frame n (the frame before it run) and
// runs it: the others repeat their last confirmed input, the client plays
// its own, no events, no bot slots.
func (s *Sync) predict(n int32) {
	p := &s.pred[s.slot(n)]
	clear(p.Events)
	p.Events, p.BotSlots = p.Events[:0], p.BotSlots[:0]
	p.HasHash, p.Hash = false, 0
	p.Number = n
	p.Time = s.stateTime[s.slot(n-1)] + s.period
	p.Present = s.base.Present
	p.Inputs = s.base.Inputs
	me := s.cfg.Client
	if i := s.slot(n); uint(me) < bg.MaxClients && s.ownNum[i] == n {
		p.Inputs[me] = s.own[i]
	}
	for q := p.Present; q != 0; q &= q - 1 {
		p.Inputs[bits.TrailingZeros64(q)].ServerTime = p.Time
	}
	s.run(n, p, false)
}

// run runs frame f as frame n from the state of frame n-1 and saves the
// state of frame n; confirmed says f is the server's frame n.
func (s *Sync) run(n int32, f *Frame, confirmed bool) {
	s.sim.Apply(f)
	i := s.slot(n)
	s.sim.Save(s.states[i])
	g, p := s.sim.g, &s.pos[i]
	p.Present, s.posNum[i] = f.Present, n
	for q := f.Present; q != 0; q &= q - 1 {
		c := bits.TrailingZeros64(q)
		p.Origin[c] = g.PlayerState(c).Origin
	}
	s.stateNum[i], s.stateTime[i] = n, f.Time
	s.hashNum[i] = 0
	if n%s.cfg.HashEvery == 0 {
		s.hashNum[i], s.hashes[i] = n, s.sim.Hash()
	}
	s.current = n
	s.stats.Simulated++
	if s.cfg.Observer != nil {
		s.cfg.Observer.FrameRun(n, confirmed)
	}
}

// keepTrail copies where the players stood after frames from..to (as
// last run) into the first TrailFrames of trail; a frame not run leaves
// no one.
func (s *Sync) keepTrail(trail *[TrailFrames]Positions, from, to int32) {
	for n := from; n <= to && n-from < TrailFrames; n++ {
		t, i := &trail[n-from], s.slot(n)
		if s.posNum[i] != n {
			t.Present = 0
			continue
		}
		t.Present = s.pos[i].Present
		for q := t.Present; q != 0; q &= q - 1 {
			c := bits.TrailingZeros64(q)
			t.Origin[c] = s.pos[i].Origin[c]
		}
	}
}

// hashOf returns the hash of the saved state of frame n (held), hashing
// it if it was not.
func (s *Sync) hashOf(n int32) uint64 {
	i := s.slot(n)
	if s.hashNum[i] != n {
		s.sim.Load(s.states[i])
		s.hashNum[i], s.hashes[i] = n, s.sim.Hash()
		s.sim.Load(s.states[s.slot(s.current)])
	}
	return s.hashes[i]
}

// checkHash compares the state hash of confirmed frame n with the
// server's.
func (s *Sync) checkHash(n int32, want uint64) {
	if s.stateNum[s.slot(n)] != n {
		return // the ring no longer holds it (a confirmation of more frames than the ring)
	}
	if s.stats.MismatchFrame != 0 {
		return // known to differ until the whole state asked for repairs it
	}
	s.stats.HashChecks++
	if s.hashOf(n) != want {
		s.stats.Mismatches++
		if s.stats.MismatchFrame == 0 {
			s.stats.MismatchFrame = n
		}
	}
}

// samePrediction reports whether confirmed frame f would run as the
// prediction p ran: the same time and inputs, no events, no bot slots.
func samePrediction(p, f *Frame) bool {
	if p.Number != f.Number || p.Time != f.Time || p.Present != f.Present ||
		len(f.Events) != 0 || len(f.BotSlots) != 0 {
		return false
	}
	for q := f.Present; q != 0; q &= q - 1 {
		n := bits.TrailingZeros64(q)
		if p.Inputs[n] != f.Inputs[n] {
			return false
		}
	}
	return true
}

// Missing returns the frames to ask the server for: from the first frame
// after the last confirmed one that is not held, to the frame before the
// next one held, or to the newest frame number received when none after
// it is held. ok is false when nothing is missing (no frame after the
// gap is known) or before the first whole state.
func (s *Sync) Missing() (from, to int32, ok bool) {
	if !s.started || s.newest <= s.confirmed {
		return 0, 0, false
	}
	limit := min(s.newest, s.confirmed+s.size)
	from = s.confirmed + 1
	for from <= limit && s.held(from) {
		from++
	}
	if from > limit {
		return 0, 0, false
	}
	to = from
	for to < limit && !s.held(to+1) {
		to++
	}
	return from, to, true
}

// WantWhole reports whether the client needs a whole state, and of which
// frame: before the first one (the newest frame received, or 0 for any),
// after a hash mismatch (the first frame that mismatched, so that the
// difference can be named), or when the frames after the last confirmed
// one have left the server's frame buffer.
func (s *Sync) WantWhole() (frame int32, ok bool) {
	switch {
	case !s.started:
		return s.newest, true
	case s.stats.MismatchFrame != 0:
		return s.stats.MismatchFrame, true
	case s.newest-s.confirmed >= FrameBuffer-1:
		return s.newest, true
	}
	return 0, false
}

// LoadWhole reads a whole-state message (AppendWhole) and puts the game
// in that state as confirmed frame F of the message, unless the Sync has
// no use for it: started, no hash mismatch pending, and F not after the
// last confirmed frame (a whole state asked for twice arrives twice);
// loaded says which. If the client still holds its own confirmed state of
// frame F, the first difference between the two goes into Stats().Diff
// (game.DiffState, the client's value first). Frames received after F
// and held are confirmed at the next Advance. On an error the Sync is
// unchanged.
func (s *Sync) LoadWhole(r *msg.Reader) (loaded bool, err error) {
	n, err := ReadWhole(r, s.whole)
	if err != nil {
		return false, err
	}
	if got, want := s.whole.MapChecksum(), s.sim.g.Map().Checksum; got != want {
		return false, fmt.Errorf("framesync: whole state of frame %d is of another map (checksum %d, not %d)", n, got, want)
	}
	if s.started && s.stats.MismatchFrame == 0 && n <= s.confirmed {
		s.stats.WholeIgnored++
		return false, nil
	}
	i := s.slot(n)
	if s.started && n <= s.confirmed && s.stateNum[i] == n {
		if what, differs := game.DiffState(s.states[i], s.whole); differs {
			s.stats.Diff = "frame " + strconv.Itoa(int(n)) + ": " + what
		}
	}
	if s.started {
		s.stats.Resyncs++
	}
	s.sim.Load(s.whole)
	if s.cfg.Observer != nil {
		s.cfg.Observer.StateLoaded(n)
	}
	for k := range s.stateNum {
		s.stateNum[k], s.hashNum[k], s.posNum[k] = 0, 0, 0
	}
	s.states[i], s.whole = s.whole, s.states[i] // the loaded state is frame n's; the old one becomes scratch
	s.stateNum[i], s.stateTime[i] = n, s.states[i].LevelTime()
	s.current, s.confirmed = n, n
	if n > s.newest {
		s.newest = n
	}
	s.base.Present = 0
	s.stats.MismatchFrame = 0
	if f, ok := s.Frame(n); ok { // else the first frame after n will roll back
		s.base.Present, s.base.Inputs = f.Present, f.Inputs
	}
	s.started = true
	return true, nil
}
