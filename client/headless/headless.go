package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/client"
	"tremor/net/netchan"
)

// Defaults of a run.
const (
	DefaultFPS        = 60
	DefaultBotSkill   = 3
	DefaultNamePrefix = "Headless"
	// ChatQuiet is how long before the end of a run the clients stop
	// chatting, so that the last lines arrive before they disconnect.
	ChatQuiet = time.Second
)

// Config describes a run.
type Config struct {
	// Server is the server's address.
	Server netip.AddrPort
	// Clients is how many clients connect (at least 1).
	Clients int
	// Duration is how long the clients play; 0 means until the context
	// passed to Run ends.
	Duration time.Duration
	// ChatEvery is the interval between each client's chat lines; 0
	// means no chat.
	ChatEvery time.Duration
	// FPS is the client frame rate (com_maxfps).
	FPS int
	// Client holds the client engine's settings for every client. Name
	// is replaced by NamePrefix and the client's index, Seed by one
	// derived from the run's Seed.
	Client client.Config
	// CGame holds the prediction settings; nil means
	// cgame.DefaultConfig.
	CGame *cgame.Config
	// BotSkill is the skill of each client's bot, 1 to 5.
	BotSkill int
	// NamePrefix starts every client's name.
	NamePrefix string
	// Seed makes the run reproducible: each client's qport, network
	// impairments and bot derive from it and its index.
	Seed uint64
	// Log, if not nil, receives one JSON object per line for each event
	// (see Event*).
	Log io.Writer
	// Console receives the clients' diagnostic lines (showpackets,
	// cl_shownet: Client.ShowPackets, Client.ShowNet), each prefixed with
	// "client I: "; nil means standard error. Unused when Client.Logf is
	// set.
	Console io.Writer
	// Listen opens client i's socket; nil opens a UDP socket on an
	// ephemeral port (of 127.0.0.1 when the server is on a loopback
	// address).
	Listen func(i int) (netchan.Conn, error)
	// OnSnapshot, if not nil, is called from client i's goroutine for
	// every snapshot it parses (for tests that compare them with what the
	// server built).
	OnSnapshot func(i int, info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState)
	// Record, if not nil, is asked for each client i once it is in a
	// level: a non-nil writer receives the client's demo (the record
	// command) until it disconnects, and is closed then. Client i is not
	// recorded when it returns nil.
	Record func(i int) (io.WriteCloser, error)
}

// Runner runs one set of headless clients.
type Runner struct {
	cfg     Config
	log     *logger
	start   time.Time
	clients []*player

	consoleMu sync.Mutex   // one diagnostic line at a time on Console
	settled   atomic.Int32 // clients active, or finished without getting there
	chatGate  atomic.Bool  // every client settled: chat may start
	live      atomic.Pointer[client.Config]
	liveCount atomic.Uint64

	chatMu sync.Mutex
	chatAt [][]time.Duration // by sender: when line n+1 was queued
}

// New prepares a run.
func New(cfg Config) *Runner {
	if cfg.Clients < 1 {
		cfg.Clients = 1
	}
	if cfg.FPS <= 0 {
		cfg.FPS = DefaultFPS
	}
	if cfg.BotSkill <= 0 {
		cfg.BotSkill = DefaultBotSkill
	}
	if cfg.NamePrefix == "" {
		cfg.NamePrefix = DefaultNamePrefix
	}
	if cfg.CGame == nil {
		d := cgame.DefaultConfig()
		cfg.CGame = &d
	}
	return &Runner{cfg: cfg, log: newLogger(cfg.Log)}
}

// SetClientConfig changes every client's engine settings at once (the
// cvars of a running headless process). Name and Seed are kept per
// client.
func (r *Runner) SetClientConfig(cfg client.Config) {
	r.live.Store(&cfg)
	r.liveCount.Add(1)
}

// Run connects the clients, plays for the configured duration (or until
// ctx ends), disconnects them and returns the report. The error is for
// a run that could not start (no socket); failed clients are in the
// report.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	cfg := &r.cfg
	if !cfg.Server.IsValid() {
		return nil, errors.New("headless: no server address")
	}
	listen := cfg.Listen
	if listen == nil {
		local := ":0"
		if cfg.Server.Addr().Unmap().IsLoopback() {
			local = "127.0.0.1:0"
		}
		listen = func(int) (netchan.Conn, error) { return netchan.ListenUDP(local) }
	}
	r.start = time.Now()
	r.clients = make([]*player, cfg.Clients)
	r.chatAt = make([][]time.Duration, cfg.Clients)
	for i := range r.clients {
		conn, err := listen(i)
		if err != nil {
			for _, p := range r.clients[:i] {
				p.c.Close()
			}
			return nil, fmt.Errorf("headless: client %d: %w", i, err)
		}
		r.clients[i] = newPlayer(r, i, conn)
	}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	var wg sync.WaitGroup
	for _, p := range r.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(ctx)
		}()
	}
	wg.Wait()
	r.log.flush()
	return r.report(), nil
}

// now returns the run's clock.
func (r *Runner) now() time.Duration { return time.Since(r.start) }

// settle notes that one more client is in the game or gave up.
func (r *Runner) settle() {
	if int(r.settled.Add(1)) == len(r.clients) {
		r.chatGate.Store(true)
	}
}

// chatQueued notes when client i queued its chat line n.
func (r *Runner) chatQueued(i, n int, at time.Duration) {
	r.chatMu.Lock()
	defer r.chatMu.Unlock()
	for len(r.chatAt[i]) < n {
		r.chatAt[i] = append(r.chatAt[i], -1)
	}
	r.chatAt[i][n-1] = at
}

// chatQueuedAt returns when client i queued its chat line n.
func (r *Runner) chatQueuedAt(i, n int) (time.Duration, bool) {
	r.chatMu.Lock()
	defer r.chatMu.Unlock()
	if n < 1 || n > len(r.chatAt[i]) || r.chatAt[i][n-1] < 0 {
		return 0, false
	}
	return r.chatAt[i][n-1], true
}
