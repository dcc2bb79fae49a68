package bg

import "tremor/net/msg"

// The delta field tables of the wire structs (Quake III's netField_t
// arrays in msg.c). Fields are in wire order, most often changed first, so
// that the "last changed" count stays small. The order is the one the
// change counters of a measured bot match suggest (docs/fields.md shows
// the numbers); game's TestFieldOrderMatchesMeasurement re-measures it on
// every test run and fails when play drifts away from it. Widths are the
// smallest that hold every value the game produces: positions and
// velocities are signed 20-bit units (±32768 px or px/s), times 32 bits.
//
// A player's origin moves, each Pmove step, by its new horizontal
// velocity and the mean of its old and new vertical velocity (gravity)
// times the step. The origins (and an interpolated entity's base) are
// predicted the same way over the time between base and new state, so
// that while a player runs or falls only a residual of a few units
// travels (msg.Field.Diff); the velocities they read come before them in
// wire order. Positions, velocities and aims go as residuals from the
// expected value when small. While a player is in the air its vertical
// velocity is predicted to grow by Gravity (a whole number of units a
// millisecond, so exactly, whatever steps Pmove took) up to the terminal
// speed: a fall costs one bit a snapshot instead of a 14-bit residual.

// PlayerStateTable codes PlayerState in the player-state style.
var PlayerStateTable = msg.MustTable[PlayerState]("PlayerState", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "CommandTime", Bits: 32, Inc: 8},
		{Name: "Aim", Bits: 16, Diff: 14},
		{Name: "WeaponTime", Bits: -16, Diff: 8},
		{Name: "Velocity.X", Bits: -20, Diff: 13},
		{Name: "Velocity.Y", Bits: -20, Diff: 13, Predict: &msg.Prediction{Accel: Gravity, Max: DefaultParams.MaxFallSpeed, Clock: "CommandTime", When: "GroundEntity", WhenValue: EntityNumNone}},
		{Name: "EventSequence", Bits: 16, Inc: 3},
		{Name: "PmFlags", Bits: 8},
		{Name: "Origin.Y", Bits: -20, Diff: 8, Predict: &msg.Prediction{Rate: "Velocity.Y", Mean: true, Clock: "CommandTime"}},
		{Name: "GroundEntity", Bits: 10},
		{Name: "WeaponState", Bits: 2},
		{Name: "PmTime", Bits: -16},
		{Name: "EFlags", Bits: 16},
		{Name: "DamageEvent", Bits: 8},
		{Name: "DamageDir", Bits: 16},
		{Name: "ExternalEvent", Bits: 10},
		{Name: "Origin.X", Bits: -20, Diff: 7, Predict: &msg.Prediction{Rate: "Velocity.X", Clock: "CommandTime"}},
		{Name: "ExternalEventParm", Bits: -16},
		{Name: "Weapon", Bits: 4},
		{Name: "DamageCount", Bits: 8},
		{Name: "PmType", Bits: 2},
		{Name: "ClientNum", Bits: 8},
	},
	Arrays: []msg.ArrayField{
		{Name: "Events", Bits: 8},
		{Name: "EventParms", Bits: -16},
		{Name: "Stats", Bits: -16},
		{Name: "Persistant", Bits: -16},
		{Name: "Ammo", Bits: -16},
		{Name: "Powerups", Bits: 32},
	},
})

// EntityStateTable codes EntityState in the entity style. Number travels
// as the entity number in front of each delta. An entity's aim is only
// drawn, never simulated, so the game keeps it to 1024 steps (EntityAim)
// and it travels in those: a turn of a few degrees costs a 6-bit
// residual instead of 14 bits, the player's own aim (PlayerState.Aim,
// which prediction replays) keeping all 16.
var EntityStateTable = msg.MustTable[EntityState]("EntityState", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "Aim", Bits: 16, Diff: 6, Shift: EntityAimShift},
		{Name: "Pos.Delta.X", Bits: -20, Diff: 13},
		{Name: "Pos.Delta.Y", Bits: -20, Diff: 13, Predict: &msg.Prediction{Accel: Gravity, Max: DefaultParams.MaxFallSpeed, When: "Pos.Type", WhenValue: TrInterpolate}},
		{Name: "Pos.Base.Y", Bits: -20, Diff: 8, Predict: &msg.Prediction{Rate: "Pos.Delta.Y", Mean: true, When: "Pos.Type", WhenValue: TrInterpolate}},
		{Name: "Event", Bits: 10},
		{Name: "Pos.Base.X", Bits: -20, Diff: 7, Predict: &msg.Prediction{Rate: "Pos.Delta.X", When: "Pos.Type", WhenValue: TrInterpolate}},
		{Name: "EventParm", Bits: -16},
		{Name: "EType", Bits: 8},
		{Name: "OtherEntity", Bits: 10},
		{Name: "EFlags", Bits: 16},
		{Name: "Weapon", Bits: 4},
		{Name: "ClientNum", Bits: 8},
		{Name: "ModelIndex", Bits: 8},
		{Name: "Pos.Time", Bits: 32},
		{Name: "Pos.Type", Bits: 3},
		{Name: "Origin2.X", Bits: -20},
		{Name: "Origin2.Y", Bits: -20},
		{Name: "Powerups", Bits: 8},
		{Name: "Pos.Duration", Bits: 16},
	},
	Omit: []string{"Number"},
})

// UserCmdTable codes UserCmd in the usercmd style (keyed). The server
// time usually grows by one client frame from the command before (6
// bits cover frames of up to 63 ms); the first command of a packet is
// coded from the player state the client last received
// (proto.UsercmdBase), which its time may trail or lead by up to a round
// trip: the 10-bit residual.
var UserCmdTable = msg.MustTable[UserCmd]("UserCmd", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "ServerTime", Bits: 32, Inc: 6, Diff: 10},
		{Name: "Aim", Bits: 16, Diff: 10},
		{Name: "RightMove", Bits: -8},
		{Name: "UpMove", Bits: -8},
		{Name: "Buttons", Bits: 8},
		{Name: "Weapon", Bits: 8},
	},
})

// EntityAimShift is how many low bits of an aim other clients never see:
// an entity's aim is kept to 2^(16-EntityAimShift) = 1024 steps of 0.35
// degrees (EntityAim), which draw the same as 65536.
const EntityAimShift = 6

// EntityAim returns aim (an angle in 65536ths of a turn) rounded to the
// nearest of the steps an entity's aim is kept to, 0..0xffff.
func EntityAim(aim int32) int32 {
	return (aim + 1<<(EntityAimShift-1)) &^ (1<<EntityAimShift - 1) & 0xffff
}
