package headless

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/game/bot"
	"tremor/internal/client"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// player is one headless client: engine, cgame, bot, chat and counters.
type player struct {
	r    *Runner
	i    int
	name string
	c    *client.Client
	cg   *cgame.CGame
	gs   uint64 // the client's gamestate count cg was made for
	// gsAt is the client's real time when cg was made: usercmds sent
	// across a map change carry the old server id and are never run by
	// the server, so the prediction may differ for a moment after.
	gsAt int32

	bot      *bot.Bot
	botMap   *tilemap.Map
	cmd      bg.UserCmd // the bot's latest decision
	nextBot  int32      // client realtime of the next think
	view     bot.View
	players  []bot.PlayerInfo
	items    []bot.ItemInfo
	itemSeen [1024]int16 // index+1 into items by entity number
	snap     cgame.Snapshot

	liveSeen uint64
	settled  bool
	recAsked bool // Config.Record was asked

	// chat
	chatNext    time.Duration // run time of the next line; 0: not started
	chatSent    int
	chatRefused int
	recv        []chatFrom // by sender index

	started, stopped time.Duration
	cgStats          cgameTotals
}

// chatFrom tracks the lines received from one sender.
type chatFrom struct {
	seen     []bool // by line number
	distinct int
	next     int // line expected next
	dup, ooo int
}

// cgameTotals accumulates the stats of the CGames of successive levels.
// cgame tells misses of the shared movement code from corrections the
// server explains (a hit, a push, a death); a miss within a second of a
// new gamestate is a correction too, since the commands sent across the
// level change never ran.
type cgameTotals struct {
	misses, corrections  int
	settled              int // of the misses, those right after a gamestate
	errorMax             float64
	frames, extrapolated int
}

// gamestateSettle is how long after a new gamestate a prediction
// difference counts as a correction: the commands the client sent while
// the level changed were never run by the server.
const gamestateSettle = 1000 // ms

func newPlayer(r *Runner, i int, conn netchan.Conn) *player {
	cfg := r.cfg.Client
	cfg.Name = r.cfg.NamePrefix + strconv.Itoa(i)
	cfg.Seed = seedFor(r.cfg.Seed, i)
	p := &player{r: r, i: i, name: cfg.Name, recv: make([]chatFrom, r.cfg.Clients)}
	for k := range p.recv {
		p.recv[k].next = 1
	}
	if cfg.Logf == nil {
		cfg.Logf = p.logf
	}
	p.c = client.New(conn, cfg)
	p.c.Hooks = client.Hooks{
		StateChange:   p.stateChange,
		ServerCommand: p.serverCommand,
		Snapshot:      p.snapshot,
	}
	return p
}

// seedFor derives client i's seed from the run's.
func seedFor(seed uint64, i int) uint64 {
	x := seed + uint64(i+1)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	return x
}

// run plays until ctx ends or the connection does.
func (p *player) run(ctx context.Context) {
	r := p.r
	p.started = r.now()
	p.c.Connect(r.cfg.Server)
	frame := time.Second / time.Duration(r.cfg.FPS)
	ticker := time.NewTicker(frame)
	defer ticker.Stop()
	for {
		p.applyLive()
		now := r.now()
		p.c.Frame(now, p.input())
		p.record()
		p.cgameFrame()
		p.chat(now)
		if p.c.State() == client.Disconnected {
			break
		}
		select {
		case <-ctx.Done():
			p.finish()
			return
		case <-ticker.C:
		}
	}
	p.finish()
}

// record starts the client's demo once it is in a level (Config.Record).
func (p *player) record() {
	if p.recAsked || p.r.cfg.Record == nil || p.c.State() < client.Primed {
		return
	}
	p.recAsked = true
	w, err := p.r.cfg.Record(p.i)
	if err != nil || w == nil {
		if err != nil {
			p.logf("record: %v", err)
		}
		return
	}
	if err := p.c.StartRecording(w, "client "+strconv.Itoa(p.i)); err != nil {
		p.logf("record: %v", err)
		w.Close()
	}
}

// finish disconnects and closes the client.
func (p *player) finish() {
	if !p.settled {
		p.settled = true
		p.r.settle()
	}
	p.stopped = p.r.now()
	p.takeCGameStats()
	p.c.Close()
}

// applyLive applies a SetClientConfig.
func (p *player) applyLive() {
	if n := p.r.liveCount.Load(); n != p.liveSeen {
		p.liveSeen = n
		if cfg := p.r.live.Load(); cfg != nil {
			c := *cfg
			old := p.c.Config()
			c.Name, c.Seed = old.Name, old.Seed
			if c.Logf == nil {
				c.Logf = old.Logf
			}
			p.c.SetConfig(c)
		}
	}
}

// logf prints one of the client's diagnostic lines (showpackets,
// cl_shownet) to the run's Console, prefixed with the client's index.
func (p *player) logf(format string, args ...any) {
	r := p.r
	line := fmt.Sprintf("client %d: "+format+"\n", append([]any{p.i}, args...)...)
	r.consoleMu.Lock()
	defer r.consoleMu.Unlock()
	w := r.cfg.Console
	if w == nil {
		w = os.Stderr
	}
	_, _ = io.WriteString(w, line)
}

func (p *player) stateChange(from, to client.State) {
	p.r.log.state(p.r.now(), p.i, from, to)
	if to == client.Active && !p.settled {
		p.settled = true
		p.r.settle()
	}
	if to == client.Disconnected {
		kind, reason := p.c.Dropped()
		p.r.log.disconnect(p.r.now(), p.i, reason, kind.String())
	}
}

func (p *player) snapshot(info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
	p.r.log.snapshot(p.r.now(), p.i, info)
	if f := p.r.cfg.OnSnapshot; f != nil {
		f(p.i, info, ps, ents)
	}
}

// serverCommand logs a server command and counts the chat lines of the
// other clients of the run.
func (p *player) serverCommand(seq int32, text string) {
	p.r.log.serverCommand(p.r.now(), p.i, seq, text)
	if !strings.HasPrefix(text, "chat ") {
		return
	}
	line := oob.Tokenize(text).Argv(1)
	from, n, ok := parseChat(line, p.r.cfg.NamePrefix, len(p.recv))
	if !ok || from == p.i {
		return
	}
	f := &p.recv[from]
	for len(f.seen) <= n {
		f.seen = append(f.seen, false)
	}
	switch {
	case f.seen[n]:
		f.dup++
		return
	case n != f.next:
		f.ooo++
	}
	f.seen[n] = true
	f.distinct++
	if n >= f.next {
		f.next = n + 1
	}
}

// parseChat reads "NAME: client I line N" where NAME is prefix+I.
func parseChat(line, prefix string, clients int) (from, n int, ok bool) {
	name, text, found := strings.Cut(line, ": ")
	if !found || !strings.HasPrefix(name, prefix) {
		return 0, 0, false
	}
	f := strings.Fields(text)
	if len(f) != 4 || f[0] != "client" || f[2] != "line" {
		return 0, 0, false
	}
	from, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || from < 0 || from >= clients || n < 1 || n > 1<<20 ||
		name != prefix+strconv.Itoa(from) {
		return 0, 0, false
	}
	return from, n, true
}

// chat sends the next line when it is due.
func (p *player) chat(now time.Duration) {
	every := p.r.cfg.ChatEvery
	if every <= 0 || !p.r.chatGate.Load() || p.c.State() != client.Active {
		return
	}
	if d := p.r.cfg.Duration; d > 0 && now > d-ChatQuiet {
		return
	}
	if p.chatNext == 0 {
		p.chatNext = now + every
		return
	}
	if now < p.chatNext {
		return
	}
	p.chatNext += every
	if p.chatNext < now {
		p.chatNext = now + every // a stall: do not burst
	}
	text := "client " + strconv.Itoa(p.i) + " line " + strconv.Itoa(p.chatSent+1)
	if err := p.c.AddReliableCommand("say " + text); err != nil {
		p.chatRefused++
		p.r.log.chatRefused(now, p.i, text, err.Error())
		return
	}
	p.chatSent++
	p.r.log.chatSent(now, p.i, text)
}

// cgameFrame runs prediction and interpolation for the frame.
func (p *player) cgameFrame() {
	c := p.c
	if c.State() < client.Primed || c.Map() == nil {
		return
	}
	if st := c.Stats(); p.cg == nil || st.Gamestates != p.gs {
		p.takeCGameStats()
		p.gs = st.Gamestates
		p.cg = cgame.New(c, c.Map(), p.r.cfg.CGame)
		p.gsAt = c.Realtime()
		p.cg.SetServerCommandSequence(c.GamestateCommandSequence())
	}
	if c.State() != client.Active {
		return
	}
	before := p.cg.Stats.PredictionMisses
	p.cg.Frame(c.Realtime())
	if d := p.cg.Stats.PredictionMisses - before; d > 0 && c.Realtime()-p.gsAt < gamestateSettle {
		p.cgStats.settled += d
	}
}

// takeCGameStats adds the current CGame's counters to the totals.
func (p *player) takeCGameStats() {
	if p.cg == nil {
		return
	}
	s := &p.cg.Stats
	p.cgStats.misses += s.PredictionMisses
	p.cgStats.corrections += s.PredictionCorrections
	p.cgStats.errorMax = max(p.cgStats.errorMax, s.PredictionErrorMax)
	p.cgStats.frames += s.Frames
	p.cgStats.extrapolated += s.FramesExtrapolated
	p.cg = nil
}

// input returns the bot's command for this frame, thinking again every
// bot.FrameMsec of client time.
func (p *player) input() bg.UserCmd {
	c := p.c
	if c.State() != client.Active || c.Map() == nil {
		return bg.UserCmd{}
	}
	if p.bot == nil || p.botMap != c.Map() {
		p.botMap = c.Map()
		nav := bot.NewNav(c.Map(), nil)
		p.bot = bot.New(p.name, p.r.cfg.BotSkill, seedFor(p.r.cfg.Seed^0xb07, p.i), nav)
		p.items = p.items[:0]
		p.itemSeen = [1024]int16{}
		p.nextBot = 0
	}
	now := c.Realtime()
	if p.nextBot != 0 && now < p.nextBot {
		return p.cmd
	}
	p.nextBot = now + bot.FrameMsec
	if !p.buildView() {
		return p.cmd
	}
	p.cmd = p.bot.Think(&p.view)
	return p.cmd
}

// buildView fills the bot's view from the newest snapshot and the
// predicted player state.
func (p *player) buildView() bool {
	c := p.c
	num, _ := c.CurrentSnapshotNumber()
	if !c.GetSnapshot(num, &p.snap) {
		return false
	}
	s := &p.snap
	self := &s.PS
	if p.cg != nil && p.cg.Predicting {
		self = &p.cg.Predicted
	}
	p.players = p.players[:0]
	for k := range s.Entities {
		e := &s.Entities[k]
		switch e.EType {
		case bg.ETPlayer:
			if e.ClientNum == self.ClientNum {
				continue
			}
			dead := e.EFlags&bg.EFDead != 0
			health := int32(100)
			if dead {
				health = 0
			}
			team, _ := strconv.Atoi(oob.ValueForKey(c.Configstring(bg.CSPlayers+int(e.ClientNum)), "t"))
			p.players = append(p.players, bot.PlayerInfo{
				ClientNum: int(e.ClientNum), Origin: e.Pos.Base, Velocity: e.Pos.Delta,
				Health: health, Dead: dead, Team: int32(team), Weapon: e.Weapon,
			})
		case bg.ETItem:
			if e.Number < 0 || int(e.Number) >= len(p.itemSeen) {
				continue
			}
			it := bot.ItemInfo{Entity: int(e.Number), Item: e.ModelIndex, Pos: e.Pos.Base,
				Available: e.EFlags&bg.EFNoDraw == 0}
			if k := p.itemSeen[e.Number]; k > 0 {
				p.items[k-1] = it
			} else {
				p.items = append(p.items, it)
				p.itemSeen[e.Number] = int16(len(p.items))
			}
		}
	}
	team, _ := strconv.Atoi(oob.ValueForKey(c.Configstring(bg.CSPlayers+int(self.ClientNum)), "t"))
	p.view = bot.View{Time: c.ServerTime(), Self: self, Players: p.players, Items: p.items, Team: int32(team)}
	return true
}
