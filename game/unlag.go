package game

import "tremor/bg"

// Lag compensation (what Quake III's "unlagged" mod and Source call
// backward reconciliation). A client draws the other players where its
// snapshots put them at its render time, which it stamps on every
// usercmd (UserCmd.ServerTime: the client's estimate of the server time
// minus cl_timeNudge or cl_autoNudge's delay, the very time its cgame
// interpolates the others at). By the time the command reaches the
// server the targets have moved on. With g_unlagged the game keeps the
// players' positions of the last UnlagFrames server frames, and a
// hitscan shot of a human client (gauntlet, machinegun, railgun) is
// traced against the other players as they stood at the command's time,
// interpolated between the two frames around it as the client
// interpolated between its snapshots, going back at most sv_maxUnlag ms.
// Nothing is moved: the shot is traced against a copy of the boxes.
// The shooter's own position is never rewound (it is the one its
// client predicted), missiles and splash never are, and bots, which
// aim at the server's present, are not compensated. docs/lagcomp.md
// explains it, its error and its cost.

// UnlagFrames is how many server frames of positions the game keeps: at
// least a second up to sv_fps 125 (6.4 s at the default 20). A shot
// older than the oldest frame kept is traced against that frame.
const UnlagFrames = 128

// DefaultMaxUnlag is sv_maxUnlag's default, in ms: the most a shot is
// rewound.
const DefaultMaxUnlag = 500

// unlagPos is one player in one recorded frame.
type unlagPos struct {
	origin     bg.Vec
	mins, maxs bg.Vec // the box, relative to origin
	solid      bool   // a live player shots could hit
	teleport   int32  // EFTeleportBit: a change means a jump, not a move
}

// unlagFrame is the players of one server frame.
type unlagFrame struct {
	time int32
	p    [bg.MaxClients]unlagPos
}

// unlagHistory is the ring of recorded frames.
type unlagHistory struct {
	frames [UnlagFrames]unlagFrame
	n      int // frames recorded, up to UnlagFrames
	next   int // slot of the next frame
}

// rewind is the state of the shot being traced: the box of every player
// as the shooter saw it.
type rewind struct {
	on    bool
	msec  int32 // how far back, ms
	boxes [bg.MaxClients]rewoundBox
}

// rewoundBox is a player's box as the shooter saw it.
type rewoundBox struct {
	ok         bool // the player could be hit then
	origin     bg.Vec
	mins, maxs bg.Vec // absolute
}

// recordFrame appends the players' positions at the end of a frame, as
// the snapshots of that frame carry them. It allocates nothing.
func (g *Arena) recordFrame() {
	h := &g.unlag
	f := &h.frames[h.next]
	f.time = g.lv.time
	p := &bg.DefaultParams
	for c := range f.p {
		if !g.solidPlayer(c) {
			f.p[c] = unlagPos{}
			continue
		}
		f.p[c] = unlagPos{origin: g.ps[c].Origin, mins: p.Mins, maxs: p.Maxs, solid: true,
			teleport: g.ps[c].EFlags & bg.EFTeleportBit}
	}
	h.next = (h.next + 1) % UnlagFrames
	h.n = min(h.n+1, UnlagFrames)
}

// forgetUnlag clears client slot c from the recorded frames, so that a
// new client in the slot is never hit where the previous one stood.
func (g *Arena) forgetUnlag(c int) {
	for i := range g.unlag.frames {
		g.unlag.frames[i].p[c] = unlagPos{}
	}
}

// frame returns the k-th newest frame recorded (0 the newest).
func (h *unlagHistory) frame(k int) *unlagFrame {
	return &h.frames[(h.next-1-k+2*UnlagFrames)%UnlagFrames]
}

// startRewind prepares the boxes for a shot of client n whose command
// was stamped cmdTime, if g_unlagged is on, n is a human and the command
// is older than the newest frame recorded; otherwise shots see the
// present. The time goes back at most sv_maxUnlag ms from the level
// time, and no further than the oldest frame kept.
func (g *Arena) startRewind(n int, cmdTime int32) {
	g.rw.on = false
	h := &g.unlag
	if !g.cfg.Unlagged || g.clients[n].isBot || h.n == 0 {
		return
	}
	t := max(cmdTime, g.lv.time-max(g.cfg.MaxUnlag, 0))
	newest := h.frame(0)
	if t >= newest.time {
		return // the shooter saw the latest frame or later: the present
	}
	// The two frames around t: a at or before it, b after it.
	k := 0
	for k+1 < h.n && h.frame(k+1).time > t {
		k++
	}
	b := h.frame(k)
	a := b
	if k+1 < h.n {
		a = h.frame(k + 1)
	}
	if t < a.time {
		t = a.time // older than the history: its oldest frame
	}
	g.rw.on = true
	g.rw.msec = g.lv.time - t
	for c := range g.rw.boxes {
		r := &g.rw.boxes[c]
		pa, pb := &a.p[c], &b.p[c]
		*r = rewoundBox{}
		if c == n || !pa.solid || !g.solidPlayer(c) {
			continue
		}
		o := pa.origin
		if pb.solid && pb.teleport == pa.teleport && b.time > a.time {
			// As the cgame does between two snapshots; across a
			// teleport or a respawn it stays at the earlier place.
			num, den := int64(t-a.time), int64(b.time-a.time)
			o.X += int32(int64(pb.origin.X-pa.origin.X) * num / den)
			o.Y += int32(int64(pb.origin.Y-pa.origin.Y) * num / den)
		}
		r.ok = true
		r.origin = o
		r.mins, r.maxs = o.Add(pa.mins), o.Add(pa.maxs)
	}
}

// endRewind puts shots back in the present.
func (g *Arena) endRewind() { g.rw.on = false }

// shotBox returns client c's box as the shot being traced sees it, grown
// by pad, and whether the shot can hit c at all: the rewound box while a
// shot is rewound, else the present one.
func (g *Arena) shotBox(c int, pad int32) (mins, maxs bg.Vec, ok bool) {
	if !g.solidPlayer(c) {
		return bg.Vec{}, bg.Vec{}, false
	}
	if !g.rw.on {
		mins, maxs = g.playerBox(c, pad)
		return mins, maxs, true
	}
	r := &g.rw.boxes[c]
	if !r.ok {
		return bg.Vec{}, bg.Vec{}, false
	}
	return bg.Vec{X: r.mins.X - pad, Y: r.mins.Y - pad}, bg.Vec{X: r.maxs.X + pad, Y: r.maxs.Y + pad}, true
}

// noteRewoundHit tells the shooter n, with an EvUnlagged temporary
// entity, where a rewound shot found target c: at the entity's origin,
// with target's present origin in Origin2, the shooter in OtherEntity,
// the target in ClientNum and how far back in EventParm (ms). Every
// client receives it; only the shooter's cgame shows it
// (cg_showUnlagged). Nothing is sent for a shot that was not rewound.
func (g *Arena) noteRewoundHit(n, c int) {
	if !g.rw.on || uint(c) >= bg.MaxClients {
		return
	}
	r := &g.rw.boxes[c]
	if !r.ok {
		return
	}
	if t := g.tempEntity(r.origin, bg.EvUnlagged); t >= 0 {
		s := &g.shared[t].S
		s.Origin2 = g.ps[c].Origin
		s.OtherEntity = int32(n)
		s.ClientNum = int32(c)
		s.EventParm = min(g.rw.msec, 1<<15-1)
	}
}
