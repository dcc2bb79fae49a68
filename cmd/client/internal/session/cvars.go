package session

import (
	"io"
	"math"
	"time"

	"tremor/cgame"
	"tremor/internal/client"
	"tremor/internal/console"
)

// Cvars are the client's cvars: the engine's (Quake III names), the
// simulated network's and prediction's. All take effect at once.
var Cvars = []console.Decl{
	{Name: "name", Default: "Player", Flags: console.UserInfo,
		Help: "your name"},
	{Name: "rate", Default: "25000", Flags: console.UserInfo | console.Integral, Min: 1000, Max: 90000,
		Help: "bytes per second the server may send"},
	{Name: "snaps", Default: "20", Flags: console.UserInfo | console.Integral, Min: 1, Max: 125,
		Help: "snapshots per second asked for"},
	{Name: "cl_maxpackets", Default: "30", Flags: console.Integral, Min: client.MinMaxPackets, Max: client.MaxMaxPackets,
		Help: "most usercmd packets a second"},
	{Name: "cl_packetdup", Default: "1", Flags: console.Integral, Min: 0, Max: client.MaxPacketDup,
		Help: "previous packets whose usercmds each packet repeats"},
	{Name: "cl_timeNudge", Default: "0", Flags: console.Integral, Min: -client.MaxTimeNudge, Max: client.MaxTimeNudge,
		Help: "ms to shift the render time back (positive) or forward"},
	{Name: "cl_nodelta", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "ask for full snapshots only"},
	{Name: "cl_timeout", Default: "30", Flags: console.Integral, Min: 1, Max: 3600,
		Help: "seconds of server silence before giving up"},
	{Name: "cl_packetdelay", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "ms added to every packet the client sends"},
	{Name: "cl_packetjitter", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "± ms of random variation of that delay"},
	{Name: "cl_packetloss", Default: "0", Min: 0, Max: 100,
		Help: "percent of the client's packets lost"},
	{Name: "net_ip", Default: "",
		Help: "address the local server's LAN port listens on (empty: every address)"},
	{Name: "net_port", Default: "27960", Flags: console.Integral, Min: -1, Max: 65535,
		Help: "UDP port of the local server for LAN players (0: any free port, -1: none)"},
	{Name: "com_maxfps", Default: "60", Flags: console.Integral, Min: 10, Max: 1000,
		Help: "client frames per second"},
	{Name: "r_vsync", Default: "1", Flags: console.Integral, Min: 0, Max: 1,
		Help: "wait for the display's vertical sync"},
	{Name: "cl_nopredict", Default: "0", Flags: console.Integral, Min: 0, Max: 1, Aliases: []string{"cg_nopredict"},
		Help: "turn off client-side prediction"},
	{Name: "cg_errorDecay", Default: "100", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "ms over which a prediction error is smoothed away"},
	{Name: "cg_showmiss", Default: "0", Flags: console.Integral, Min: 0, Max: 2,
		Help: "print prediction misses (1) and every replay (2) on stderr"},
}

// clientConfig reads the engine's settings from the cvars.
func clientConfig(t *console.Table, seed uint64) client.Config {
	pd := t.Get("cl_packetdup").Int()
	return client.Config{
		Name:         t.Get("name").Value(),
		Seed:         seed,
		Rate:         t.Get("rate").Int(),
		Snaps:        t.Get("snaps").Int(),
		MaxPackets:   t.Get("cl_maxpackets").Int(),
		PacketDup:    pd,
		NoPacketDup:  pd == 0,
		TimeNudge:    t.Get("cl_timeNudge").Int(),
		NoDelta:      t.Get("cl_nodelta").Bool(),
		Timeout:      time.Duration(t.Get("cl_timeout").Int()) * time.Second,
		PacketDelay:  time.Duration(t.Get("cl_packetdelay").Int()) * time.Millisecond,
		PacketJitter: time.Duration(t.Get("cl_packetjitter").Int()) * time.Millisecond,
		PacketLoss:   finite(t.Get("cl_packetloss").Float()),
	}
}

// updateCGameConfig copies prediction's cvars into c; cgame reads c at
// every frame.
func updateCGameConfig(c *cgame.Config, t *console.Table, stderr io.Writer) {
	c.NoPredict = t.Get("cl_nopredict").Bool()
	c.ErrorDecay = int32(t.Get("cg_errorDecay").Int())
	c.ShowMiss = t.Get("cg_showmiss").Int()
	if c.ShowMiss > 0 && c.Logf == nil {
		c.Logf = func(format string, args ...any) { fmtLine(stderr, format, args...) }
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
