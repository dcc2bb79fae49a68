package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/console"
	"tremor/common/proto"
	"tremor/game"
)

// Config holds the server's settings. Each field is a cvar of the server
// console, named in its comment, and bound to it (bindCvars lists them
// with their defaults, ranges, flags and help): a running server's fields
// change when the cvars do, through any path. Settings take effect at
// once unless a field says it is latched.
type Config struct {
	Hostname string // sv_hostname: the name server browsers show
	// MaxClients is sv_maxclients, the number of client slots (bots
	// included), 1 to bg.MaxClients. Latched: it takes effect at the next
	// map.
	MaxClients int
	FPS        int // sv_fps: server frames per second; snapshots go out after frames
	Timeout    int // sv_timeout: seconds of silence before a client is dropped
	ZombieTime int // sv_zombietime: seconds a dropped client's slot ignores its late packets
	MinRate    int // sv_minRate: least rate (bytes/s) a client may ask for; 0 = 1000
	MaxRate    int // sv_maxRate: most rate (bytes/s) a client may ask for; 0 = 90000
	PadPackets int // sv_padPackets: nop bytes added to every snapshot message (for testing rate)
	// Scramble is sv_scramble: XOR-scramble message bodies as Quake III
	// did. Latched: it takes effect at the next map or map_restart, and
	// the systeminfo configstring announces it.
	Scramble     bool
	ShowLoss     bool // sv_showloss: log the packets each client's messages lost
	FloodProtect int  // sv_floodProtect: client commands a second before they are ignored; 0 = off
	// ClientsPerIP is sv_clientsPerIP: the most connections one source
	// (IPv4 address or IPv6 /64) may hold; 0 = no limit. Clients on
	// this host (loopback) are exempt.
	ClientsPerIP int
	// ConfigDir is sv_configdir: the directory exec reads NAME.cfg files
	// from. Paths that leave it are refused. It cannot be changed
	// through rcon.
	ConfigDir    string
	RconPassword string // rconPassword: the password of rcon; empty refuses every rcon

	// HashSnapshots is sv_hashSnapshots: 1 sends a proto.SvcStateHash
	// after every snapshot (the snapshot's hashes and the game's), 2 adds
	// the per-field and per-entity hashes that name a divergence; 0 off
	// (docs/statehash.md).
	HashSnapshots int

	// ClockStart is sv_clockStart: the server time in milliseconds the
	// frame clock starts at when the first map loads (0, as Quake III's
	// did). A test sets it near proto.RestartTime to see the map restart
	// that keeps the clock from wrapping without waiting 21 days.
	ClockStart int32

	// Network simulation on the server's socket (package netsim), applied
	// to everything the server sends, live.
	PacketDelay   int // sv_packetdelay: milliseconds added to every packet
	PacketJitter  int // sv_packetjitter: ± milliseconds of random extra delay
	PacketLoss    int // sv_packetloss: percent of packets lost
	PacketDup     int // sv_packetdup: percent of packets sent twice
	PacketReorder int // sv_packetreorder: percent of packets held back so later ones overtake them
	PacketBurst   int // sv_packetburst: percent of packets that start a 250 ms burst of loss

	// MapDir is sv_mapdir: the directory searched for NAME.map before
	// the embedded arenas ("maps" under the working directory by
	// default), and so the one map downloads are read from. It cannot
	// be changed through rcon.
	MapDir string

	// Masters are sv_master1 … sv_master5: the master servers
	// (HOST[:PORT], default port 27950) this server sends heartbeats to.
	// All empty (the default) keeps the server off the internet lists.
	Masters [5]string

	// Download: maps a client lacks, sent in band (docs/download.md).
	AllowDownload bool // sv_allowDownload: send a client the map it lacks
	DownloadRate  int  // sv_dlRate: kilobytes per second one download may use

	// The carrier of reliable commands (acks.go, docs/protocol.md 6.7).
	// Reliable is sv_reliable: which one the clients get
	// (ReliableClient, ReliableQ3, ReliableAcks), decided at every
	// gamestate a client is sent. ResendMsec is sv_resendMsec: on the acks
	// carrier, how long a command waits after it was sent before it goes
	// again (or one smoothed round trip if that is shorter): the server's
	// net_resendMsec, sv_resendMsec.
	Reliable   string
	ResendMsec int

	// The network model (docs/framesync.md). NetModel is sv_netmodel:
	// proto.NetModelSnapshots (Quake III's delta snapshots, the default)
	// or proto.NetModelFrameSync (seed 003: the server sends each frame's
	// inputs and every client runs the game). Latched: it takes effect
	// at the next map or map_restart. FrameHashEvery is
	// sv_frameHashEvery: in frame sync, every how many frames a frame
	// carries the game's state hash.
	NetModel       string
	FrameHashEvery int

	// The web port (docs/web.md, package server/rtc), read by the
	// program when it opens its sockets; the engine itself does not use
	// them. Neither can be changed through rcon.
	//
	// WebPort is sv_webPort: the TCP port serving the browser page and
	// the WebRTC signalling; -1 (the default) takes the UDP game port's
	// number, 0 turns the web port and WebRTC off.
	WebPort int
	// WebDir is sv_webDir: the folder of the browser build served at /;
	// empty finds one (a web folder beside the program, else
	// build/web), or serves a page saying to run make web.
	WebDir string

	// Game holds the game's settings (g_gametype, fraglimit, ...).
	Game game.Config

	// Seed seeds the server's random numbers (challenges, checksum feeds,
	// server ids, the game). 0 picks a random seed. Not a cvar.
	Seed uint64
}

// DefaultConfig returns the settings a server starts with: the cvar
// defaults.
func DefaultConfig() Config {
	c := Config{Game: game.DefaultConfig()}
	t := console.NewTable()
	t.SetOutput(io.Discard)
	bindCvars(t.Bind(nil), &c)
	return c
}

// bindCvars binds every server cvar to its field of c: the one list of the
// server's cvars. All but sv_configdir and sv_mapdir may be set through
// rcon (Remote).
// The archived ones are those Quake III archived: the window client saves
// them with its settings.
func bindCvars(v *console.Vars, c *Config) {
	const (
		r  = console.Remote
		si = console.ServerInfo
		a  = console.Archive
		l  = console.Latch
	)
	g := &c.Game
	v.StringVar(&c.Hostname, "sv_hostname", "Tremor", si|a|r, "server name shown by browsers")
	v.IntVar(&c.MaxClients, "sv_maxclients", 16, 1, bg.MaxClients, si|l|a|r, "client slots, bots included")
	v.IntVar(&c.FPS, "sv_fps", 20, 1, 250, r, "server frames per second")
	v.IntVar(&c.Timeout, "sv_timeout", 40, 1, 3600, r, "seconds of silence before a client is dropped")
	v.IntVar(&c.ZombieTime, "sv_zombietime", 2, 1, 60, r, "seconds a dropped client's slot ignores its late packets")
	v.IntVar(&c.MinRate, "sv_minRate", 0, 0, 1000000, a|r, "least client rate in bytes/s (0 = 1000)")
	v.IntVar(&c.MaxRate, "sv_maxRate", 0, 0, 1000000, a|r, "most client rate in bytes/s (0 = 90000)")
	v.IntVar(&c.PadPackets, "sv_padPackets", 0, 0, 1000, r, "nop bytes added to every snapshot message")
	v.BoolVar(&c.Scramble, "sv_scramble", true, l|r, "XOR-scramble message bodies (announced in systeminfo)")
	v.BoolVar(&c.ShowLoss, "sv_showloss", false, r, "log packets lost from each client")
	v.IntVar(&c.HashSnapshots, "sv_hashSnapshots", 0, 0, 2, r, "send snapshot and game state hashes after every snapshot: 1 summary, 2 with per-field detail (0 = off)")
	v.Int32Var(&c.ClockStart, "sv_clockStart", 0, 0, math.MaxInt32, r, "server time in ms the clock starts at on the first map; the map restarts with the clock at 0 when it reaches 1879048192 (for testing)")
	v.IntVar(&c.FloodProtect, "sv_floodProtect", 10, 0, 1000, a|r, "client commands per second before they are ignored (0 = off)")
	v.IntVar(&c.ClientsPerIP, "sv_clientsPerIP", 4, 0, bg.MaxClients, r, "connections one address (IPv6: one /64) may hold; loopback exempt (0 = no limit)")
	v.StringVar(&c.ConfigDir, "sv_configdir", ".", 0, "directory exec reads NAME.cfg from (not settable through rcon)")
	v.StringVar(&c.RconPassword, "rconPassword", "", r, "password for rcon (empty = rcon refused)")
	v.IntVar(&c.PacketDelay, "sv_packetdelay", 0, 0, 10000, r, "milliseconds added to every packet the server sends")
	v.IntVar(&c.PacketJitter, "sv_packetjitter", 0, 0, 10000, r, "± milliseconds of random extra delay on sent packets")
	v.IntVar(&c.PacketLoss, "sv_packetloss", 0, 0, 100, r, "percent of sent packets lost")
	v.IntVar(&c.PacketDup, "sv_packetdup", 0, 0, 100, r, "percent of sent packets duplicated")
	v.IntVar(&c.PacketReorder, "sv_packetreorder", 0, 0, 100, r, "percent of sent packets held back up to 100 ms")
	v.IntVar(&c.PacketBurst, "sv_packetburst", 0, 0, 100, r, "percent of sent packets that start a 250 ms burst of loss")
	v.StringVar(&c.MapDir, "sv_mapdir", defaultMapDir, 0, "directory searched for NAME.map before the embedded arenas; downloads send from it (not settable through rcon)")
	for i := range c.Masters {
		v.StringVar(&c.Masters[i], "sv_master"+strconv.Itoa(i+1), "", a|r, "master server HOST[:PORT] sent heartbeats (empty: none)")
	}
	v.BoolVar(&c.AllowDownload, "sv_allowDownload", true, a|r, "send clients the map they lack")
	v.StringVar(&c.Reliable, "sv_reliable", ReliableClient, a|r, "carrier of reliable commands: client (each client's cl_reliable), q3 (Quake III's rings for all) or acks (messages by id over packet acks for all); from each client's next gamestate")
	v.StringVar(&c.NetModel, "sv_netmodel", proto.NetModelSnapshots, si|l|r, "how clients keep the game: snapshots (Quake III's delta snapshots) or framesync (each frame's inputs, every client runs the game and rolls back); from the next map or map_restart")
	v.IntVar(&c.FrameHashEvery, "sv_frameHashEvery", 5, 1, 1000, si|l|r, "frame sync: every how many frames a frame carries the game's state hash (its clients hash those frames as they run them); from the next map or map_restart")
	v.IntVar(&c.ResendMsec, "sv_resendMsec", 100, 10, 1000, a|r, "acks carrier: ms a server command waits before it is sent again (one smoothed round trip if shorter); the client's is net_resendMsec")
	v.IntVar(&c.WebPort, "sv_webPort", -1, -1, 65535, 0, "TCP port for browser players: the page and WebRTC signalling (-1: the UDP game port's number, 0: off; not settable through rcon)")
	v.StringVar(&c.WebDir, "sv_webDir", "", 0, "folder of the browser build served to browsers (empty: web beside the program, else build/web; not settable through rcon)")
	v.IntVar(&c.DownloadRate, "sv_dlRate", 100, 1, 10000, a|r, "kilobytes per second one map download may use")
	v.Int32Var(&g.GameType, "g_gametype", 0, 0, 3, si|l|r, "0 free for all, 3 team deathmatch")
	v.IntVar(&g.FragLimit, "fraglimit", 20, 0, 10000, si|a|r, "frags that end the match (0 = none)")
	v.IntVar(&g.TimeLimit, "timelimit", 10, 0, 10000, si|a|r, "minutes that end the match (0 = none)")
	v.Int32Var(&g.Knockback, "g_knockback", 1000, 0, 100000, r, "how hard damage pushes")
	v.BoolVar(&g.FriendlyFire, "g_friendlyFire", false, a|r, "teammates hurt each other")
	v.IntVar(&g.ForceRespawn, "g_forcerespawn", 3, 0, 3600, r, "seconds before a dead player respawns anyway (0 = never)")
	v.Int32Var(&g.SpawnProtect, "g_spawnProtect", 1000, 0, 60000, r, "milliseconds a new life takes no damage")
	v.IntVar(&g.BotMinPlayers, "bot_minplayers", 0, 0, bg.MaxClients, r, "bots fill the game up to this many players")
	v.IntVar(&g.BotSkill, "g_spSkill", 2, 1, 5, a|r, "skill (1 to 5) of the bots addbot COUNT and bot_minplayers add")
	v.BoolVar(&g.Unlagged, "g_unlagged", true, si|r, "lag compensation: hitscan shots see the targets where the shooter saw them")
	v.Int32Var(&g.MaxUnlag, "sv_maxUnlag", game.DefaultMaxUnlag, 0, 1000, r, "most milliseconds a lag-compensated shot is rewound")
}

// DeclareCvars declares the server's cvars in t, unbound: a program that
// starts its server later (the window client, at map) declares them at
// start, so that +set, its saved settings and its menus find them; the
// server binds them when it starts (WithHostConsole) and releases them
// when it is closed.
func DeclareCvars(t *console.Table) {
	var c Config
	v := t.Bind(nil)
	bindCvars(v, &c)
	v.Unbind()
}

// ConfigOf returns the settings t's server cvars hold now, declaring
// those not declared yet: for a program that opens its server's sockets
// before it starts the server (the window client's LAN and web ports).
func ConfigOf(t *console.Table) Config {
	c := DefaultConfig()
	v := t.Bind(nil)
	bindCvars(v, &c)
	v.Unbind()
	return c
}

// CvarNames returns the names of the server's cvars, in the order of
// docs/server.md's table.
func CvarNames() []string {
	t := console.NewTable()
	t.SetOutput(io.Discard)
	var c Config
	v := t.Bind(nil)
	bindCvars(v, &c)
	var names []string
	for _, cv := range v.Cvars() {
		names = append(names, cv.Name())
	}
	return names
}

// MaxExecFile is the largest file exec reads, in bytes.
const MaxExecFile = 64 << 10

// configFS is the file system the console's exec reads: NAME.cfg files
// inside the directory sv_configdir names at the time (see
// readConfigFile).
type configFS struct {
	dir      *console.Cvar
	fallback fs.FS // read when sv_configdir has no such file (WithExecFallback); may be nil
}

// Open implements fs.FS.
func (f configFS) Open(name string) (fs.File, error) {
	data, err := readConfigFile(f.dir.Value(), name)
	if errors.Is(err, fs.ErrNotExist) && f.fallback != nil {
		if path.Ext(name) == "" {
			name += ".cfg"
		}
		return f.fallback.Open(name)
	}
	if err != nil {
		return nil, err
	}
	return &memFile{name: path.Base(name), r: bytes.NewReader(data)}, nil
}

// memFile is a config file read whole.
type memFile struct {
	name string
	r    *bytes.Reader
}

func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }

// memFile is its own fs.FileInfo.
func (f *memFile) Name() string       { return f.name }
func (f *memFile) Size() int64        { return f.r.Size() }
func (f *memFile) Mode() fs.FileMode  { return 0o444 }
func (f *memFile) ModTime() time.Time { return time.Time{} }
func (f *memFile) IsDir() bool        { return false }
func (f *memFile) Sys() any           { return nil }

// readConfigFile reads config file name from dir: ".cfg" is added when
// it has no extension, and only a regular file named *.cfg of at most
// MaxExecFile bytes, inside that directory (no absolute path, no "..", no
// symbolic link leading out), is read. So rcon exec cannot read the
// host's other files, nor hang on a FIFO or a device.
func readConfigFile(dir, name string) ([]byte, error) {
	if path.Ext(name) == "" {
		name += ".cfg"
	}
	if !strings.EqualFold(path.Ext(name), ".cfg") {
		return nil, errors.New("only .cfg files can be executed")
	}
	if filepath.IsAbs(name) || strings.ContainsRune(name, '\\') || !filepath.IsLocal(name) {
		return nil, errors.New("not a file name inside sv_configdir")
	}
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > MaxExecFile {
		return nil, fmt.Errorf("larger than %d bytes", MaxExecFile)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since Stat: check what was opened.
	if opened, err := f.Stat(); err != nil || !opened.Mode().IsRegular() || !os.SameFile(info, opened) {
		return nil, errors.New("file changed while opening it")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxExecFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxExecFile {
		return nil, fmt.Errorf("larger than %d bytes", MaxExecFile)
	}
	return data, nil
}
