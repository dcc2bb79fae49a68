package client

import (
	"math"
	"time"

	"tremor/cgame"
	"tremor/common/console"
	"tremor/common/proto"
	"tremor/game/framesync"
)

// Cvars are the client engine's and prediction's settings as their
// cvars hold them, each field bound to its cvar, named in its comment,
// by BindCvars. Every program that runs a client keeps one (the window,
// the headless clients, each classroom player) and builds the engine's
// Config from it; none reads these cvars by name.
type Cvars struct {
	Name            string  // name: the player's name
	Rate            int     // rate: bytes per second the server may send
	Snaps           int     // snaps: snapshots per second asked for
	MaxPackets      int     // cl_maxpackets
	PacketDup       int     // cl_packetdup: 0 sends no previous commands
	TimeNudge       int     // cl_timeNudge, milliseconds
	AutoNudge       bool    // cl_autoNudge
	NoDelta         bool    // cl_nodelta
	Timeout         int     // cl_timeout, seconds
	ConnectTries    int     // cl_connectTries
	PacketDelay     int     // cl_packetdelay, milliseconds
	PacketJitter    int     // cl_packetjitter, milliseconds
	PacketLoss      float64 // cl_packetloss, percent
	PacketDuplicate float64 // cl_packetduplicate, percent
	PacketReorder   float64 // cl_packetreorder, percent
	PacketBurst     float64 // cl_packetburst, percent
	AllowDownload   bool    // cl_allowDownload
	MaxDownloadSize int     // cl_maxDownloadSize, bytes
	ShowPackets     bool    // showpackets
	ShowNet         int     // cl_shownet
	MaxFPS          int     // com_maxfps: client frames per second
	Reliable        string  // cl_reliable: the carrier of reliable commands asked for
	ResendMsec      int     // net_resendMsec, milliseconds
	MaxPrediction   int     // cl_maxPredictionFrames: frame sync's stall limit
	RollbackFrames  int     // cl_rollbackFrames: frame sync's saved states

	// CGame holds prediction's cvars, bound to its fields: NoPredict
	// (cl_nopredict, alias cg_nopredict), ErrorDecay (cg_errorDecay) and
	// ShowMiss (cg_showmiss). The cgame reads its Config at every frame,
	// so a program whose engines run on the goroutine that executes the
	// table hands them &CGame (Config.CGame) and a change reaches the
	// running cgame at once; one whose engines run elsewhere copies it.
	// The other fields (Logf, Params) are the program's to set.
	CGame cgame.Config
}

// CvarHooks are what a program does when the client's cvars change,
// declared with the binding (BindCvars). A nil hook does nothing. Each
// runs on the goroutine that made the change, after the field changed.
type CvarHooks struct {
	// Engine runs when a cvar of the engine's Config (name to
	// cl_shownet) changed: the program gives the engine Cvars.Config.
	Engine func()
	// CGame runs when a cvar of Cvars.CGame changed.
	CGame func()
	// MaxFPS runs when com_maxfps changed.
	MaxFPS func()
}

// BindCvars binds the client's cvars to the fields of c in v, under
// their Quake III names, with their defaults, ranges, flags and help:
// the one list of the client engine's and prediction's cvars, shared
// by every program that runs a client. name is the default of the name
// cvar. Every cvar takes effect at once, through on's hooks. c.CGame
// starts as cgame.DefaultConfig with the cvars' values.
func BindCvars(v *console.Vars, c *Cvars, name string, on CvarHooks) {
	c.CGame = cgame.DefaultConfig()
	const (
		a  = console.Archive
		ui = console.UserInfo
	)
	e := v.OnChange(on.Engine)
	e.StringVar(&c.Name, "name", name, a|ui, "player name")
	e.IntVar(&c.Rate, "rate", 25000, 1000, 90000, a|ui, "bytes per second the server may send")
	e.IntVar(&c.Snaps, "snaps", 20, 1, 125, a|ui, "snapshots per second asked for")
	e.IntVar(&c.MaxPackets, "cl_maxpackets", 30, MinMaxPackets, MaxMaxPackets, a, "most usercmd packets a second")
	e.IntVar(&c.PacketDup, "cl_packetdup", 1, 0, MaxPacketDup, a, "previous packets whose usercmds each packet repeats")
	e.IntVar(&c.TimeNudge, "cl_timeNudge", 0, -MaxTimeNudge, MaxTimeNudge, 0, "ms to shift the render time back (positive) or forward")
	e.BoolVar(&c.AutoNudge, "cl_autoNudge", false, a, "choose the time nudge from the measured jitter and loss (replaces cl_timeNudge)")
	e.BoolVar(&c.NoDelta, "cl_nodelta", false, 0, "ask for full snapshots only")
	e.IntVar(&c.Timeout, "cl_timeout", 30, 1, 3600, 0, "seconds of server silence before giving up")
	e.IntVar(&c.ConnectTries, "cl_connectTries", 5, 1, 1000, 0, "getchallenge packets without an answer, and challenges (3 connects each), 3 s apart, before giving up")
	e.IntVar(&c.PacketDelay, "cl_packetdelay", 0, 0, 10000, 0, "ms added to every packet the client sends")
	e.IntVar(&c.PacketJitter, "cl_packetjitter", 0, 0, 10000, 0, "± ms of random variation of that delay")
	e.Float64Var(&c.PacketLoss, "cl_packetloss", 0, 0, 100, 0, "percent of the client's packets lost")
	e.Float64Var(&c.PacketDuplicate, "cl_packetduplicate", 0, 0, 100, 0, "percent of the client's packets sent twice")
	e.Float64Var(&c.PacketReorder, "cl_packetreorder", 0, 0, 100, 0, "percent of the client's packets held back so later ones overtake them")
	e.Float64Var(&c.PacketBurst, "cl_packetburst", 0, 0, 100, 0, "percent of the client's packets that start a 250 ms burst of loss")
	e.BoolVar(&c.AllowDownload, "cl_allowDownload", true, a, "download the server's map when this client lacks it")
	e.IntVar(&c.MaxDownloadSize, "cl_maxDownloadSize", 1048576, 1024, 1048576, a, "largest map file, in bytes, the client downloads")
	e.BoolVar(&c.ShowPackets, "showpackets", false, 0, "print every packet sent and received: size, sequence, fragment, drops")
	e.StringVar(&c.Reliable, "cl_reliable", proto.ReliableQ3, a, "carrier of reliable commands asked of the server: q3 (Quake III's rings) or acks (messages by id over packet acks, seed 001); a change goes in the userinfo and applies from the next gamestate (map change, map_restart, reconnect)")
	e.IntVar(&c.ResendMsec, "net_resendMsec", 100, 10, 1000, a, "acks carrier: ms a client command waits before it is sent again (one smoothed round trip if shorter)")
	e.IntVar(&c.MaxPrediction, "cl_maxPredictionFrames", framesync.DefaultMaxPrediction, 1, 60, a, "frame sync: frames the client runs ahead of the last confirmed one before it stalls; from the next gamestate")
	e.IntVar(&c.RollbackFrames, "cl_rollbackFrames", framesync.DefaultStates, 8, 256, a, "frame sync: saved states kept for rollback (more than cl_maxPredictionFrames); from the next gamestate")
	e.IntVar(&c.ShowNet, "cl_shownet", 0, -1, 4, 0, "print server messages: 1 sizes, 2 operations, 3 changed entities and fields, 4 with values, -1 entity counts")
	v.OnChange(on.MaxFPS).IntVar(&c.MaxFPS, "com_maxfps", 60, 10, 1000, a, "client frames per second")
	cg := v.OnChange(on.CGame)
	cg.Aliases("cg_nopredict").BoolVar(&c.CGame.NoPredict, "cl_nopredict", false, 0, "turn off client-side prediction")
	cg.Int32Var(&c.CGame.ErrorDecay, "cg_errorDecay", 100, 0, 10000, a, "ms over which a prediction error is smoothed away")
	cg.IntVar(&c.CGame.ShowMiss, "cg_showmiss", 0, 0, 2, 0, "print prediction misses with their size, decayed or snapped (1), and every replay (2)")
}

// Config returns the engine's settings the cvars hold. Name and Seed
// are the cvars' and zero; CGame, Logf, MapDir and LoadMap are left for
// the caller.
func (c *Cvars) Config() Config {
	return Config{
		Name:            c.Name,
		Rate:            c.Rate,
		Snaps:           c.Snaps,
		MaxPackets:      c.MaxPackets,
		PacketDup:       c.PacketDup,
		NoPacketDup:     c.PacketDup == 0,
		TimeNudge:       c.TimeNudge,
		AutoNudge:       c.AutoNudge,
		NoDelta:         c.NoDelta,
		Timeout:         time.Duration(c.Timeout) * time.Second,
		ConnectTries:    c.ConnectTries,
		PacketDelay:     time.Duration(c.PacketDelay) * time.Millisecond,
		PacketJitter:    time.Duration(c.PacketJitter) * time.Millisecond,
		PacketLoss:      finite(c.PacketLoss),
		PacketDuplicate: finite(c.PacketDuplicate),
		PacketReorder:   finite(c.PacketReorder),
		PacketBurst:     finite(c.PacketBurst),
		NoDownload:      !c.AllowDownload,
		MaxDownloadSize: c.MaxDownloadSize,
		ShowPackets:     c.ShowPackets,
		ShowNet:         c.ShowNet,
		Reliable:        c.Reliable,
		ResendMsec:      c.ResendMsec,

		MaxPredictionFrames: c.MaxPrediction,
		RollbackFrames:      c.RollbackFrames,
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
