package classroom

import (
	"strconv"
	"strings"
)

// The classroom's controls as the view shows them: the header's clock
// switches, each pane's switches, the panes' titles and the lanes'
// labels. The model keeps them, rebuilt when a cvar of a pane, the
// server's frame rate or the clock changes, so that the window only
// draws them and runs the console lines of the one clicked, as the main
// menu's view draws ui/menu.Model.

// Switch is one switch: its label, whether it is lit (a setting away
// from its default), and the console lines a click runs. Every switch
// is console lines, so a lesson file can do whatever the mouse does.
type Switch struct {
	Label string
	On    bool
	Lines []string
}

// Pane numbers, for Switches and Title.
const (
	PaneP1     = 0
	PaneServer = 1
	PaneP2     = 2
	// PaneClock is the header's speed, pause and step switches.
	PaneClock = 3
)

// DefaultKeys say which keys play each player: the window's (A D W S F
// for P1; the arrows and Enter for P2). Config.Keys replaces them.
var DefaultKeys = [2]string{"A D W S F", "arrows Enter"}

// Speeds are the clock's speeds the header's speed switch steps
// through.
var Speeds = []float64{1, 0.5, 0.25, 0.1, 0.05}

// Values each switch steps through (a click sets the next one).
var (
	errorDecaySteps = []int{0, 100, 500}
	timeNudgeSteps  = []int{0, 15, 30, -15}
	lagSteps        = []int{0, 50, 100, 200, 300}
	lossSteps       = []int{0, 5, 10, 25}
	dupSteps        = []int{0, 10, 25}
	rateSteps       = []int{20, 10, 40} // sv_fps and snaps
	// Frame sync's.
	maxPredictionSteps = []int{12, 8, 4, 2, 16}
	ringSteps          = []int{64, 32, 16, 128}
	jitterSteps        = []int{0, 20, 50}
	reorderSteps       = []int{0, 10, 25}
)

// controls are the model's switches and labels, rebuilt by refresh.
type controls struct {
	switches   [4][]Switch
	titles     [3]string
	linkLabels [2][2]string // per player: uplink, downlink
	predicting [2]bool
	panel      int // the first line of the decoded packet shown
}

// Switches returns a pane's switches (PaneP1, PaneServer, PaneP2 or
// PaneClock), in the order the view lays them out. The slice is the
// model's, valid until the next change.
func (m *Model) Switches(pane int) []Switch { return m.ctl.switches[pane] }

// Title returns the title of a world pane (PaneP1, PaneServer, PaneP2):
// for a player, whether it predicts and its lag.
func (m *Model) Title(pane int) string { return m.ctl.titles[pane] }

// LinkLabel returns the label of one direction of player i's lane: its
// delay and its loss ("200 ms, 5% lost").
func (m *Model) LinkLabel(i int, d Dir) string { return m.ctl.linkLabels[i][d] }

// Predicting reports whether player i's cgame predicts it
// (cl_nopredict 0).
func (m *Model) Predicting(i int) bool { return m.ctl.predicting[i] }

// PanelLine returns the first line of the decoded packet the panel
// shows: 0 after a new packet is selected, changed by `inspect scroll`.
func (m *Model) PanelLine() int { return m.ctl.panel }

// ScrollPanel makes the panel show the decoded packet from line n.
func (m *Model) ScrollPanel(n int) { m.ctl.panel = max(0, n) }

// refresh rebuilds the switches and labels from the cvars, the server's
// frame rate and the clock.
func (m *Model) refresh() {
	for _, p := range m.players {
		if p == nil || p.T == nil {
			return // still starting
		}
	}
	c := &m.ctl
	for i, p := range m.players {
		c.predicting[i] = !p.cv.client.CGame.NoPredict && !p.sync.on
		c.titles[2*i] = p.title(c.predicting[i])
		for _, d := range [...]Dir{Up, Down} {
			l := p.cv.link(d)
			s := strconv.Itoa(l.delay) + " ms"
			if l.loss > 0 {
				s += ", " + percent(l.loss) + "% lost"
			}
			c.linkLabels[i][d] = s
		}
		c.switches[2*i] = p.switches(c.switches[2*i][:0], m.keys(i))
	}
	fps := 20
	if m.srv != nil {
		fps = m.srv.Config().FPS
	}
	model, asked := m.NetModel()
	c.titles[PaneServer] = "SERVER: authoritative, sv_fps " + strconv.Itoa(fps)
	snapsLabel := "snaps "
	modelSwitch := Switch{"model: snapshots", false, []string{"netmodel " + NetModelFrameSync}}
	if model == NetModelFrameSync {
		c.titles[PaneServer] = "SERVER: frame sync, sv_fps " + strconv.Itoa(fps)
		snapsLabel = "frames msgs "
		modelSwitch = Switch{"model: frame sync", true, []string{"netmodel " + NetModelSnapshots}}
	}
	if asked != model {
		modelSwitch.Label += " (asked " + asked + ")"
	}
	snaps := m.players[0].cv.client.Snaps
	ns := strconv.Itoa(nextOf(rateSteps, snaps))
	c.switches[PaneServer] = append(c.switches[PaneServer][:0],
		Switch{"sv_fps " + strconv.Itoa(fps), fps != 20, []string{"sv sv_fps " + strconv.Itoa(nextOf(rateSteps, fps))}},
		Switch{snapsLabel + strconv.Itoa(snaps), snaps != 20, []string{"p1 snaps " + ns, "p2 snaps " + ns}},
		modelSwitch)
	next := Speeds[0]
	for i, s := range Speeds {
		if m.speed >= s-1e-9 {
			next = Speeds[(i+1)%len(Speeds)]
			break
		}
	}
	pause := "pause"
	if m.paused {
		pause = "resume"
	}
	c.switches[PaneClock] = append(c.switches[PaneClock][:0],
		Switch{"speed " + strconv.FormatFloat(m.speed, 'g', 2, 64) + "x", m.speed < 1, []string{"slowmo " + strconv.FormatFloat(next, 'g', 2, 64)}},
		Switch{pause, m.paused, []string{"pause"}},
		Switch{"step 1 frame", false, []string{"step"}})
}

// keys returns what plays player i from the keyboard.
func (m *Model) keys(i int) string {
	if k := m.cfg.Keys[i]; k != "" {
		return k
	}
	return DefaultKeys[i]
}

// title returns the player's pane title.
func (p *Player) title(predicting bool) string {
	var b strings.Builder
	b.WriteString("P" + strconv.Itoa(p.Num+1) + ": ")
	if p.sync.on {
		b.WriteString("frame sync")
	} else if predicting {
		b.WriteString("prediction")
	} else {
		b.WriteString("no prediction")
	}
	up, down := p.cv.client.PacketDelay, p.cv.down.delay
	switch {
	case up == down && up > 0:
		b.WriteString(", " + strconv.Itoa(up) + " ms each way")
	case up != down:
		b.WriteString(", " + strconv.Itoa(up) + "/" + strconv.Itoa(down) + " ms")
	}
	return b.String()
}

// switches appends the player's nine switches to s, two a row: the
// ninth, alone on the last row, is the carrier of reliable commands
// (cl_reliable q3 or acks; a change reconnects the player), whose
// counter the view draws beside it. In frame sync the first four, which
// are prediction's and interpolation's, give way to frame sync's: the
// stall limit (cl_maxPredictionFrames) and the ring of saved states
// (cl_rollbackFrames), both of which reconnect the player, and the
// link's jitter and reordering, which make frames arrive late and out
// of order.
func (p *Player) switches(s []Switch, keys string) []Switch {
	c := &p.cv.client
	pfx := "p" + strconv.Itoa(p.Num+1) + " "
	np := c.CGame.NoPredict
	ed := int(c.CGame.ErrorDecay)
	tn := c.TimeNudge
	an := c.AutoNudge
	lag, down := c.PacketDelay, p.cv.down.delay
	lagLabel := "lag " + strconv.Itoa(lag) + " ms"
	if lag != down {
		lagLabel = "lag " + strconv.Itoa(lag) + "/" + strconv.Itoa(down) + " ms"
	}
	loss := int(c.PacketLoss)
	bot := p.cv.bot
	driver := "keys " + keys
	if bot {
		driver = "played by a bot"
	}
	dup := int(c.PacketDuplicate)
	carrier, next := "reliable: q3 rings", "acks"
	if c.Reliable == "acks" {
		carrier, next = "reliable: acks", "q3"
	}
	if p.sync.on {
		mp, ring := c.MaxPrediction, c.RollbackFrames
		jit, reo := c.PacketJitter, int(c.PacketReorder)
		s = append(s,
			Switch{"max prediction " + strconv.Itoa(mp), mp != maxPredictionSteps[0], []string{pfx + "cl_maxPredictionFrames " + strconv.Itoa(nextOf(maxPredictionSteps, mp))}},
			Switch{"rollback ring " + strconv.Itoa(ring), ring != ringSteps[0], []string{pfx + "cl_rollbackFrames " + strconv.Itoa(nextOf(ringSteps, ring))}},
			Switch{"jitter " + strconv.Itoa(jit) + " ms", jit > 0 || p.cv.down.jitter > 0, []string{pfx + "jitter " + strconv.Itoa(nextOf(jitterSteps, jit))}},
			Switch{"reorder " + strconv.Itoa(reo) + " %", reo > 0 || p.cv.down.reorder > 0, []string{pfx + "reorder " + strconv.Itoa(nextOf(reorderSteps, reo))}})
	} else {
		s = append(s,
			Switch{"prediction " + onOff(!np), !np, []string{pfx + "toggle cl_nopredict"}},
			Switch{"error decay " + strconv.Itoa(ed) + " ms", ed > 0, []string{pfx + "cg_errorDecay " + strconv.Itoa(nextOf(errorDecaySteps, ed))}},
			Switch{"time nudge " + strconv.Itoa(tn) + " ms", tn != 0, []string{pfx + "cl_timeNudge " + strconv.Itoa(nextOf(timeNudgeSteps, tn))}},
			Switch{"auto nudge " + onOff(an), an, []string{pfx + "toggle cl_autoNudge"}})
	}
	return append(s,
		Switch{lagLabel, lag+down > 0, []string{pfx + "lag " + strconv.Itoa(nextOf(lagSteps, lag))}},
		Switch{"loss " + strconv.Itoa(loss) + " %", loss > 0 || p.cv.down.loss > 0, []string{pfx + "loss " + strconv.Itoa(nextOf(lossSteps, loss))}},
		Switch{driver, bot, []string{pfx + "toggle cl_bot"}},
		Switch{"duplicate " + strconv.Itoa(dup) + " %", dup > 0, []string{pfx + "dup " + strconv.Itoa(nextOf(dupSteps, dup))}},
		Switch{carrier, next == "q3", []string{pfx + "cl_reliable " + next}})
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// nextOf returns the value after cur in vals, cycling; the first if cur
// is not one of them.
func nextOf(vals []int, cur int) int {
	for i, v := range vals {
		if v == cur {
			return vals[(i+1)%len(vals)]
		}
	}
	return vals[0]
}
