package classroom

import (
	"strconv"
	"time"

	"tremor/client"
	"tremor/common/console"
	"tremor/net/netsim"
)

// paneCvars are a player pane's settings: each field a cvar of the
// player's table, named in its comment, bound by bindCvars.
type paneCvars struct {
	// client holds the client's cvars (client.BindCvars). Its
	// cl_packet* impairments are the uplink's, carried out by the
	// model's link, not by the engine; its CGame is the cgame the
	// engine runs.
	client client.Cvars
	down   impairments // the server's packets to this player (sv_packet*)
	bot    bool        // cl_bot: a bot plays instead of the keyboard
}

// impairments are one direction's settings of a player's link.
type impairments struct {
	delay, jitter      int     // milliseconds
	loss, dup, reorder float64 // percent
}

// bindCvars binds the pane's cvars in its table to p.cv: the client's
// and the pane's own, the downlink's impairments (named as the dedicated
// server's are) and the bot switch. Every change applies (p.apply).
func (p *Player) bindCvars(name string) {
	v := p.T.Bind(nil).OnChange(p.apply)
	c := &p.cv
	client.BindCvars(v, &c.client, name, client.CvarHooks{})
	v.IntVar(&c.down.delay, "sv_packetdelay", 0, 0, 10000, 0, "ms added to every packet the server sends this player")
	v.IntVar(&c.down.jitter, "sv_packetjitter", 0, 0, 10000, 0, "± ms of random variation of that delay")
	v.Float64Var(&c.down.loss, "sv_packetloss", 0, 0, 100, 0, "percent of the server's packets to this player lost")
	v.Float64Var(&c.down.dup, "sv_packetdup", 0, 0, 100, 0, "percent of the server's packets to this player that arrive twice")
	v.Float64Var(&c.down.reorder, "sv_packetreorder", 0, 0, 100, 0, "percent of the server's packets to this player held back so later ones overtake them")
	v.BoolVar(&c.bot, "cl_bot", false, 0, "1: a bot plays this player instead of the keyboard")
	c.client.CGame.Logf = func(format string, args ...any) { p.T.Printf(format+"\n", args...) }
}

// watchServer rebuilds the controls when the server's frame rate or the
// network model it is asked for, which the server pane shows, changes.
func (m *Model) watchServer() {
	m.svT.Get("sv_fps").OnChange(func(*console.Cvar) { m.refresh() })
	m.svT.Get("sv_netmodel").OnChange(func(*console.Cvar) { m.refresh() })
}

// link returns the impairments of the player's link in direction d.
func (c *paneCvars) link(d Dir) impairments {
	if d == Down {
		return c.down
	}
	u := &c.client
	return impairments{u.PacketDelay, u.PacketJitter, u.PacketLoss, u.PacketDuplicate, u.PacketReorder}
}

// config returns the link's simulation settings.
func (i impairments) config() netsim.Config {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	return netsim.Config{Delay: ms(i.delay), Jitter: ms(i.jitter), Loss: i.loss / 100,
		Duplicate: i.dup / 100, Reorder: i.reorder / 100, ReorderDelay: 150 * time.Millisecond}
}

// bothWays are the pane commands that set one impairment both ways:
// the uplink's cvar and the downlink's (named as the client's and the
// dedicated server's are); of reads a direction's value.
var bothWays = []struct {
	cmd, up, down, help string
	of                  func(i impairments) string
}{
	{"lag", "cl_packetdelay", "sv_packetdelay", "lag MS: delay every packet MS ms each way (a round trip of 2×MS)",
		func(i impairments) string { return strconv.Itoa(i.delay) }},
	{"jitter", "cl_packetjitter", "sv_packetjitter", "jitter MS: vary each packet's delay by up to ±MS ms, each way",
		func(i impairments) string { return strconv.Itoa(i.jitter) }},
	{"loss", "cl_packetloss", "sv_packetloss", "loss PERCENT: lose PERCENT % of the packets each way",
		func(i impairments) string { return percent(i.loss) }},
	{"dup", "cl_packetduplicate", "sv_packetdup", "dup PERCENT: deliver PERCENT % of the packets twice, each way",
		func(i impairments) string { return percent(i.dup) }},
	{"reorder", "cl_packetreorder", "sv_packetreorder", "reorder PERCENT: hold back PERCENT % of the packets so later ones overtake them, each way",
		func(i impairments) string { return percent(i.reorder) }},
}

func percent(f float64) string { return strconv.FormatFloat(f, 'g', 3, 64) }
