package client

import (
	"time"
	"tremor/cgame"

	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/net/netsim"
)

// Defaults and limits of the settings, Quake III's where it had them.
const (
	DefaultName       = "Player"
	DefaultRate       = 25000 // bytes per second the server may send (userinfo rate)
	DefaultSnaps      = 20    // snapshots per second wanted (userinfo snaps)
	DefaultMaxPackets = 30    // cl_maxpackets
	MinMaxPackets     = 15
	MaxMaxPackets     = 125
	DefaultPacketDup  = 1 // cl_packetdup
	MaxPacketDup      = 5
	MaxTimeNudge      = 30 // cl_timeNudge is clamped to ±MaxTimeNudge ms

	DefaultTimeout        = 30 * time.Second // cl_timeout (Quake III: 200 s)
	DefaultResendInterval = 3 * time.Second  // getchallenge/connect retransmission
	DefaultConnectTries   = 5                // cl_connectTries
)

// Config holds the client's settings: the userinfo and the cl_* cvars.
// The zero value of a field means its default, except for the booleans,
// TimeNudge and the network impairments. SetConfig changes them live.
type Config struct {
	// Userinfo.
	Name  string // name; DefaultName when empty
	Rate  int    // rate, bytes per second; DefaultRate when 0
	Snaps int    // snaps per second; DefaultSnaps when 0

	// MaxPackets is cl_maxpackets: the most usercmd packets a second,
	// 15 to 125. Commands made in between wait for the next packet.
	MaxPackets int
	// PacketDup is cl_packetdup: each packet also carries the commands of
	// this many previous packets, 0 to 5. Use NoPacketDup for 0.
	PacketDup int
	// NoPacketDup sets cl_packetdup to 0 (the zero Config means 1).
	NoPacketDup bool
	// TimeNudge is cl_timeNudge in milliseconds, clamped to ±30: positive
	// values render further in the past (more interpolation, less
	// extrapolation), negative ones closer to the newest snapshot.
	TimeNudge int
	// AutoNudge is cl_autoNudge: the client chooses the time nudge itself
	// from the snapshot jitter and loss it measures (0 to MaxAutoNudge
	// ms, changed a few ms a second), and TimeNudge is ignored.
	AutoNudge bool
	// NoDelta is cl_nodelta: ask for full snapshots only.
	NoDelta bool

	// Timeout is cl_timeout: how long the server may stay silent before
	// the connection is dropped.
	Timeout time.Duration
	// ResendInterval spaces getchallenge and connect packets (3 s).
	ResendInterval time.Duration
	// ConnectTries is cl_connectTries: how many getchallenge packets
	// without an answer, and how many challenges (each tried with up to
	// ConnectsPerChallenge connect packets), before the client gives up.
	ConnectTries int

	// Impairments of the packets this client sends (net/netsim): the
	// cvars cl_packetdelay, cl_packetjitter, cl_packetloss,
	// cl_packetduplicate, cl_packetreorder and cl_packetburst. Live.
	PacketDelay     time.Duration // one-way delay added to every packet
	PacketJitter    time.Duration // ± variation of that delay
	PacketLoss      float64       // percent of packets lost
	PacketDuplicate float64       // percent of packets sent twice
	PacketReorder   float64       // percent of packets held back so later ones overtake them
	PacketBurst     float64       // percent of packets that start a 250 ms burst of loss

	// Seed makes the qport and the impairments reproducible.
	Seed uint64

	// Diagnostics printed through Logf, live (see shownet.go).
	// ShowPackets is showpackets: a line for every packet sent and
	// received. ShowNet is cl_shownet, -1 to 4: 1 the size of every
	// server message, 2 its operations, 3 the entities and player-state
	// fields each snapshot changed, 4 with their values; -1 one line per
	// snapshot with its entity counts.
	ShowPackets bool
	ShowNet     int

	// Reliable is cl_reliable: the carrier of reliable commands the
	// userinfo asks for, proto.ReliableQ3 (or empty) or
	// proto.ReliableAcks (acks.go); a change goes to the server in the
	// userinfo, which applies it from the next gamestate. ResendMsec
	// is net_resendMsec: how long a command waits on the acks carrier
	// before it goes again; 0 means 100.
	Reliable   string
	ResendMsec int
	// Frame sync (framesync.go, docs/framesync.md), read at each
	// gamestate of a frame-sync server. MaxPredictionFrames is
	// cl_maxPredictionFrames: the most frames the client runs past the
	// last confirmed one before it stalls (0: framesync's default).
	// RollbackFrames is cl_rollbackFrames: the saved states kept for
	// rollback, which must exceed MaxPredictionFrames (0: the default).
	MaxPredictionFrames int
	RollbackFrames      int
	// Logf prints the diagnostics, one line per call (no newline in
	// format); nil prints to standard error.
	Logf func(format string, args ...any)

	// LoadMap loads the arena a gamestate names; nil means
	// arenas.LoadFrom(MapDir, name). The map's checksum is verified
	// against the server's.
	LoadMap func(name string) (*tilemap.Map, error)

	// MapDir is the directory the client's maps are in: LoadMap's
	// default reads NAME.map there before the embedded arenas, and a map
	// the client lacks is downloaded into its DownloadDir folder, as
	// NAME-CHECKSUM.map, used only for that checksum (docs/download.md).
	// Empty: the embedded arenas only, and no download.
	MapDir string
	// NoDownload is cl_allowDownload 0: a map the client lacks ends the
	// connection instead of being downloaded.
	NoDownload bool
	// MaxDownloadSize is cl_maxDownloadSize: the largest map file, in
	// bytes, the client downloads; 0 means DefaultMaxDownloadSize, and
	// more than proto.MaxDownloadSize counts as that.
	MaxDownloadSize int

	// CGame is the client game's configuration. With it the engine runs
	// a cgame.CGame for every gamestate (CL_InitCGame), framed at the end
	// of every Frame, and drops it with the gamestate (CL_ShutdownCGame);
	// nil runs none. The engine keeps the pointer: a change made through
	// it (cl_nopredict, cg_*) reaches the running cgame at once.
	CGame *cgame.Config
}

// withDefaults returns c with the zero values replaced and every number
// clamped to its range.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Rate <= 0 {
		c.Rate = DefaultRate
	}
	if c.Snaps <= 0 {
		c.Snaps = DefaultSnaps
	}
	if c.MaxPackets == 0 {
		c.MaxPackets = DefaultMaxPackets
	}
	c.MaxPackets = max(MinMaxPackets, min(c.MaxPackets, MaxMaxPackets))
	switch {
	case c.NoPacketDup:
		c.PacketDup = 0
	case c.PacketDup == 0:
		c.PacketDup = DefaultPacketDup
	}
	c.PacketDup = max(0, min(c.PacketDup, MaxPacketDup))
	c.TimeNudge = max(-MaxTimeNudge, min(c.TimeNudge, MaxTimeNudge))
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ResendInterval <= 0 {
		c.ResendInterval = DefaultResendInterval
	}
	if c.ConnectTries <= 0 {
		c.ConnectTries = DefaultConnectTries
	}
	if c.MaxDownloadSize <= 0 {
		c.MaxDownloadSize = DefaultMaxDownloadSize
	}
	c.MaxDownloadSize = min(c.MaxDownloadSize, proto.MaxDownloadSize)
	return c
}

// netsim returns the impairments as a netsim.Config.
func (c *Config) netsim() netsim.Config {
	return netsim.Config{
		Delay:     max(c.PacketDelay, 0),
		Jitter:    max(c.PacketJitter, 0),
		Loss:      c.PacketLoss / 100,
		Duplicate: c.PacketDuplicate / 100,
		Reorder:   c.PacketReorder / 100,
		BurstLoss: c.PacketBurst / 100,
	}
}
