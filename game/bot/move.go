package bot

import "tremor/bg"

// Path following. On the ground a bot walks along walk edges; at the start
// of a jump edge it simulates, from its actual state, the edge's script and
// a few steered variants, and commits to the first that lands on the
// edge's end. In the air it checks every frame that its plan still lands
// there (the server runs the same Pmove, so a plan only fails when
// something pushes the bot) and re-plans its air control if not.

// Stuck detection and recovery.
const (
	progressTimeout = 1500 // ms without reaching the next node
	anchorTimeout   = 2500 // ms without moving a tile
	runUpTimeout    = 3000 // ms a run-up for a jump may take
	recoverTime     = 500
	edgeBanTime     = 10000
)

// flight is the air control of an edge under way.
type flight struct {
	edge   int32 // edge being flown, -1 if none
	from   int32 // node the bot committed from, -1 if it left otherwise
	pl     airPlan
	frames int32 // frames since the flight began
	lands  bool  // pl lands on the edge's To
	expO   bg.Vec
	expV   bg.Vec // state pl predicts for the next frame
}

// airPlan is a script: first (when hasFirst), then the inputs of an edge's
// script from frame on, then {r, 0} for hold frames, then {r2, 0}.
type airPlan struct {
	first    Input
	hasFirst bool
	script   []Input
	frame    int
	r, r2    int8
	hold     int
}

// constant returns the plan that holds horizontal input r, after first
// (when takeoff).
func constant(r int8, first Input, takeoff bool) airPlan {
	return airPlan{first: first, hasFirst: takeoff, r: r, r2: r}
}

// at returns the plan's input at step i.
func (pl *airPlan) at(i int) Input {
	if pl.hasFirst {
		if i == 0 {
			return pl.first
		}
		i--
	}
	if j := pl.frame + i; j < len(pl.script) {
		return pl.script[j]
	}
	i -= max(len(pl.script)-pl.frame, 0)
	if i < pl.hold {
		return Input{pl.r, 0}
	}
	return Input{pl.r2, 0}
}

// next drops the plan's first step.
func (pl *airPlan) next() {
	switch {
	case pl.hasFirst:
		pl.hasFirst = false
	case pl.frame < len(pl.script):
		pl.frame++
	case pl.hold > 0:
		pl.hold--
	}
}

// landing is where a simulated plan ends.
type landing struct {
	node   int32  // node the player ends on the ground in, -1 if none
	at     bg.Vec // where
	frames int
	o1, v1 bg.Vec // state after the first step
}

// fly simulates pl from start and returns where it lands. from is the
// node the player stands in, whose ground it must leave or walk off (-1
// in the air).
func (b *Bot) fly(start *bg.PlayerState, from int32, pl *airPlan) landing {
	n := b.nav
	// bg.Pmove keeps its state pointer where escape analysis loses it, so
	// simulate in the Bot's own scratch state rather than on the stack.
	ps := &b.sim
	*ps = *start
	left := !grounded(ps)
	var l landing
	for i := 0; i < maxSimFrames; i++ {
		n.step(ps, pl.at(i), b.msec)
		if i == 0 {
			l.o1, l.v1 = ps.Origin, ps.Velocity
		}
		l.at, l.frames = ps.Origin, i+1
		if n.hurts(ps.Origin) {
			l.node = -1
			return l
		}
		if !grounded(ps) {
			left = true
			continue
		}
		id := n.Locate(ps.Origin)
		switch {
		case left || id >= 0 && id != from:
			l.node = id
			return l
		case i >= maxGroundFrames:
			l.node = -1
			return l
		}
	}
	l.node = -1
	return l
}

// planFlight looks for inputs that take a player in state ps to node to.
// On the ground in node from (takeoff) the first frame presses up (jump
// or drop); in the air from is -1. It tries script (if any), then each
// steady air control, then, between two steady controls that land on
// either side of to, the switch time from one to the other (a bisection:
// air control moves the landing point monotonically). It returns the plan
// and whether it lands on to; if none does, the plan that lands nearest.
func (b *Bot) planFlight(ps *bg.PlayerState, from, to int32, up int8, script []Input) (airPlan, landing, bool) {
	takeoff := from >= 0
	if script != nil {
		pl := airPlan{script: script}
		if l := b.fly(ps, from, &pl); l.node == to {
			return pl, l, true
		}
	}
	target := b.nav.Center(to)
	var lands [len(airInputs)]landing
	best, bestI, bestScore := landing{node: -1}, -1, int64(-1)
	for i, r := range airInputs {
		pl := constant(r, Input{r, up}, takeoff)
		l := b.fly(ps, from, &pl)
		if l.node == to {
			return pl, l, true
		}
		lands[i] = l
		if l.node < 0 {
			continue
		}
		if s := abs64(int64(l.at.X)-int64(target.X)) + 2*abs64(int64(l.at.Y)-int64(target.Y)); bestScore < 0 || s < bestScore {
			best, bestI, bestScore = l, i, s
		}
	}
	// airInputs run from full right to full left: find a neighbouring
	// pair landing right and left of the target.
	for i := 0; i+1 < len(airInputs); i++ {
		hi, lo := &lands[i], &lands[i+1]
		if hi.node < 0 || lo.node < 0 || hi.at.X < target.X || lo.at.X > target.X {
			continue
		}
		r, r2 := airInputs[i], airInputs[i+1]
		// hold r for k frames then r2: k = 0 lands like r2, k = all like r.
		a, z := 0, hi.frames
		for a+1 < z {
			k := (a + z) / 2
			pl := constant(r, Input{r, up}, takeoff)
			pl.r2, pl.hold = r2, k
			l := b.fly(ps, from, &pl)
			if l.node == to {
				return pl, l, true
			}
			if l.node >= 0 && l.at.X > target.X {
				z = k
			} else {
				a = k
			}
		}
	}
	if bestI < 0 {
		return constant(0, Input{0, up}, takeoff), best, false
	}
	return constant(airInputs[bestI], Input{airInputs[bestI], up}, takeoff), best, false
}

// move drives RightMove and UpMove.
func (b *Bot) move(v *View, cmd *bg.UserCmd) {
	ps := v.Self
	n := b.nav
	gr := grounded(ps)
	b.checkStuck(ps)

	if b.now < b.recoverUntil {
		cmd.RightMove = b.recoverDir * 127
		if gr && b.prevUp <= 0 && b.rng.IntN(3) == 0 {
			cmd.UpMove = 127
		}
		return
	}

	if b.fl.edge >= 0 {
		if !gr || b.fl.frames == 0 {
			b.steerAir(ps, cmd)
			return
		}
		// Landed.
		e := b.fl.edge
		b.fl.edge = -1
		if cur := n.Locate(ps.Origin); cur != n.edges[e].To {
			if b.fl.from >= 0 {
				b.banned[e] = b.now + edgeBanTime
				b.missCount++
			}
			b.planAt = b.now
			b.plan(v)
		}
	}
	if !gr {
		// In the air without a plan: knocked, or off a ledge on the way.
		b.fl = flight{edge: -1, from: -1}
		if b.pathPos < len(b.path) {
			b.fl.edge = b.path[b.pathPos]
		}
		if b.fl.edge >= 0 {
			b.steerAir(ps, cmd)
		}
		return
	}

	cur := n.Locate(ps.Origin)
	if cur < 0 {
		cur = b.lastNode
	}
	b.advance(cur)
	if b.combatMove(ps, cur, cmd) {
		return
	}
	if b.pathPos >= len(b.path) {
		b.atGoal(ps, cmd)
		return
	}
	e := b.path[b.pathPos]
	ed := &n.edges[e]
	if b.runEdge != e {
		b.runEdge, b.runup = e, runNone
	}
	if ed.From != cur && !b.runningUp(cur) {
		// Between nodes, or pushed off the path: head for the edge's start.
		b.steerTo(ps, n.Center(ed.From).X, cmd)
		return
	}
	b.goalAt = 0
	scr := n.Script(e)
	if scr[0].UpMove == 0 {
		// Walk, or walk off a ledge, onto a pad, into a teleporter.
		cmd.RightMove = sign(int32(scr[0].RightMove)) * 127
		b.runup = runNone
		return
	}
	if b.commit(ps, e, cmd) {
		return
	}
	b.approach(ps, ed, cmd)
}

// advance moves the path on past the nodes the bot has reached.
func (b *Bot) advance(cur int32) {
	if cur < 0 {
		return
	}
	edges := b.nav.edges
	for b.pathPos < len(b.path) && edges[b.path[b.pathPos]].To == cur {
		b.pathPos++
	}
	// A shortcut: the bot is already at the start of a later edge.
	for k := 1; k <= 3 && b.pathPos+k < len(b.path); k++ {
		if edges[b.path[b.pathPos+k]].From == cur {
			b.pathPos += k
			break
		}
	}
}

// commit starts edge e's flight if a simulated takeoff from here lands on
// the edge's end.
func (b *Bot) commit(ps *bg.PlayerState, e int32, cmd *bg.UserCmd) bool {
	n := b.nav
	ed := &n.edges[e]
	scr := n.Script(e)
	pl, l, ok := b.planFlight(ps, ed.From, ed.To, scr[0].UpMove, scr)
	if !ok {
		return false
	}
	b.fl = flight{edge: e, from: ed.From, pl: pl, lands: true, expO: l.o1, expV: l.v1}
	in := pl.at(0)
	b.fl.pl.next()
	b.fl.frames = 1
	cmd.RightMove, cmd.UpMove = int32(in.RightMove), int32(in.UpMove)
	b.runup = runNone
	return true
}

// steerAir flies the current edge: it keeps the plan while the bot is
// where the plan said, and otherwise looks for one that lands on the
// edge's end, or as near it as it can.
func (b *Bot) steerAir(ps *bg.PlayerState, cmd *bg.UserCmd) {
	n := b.nav
	to := n.edges[b.fl.edge].To
	fl := &b.fl
	if fl.frames > 0 && fl.lands && ps.Origin == fl.expO && ps.Velocity == fl.expV {
		// Still on plan: only the next expected state is needed.
		next := &b.sim
		*next = *ps
		n.step(next, fl.pl.at(0), b.msec)
		fl.expO, fl.expV = next.Origin, next.Velocity
	} else if l := b.fly(ps, -1, &fl.pl); l.node == to {
		fl.lands, fl.expO, fl.expV = true, l.o1, l.v1
	} else {
		pl, l, ok := b.planFlight(ps, -1, to, 0, nil)
		fl.pl, fl.lands, fl.expO, fl.expV = pl, ok, l.o1, l.v1
	}
	in := fl.pl.at(0)
	fl.pl.next()
	fl.frames++
	cmd.RightMove, cmd.UpMove = int32(in.RightMove), int32(in.UpMove)
}

// Run-up states for a running jump.
const (
	runNone     = iota
	runSettling // standing still at the run-up point
	runRunning  // running through the start
)

// approach brings the bot to where edge ed's jump can start: at rest in
// the middle of its tile for a standing jump. For a running one it runs
// through the tile's middle, committing as soon as a jump lands; failing
// that it backs up to the run-up point (Nav.runUp behind the middle) and
// stops there, from where a run reaches the middle at full speed exactly
// at a frame, as the edge's simulation started.
func (b *Bot) approach(ps *bg.PlayerState, ed *Edge, cmd *bg.UserCmd) {
	n := b.nav
	c := n.Center(ed.From)
	if ed.StartVX == 0 {
		b.runup = runNone
		cmd.RightMove = b.settle(ps, c.X)
		return
	}
	d := sign(ed.StartVX)
	dx := (c.X - ps.Origin.X) * d // distance still to run
	p := b.runUpPoint(ed)
	switch b.runup {
	case runNone:
		b.runup, b.runupAt = runSettling, b.now
		if dx >= n.runUp && ps.Velocity.X*d >= 0 {
			b.runup = runRunning // far enough behind to speed up
		}
	case runSettling:
		if abs32(ps.Origin.X-p) <= bg.UnitsPerPixel && ps.Velocity.X == 0 {
			b.runup = runRunning
		}
	case runRunning:
		if dx < -bg.TileUnits/3 {
			b.runup = runSettling // past the start without a jump
		}
	}
	if b.runup == runSettling {
		cmd.RightMove = b.settle(ps, p)
		return
	}
	cmd.RightMove = d * 127
}

// runUpPoint is where a running jump along ed starts from rest.
func (b *Bot) runUpPoint(ed *Edge) int32 {
	n := b.nav
	c := n.Center(ed.From)
	d := sign(ed.StartVX)
	p := c.X - d*n.runUp
	for !n.canStand(p, ed.From) && p*d < c.X*d {
		p += d * bg.UnitsPerPixel // cannot happen for a built edge
	}
	return p
}

// runningUp reports whether the bot, in node cur, is behind the start of
// its current edge on purpose, to run up to it.
func (b *Bot) runningUp(cur int32) bool {
	if b.runup == runNone || b.pathPos >= len(b.path) || b.runEdge != b.path[b.pathPos] {
		return false
	}
	n := b.nav
	ed := &n.edges[b.runEdge]
	return cur == n.Locate(bg.Vec{X: b.runUpPoint(ed), Y: n.Center(ed.From).Y})
}

// settleInputs are the inputs settle chooses from.
var settleInputs = [...]int8{0, 4, -4, 16, -16, 48, -48, 127, -127}

// settle returns the RightMove that best brings the bot to rest at x: it
// tries each input for one step and keeps the one whose result, coasting
// for a while at its new speed, ends nearest x.
func (b *Bot) settle(ps *bg.PlayerState, x int32) int32 {
	n := b.nav
	best, bestD := int32(0), int64(-1)
	for _, r := range settleInputs {
		next := &b.sim
		*next = *ps
		n.step(next, Input{r, 0}, b.msec)
		d := abs64(int64(next.Origin.X) + int64(next.Velocity.X)*120/1000 - int64(x))
		if bestD < 0 || d < bestD {
			best, bestD = int32(r), d
		}
	}
	return best
}

// steerTo runs towards x.
func (b *Bot) steerTo(ps *bg.PlayerState, x int32, cmd *bg.UserCmd) {
	dx := x - ps.Origin.X
	if abs32(dx) > bg.Px(4) {
		cmd.RightMove = sign(dx) * 127
	}
}

// atGoal acts at the end of the path.
func (b *Bot) atGoal(ps *bg.PlayerState, cmd *bg.UserCmd) {
	if b.goalAt == 0 {
		b.goalAt = b.now
	}
	switch b.goalKind {
	case goalItem:
		dx := b.goalPos.X - ps.Origin.X
		if abs32(dx) > bg.Px(6) {
			cmd.RightMove = sign(dx) * min(127, max(40, abs32(dx)*127/bg.Px(24)))
		}
		if b.now-b.goalAt > goalTimeout {
			b.banItem(b.goalEnt)
			b.planAt = b.now
		}
	case goalEnemy:
		if dir := sign(b.enemyPos.X - ps.Origin.X); abs32(b.enemyPos.X-ps.Origin.X) > bg.Px(4) && b.canStep(ps, dir) {
			cmd.RightMove = dir * 127 // not off a ledge or onto a pad
		}
		if b.now-b.goalAt > 500 {
			b.planAt = b.now
		}
	default:
		b.planAt = b.now
	}
}

// checkStuck notices a bot that makes no progress along its path, or does
// not move, and sends it the other way with a jump, banning the edge it
// was trying for a while.
func (b *Bot) checkStuck(ps *bg.PlayerState) {
	n := b.nav
	if b.now < b.recoverUntil {
		return
	}
	cur := n.Locate(ps.Origin)
	if cur != b.progressNode && cur >= 0 || b.pathPos != b.progressPos || b.fl.edge >= 0 ||
		b.runup != runNone && b.now-b.runupAt < runUpTimeout {
		b.progressNode, b.progressPos, b.progressAt = cur, b.pathPos, b.now
	}
	if abs32(ps.Origin.X-b.anchor.X) > bg.TileUnits || abs32(ps.Origin.Y-b.anchor.Y) > bg.TileUnits {
		b.anchor, b.anchorAt = ps.Origin, b.now
	}
	following := b.pathPos < len(b.path)
	if following && b.now-b.progressAt > progressTimeout || b.now-b.anchorAt > anchorTimeout {
		if following {
			b.banned[b.path[b.pathPos]] = b.now + edgeBanTime
		}
		if b.goalKind == goalItem && b.now-b.anchorAt > anchorTimeout {
			b.banItem(b.goalEnt)
		}
		b.recoverUntil = b.now + recoverTime
		b.recoverDir = 1
		if b.rng.IntN(2) == 0 {
			b.recoverDir = -1
		}
		b.planAt = b.now + recoverTime
		b.progressAt, b.anchorAt, b.anchor = b.now+recoverTime, b.now+recoverTime, ps.Origin
		b.fl = flight{edge: -1, from: -1}
		b.runup = runNone
		b.stuckCount++
	}
}

func sign(v int32) int32 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
