package cgame

import (
	"math"

	"tremor/bg"
	"tremor/common/proto"
)

// This file is Quake III's cg_predict.c: the local player predicted by
// replaying its usercmds through the same bg.Pmove the server runs.

// predictPlayerState sets Predicted and DrawnOrigin
// (CG_PredictPlayerState). Starting from the player state of the newest
// snapshot, it replays every usercmd the server had not run when it built
// that snapshot, oldest first. On its way it passes the command the
// previous frame's prediction ended on; if the player stands elsewhere
// there than the previous frame predicted, that is a misprediction: it is
// counted, and the difference becomes the error vector that is drawn and
// decays over cg_errorDecay, so the correction is smooth.
func (g *CGame) predictPlayerState() {
	g.updateBase()
	if g.cfg.NoPredict || g.frameSync {
		g.interpolatePlayerState()
		return
	}
	cur := g.c.CurrentCmdNumber()
	cmd := &g.cmd // a field: a local would escape through the interface call
	fixed := g.cfg.fixedMsec()

	// Walk back to the oldest command newer than the base. Commands are
	// numbered from 1, so a missing number above 0 is one the ring has
	// overwritten: the window of unacknowledged commands is too long.
	first := cur + 1
	lost := false
	for n := cur; ; n-- {
		if cur-n >= MaxReplayCommands {
			lost = true
			break
		}
		if !g.c.GetUserCmd(n, cmd) {
			lost = n > 0 && n < cur
			break
		}
		if roundCmdTime(cmd.ServerTime, fixed) <= g.base.CommandTime {
			break
		}
		first = n
	}
	if lost {
		g.Stats.PredictionCommandsLost++
		if g.cfg.showMiss(1) {
			g.cfg.Logf("cgame: usercmds %d..%d needed for prediction are gone; drawing the snapshot", first-1, cur)
		}
		g.interpolatePlayerState()
		g.predictFailed = true
		return
	}

	hadOld := g.havePredicted
	g.old = g.Predicted
	ps := &g.Predicted
	*ps = g.base
	compared := false
	if hadOld && ps.CommandTime == g.old.CommandTime {
		g.checkMiss()
		compared = true
	}
	replayed := 0
	for n := first; n <= cur; n++ {
		if !g.c.GetUserCmd(n, cmd) {
			continue
		}
		// With pmove_fixed the server runs the command to its time
		// rounded up to a whole step; so does the replay, and the test
		// of what the base has run uses the rounded time too.
		cmd.ServerTime = roundCmdTime(cmd.ServerTime, fixed)
		if cmd.ServerTime <= ps.CommandTime {
			continue
		}
		g.pm = bg.Pmove{PS: ps, Cmd: *cmd, World: g.world, Params: g.cfg.Params, FixedMsec: fixed}
		g.pm.Run()
		replayed++
		if hadOld && !compared && ps.CommandTime == g.old.CommandTime {
			g.checkMiss()
			compared = true
		}
	}
	g.Stats.CommandsReplayed += replayed
	if g.cfg.showMiss(2) {
		g.cfg.Logf("cgame: predicted %d usercmds from commandTime %d to %d", replayed, g.base.CommandTime, ps.CommandTime)
	}
	if hadOld && (ps.EFlags^g.old.EFlags)&bg.EFTeleportBit != 0 {
		// A teleport since the last frame: an error from before it means
		// nothing on the other side.
		if g.cfg.showMiss(1) && g.PredictedError != (Point{}) {
			g.cfg.Logf("cgame: predicted a teleport at commandTime %d: %.2f px of error snapped", ps.CommandTime, errorPx(g.PredictedError))
		}
		g.PredictedError = Point{}
	}
	g.levelChanged = false
	g.oldMark, g.haveOldMark = markOf(&g.base), true
	g.havePredicted = true
	g.predictFailed = false
	g.Predicting = true

	g.DrawnError = g.PredictedError.scale(g.errorFactor())
	g.DrawnOrigin = PointOf(ps.Origin).add(g.DrawnError)

	g.checkPlayerstateEvents(ps, &g.firedPS, SourcePredicted, ps.CommandTime)
	g.firedPS = *ps
}

// roundCmdTime rounds a command time up to a whole pmove_fixed step
// (fixed > 0), as the server does.
func roundCmdTime(t, fixed int32) int32 {
	if fixed <= 0 {
		return t
	}
	return (t + fixed - 1) / fixed * fixed
}

// checkMiss compares the prediction for the command the previous frame's
// prediction ended on (g.old) with the new one (g.Predicted, at that
// command). A teleport, respawn or level change between them resets the
// error instead: there is nothing to smooth across those.
func (g *CGame) checkMiss() {
	old, ps := &g.old, &g.Predicted
	if g.levelChanged || old.ClientNum != ps.ClientNum ||
		(old.EFlags^ps.EFlags)&bg.EFTeleportBit != 0 ||
		old.Persistant[bg.PersSpawnCount] != ps.Persistant[bg.PersSpawnCount] {
		g.Stats.PredictionTeleports++
		g.PredictedError = Point{}
		if g.cfg.showMiss(1) {
			g.cfg.Logf("cgame: prediction teleport at commandTime %d: %.2f px snapped, not decayed (teleport, respawn or new level)",
				ps.CommandTime, vecLenPx(old.Origin.Sub(ps.Origin)))
		}
		return
	}
	d := old.Origin.Sub(ps.Origin)
	if d == (bg.Vec{}) {
		return
	}
	// The server acting on the player between the two bases explains the
	// difference: a correction, not a misprediction.
	corrected := !g.haveOldMark || markOf(&g.base) != g.oldMark
	what := "miss"
	if corrected {
		g.Stats.PredictionCorrections++
		what = "correction (the server hit, pushed or killed the player)"
	} else {
		g.Stats.PredictionMisses++
	}
	size := vecLenPx(d)
	g.Stats.PredictionErrorMax = max(g.Stats.PredictionErrorMax, size)
	if g.cfg.ErrorDecay > 0 {
		// What is left of an earlier error still shows; add the new one.
		g.PredictedError = g.PredictedError.scale(g.errorFactor()).add(PointOf(d))
	} else {
		g.PredictedError = Point{}
	}
	g.PredictedErrorTime = g.Time
	if g.cfg.showMiss(1) {
		if g.cfg.ErrorDecay > 0 {
			g.cfg.Logf("cgame: prediction %s of %.2f px at commandTime %d: decayed over %d ms (error drawn now %.2f px)",
				what, size, ps.CommandTime, g.cfg.ErrorDecay, errorPx(g.PredictedError))
		} else {
			g.cfg.Logf("cgame: prediction %s of %.2f px at commandTime %d: snapped (cg_errorDecay 0)", what, size, ps.CommandTime)
		}
	}
}

// serverMark is what, in a player state, says the server itself acted
// on the player: every hit or push bumps DamageEvent (game.markHit), and
// death and the intermission change PmType.
type serverMark struct {
	damageEvent, pmType int32
}

func markOf(ps *bg.PlayerState) serverMark {
	return serverMark{damageEvent: ps.DamageEvent, pmType: ps.PmType}
}

// errorFactor is the part of PredictedError still drawn at Time: 1 when
// it was found, falling linearly to 0 cg_errorDecay ms later.
func (g *CGame) errorFactor() float64 {
	decay := g.cfg.ErrorDecay
	if decay <= 0 {
		return 0
	}
	f := float64(decay-(g.Time-g.PredictedErrorTime)) / float64(decay)
	return min(max(f, 0), 1)
}

// interpolatePlayerState shows the local player where the snapshots put
// it (CG_InterpolatePlayerState): Snap's player state, its origin
// interpolated towards NextSnap's unless a teleport lies between them.
// The aim comes from the newest usercmd, so the view still turns at once.
func (g *CGame) interpolatePlayerState() {
	ps := &g.Predicted
	*ps = g.Snap.PS
	p := PointOf(ps.Origin)
	if g.NextSnap != nil && !g.nextFrameTeleport {
		p = lerp(p, PointOf(g.NextSnap.PS.Origin), g.Frac)
	}
	cmd := &g.cmd
	if g.c.GetUserCmd(g.c.CurrentCmdNumber(), cmd) {
		ps.Aim = cmd.Aim & 0xffff
	}
	g.DrawnOrigin = p
	g.DrawnError = Point{}
	g.PredictedError = Point{}
	g.Predicting = false
	g.havePredicted = false
}

// updateBase makes the newest usable snapshot's player state the base of
// prediction. It may be newer than NextSnap: the newest acknowledgement
// leaves the fewest commands to replay.
func (g *CGame) updateBase() {
	latest := g.LatestSnapshotNum
	for k := latest; k > g.baseNum && k > latest-proto.PacketBackup; k-- {
		s, ok := g.peekSnapshot(k)
		if !ok {
			continue
		}
		if s.Flags&proto.SnapNotActive != 0 {
			continue
		}
		if g.haveBase && s.ServerTime <= g.baseTime && (s.Flags^g.baseFlags)&proto.SnapServerCount == 0 {
			continue
		}
		g.setBase(s, k)
		break
	}
	g.baseNum = max(g.baseNum, latest) // numbers below are not looked at again
}

// setBase records s (number num) as the base of prediction.
func (g *CGame) setBase(s *Snapshot, num int32) {
	if g.haveBase && (s.Flags^g.baseFlags)&proto.SnapServerCount != 0 {
		g.levelChanged = true
	}
	g.base = s.PS
	g.baseNum, g.baseTime, g.baseFlags = num, s.ServerTime, s.Flags
	g.haveBase = true
}

// errorPx returns the length of an error vector in pixels, for
// cg_showmiss.
func errorPx(p Point) float64 { return math.Hypot(p.X, p.Y) / bg.UnitsPerPixel }
