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
	"tremor/client"
	"tremor/common/safetext"
	"tremor/net/cmdargs"
	"tremor/net/netchan"
)

// player is one headless client: the engine (which runs the cgame), the
// bot that plays it, chat and counters.
type player struct {
	r      *Runner
	i      int
	name   string
	c      *client.Client
	bot    BotDriver     // the bot's input (bot.go)
	dlLast time.Duration // when the last download progress line was printed
	dlDone bool          // the download's last line was printed

	liveSeen uint64
	settled  bool
	recAsked bool // Config.Record was asked

	// chat
	chatNext    time.Duration // run time of the next line; 0: not started
	chatSent    int
	chatRefused int
	recv        []chatFrom      // by sender index
	chatDelays  []time.Duration // of the other clients' lines received, once each

	started, stopped time.Duration
	cgStats          cgameTotals // the engine's cgames (cgame.go)
}

// chatFrom tracks the lines received from one sender.
type chatFrom struct {
	seen     []bool // by line number
	distinct int
	next     int // line expected next
	dup, ooo int
}

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
	cfg.CGame = r.cfg.CGame
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
		p.c.Frame(now, p.bot.Input(p.c, p.name, p.r.cfg.BotSkill, seedFor(p.r.cfg.Seed^0xb07, p.i)))
		p.downloadProgress(now)
		p.record()
		p.cgStats.follow(p.c)
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

// downloadProgress prints a line about the map download in progress
// every second, and one when it is done.
func (p *player) downloadProgress(now time.Duration) {
	s, ok := p.c.Download()
	if !ok || s.Done && p.dlDone || !s.Done && p.dlLast != 0 && now-p.dlLast < time.Second {
		return
	}
	p.dlLast, p.dlDone = now, s.Done
	if s.Done {
		p.logf("download %s: done, %d bytes", s.Name, s.Got)
		return
	}
	if s.Total == 0 {
		// Before the first block, which says how big the file is.
		p.logf("download %s: asked the server, waiting for the first block", s.Name)
		return
	}
	left := "?"
	if s.TimeLeft >= 0 {
		left = s.TimeLeft.Round(100 * time.Millisecond).String()
	}
	p.logf("download %s: %d of %d bytes, %d B/s, %s left", s.Name, s.Got, s.Total, s.BytesPerSec, left)
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
	p.cgStats.take()
	p.c.Close()
}

// applyLive applies a SetClientConfig.
func (p *player) applyLive() {
	if n := p.r.liveCount.Load(); n != p.liveSeen {
		p.liveSeen = n
		if cfg := p.r.live.Load(); cfg != nil {
			c := *cfg
			old := p.c.Config()
			c.Name, c.Seed, c.CGame = old.Name, old.Seed, old.CGame
			if c.Logf == nil {
				c.Logf = old.Logf
			}
			p.c.SetConfig(c)
		}
	}
}

// logf prints one of the client's diagnostic lines (showpackets,
// cl_shownet) to the run's Console, prefixed with the client's index,
// its control characters written as escapes (safetext.Line): the
// server's text (a map name, a command) is shown, never obeyed.
func (p *player) logf(format string, args ...any) {
	r := p.r
	line := "client " + strconv.Itoa(p.i) + ": " + safetext.Line(fmt.Sprintf(format, args...)) + "\n"
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
	line := cmdargs.Tokenize(text).Argv(1)
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
	if at, ok := p.r.chatQueuedAt(from, n); ok {
		p.chatDelays = append(p.chatDelays, p.r.now()-at)
	}
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
	queued := p.r.now()
	if err := p.c.AddReliableCommand("say " + text); err != nil {
		p.chatRefused++
		p.r.log.chatRefused(now, p.i, text, err.Error())
		return
	}
	p.chatSent++
	p.r.chatQueued(p.i, p.chatSent, queued)
	p.r.log.chatSent(now, p.i, text)
}
