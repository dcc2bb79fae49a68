package cgame

import "tremor/bg"

// This file is Quake III's cg_ents.c, without the drawing: where each
// entity of the snapshot stands at the render time.

// addPacketEntities fills Entities with the entities of Snap, each with
// its Lerp position for Time (CG_AddPacketEntities). The local player's
// own entity is left out: it is drawn from Predicted.
func (g *CGame) addPacketEntities() {
	g.Entities = g.Entities[:0]
	self := g.Snap.PS.ClientNum
	for i := range g.Snap.Entities {
		n := g.Snap.Entities[i].Number
		if n == self {
			continue
		}
		cent := &g.ents[n]
		g.calcEntityLerpPosition(cent)
		g.Entities = append(g.Entities, cent)
	}
}

// calcEntityLerpPosition sets cent.Lerp (CG_CalcEntityLerpPositions):
//
//   - TrInterpolate entities (players) present in both snapshots without
//     a teleport between them are interpolated between their positions
//     in Snap and NextSnap by Frac (CG_InterpolateEntityPosition);
//   - without NextSnap they are extrapolated on the velocity the server
//     sent (Pos.Delta) for at most MaxExtrapolateMsec past Snap, then
//     held;
//   - after a teleport bit toggle, a level change, or when the entity is
//     missing from NextSnap, they stay at Snap's position: never drawn
//     sliding across the jump;
//   - every other trajectory (missiles, gravity, linear stops) is
//     evaluated at Time, which extrapolates by itself.
func (g *CGame) calcEntityLerpPosition(cent *CEntity) {
	cur := &cent.Current
	cent.Extrapolated = false
	if cur.Pos.Type != bg.TrInterpolate {
		cent.Lerp = PointOf(cur.Pos.Evaluate(g.Time))
		cent.Extrapolated = g.NextSnap == nil && g.Time > g.Snap.ServerTime && cur.Pos.Type != bg.TrStationary
		return
	}
	base := PointOf(cur.Pos.Base)
	switch {
	case g.NextSnap != nil && cent.Interpolate:
		cent.Lerp = lerp(base, PointOf(cent.Next.Pos.Evaluate(g.NextSnap.ServerTime)), g.Frac)
	case g.NextSnap == nil:
		dt := min(max(g.Time-g.Snap.ServerTime, 0), MaxExtrapolateMsec)
		cent.Lerp = base.add(pointOfDelta(cur.Pos.Delta, float64(dt)/1000))
		cent.Extrapolated = dt > 0 && cur.Pos.Delta != (bg.Vec{})
	default:
		cent.Lerp = base
	}
}
