package classroom

import (
	"strconv"
	"strings"
	"time"

	"tremor/common/console"
	"tremor/net/cmdargs"
)

// addCommands adds the pane's commands to its table.
func (p *Player) addCommands() {
	t := p.T
	for _, b := range bothWays {
		t.AddCommand(b.cmd, b.help, func(a *cmdargs.Args) {
			if a.Argc() < 2 {
				t.Printf("%s: up %s, down %s\n", b.cmd, b.of(p.cv.link(Up)), b.of(p.cv.link(Down)))
				return
			}
			for _, name := range [...]string{b.up, b.down} {
				if err := t.Set(name, a.Argv(1)); err != nil {
					t.Printf("%v\n", err)
					return
				}
			}
		})
	}
	t.AddCommand("reconnect", "reconnect: connect this player again (a change of cl_reliable does it by itself)", func(*cmdargs.Args) {
		p.Reconnect()
	})
	t.AddCommand("say", "say TEXT: chat to everyone as this player (a reliable command)", func(a *cmdargs.Args) {
		if err := p.C.AddReliableCommand("say " + cmdargs.QuoteText(a.ArgsFrom(1))); err != nil {
			t.Printf("%v\n", err)
		}
	})
}

// CommandNames are the commands AddCommands adds.
var CommandNames = []string{"p1", "p2", "sv", "slowmo", "pause", "step", "inspect", "netmodel"}

// RemoveCommands removes the commands AddCommands added to t.
func RemoveCommands(t *console.Table) {
	for _, n := range CommandNames {
		t.RemoveCommand(n)
	}
}

// AddCommands adds the classroom's commands to the program's console
// table t: p1, p2 and sv aim a line at one pane's table; slowmo and
// pause work the clock; inspect prints a packet decoded; netmodel
// switches the server between snapshots and frame sync.
func (m *Model) AddCommands(t *console.Table) {
	for i, name := range [...]string{"p1", "p2"} {
		pt := m.players[i].T
		t.AddCommand(name, name+" LINE: run a console line on Player "+strconv.Itoa(i+1)+"'s client (p"+strconv.Itoa(i+1)+" cl_nopredict 1, p"+strconv.Itoa(i+1)+" lag 200)", func(a *cmdargs.Args) {
			if a.Argc() < 2 {
				t.Printf("usage: %s COMMAND [ARGS]\n", name)
				return
			}
			pt.ExecuteString(a.ArgsFrom(1))
		})
	}
	t.AddCommand("sv", "sv LINE: run a console line on the classroom's server (sv sv_fps 10, sv addbot 1)", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			t.Printf("usage: sv COMMAND [ARGS]\n")
			return
		}
		m.svT.ExecuteString(a.ArgsFrom(1))
	})
	t.AddCommand("netmodel", "netmodel [snapshots|framesync]: switch the classroom's server between Quake III's snapshots and frame sync (sv sv_netmodel, then sv map_restart); no argument prints the model", func(a *cmdargs.Args) {
		now, asked := m.NetModel()
		switch arg := a.Argv(1); arg {
		case "":
			t.Printf("netmodel: %s (sv_netmodel %s)\n", now, asked)
		case NetModelSnapshots, NetModelFrameSync:
			if err := m.SetNetModel(arg); err != nil {
				t.Printf("netmodel: %v\n", err)
			}
		default:
			t.Printf("usage: netmodel [%s|%s]\n", NetModelSnapshots, NetModelFrameSync)
		}
	})
	t.AddCommand("slowmo", "slowmo [SPEED]: run the classroom's clock at SPEED (0.05 to 1) real time; no argument toggles 1 and 0.1", func(a *cmdargs.Args) {
		if a.Argc() < 2 {
			if m.speed < 1 {
				m.SetSpeed(1)
			} else {
				m.SetSpeed(0.1)
			}
		} else {
			f, err := strconv.ParseFloat(a.Argv(1), 64)
			if err != nil {
				t.Printf("usage: slowmo [SPEED]\n")
				return
			}
			m.SetSpeed(f)
		}
		t.Printf("classroom: speed %.2g×\n", m.speed)
	})
	t.AddCommand("pause", "pause [0|1]: stop or restart the classroom's clock (no argument toggles)", func(a *cmdargs.Args) {
		switch a.Argv(1) {
		case "":
			m.SetPaused(!m.paused)
		case "0":
			m.SetPaused(false)
		default:
			m.SetPaused(true)
		}
	})
	t.AddCommand("step", "step [MS]: run the classroom's clock MS ms (default one client frame), paused or not", func(a *cmdargs.Args) {
		d := FrameInterval
		if a.Argc() > 1 {
			n, err := strconv.Atoi(a.Argv(1))
			if err != nil || n < 1 || n > 10000 {
				t.Printf("usage: step [MS]\n")
				return
			}
			d = time.Duration(n) * time.Millisecond
		}
		m.Run(d)
	})
	t.AddCommand("inspect", "inspect [last [p1|p2] [up|down] | ID]: print a packet of the classroom decoded field by field, and show it in the window's panel; inspect scroll LINE shows the panel from that line", func(a *cmdargs.Args) {
		var e *Event
		var ok bool
		switch arg := a.Argv(1); arg {
		case "scroll":
			n, err := strconv.Atoi(a.Argv(2))
			if err != nil {
				t.Printf("usage: inspect scroll LINE\n")
				return
			}
			m.ScrollPanel(n)
			return
		case "", "last":
			player, dir := -1, -1
			for i := 2; i < a.Argc(); i++ {
				switch strings.ToLower(a.Argv(i)) {
				case "p1":
					player = 0
				case "p2":
					player = 1
				case "up":
					dir = int(Up)
				case "down":
					dir = int(Down)
				default:
					t.Printf("usage: inspect [last [p1|p2] [up|down] | ID]\n")
					return
				}
			}
			e, ok = m.lastMatching(player, dir)
		default:
			id, err := strconv.ParseUint(strings.TrimPrefix(arg, "#"), 10, 64)
			if err != nil {
				t.Printf("usage: inspect [last [p1|p2] [up|down] | ID]\n")
				return
			}
			e, ok = m.Event(id)
		}
		if !ok {
			t.Printf("inspect: no such packet in the log\n")
			return
		}
		m.Select(e.ID)
		t.Printf("%s", Describe(e))
	})
}

// lastMatching returns the newest packet of player (-1: either) going
// dir (-1: either way).
func (m *Model) lastMatching(player, dir int) (*Event, bool) {
	for id := m.nextID - 1; id > 0 && m.nextID-id <= MaxEvents; id-- {
		e := &m.events[(id-1)%MaxEvents]
		if (player < 0 || e.Player == player) && (dir < 0 || int(e.Dir) == dir) {
			return e, true
		}
	}
	return nil, false
}

// Describe returns e as `inspect` prints it: a line on its journey, then
// the packet decoded by internal/inspect, field by field.
func Describe(e *Event) string {
	var b strings.Builder
	b.WriteString(Headline(e))
	b.WriteByte('\n')
	if s := ReliableLine(e); s != "" {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if e.Msg.Size == 0 {
		b.WriteString("(its decoded text is gone: the newest " + strconv.Itoa(KeepDecoded) + " packets keep theirs)\n")
		return b.String()
	}
	_ = e.Msg.WriteText(&b, true)
	if s := b.String(); !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

// Headline returns one line on e: number, who sent it to whom, kind,
// size, and its journey.
func Headline(e *Event) string {
	var b strings.Builder
	from, to := "P"+strconv.Itoa(e.Player+1), "server"
	if e.Dir == Down {
		from, to = to, from
	}
	b.WriteString("#" + strconv.FormatUint(e.ID, 10) + " " + from + " -> " + to + ": " + e.Kind.String())
	if e.WholeFrame != 0 {
		b.WriteString(" of frame " + strconv.Itoa(int(e.WholeFrame)))
		if e.FirstFrame != 0 {
			b.WriteString(", then frames")
		}
	}
	if e.FirstFrame != 0 {
		b.WriteString(" " + strconv.Itoa(int(e.FirstFrame)))
		if e.LastFrame != e.FirstFrame {
			b.WriteString("-" + strconv.Itoa(int(e.LastFrame)))
		}
	}
	b.WriteString(", " + strconv.Itoa(e.Bytes) + " bytes")
	if e.Netchan {
		b.WriteString(", sequence " + strconv.FormatUint(uint64(e.Sequence), 10))
	}
	b.WriteString(", sent at " + ms(e.Sent))
	switch e.Copies {
	case 0:
		b.WriteString(", lost")
	case 1:
		b.WriteString(", arrived at " + ms(e.Arrive[0]) + " (" + ms(e.Arrive[0]-e.Sent) + " on the way)")
	case 2:
		b.WriteString(", duplicated: arrived twice at " + ms(e.Arrive[0]))
		if e.Arrive[1] != e.Arrive[0] {
			b.WriteString(" and " + ms(e.Arrive[1]))
		}
	}
	if e.Late() {
		b.WriteString(", overtaken by a later packet")
	}
	return b.String()
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" }
