package server

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/game"
	"tremor/internal/console"
)

// Config holds the server's settings. Each field is a cvar of the server
// console, named in its comment; Cvars lists them with their defaults,
// ranges and help. Settings take effect at once unless a field says it is
// latched.
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

	// Network simulation on the server's socket (package netsim), applied
	// to everything the server sends, live.
	PacketDelay   int // sv_packetdelay: milliseconds added to every packet
	PacketJitter  int // sv_packetjitter: ± milliseconds of random extra delay
	PacketLoss    int // sv_packetloss: percent of packets lost
	PacketDup     int // sv_packetdup: percent of packets sent twice
	PacketReorder int // sv_packetreorder: percent of packets held back so later ones overtake them
	PacketBurst   int // sv_packetburst: percent of packets that start a 250 ms burst of loss

	// MapDir is sv_mapdir: a directory searched for NAME.map before the
	// embedded arenas.
	MapDir string

	// Game holds the game's settings (g_gametype, fraglimit, ...).
	Game game.Config

	// Seed seeds the server's random numbers (challenges, checksum feeds,
	// server ids, the game). 0 picks a random seed. Not a cvar.
	Seed uint64
}

// DefaultConfig returns the settings a server starts with: the cvar
// defaults listed by Cvars.
func DefaultConfig() Config {
	c := Config{Game: game.DefaultConfig()}
	for i := range cvarTable {
		if err := cvarTable[i].set(&c, cvarTable[i].Default); err != nil {
			panic("server: bad default for " + cvarTable[i].Name)
		}
	}
	return c
}

// CvarInfo describes one server cvar, for a console to register and for
// help text.
type CvarInfo struct {
	Name    string
	Default string
	// Integer cvars are clamped to [Min, Max]; Bool cvars take 0 or 1;
	// string cvars have Min == Max == 0 and Bool false.
	Integer, Bool bool
	Min, Max      int
	Latched       bool // takes effect at the next map (or map_restart)
	ServerInfo    bool // part of the serverinfo string
	Help          string
}

type cvarDef struct {
	CvarInfo
	ref func(c *Config) any // *int, *int32, *bool or *string
}

func intCvar(name, def string, lo, hi int, help string, ref func(c *Config) any) cvarDef {
	return cvarDef{CvarInfo{Name: name, Default: def, Integer: true, Min: lo, Max: hi, Help: help}, ref}
}

func boolCvar(name, def, help string, ref func(c *Config) any) cvarDef {
	return cvarDef{CvarInfo{Name: name, Default: def, Bool: true, Max: 1, Help: help}, ref}
}

func strCvar(name, def, help string, ref func(c *Config) any) cvarDef {
	return cvarDef{CvarInfo{Name: name, Default: def, Help: help}, ref}
}

func latched(d cvarDef) cvarDef    { d.Latched = true; return d }
func serverInfo(d cvarDef) cvarDef { d.ServerInfo = true; return d }

// cvarTable is every cvar the server owns, in one declarative list.
var cvarTable = []cvarDef{
	serverInfo(strCvar("sv_hostname", "Tremor", "server name shown by browsers",
		func(c *Config) any { return &c.Hostname })),
	serverInfo(latched(intCvar("sv_maxclients", "16", 1, bg.MaxClients, "client slots, bots included",
		func(c *Config) any { return &c.MaxClients }))),
	intCvar("sv_fps", "20", 1, 250, "server frames per second",
		func(c *Config) any { return &c.FPS }),
	intCvar("sv_timeout", "40", 1, 3600, "seconds of silence before a client is dropped",
		func(c *Config) any { return &c.Timeout }),
	intCvar("sv_zombietime", "2", 1, 60, "seconds a dropped client's slot ignores its late packets",
		func(c *Config) any { return &c.ZombieTime }),
	intCvar("sv_minRate", "0", 0, 1000000, "least client rate in bytes/s (0 = 1000)",
		func(c *Config) any { return &c.MinRate }),
	intCvar("sv_maxRate", "0", 0, 1000000, "most client rate in bytes/s (0 = 90000)",
		func(c *Config) any { return &c.MaxRate }),
	intCvar("sv_padPackets", "0", 0, 1000, "nop bytes added to every snapshot message",
		func(c *Config) any { return &c.PadPackets }),
	latched(boolCvar("sv_scramble", "1", "XOR-scramble message bodies (announced in systeminfo)",
		func(c *Config) any { return &c.Scramble })),
	boolCvar("sv_showloss", "0", "log packets lost from each client",
		func(c *Config) any { return &c.ShowLoss }),
	intCvar("sv_floodProtect", "10", 0, 1000, "client commands per second before they are ignored (0 = off)",
		func(c *Config) any { return &c.FloodProtect }),
	intCvar("sv_clientsPerIP", "4", 0, bg.MaxClients, "connections one address (IPv6: one /64) may hold; loopback exempt (0 = no limit)",
		func(c *Config) any { return &c.ClientsPerIP }),
	strCvar("sv_configdir", ".", "directory exec reads NAME.cfg from (not settable through rcon)",
		func(c *Config) any { return &c.ConfigDir }),
	strCvar("rconPassword", "", "password for rcon (empty = rcon refused)",
		func(c *Config) any { return &c.RconPassword }),
	intCvar("sv_packetdelay", "0", 0, 10000, "milliseconds added to every packet the server sends",
		func(c *Config) any { return &c.PacketDelay }),
	intCvar("sv_packetjitter", "0", 0, 10000, "± milliseconds of random extra delay on sent packets",
		func(c *Config) any { return &c.PacketJitter }),
	intCvar("sv_packetloss", "0", 0, 100, "percent of sent packets lost",
		func(c *Config) any { return &c.PacketLoss }),
	intCvar("sv_packetdup", "0", 0, 100, "percent of sent packets duplicated",
		func(c *Config) any { return &c.PacketDup }),
	intCvar("sv_packetreorder", "0", 0, 100, "percent of sent packets held back up to 100 ms",
		func(c *Config) any { return &c.PacketReorder }),
	intCvar("sv_packetburst", "0", 0, 100, "percent of sent packets that start a 250 ms burst of loss",
		func(c *Config) any { return &c.PacketBurst }),
	strCvar("sv_mapdir", "", "directory searched for NAME.map before the embedded arenas",
		func(c *Config) any { return &c.MapDir }),
	serverInfo(latched(intCvar("g_gametype", "0", 0, 3, "0 free for all, 3 team deathmatch",
		func(c *Config) any { return &c.Game.GameType }))),
	serverInfo(intCvar("fraglimit", "20", 0, 10000, "frags that end the match (0 = none)",
		func(c *Config) any { return &c.Game.FragLimit })),
	serverInfo(intCvar("timelimit", "10", 0, 10000, "minutes that end the match (0 = none)",
		func(c *Config) any { return &c.Game.TimeLimit })),
	intCvar("g_knockback", "1000", 0, 100000, "how hard damage pushes",
		func(c *Config) any { return &c.Game.Knockback }),
	boolCvar("g_friendlyFire", "0", "teammates hurt each other",
		func(c *Config) any { return &c.Game.FriendlyFire }),
	intCvar("g_forcerespawn", "3", 0, 3600, "seconds before a dead player respawns anyway (0 = never)",
		func(c *Config) any { return &c.Game.ForceRespawn }),
	intCvar("g_spawnProtect", "1000", 0, 60000, "milliseconds a new life takes no damage",
		func(c *Config) any { return &c.Game.SpawnProtect }),
	intCvar("bot_minplayers", "0", 0, bg.MaxClients, "bots fill the game up to this many players",
		func(c *Config) any { return &c.Game.BotMinPlayers }),
	intCvar("g_spSkill", "3", 1, 5, "skill of the bots bot_minplayers adds",
		func(c *Config) any { return &c.Game.BotSkill }),
}

// Cvars returns the description of every server cvar.
func Cvars() []CvarInfo {
	out := make([]CvarInfo, len(cvarTable))
	for i := range cvarTable {
		out[i] = cvarTable[i].CvarInfo
	}
	return out
}

// CvarDecls declares the server's cvars for a console table: the
// dedicated server's, and the client's for its embedded server. Latching
// is the server's business (it announces it), so no cvar is Latch here.
func CvarDecls() []console.Decl {
	var decls []console.Decl
	for _, ci := range Cvars() {
		d := console.Decl{Name: ci.Name, Default: ci.Default, Help: ci.Help}
		if ci.Integer || ci.Bool {
			d.Flags |= console.Integral
			d.Min, d.Max = float64(ci.Min), float64(ci.Max)
			if d.Min == 0 && d.Max == 0 {
				d.Max = math.Inf(1)
			}
		}
		if ci.ServerInfo {
			d.Flags |= console.ServerInfo
		}
		decls = append(decls, d)
	}
	return decls
}

// ConfigFromCvars returns the default config with every server cvar
// registered in t (CvarDecls) applied; a value the server refuses is
// reported to logw and left at its default.
func ConfigFromCvars(t *console.Table, logw io.Writer) Config {
	cfg := DefaultConfig()
	for _, ci := range Cvars() {
		c := t.Get(ci.Name)
		if c == nil {
			continue
		}
		if err := cfg.SetCvar(ci.Name, c.Value()); err != nil {
			fmt.Fprintln(logw, err)
		}
	}
	return cfg
}

func findCvar(name string) *cvarDef {
	for i := range cvarTable {
		if strings.EqualFold(cvarTable[i].Name, name) {
			return &cvarTable[i]
		}
	}
	return nil
}

// set parses value into c, clamping integers to the declared range.
func (d *cvarDef) set(c *Config, value string) error {
	switch p := d.ref(c).(type) {
	case *string:
		if strings.ContainsAny(value, "\\;\"\n\r") {
			return fmt.Errorf("server: %s may not contain \\ ; \" or newlines", d.Name)
		}
		*p = value
		return nil
	case *bool:
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("server: %s takes 0 or 1, not %q", d.Name, value)
		}
		*p = n != 0
		return nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return fmt.Errorf("server: %s takes a number, not %q", d.Name, value)
	}
	n := int(max(min(f, float64(d.Max)), float64(d.Min)))
	switch p := d.ref(c).(type) {
	case *int:
		*p = n
	case *int32:
		*p = int32(n)
	}
	return nil
}

// get returns the value in c as text.
func (d *cvarDef) get(c *Config) string {
	switch p := d.ref(c).(type) {
	case *string:
		return *p
	case *bool:
		if *p {
			return "1"
		}
		return "0"
	case *int:
		return strconv.Itoa(*p)
	case *int32:
		return strconv.Itoa(int(*p))
	}
	return ""
}

// SetCvar sets a server cvar in cfg from text, clamping numbers to their
// range. It does not apply the change to a running server; use
// Server.Exec("set NAME VALUE") for that.
func (cfg *Config) SetCvar(name, value string) error {
	d := findCvar(name)
	if d == nil {
		return fmt.Errorf("server: no cvar %q", name)
	}
	return d.set(cfg, value)
}

// normalized returns cfg with every value in its range (for a Config built
// by hand rather than through SetCvar).
func (cfg Config) normalized() Config {
	for i := range cvarTable {
		d := &cvarTable[i]
		if d.Integer {
			_ = d.set(&cfg, d.get(&cfg))
		}
	}
	return cfg
}
