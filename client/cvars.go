package client

import (
	"math"
	"time"

	"tremor/cgame"
	"tremor/common/console"
)

// Cvars declares the client engine's and prediction's cvars under their
// Quake III names, for every program that runs a client: the window and
// the headless clients. name is the default of the name cvar. All of them
// take effect at once (ConfigFromCvars and CGameConfigFromCvars read them).
func Cvars(name string) []console.Decl {
	return []console.Decl{
		{Name: "name", Default: name, Flags: console.Archive | console.UserInfo,
			Help: "player name"},
		{Name: "rate", Default: "25000", Flags: console.Archive | console.UserInfo | console.Integral, Min: 1000, Max: 90000,
			Help: "bytes per second the server may send"},
		{Name: "snaps", Default: "20", Flags: console.Archive | console.UserInfo | console.Integral, Min: 1, Max: 125,
			Help: "snapshots per second asked for"},
		{Name: "cl_maxpackets", Default: "30", Flags: console.Archive | console.Integral, Min: MinMaxPackets, Max: MaxMaxPackets,
			Help: "most usercmd packets a second"},
		{Name: "cl_packetdup", Default: "1", Flags: console.Archive | console.Integral, Min: 0, Max: MaxPacketDup,
			Help: "previous packets whose usercmds each packet repeats"},
		{Name: "cl_timeNudge", Default: "0", Flags: console.Integral, Min: -MaxTimeNudge, Max: MaxTimeNudge,
			Help: "ms to shift the render time back (positive) or forward"},
		{Name: "cl_autoNudge", Default: "0", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
			Help: "choose the time nudge from the measured jitter and loss (replaces cl_timeNudge)"},
		{Name: "cl_nodelta", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
			Help: "ask for full snapshots only"},
		{Name: "cl_timeout", Default: "30", Flags: console.Integral, Min: 1, Max: 3600,
			Help: "seconds of server silence before giving up"},
		{Name: "cl_connectTries", Default: "5", Flags: console.Integral, Min: 1, Max: 1000,
			Help: "getchallenge packets without an answer, and challenges (3 connects each), 3 s apart, before giving up"},
		{Name: "cl_packetdelay", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
			Help: "ms added to every packet the client sends"},
		{Name: "cl_packetjitter", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
			Help: "± ms of random variation of that delay"},
		{Name: "cl_packetloss", Default: "0", Min: 0, Max: 100,
			Help: "percent of the client's packets lost"},
		{Name: "cl_packetduplicate", Default: "0", Min: 0, Max: 100,
			Help: "percent of the client's packets sent twice"},
		{Name: "cl_packetreorder", Default: "0", Min: 0, Max: 100,
			Help: "percent of the client's packets held back so later ones overtake them"},
		{Name: "cl_packetburst", Default: "0", Min: 0, Max: 100,
			Help: "percent of the client's packets that start a 250 ms burst of loss"},
		{Name: "cl_allowDownload", Default: "1", Flags: console.Archive | console.Integral, Min: 0, Max: 1,
			Help: "download the server's map when this client lacks it"},
		{Name: "cl_maxDownloadSize", Default: "1048576", Flags: console.Archive | console.Integral, Min: 1024, Max: 1048576,
			Help: "largest map file, in bytes, the client downloads"},
		{Name: "showpackets", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
			Help: "print every packet sent and received: size, sequence, fragment, drops"},
		{Name: "cl_shownet", Default: "0", Flags: console.Integral, Min: -1, Max: 4,
			Help: "print server messages: 1 sizes, 2 operations, 3 changed entities and fields, 4 with values, -1 entity counts"},
		{Name: "com_maxfps", Default: "60", Flags: console.Archive | console.Integral, Min: 10, Max: 1000,
			Help: "client frames per second"},
		{Name: "cl_nopredict", Default: "0", Flags: console.Integral, Min: 0, Max: 1, Aliases: []string{"cg_nopredict"},
			Help: "turn off client-side prediction"},
		{Name: "cg_errorDecay", Default: "100", Flags: console.Archive | console.Integral, Min: 0, Max: 10000,
			Help: "ms over which a prediction error is smoothed away"},
		{Name: "cg_showmiss", Default: "0", Flags: console.Integral, Min: 0, Max: 2,
			Help: "print prediction misses with their size, decayed or snapped (1), and every replay (2)"},
	}
}

// ConfigFromCvars reads the engine's settings from the cvars Cvars
// declared. Name and Seed are left for the caller.
func ConfigFromCvars(t *console.Table) Config {
	pd := t.Get("cl_packetdup").Int()
	return Config{
		Name:            t.Get("name").Value(),
		Rate:            t.Get("rate").Int(),
		Snaps:           t.Get("snaps").Int(),
		MaxPackets:      t.Get("cl_maxpackets").Int(),
		PacketDup:       pd,
		NoPacketDup:     pd == 0,
		TimeNudge:       t.Get("cl_timeNudge").Int(),
		AutoNudge:       t.Get("cl_autoNudge").Bool(),
		NoDelta:         t.Get("cl_nodelta").Bool(),
		Timeout:         time.Duration(t.Get("cl_timeout").Int()) * time.Second,
		ConnectTries:    t.Get("cl_connectTries").Int(),
		PacketDelay:     time.Duration(t.Get("cl_packetdelay").Int()) * time.Millisecond,
		PacketJitter:    time.Duration(t.Get("cl_packetjitter").Int()) * time.Millisecond,
		PacketLoss:      finite(t.Get("cl_packetloss").Float()),
		PacketDuplicate: finite(t.Get("cl_packetduplicate").Float()),
		PacketReorder:   finite(t.Get("cl_packetreorder").Float()),
		PacketBurst:     finite(t.Get("cl_packetburst").Float()),
		NoDownload:      !t.Get("cl_allowDownload").Bool(),
		MaxDownloadSize: t.Get("cl_maxDownloadSize").Int(),
		ShowPackets:     t.Get("showpackets").Bool(),
		ShowNet:         t.Get("cl_shownet").Int(),
	}
}

// CGameConfigFromCvars copies prediction's cvars into c (cgame reads c at
// every frame); logf, if not nil, prints cg_showmiss lines.
func CGameConfigFromCvars(c *cgame.Config, t *console.Table, logf func(format string, args ...any)) {
	c.NoPredict = t.Get("cl_nopredict").Bool()
	c.ErrorDecay = int32(t.Get("cg_errorDecay").Int())
	c.ShowMiss = t.Get("cg_showmiss").Int()
	if c.ShowMiss > 0 && c.Logf == nil {
		c.Logf = logf
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
