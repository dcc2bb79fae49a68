package overlay

import (
	"math"

	"tremor/bg"
	"tremor/cgame"
)

// Local is the local player three ways, for the snapshot-box overlay
// (cg_showSnapBox). Positions are in units, as cgame.Point.
type Local struct {
	// Valid: there is a newest snapshot and a player to show (not a
	// spectator, not the intermission).
	Valid bool
	// Server is the player's origin in the newest snapshot the engine
	// received: the server's authoritative position, the one prediction
	// starts from.
	Server cgame.Point
	// Predicted is cgame's prediction (cg.Predicted.Origin): the newest
	// snapshot with every usercmd the server had not yet run replayed.
	Predicted cgame.Point
	// Drawn is where the player is drawn (cg.DrawnOrigin): Predicted plus
	// what remains of the last misprediction.
	Drawn cgame.Point
	// Error is Drawn − Predicted (cg.DrawnError): the decaying
	// prediction error, zero once cg_errorDecay has run out.
	Error cgame.Point
	// ErrorLeft is the share of the last misprediction still shown, in
	// [0, 1]: 1 on the frame of the miss, 0 once decayed.
	ErrorLeft float64
	// ErrorPx and OffsetPx are the lengths of Error and of
	// Predicted − Server, in pixels.
	ErrorPx, OffsetPx float64
	// Ahead is how many milliseconds of usercmds the prediction ran past
	// the newest snapshot (Predicted.CommandTime − the snapshot's
	// CommandTime): the input the server had not yet acknowledged,
	// about a round trip. 0 or less without prediction.
	Ahead int32
	// Predicting: cgame predicted this frame (cl_nopredict off).
	Predicting bool
}

// LocalOf returns the local player's three positions this frame, from
// cgame and the newest snapshot t has seen.
func LocalOf(cg *cgame.CGame, t *Tracker) Local {
	if cg == nil || cg.Snap == nil || !t.HaveLatest {
		return Local{}
	}
	ps := &cg.Predicted
	if ps.PmType == bg.PMSpectator || ps.PmType == bg.PMIntermission {
		return Local{}
	}
	l := Local{
		Valid:      true,
		Server:     cgame.PointOf(t.LatestPS.Origin),
		Predicted:  cgame.PointOf(ps.Origin),
		Drawn:      cg.DrawnOrigin,
		Error:      cg.DrawnError,
		Ahead:      ps.CommandTime - t.LatestPS.CommandTime,
		Predicting: cg.Predicting,
	}
	l.ErrorPx = lengthPx(l.Error)
	l.OffsetPx = lengthPx(cgame.Point{X: l.Predicted.X - l.Server.X, Y: l.Predicted.Y - l.Server.Y})
	if full := lengthPx(cg.PredictedError); full > 0 {
		l.ErrorLeft = min(max(l.ErrorPx/full, 0), 1)
	}
	return l
}

func lengthPx(p cgame.Point) float64 {
	d := math.Hypot(p.X, p.Y) / bg.UnitsPerPixel
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 0
	}
	return d
}

// Ghost is another player for the ghosts overlay (cg_showGhosts): where
// it is drawn and where the snapshots put it. Positions are in units.
type Ghost struct {
	// Client is the player's client number (its entity number).
	Client int32
	// Lerp is where the player is drawn this frame (CEntity.Lerp).
	Lerp cgame.Point
	// Snap is its position in cgame's Snap, the start of the
	// interpolation; Next its position in NextSnap, the end (HaveNext).
	Snap, Next cgame.Point
	HaveNext   bool
	// Newest is its position in the newest snapshot received
	// (HaveNewest): the latest the client knows of where the server has
	// it. Often NextSnap itself; later than it when snapshots wait in
	// the interpolation delay.
	Newest     cgame.Point
	HaveNewest bool
	// Extrapolated: Lerp was carried past Snap on its velocity (no
	// NextSnap yet).
	Extrapolated bool
	// Dead: the player is dead (grey body).
	Dead bool
}

// Known returns the newest position of the player known: Newest, else
// Next, else Snap. The ghost's box is drawn there.
func (g *Ghost) Known() cgame.Point {
	switch {
	case g.HaveNewest:
		return g.Newest
	case g.HaveNext:
		return g.Next
	}
	return g.Snap
}

// Ghosts appends the other players of this frame to dst[:0] and returns
// it: every player entity cgame draws, in entity order. With a dst of
// capacity bg.MaxClients it allocates nothing.
func Ghosts(dst []Ghost, cg *cgame.CGame, t *Tracker) []Ghost {
	dst = dst[:0]
	if cg == nil || cg.Snap == nil {
		return dst
	}
	for _, ce := range cg.Entities {
		es := &ce.Current
		if es.EType != bg.ETPlayer || es.EFlags&bg.EFNoDraw != 0 {
			continue
		}
		g := Ghost{
			Client:       es.Number,
			Lerp:         ce.Lerp,
			Snap:         cgame.PointOf(es.Pos.Base),
			Extrapolated: ce.Extrapolated,
			Dead:         es.EFlags&bg.EFDead != 0,
		}
		if ce.Interpolate && cg.NextSnap != nil {
			g.Next, g.HaveNext = cgame.PointOf(ce.Next.Pos.Base), true
		}
		if v, ok := t.LatestPlayer(es.Number); ok {
			g.Newest, g.HaveNewest = cgame.PointOf(v), true
		}
		dst = append(dst, g)
	}
	return dst
}
