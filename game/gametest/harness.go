package gametest

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
	"tremor/maps/arenas"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

// FrameMsec is the length of one server frame: sv_fps 20.
const FrameMsec = 50

// Harness runs a game headless, faster than real time: a fake Engine, a
// game.Arena on a map, scripted clients and bots, and Stats gathered
// from the game's log. Everything is deterministic: the same map, seed,
// config and scripts give the same world, frame for frame.
type Harness struct {
	TB     testing.TB
	Map    *tilemap.Map
	Engine *Engine
	Game   *game.Arena
	// Stats counts what happened since New, across restarts.
	Stats Stats
	// Log, when set, receives every game.LogEntry after Stats counts it.
	Log func(game.LogEntry)

	time    int32
	clients [bg.MaxClients]*Client
}

// Client is a scripted human: every frame the harness sends Cmd (with
// ServerTime set to the frame's time) through ClientThink, as the engine
// would on the command's arrival, before the frame runs. Script, if set,
// is called first to change Cmd.
type Client struct {
	Num    int
	Cmd    bg.UserCmd
	Script func(h *Harness, c *Client)
}

// New loads the embedded arena mapName and starts a game on it at time 0
// with seed and cfg (see NewMap).
func New(tb testing.TB, mapName string, seed uint64, cfg game.Config) *Harness {
	tb.Helper()
	m, err := arenas.Load(mapName)
	if err != nil {
		tb.Fatal(err)
	}
	return NewMap(tb, m, seed, cfg)
}

// NewMap starts a game on m: the fake engine, the game, Init(0, seed,
// false). No client is connected.
func NewMap(tb testing.TB, m *tilemap.Map, seed uint64, cfg game.Config) *Harness {
	tb.Helper()
	h := &Harness{TB: tb, Map: m, Engine: NewEngine()}
	h.Engine.Seed = seed
	h.Game = game.New(h.Engine, m, cfg)
	h.Engine.Game = h.Game
	h.Stats.Pickups = make([]int, len(bg.Items))
	h.Game.SetLog(h.record)
	h.Game.Init(0, seed, false)
	return h
}

// ParseMap builds a map from grid rows and directives for tests: a
// border of solid tiles is added around rows, so tile (x, y) of rows is
// tile (x+1, y+1) of the map.
func ParseMap(tb testing.TB, directives string, rows ...string) *tilemap.Map {
	tb.Helper()
	m, err := tilemap.FromRows(directives, rows...)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// Time returns the current server time.
func (h *Harness) Time() int32 { return h.time }

// AddBot adds a bot through the game's AddBot and returns its client
// number; a failure fails the test.
func (h *Harness) AddBot(name string, skill int) int {
	h.TB.Helper()
	n, err := h.Game.AddBot(name, skill)
	if err != nil {
		h.TB.Fatal(err)
	}
	return n
}

// AddClient connects and begins a scripted human called name.
func (h *Harness) AddClient(name string) *Client {
	h.TB.Helper()
	info, err := infostr.SetValueForKey("", "name", name)
	if err != nil {
		h.TB.Fatal(err)
	}
	return h.AddClientInfo(info)
}

// AddClientInfo connects and begins a scripted human with userinfo.
func (h *Harness) AddClientInfo(userinfo string) *Client {
	h.TB.Helper()
	n, reason := h.Engine.Connect(userinfo)
	if n < 0 {
		h.TB.Fatalf("gametest: connect refused: %s", reason)
	}
	c := &Client{Num: n, Cmd: bg.UserCmd{Weapon: h.Game.PlayerState(n).Weapon}}
	h.clients[n] = c
	return c
}

// Disconnect drops a client as the engine would.
func (h *Harness) Disconnect(client int) {
	h.Engine.DropClient(client, "disconnected")
	if uint(client) < bg.MaxClients {
		h.clients[client] = nil
	}
}

// Command runs a client command (say, score, team, kill...).
func (h *Harness) Command(client int, text string) {
	args := cmdargs.Tokenize(text)
	h.Game.ClientCommand(client, &args)
}

// Frame runs one server frame: the time advances FrameMsec, every
// scripted client's command runs, then the game's RunFrame (bots think
// in it), then the console commands the game issued (map_restart).
func (h *Harness) Frame() {
	h.time += FrameMsec
	h.Engine.Time = h.time
	for _, c := range h.clients {
		if c == nil || !h.Game.InGame(c.Num) {
			continue
		}
		if c.Script != nil {
			c.Script(h, c)
		}
		cmd := c.Cmd
		cmd.ServerTime = h.time
		h.Game.ClientThink(c.Num, &cmd)
	}
	h.Game.RunFrame(h.time)
	h.Engine.RunCommands()
	h.Stats.Frames++
}

// RunFor runs frames for ms milliseconds of server time.
func (h *Harness) RunFor(ms int32) {
	for end := h.time + ms; h.time < end; {
		h.Frame()
	}
}

// RunUntil runs frames until cond is true or ms have passed, and reports
// whether cond became true.
func (h *Harness) RunUntil(ms int32, cond func() bool) bool {
	for end := h.time + ms; h.time < end; {
		h.Frame()
		if cond() {
			return true
		}
	}
	return false
}

// PS returns client's player state (see game.Arena.PlayerState).
func (h *Harness) PS(client int) *bg.PlayerState { return h.Game.PlayerState(client) }

// Entity returns entity n's shared part.
func (h *Harness) Entity(n int) *game.SharedEntity { return h.Game.Entity(n) }

// Place puts client at the feet position of map tile (x, y), at rest,
// and copies it to its entity at the next frame.
func (h *Harness) Place(client, x, y int) {
	ps := h.PS(client)
	ps.Origin = bg.TileFeet(x, y, nil)
	ps.Velocity = bg.Vec{}
}

// EntitiesOfType returns the numbers of the linked entities of type et
// (for events, bg.ETEvents+event).
func (h *Harness) EntitiesOfType(et int32) []int {
	var out []int
	for i := 0; i < h.Game.NumEntities(); i++ {
		if h.Game.EntityInUse(i) && h.Entity(i).Linked && h.Entity(i).S.EType == et {
			out = append(out, i)
		}
	}
	return out
}

// Checksum hashes every player state and every entity in use, so that
// two runs can be compared for determinism.
func (h *Harness) Checksum() uint64 {
	f := fnv.New64a()
	var buf []byte
	for i := 0; i < bg.MaxClients; i++ {
		buf, _ = binary.Append(buf[:0], binary.LittleEndian, h.PS(i))
		f.Write(buf)
	}
	for i := 0; i < h.Game.NumEntities(); i++ {
		if !h.Game.EntityInUse(i) {
			continue
		}
		e := h.Entity(i)
		buf, _ = binary.Append(buf[:0], binary.LittleEndian, &e.S)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(i))
		f.Write(buf)
	}
	return f.Sum64()
}

// record counts a log entry into Stats.
func (h *Harness) record(e game.LogEntry) {
	s := &h.Stats
	switch e.Kind {
	case game.LogInit:
		s.Matches++
	case game.LogKill:
		if uint(e.Target) < bg.MaxClients {
			s.Deaths[e.Target]++
		}
		switch {
		case e.Client < 0 || e.Client == e.Target:
			if uint(e.Target) < bg.MaxClients {
				s.Suicides[e.Target]++
			}
		case uint(e.Client) < bg.MaxClients:
			s.Frags[e.Client]++
		}
		if uint(e.MOD) < bg.NumMODs {
			s.KillsByMOD[e.MOD]++
		}
	case game.LogItem:
		if uint(e.Item) < uint(len(s.Pickups)) {
			s.Pickups[e.Item]++
		}
	case game.LogShot:
		if uint(e.Weapon) < bg.NumWeapons {
			s.Shots[e.Weapon]++
		}
	case game.LogHit:
		if uint(e.MOD) < bg.NumMODs {
			s.Hits[e.MOD]++
			s.Damage[e.MOD] += int(e.Amount)
		}
	case game.LogSay:
		s.Chat++
	case game.LogExit:
		s.Exits = append(s.Exits, e.Text)
	}
	if h.Log != nil {
		h.Log(e)
	}
}
