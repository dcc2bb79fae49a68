package framesync

import (
	"math/bits"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
	"tremor/net/cmdargs"
	"tremor/net/msg"
)

// Defaults of RecorderConfig.
const (
	DefaultHashEvery   = 5
	DefaultSavedStates = 4
	DefaultPingEvery   = 20
	DefaultFrameMsec   = 50
)

// inputWindow is how many frames ahead of the frame being built the
// Recorder holds a client's input: an input for a later frame is dropped.
const inputWindow = FrameBuffer / 2

// RecorderConfig holds the Recorder's settings; a zero field takes its
// default.
type RecorderConfig struct {
	// HashEvery is sv_frameHashEvery: every frame whose number is a
	// multiple of it carries the game's state hash, and the game's state
	// after it is saved for whole-state answers (default 5).
	HashEvery int32
	// SavedStates is how many of those states the Recorder keeps
	// (default 4: the last 20 frames at HashEvery 5).
	SavedStates int
	// PingEvery is how many frames apart a client's ping may change in
	// the game (default 20, a second at sv_fps 20): a change waits for
	// the next frame whose number is a multiple of it.
	PingEvery int32
	// FrameMsec is the server's frame period in ms (sv_fps), which places
	// the inputs that arrive before the first frame (default 50). Later
	// the period is the step between the last two frames.
	FrameMsec int32
}

// RecorderStats counts what the Recorder did with the clients' inputs.
type RecorderStats struct {
	Frames  int // frames closed
	Events  int // events recorded
	Inputs  int // inputs placed in their frame's slot
	Late    int // inputs for a frame already closed without them, dropped
	Again   int // inputs for a frame already closed with them (sent again), dropped
	Early   int // inputs more than FrameBuffer/2 frames ahead, dropped
	OffGrid int // inputs whose time is no frame's time, dropped
	Repeats int // frames where a human's input was missing and the last one repeated
}

// inputRing holds one client's inputs for the frames after the one being
// built, by frame number.
type inputRing struct {
	num    [inputWindow]int32 // frame of each slot's input; 0 for none
	cmd    [inputWindow]bg.UserCmd
	newest int32 // newest frame an input arrived for
}

// savedState is one of the Recorder's saved states.
type savedState struct {
	frame int32 // 0: none yet
	time  int32
	st    *game.State
}

// Recorder is the server's side of frame sync: a game.Game decorator
// around the game (a *game.Arena with Config.ExternalBotInput) and a
// game.Engine wrapper around the server's engine. The server engine makes
// its game through NewRecorder in frame-sync mode and calls it as it
// calls any game.
//
// The engine→game calls the engine makes between frames (depth 0: not
// made back from inside one of the game's own calls) are applied to the
// game at once and recorded as events of the frame being built; nested
// ones (the game calling engine.DropClient, which calls ClientDisconnect
// back) are applied but not recorded, since replaying the outer call
// makes them again. ClientThink does not run a command: it keeps it for
// the frame whose Time is its ServerTime. RunFrame(t) closes the frame:
// each human in the game gets its input for the frame, or repeats its
// last one (the missing-input rule, docs/framesync.md), the bots' commands
// come from ThinkBots, Apply's inputs and RunFrame run, every HashEvery
// frames the state hash goes into the frame and the state is saved for
// whole-state answers, and the frame joins the frame buffer.
type Recorder struct {
	g     *game.Arena
	eng   recEngine
	cfg   RecorderConfig
	depth int

	frames     [FrameBuffer]Frame
	newest     int32 // last closed frame, 0 before the first
	newestTime int32 // its Time (or Init's level time before it)
	period     int32

	inputs   [bg.MaxClients]inputRing
	last     [bg.MaxClients]bg.UserCmd // each client's input of its last frame
	lead     [bg.MaxClients]int32
	ping     [bg.MaxClients]int32 // as the game holds it
	wantPing [bg.MaxClients]int32 // as the engine last gave it

	saved []savedState
	stats RecorderStats
}

var _ game.Game = (*Recorder)(nil)

// NewRecorder makes the game for map m, talking to engine through the
// Recorder's wrapper, with cfg (Config.ExternalBotInput is set whatever
// cfg says), and returns the Recorder around it.
func NewRecorder(engine game.Engine, m *tilemap.Map, cfg game.Config, rc RecorderConfig) *Recorder {
	if rc.HashEvery <= 0 {
		rc.HashEvery = DefaultHashEvery
	}
	if rc.SavedStates <= 0 {
		rc.SavedStates = DefaultSavedStates
	}
	if rc.PingEvery <= 0 {
		rc.PingEvery = DefaultPingEvery
	}
	if rc.FrameMsec <= 0 {
		rc.FrameMsec = DefaultFrameMsec
	}
	r := &Recorder{cfg: rc, period: rc.FrameMsec}
	r.eng = recEngine{r: r, inner: engine}
	cfg.ExternalBotInput = true
	cfg = wireConfig(cfg)
	r.g = game.New(&r.eng, m, cfg)
	r.record(Event{Kind: EventConfig, Config: cfg}) // the clients' games start with the defaults
	r.saved = make([]savedState, rc.SavedStates)
	for i := range r.saved {
		r.saved[i].st = game.NewState()
	}
	return r
}

// Game returns the game the Recorder drives, for what the engine reads of
// it (its state is the server's authoritative one). Calls made on it
// directly are not recorded.
func (r *Recorder) Game() *game.Arena { return r.g }

// Stats returns the Recorder's counters.
func (r *Recorder) Stats() RecorderStats { return r.stats }

// HashEvery returns the frames between two state hashes.
func (r *Recorder) HashEvery() int32 { return r.cfg.HashEvery }

// building returns the frame being built (the one after Newest).
func (r *Recorder) building() *Frame {
	return &r.frames[uint32(r.newest+1)%FrameBuffer]
}

// record appends e to the frame being built.
func (r *Recorder) record(e Event) {
	f := r.building()
	f.Events = append(f.Events, e)
	r.stats.Events++
}

// Newest returns the number of the newest closed frame (0 before the
// first).
func (r *Recorder) Newest() int32 { return r.newest }

// Frame returns closed frame n from the frame buffer, which holds the
// last FrameBuffer-1 frames. The Frame is the Recorder's: read it before
// the Recorder closes FrameBuffer-1 more frames, and do not change it.
func (r *Recorder) Frame(n int32) (*Frame, bool) {
	if n <= 0 || n > r.newest || r.newest-n >= FrameBuffer-1 {
		return nil, false
	}
	f := &r.frames[uint32(n)%FrameBuffer]
	return f, f.Number == n
}

// InputLead returns how many frames ahead of the last closed frame the
// newest input of client had arrived when that frame closed: 1 or more
// when its inputs come early enough, 0 when the frame's own input was the
// newest, negative when they come late (the clock feedback of a client's
// frame clock). 0 for a client that sent none.
func (r *Recorder) InputLead(client int) int32 {
	if uint(client) >= bg.MaxClients {
		return 0
	}
	return r.lead[client]
}

// enter and leave bracket a call into the game: the engine calls that
// arrive in between are nested.
func (r *Recorder) enter() { r.depth++ }
func (r *Recorder) leave() { r.depth-- }

// Init starts a match (recorded as EventInit). Inputs held for the old
// match are forgotten.
func (r *Recorder) Init(levelTime int32, seed uint64, restart bool) {
	if r.depth == 0 {
		r.record(Event{Kind: EventInit, Value: levelTime, Seed: seed, Restart: restart})
		r.newestTime = levelTime
		for n := range r.inputs {
			r.forgetInputs(n)
		}
	}
	r.ping = [bg.MaxClients]int32{} // Init forgets every client, pings with them
	r.enter()
	r.g.Init(levelTime, seed, restart)
	r.leave()
}

// forgetInputs drops what the Recorder keeps of client n's inputs.
func (r *Recorder) forgetInputs(n int) {
	r.inputs[n] = inputRing{}
	r.last[n] = bg.UserCmd{}
	r.lead[n] = 0
}

// Shutdown ends the match. It changes nothing a frame depends on and is
// not recorded.
func (r *Recorder) Shutdown() {
	r.enter()
	r.g.Shutdown()
	r.leave()
}

// ClientConnect admits client (recorded as EventConnect with the userinfo
// reduced by GameUserinfo, which is also what the game gets).
func (r *Recorder) ClientConnect(client int, userinfo string, isBot bool) string {
	userinfo = GameUserinfo(userinfo)
	if r.depth == 0 && uint(client) < bg.MaxClients {
		r.record(Event{Kind: EventConnect, Client: int32(client), IsBot: isBot, Text: userinfo})
		r.forgetInputs(client)
	}
	r.enter()
	denied := r.g.ClientConnect(client, userinfo, isBot)
	r.leave()
	return denied
}

// ClientBegin puts client in the game (recorded as EventBegin).
func (r *Recorder) ClientBegin(client int) {
	if r.depth == 0 && uint(client) < bg.MaxClients {
		r.record(Event{Kind: EventBegin, Client: int32(client)})
	}
	r.enter()
	r.g.ClientBegin(client)
	r.leave()
}

// ClientUserinfoChanged applies a new userinfo (recorded as
// EventUserinfo, reduced as for ClientConnect).
func (r *Recorder) ClientUserinfoChanged(client int, userinfo string) {
	userinfo = GameUserinfo(userinfo)
	if r.depth == 0 && uint(client) < bg.MaxClients {
		r.record(Event{Kind: EventUserinfo, Client: int32(client), Text: userinfo})
	}
	r.enter()
	r.g.ClientUserinfoChanged(client, userinfo)
	r.leave()
}

// ClientCommand executes a client's command (recorded as EventCommand:
// its text, which the game gets tokenized again, as every client's copy
// does).
func (r *Recorder) ClientCommand(client int, args *cmdargs.Args) {
	if args == nil {
		return
	}
	if r.depth > 0 || uint(client) >= bg.MaxClients {
		r.enter()
		r.g.ClientCommand(client, args)
		r.leave()
		return
	}
	text := args.Raw() // cut at a zero byte and at MaxStringChars (= MaxEventText) already
	r.record(Event{Kind: EventCommand, Client: int32(client), Text: text})
	r.enter()
	applyCommand(r.g, client, text)
	r.leave()
}

// ClientDisconnect removes client (recorded as EventDisconnect unless
// the game asked for it).
func (r *Recorder) ClientDisconnect(client int) {
	if uint(client) < bg.MaxClients {
		if r.depth == 0 {
			r.record(Event{Kind: EventDisconnect, Client: int32(client)})
		}
		r.forgetInputs(client)
	}
	r.enter()
	r.g.ClientDisconnect(client)
	r.leave()
}

// SetConfig applies new settings (recorded as EventConfig), with
// ExternalBotInput kept set.
func (r *Recorder) SetConfig(cfg game.Config) {
	cfg.ExternalBotInput = true
	cfg = wireConfig(cfg)
	if r.depth == 0 {
		r.record(Event{Kind: EventConfig, Config: cfg})
	}
	r.enter()
	r.g.SetConfig(cfg)
	r.leave()
}

// SetPing takes a client's ping, clamped to 0..MaxPing. It reaches the
// game (as an EventPing) at the next frame whose number is a multiple of
// PingEvery, if it differs from the ping the game holds then.
func (r *Recorder) SetPing(client, ms int) {
	if uint(client) < bg.MaxClients {
		r.wantPing[client] = int32(max(0, min(ms, MaxPing)))
	}
}

// AddBot adds a bot (recorded as EventAddBot; the slot the engine gives it
// goes into the frame's BotSlots).
func (r *Recorder) AddBot(name string, skill int) (int, error) {
	skill = max(1, min(skill, 5))
	name = cutText(name)
	if r.depth == 0 {
		r.record(Event{Kind: EventAddBot, Text: name, Value: int32(skill)})
	}
	r.enter()
	n, err := r.g.AddBot(name, skill)
	r.leave()
	return n, err
}

// cutText cuts s at its first zero byte and at MaxEventText bytes, as the
// wire carries it.
func cutText(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			s = s[:i]
			break
		}
	}
	if len(s) > MaxEventText {
		s = s[:MaxEventText]
	}
	return s
}

// Connected reports whether the game holds client.
func (r *Recorder) Connected(client int) bool { return r.g.Connected(client) }

// ClientName returns client's name in the game.
func (r *Recorder) ClientName(client int) string { return r.g.ClientName(client) }

// GameType returns the running match's game type.
func (r *Recorder) GameType() int32 { return r.g.GameType() }

// StateHash returns the game's state hash.
func (r *Recorder) StateHash() uint64 { return r.g.StateHash() }

// ClientThink keeps client's command for the frame whose Time is its
// ServerTime: the frame being built or one at most FrameBuffer/2 frames
// later. A command for a frame already closed (late), further ahead
// (early) or at no frame's time is dropped and counted. The first command
// of a frame is kept; another for the same frame is ignored.
func (r *Recorder) ClientThink(client int, cmd *bg.UserCmd) {
	if uint(client) >= bg.MaxClients || cmd == nil {
		return
	}
	if r.depth > 0 { // the game does not call it back, but if it did
		r.enter()
		r.g.ClientThink(client, cmd)
		r.leave()
		return
	}
	next := r.newest + 1
	d := cmd.ServerTime - (r.newestTime + r.period)
	if r.period <= 0 || d%r.period != 0 {
		r.stats.OffGrid++
		return
	}
	k := d / r.period
	if k < 0 {
		if f, ok := r.Frame(next + k); ok && f.Present&(1<<client) != 0 && f.Inputs[client] == carried(cmd) {
			r.stats.Again++ // a copy sent again of an input the frame had
		} else {
			r.stats.Late++
		}
		return
	}
	if k >= inputWindow {
		r.stats.Early++
		return
	}
	frame := next + k
	in := &r.inputs[client]
	i := uint32(frame) % inputWindow
	if in.num[i] == frame {
		return
	}
	in.num[i] = frame
	in.cmd[i] = carried(cmd)
	if frame > in.newest {
		in.newest = frame
	}
	r.stats.Inputs++
}

// carried returns cmd as the wire carries it.
func carried(cmd *bg.UserCmd) bg.UserCmd {
	c := *cmd
	bg.UserCmdTable.Truncate(&c)
	return c
}

// RunFrame closes the frame being built at levelTime and runs it: see
// Recorder. The frame's inputs are fixed here; the events were applied as
// they came.
func (r *Recorder) RunFrame(levelTime int32) {
	if r.depth > 0 {
		r.g.RunFrame(levelTime) // never happens: the game does not run itself
		return
	}
	num := r.newest + 1
	f := r.building()
	f.Number, f.Time = num, levelTime

	if num%r.cfg.PingEvery == 0 {
		r.applyPings()
	}

	present := r.g.ThinkBots(levelTime, &f.Inputs)
	for p := present; p != 0; p &= p - 1 {
		n := bits.TrailingZeros64(p)
		bg.UserCmdTable.Truncate(&f.Inputs[n])
		f.Inputs[n].ServerTime = levelTime
	}
	for n := 0; n < bg.MaxClients; n++ {
		if present&(1<<n) != 0 {
			continue
		}
		if !r.g.InGame(n) || r.g.IsBot(n) {
			f.Inputs[n] = bg.UserCmd{}
			continue
		}
		in := &r.inputs[n]
		i := uint32(num) % inputWindow
		if in.num[i] == num && in.cmd[i].ServerTime == levelTime {
			r.last[n] = in.cmd[i]
		} else {
			r.last[n].ServerTime = levelTime // the missing-input rule
			r.stats.Repeats++
		}
		in.num[i] = 0
		f.Inputs[n] = r.last[n]
		present |= 1 << n
		r.lead[n] = 0
		if in.newest != 0 {
			r.lead[n] = in.newest - num
		}
	}
	f.Present = present

	r.enter()
	applyInputs(r.g, f)
	r.g.RunFrame(levelTime)
	r.leave()

	if num%r.cfg.HashEvery == 0 {
		f.HasHash, f.Hash = true, r.g.StateHash()
		s := &r.saved[int(num/r.cfg.HashEvery)%len(r.saved)]
		r.g.SaveState(s.st)
		s.frame, s.time = num, levelTime
	}
	if d := levelTime - r.newestTime; r.newest > 0 && d > 0 {
		r.period = d
	}
	r.newest, r.newestTime = num, levelTime
	r.stats.Frames++
	r.building().Reset()
}

// applyPings gives the game, as events of the frame being closed, the
// pings that changed.
func (r *Recorder) applyPings() {
	for n := range r.ping {
		if r.wantPing[n] == r.ping[n] || !r.g.Connected(n) {
			continue
		}
		r.ping[n] = r.wantPing[n]
		r.record(Event{Kind: EventPing, Client: int32(n), Value: r.ping[n]})
		r.enter()
		r.g.SetPing(n, int(r.ping[n]))
		r.leave()
	}
}

// AppendWholeState writes a whole-state message (AppendWhole) of the
// saved state of frame want if the Recorder still keeps it, else of the
// newest it keeps, and returns that frame; ok is false, and nothing is
// written, before the first hash frame.
func (r *Recorder) AppendWholeState(w *msg.Writer, want int32) (frame int32, ok bool) {
	s := r.savedFor(want)
	if s == nil {
		return 0, false
	}
	AppendWhole(w, s.frame, s.st)
	return s.frame, true
}

// WholeStateFrame returns the frame AppendWholeState(w, want) would
// write, so that an engine can send that frame's inputs ahead of it (the
// client then predicts the next frame from them); ok as AppendWholeState.
func (r *Recorder) WholeStateFrame(want int32) (frame int32, ok bool) {
	s := r.savedFor(want)
	if s == nil {
		return 0, false
	}
	return s.frame, true
}

// savedFor returns the saved state of frame want, else the newest, else
// nil.
func (r *Recorder) savedFor(want int32) *savedState {
	var best *savedState
	for i := range r.saved {
		s := &r.saved[i]
		if s.frame == 0 {
			continue
		}
		if s.frame == want {
			return s
		}
		if best == nil || s.frame > best.frame {
			best = s
		}
	}
	return best
}

// recEngine is the engine the Recorder's game talks to: the server's,
// with BotAllocateClient's answers recorded into the frame being built.
type recEngine struct {
	r     *Recorder
	inner game.Engine
}

// LocateGameData passes the call to the server's engine.
func (e *recEngine) LocateGameData(ents []game.SharedEntity, numEntities int, clients []bg.PlayerState) {
	e.inner.LocateGameData(ents, numEntities, clients)
}

// SetConfigstring passes the call to the server's engine.
func (e *recEngine) SetConfigstring(index int, value string) { e.inner.SetConfigstring(index, value) }

// Configstring passes the call to the server's engine.
func (e *recEngine) Configstring(index int) string { return e.inner.Configstring(index) }

// SendServerCommand passes the call to the server's engine.
func (e *recEngine) SendServerCommand(client int, text string) {
	e.inner.SendServerCommand(client, text)
}

// DropClient passes the call to the server's engine, which calls the
// Recorder's ClientDisconnect back (nested: not recorded).
func (e *recEngine) DropClient(client int, reason string) { e.inner.DropClient(client, reason) }

// Command passes the call to the server's engine.
func (e *recEngine) Command(text string) { e.inner.Command(text) }

// Print passes the call to the server's engine.
func (e *recEngine) Print(text string) { e.inner.Print(text) }

// BotAllocateClient asks the server's engine for a slot and records the
// answer in the frame being built.
func (e *recEngine) BotAllocateClient(userinfo string) int {
	n := e.inner.BotAllocateClient(userinfo)
	if n < -1 || n >= bg.MaxClients {
		n = -1 // the game refuses it anyway; the wire carries -1..63
	}
	f := e.r.building()
	f.BotSlots = append(f.BotSlots, int32(n))
	return n
}
