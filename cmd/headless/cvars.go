package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"tremor/cgame"
	"tremor/internal/client"
	"tremor/internal/console"
)

// cvars are the headless client's cvars: the client engine's (Quake III
// names), the simulated network's, prediction's and the bots'.
var cvars = []console.Decl{
	{Name: "name", Default: "Headless", Flags: console.UserInfo,
		Help: "name prefix: client i is NAME<i>"},
	{Name: "rate", Default: "25000", Flags: console.UserInfo | console.Integral, Min: 1000, Max: 90000,
		Help: "bytes per second the server may send each client"},
	{Name: "snaps", Default: "20", Flags: console.UserInfo | console.Integral, Min: 1, Max: 125,
		Help: "snapshots per second each client asks for"},
	{Name: "cl_maxpackets", Default: "30", Flags: console.Integral, Min: client.MinMaxPackets, Max: client.MaxMaxPackets,
		Help: "most usercmd packets a second"},
	{Name: "cl_packetdup", Default: "1", Flags: console.Integral, Min: 0, Max: client.MaxPacketDup,
		Help: "previous packets whose usercmds each packet repeats"},
	{Name: "cl_timeNudge", Default: "0", Flags: console.Integral, Min: -client.MaxTimeNudge, Max: client.MaxTimeNudge,
		Help: "ms to shift the render time back (positive) or forward"},
	{Name: "cl_nodelta", Default: "0", Flags: console.Integral, Min: 0, Max: 1,
		Help: "ask for full snapshots only"},
	{Name: "cl_timeout", Default: "30", Flags: console.Integral, Min: 1, Max: 3600,
		Help: "seconds of server silence before a client gives up"},
	{Name: "cl_connectTries", Default: "5", Flags: console.Integral, Min: 1, Max: 1000,
		Help: "getchallenge/connect packets (3 s apart) before a client gives up"},
	{Name: "cl_packetdelay", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "ms added to every packet the clients send"},
	{Name: "cl_packetjitter", Default: "0", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "± ms of random variation of that delay"},
	{Name: "cl_packetloss", Default: "0", Min: 0, Max: 100,
		Help: "percent of the clients' packets lost"},
	{Name: "cl_packetduplicate", Default: "0", Min: 0, Max: 100,
		Help: "percent of the clients' packets sent twice"},
	{Name: "cl_packetreorder", Default: "0", Min: 0, Max: 100,
		Help: "percent of the clients' packets held back so later ones overtake them"},
	{Name: "cl_packetburst", Default: "0", Min: 0, Max: 100,
		Help: "percent of sent packets that start a 250 ms burst of loss"},
	{Name: "com_maxfps", Default: "60", Flags: console.Integral, Min: 10, Max: 1000,
		Help: "client frames per second"},
	{Name: "cl_nopredict", Default: "0", Flags: console.Integral, Min: 0, Max: 1, Aliases: []string{"cg_nopredict"},
		Help: "turn off client-side prediction"},
	{Name: "cg_errorDecay", Default: "100", Flags: console.Integral, Min: 0, Max: 10000,
		Help: "ms over which a prediction error is smoothed away"},
	{Name: "cg_showmiss", Default: "0", Flags: console.Integral, Min: 0, Max: 2,
		Help: "print prediction misses (1) and every replay (2) on stderr"},
	{Name: "cl_botSkill", Default: "3", Flags: console.Integral, Min: 1, Max: 5,
		Help: "skill of the bot that plays each client"},
}

// clientConfig reads the engine's settings from the cvars.
func clientConfig(t *console.Table) client.Config {
	pd := t.Get("cl_packetdup").Int()
	return client.Config{
		Rate:            t.Get("rate").Int(),
		Snaps:           t.Get("snaps").Int(),
		MaxPackets:      t.Get("cl_maxpackets").Int(),
		PacketDup:       pd,
		NoPacketDup:     pd == 0,
		TimeNudge:       t.Get("cl_timeNudge").Int(),
		NoDelta:         t.Get("cl_nodelta").Bool(),
		Timeout:         time.Duration(t.Get("cl_timeout").Int()) * time.Second,
		ConnectTries:    t.Get("cl_connectTries").Int(),
		PacketDelay:     time.Duration(t.Get("cl_packetdelay").Int()) * time.Millisecond,
		PacketJitter:    time.Duration(t.Get("cl_packetjitter").Int()) * time.Millisecond,
		PacketLoss:      finite(t.Get("cl_packetloss").Float()),
		PacketDuplicate: finite(t.Get("cl_packetduplicate").Float()),
		PacketReorder:   finite(t.Get("cl_packetreorder").Float()),
		PacketBurst:     finite(t.Get("cl_packetburst").Float()),
	}
}

// cgameConfig reads prediction's settings from the cvars.
func cgameConfig(t *console.Table, stderr io.Writer) cgame.Config {
	c := cgame.DefaultConfig()
	c.NoPredict = t.Get("cl_nopredict").Bool()
	c.ErrorDecay = int32(t.Get("cg_errorDecay").Int())
	c.ShowMiss = t.Get("cg_showmiss").Int()
	if c.ShowMiss > 0 {
		c.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	return c
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
