package bg

// Gravity is the downward acceleration of TrGravity trajectories and of
// players, in units per second squared (1812.5 px/s²). It is a whole
// number of units per millisecond (29), so a fall speeds up by the same
// amount however its time is cut into Pmove steps, and the snapshot
// coding can predict a falling player's velocity exactly
// (PlayerStateTable, EntityStateTable).
const Gravity = 29 * 1000

// Evaluate returns the position of tr at atTime (BG_EvaluateTrajectory).
// Times are milliseconds; arithmetic is 64-bit integer, rounded to the
// nearest unit, so both sides place an object identically.
func (tr *Trajectory) Evaluate(atTime int32) Vec {
	switch tr.Type {
	case TrLinear:
		dt := int64(atTime - tr.Time)
		return Vec{tr.Base.X + scaleMs(tr.Delta.X, dt), tr.Base.Y + scaleMs(tr.Delta.Y, dt)}
	case TrLinearStop:
		if atTime > tr.Time+tr.Duration {
			atTime = tr.Time + tr.Duration
		}
		dt := int64(atTime - tr.Time)
		if dt < 0 {
			dt = 0
		}
		return Vec{tr.Base.X + scaleMs(tr.Delta.X, dt), tr.Base.Y + scaleMs(tr.Delta.Y, dt)}
	case TrGravity:
		dt := int64(atTime - tr.Time)
		fall := divRound(Gravity*dt*dt, 2_000_000)
		return Vec{tr.Base.X + scaleMs(tr.Delta.X, dt), tr.Base.Y + scaleMs(tr.Delta.Y, dt) + int32(fall)}
	default: // TrStationary, TrInterpolate
		return tr.Base
	}
}

// EvaluateDelta returns the velocity of tr at atTime in units per second
// (BG_EvaluateTrajectoryDelta).
func (tr *Trajectory) EvaluateDelta(atTime int32) Vec {
	switch tr.Type {
	case TrLinear:
		return tr.Delta
	case TrLinearStop:
		if atTime > tr.Time+tr.Duration {
			return Vec{}
		}
		return tr.Delta
	case TrGravity:
		dt := int64(atTime - tr.Time)
		return Vec{tr.Delta.X, tr.Delta.Y + int32(divRound(Gravity*dt, 1000))}
	default:
		return Vec{}
	}
}

// scaleMs returns v·ms/1000 rounded to the nearest integer, halves away
// from zero: the distance covered at v units/s in ms milliseconds.
func scaleMs(v int32, ms int64) int32 {
	return int32(divRound(int64(v)*ms, 1000))
}

// divRound divides rounding to the nearest integer, halves away from zero
// (d > 0).
func divRound(n, d int64) int64 {
	if n >= 0 {
		return (n + d/2) / d
	}
	return -((-n + d/2) / d)
}
