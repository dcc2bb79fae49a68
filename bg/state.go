package bg

// Units. Simulation is integer fixed point: positions are in units of
// 1/UnitsPerPixel pixel, velocities in units per second, time in integer
// milliseconds. Integer arithmetic gives the same bits on every machine and
// every compiler (no floating-point fusion to worry about), and what the
// server keeps is exactly what it sends, so a client predicting from a
// received state computes what the server computed.
const (
	// UnitsPerPixel is the fixed-point scale of positions and velocities.
	UnitsPerPixel = 16
	// TileUnits is the size of a map tile in units.
	TileUnits = 32 * UnitsPerPixel
)

// Px converts pixels to units.
func Px(p int32) int32 { return p * UnitsPerPixel }

// Trajectory types (Quake III's trType_t).
const (
	TrStationary  = iota // at Base forever
	TrInterpolate        // at Base; clients interpolate between snapshots
	TrLinear             // Base + Delta·t
	TrLinearStop         // linear until Time+Duration, then still
	TrGravity            // Base + Delta·t + ½·g·t², g = Gravity downwards
)

// Trajectory is a position as a function of time, so that a client can
// place a moving object at any time between snapshots without being sent
// every position (Quake III's trajectory_t). Base is in units, Delta in
// units per second, Time and Duration in milliseconds.
type Trajectory struct {
	Type     int32
	Time     int32
	Duration int32
	Base     Vec
	Delta    Vec
}

// Vec is a 2D integer vector in units (or units per second).
type Vec struct{ X, Y int32 }

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y} }

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y} }

// Entity types (Quake III's entityType_t).
const (
	ETGeneral = iota
	ETPlayer
	ETItem
	ETMissile
	ETEvents // temporary event entities: EType = ETEvents + event number
)

// Entity flags (EFlags), shared by PlayerState and EntityState.
const (
	EFDead         = 1 << iota // the player is dead
	EFTeleportBit              // toggled on every teleport: do not interpolate across it
	EFFiring                   // the attack button is held
	EFNoDraw                   // an item waiting to respawn
	EFSpawnProtect             // freshly spawned; cannot be hurt yet
	EFTalk                     // typing a chat message
	EFBounceHalf               // a missile that bounces, losing half its speed
)

// Player movement types (PmType).
const (
	PMNormal       = iota
	PMDead         // no control, falls and slides to a stop
	PMSpectator    // flies through everything
	PMIntermission // frozen at the end of a match
)

// Player movement flags (PmFlags).
const (
	PMFJumpHeld      = 1 << iota // jump must be released before the next jump
	PMFTimeKnockback             // PmTime counts down a spell without ground friction
	PMFOnGround                  // standing on a floor or a platform
	PMFOnPad                     // touching a jump pad (its event fires once per touch)
	PMFRespawned                 // attack must be released after a respawn
)

// Weapons. WPNone is 0 so that a zero weapon means none.
const (
	WPNone = iota
	WPGauntlet
	WPMachinegun
	WPGrenadeLauncher
	WPRocketLauncher
	WPRailgun
	NumWeapons
)

// Weapon states (WeaponState).
const (
	WeaponReady = iota
	WeaponRaising
	WeaponDropping
	WeaponFiring
)

// Powerups, indices into PlayerState.Powerups.
const (
	PWNone = iota
	PWQuad
	NumPowerups
)

// Stats indices (Quake III's statIndex_t).
const (
	StatHealth    = iota
	StatArmor     // armor points
	StatWeapons   // bit mask of weapons held: 1<<WP...
	StatMaxHealth // health above this counts down
	NumStats
)

// Persistant indices: values that survive respawn (persEnum_t).
const (
	PersScore      = iota // frags
	PersDeaths            // deaths
	PersHits              // damage given, for the hit sound
	PersKiller            // client number of the last killer, or -1
	PersSpawnCount        // incremented every respawn
	NumPersistant
)

// MaxPSEvents is the number of predictable events a PlayerState carries
// (Quake III's MAX_PS_EVENTS). A power of two.
const MaxPSEvents = 2

// Entity numbers with special meaning.
const (
	// MaxClients is the most players a server can hold.
	MaxClients = 64
	// EntityNumWorld stands for the map itself (a ground entity).
	EntityNumWorld = 1022
	// EntityNumNone stands for no entity.
	EntityNumNone = 1023
)

// Buttons of a UserCmd.
const (
	ButtonAttack = 1 << iota
	ButtonTalk
	ButtonWalk
)

// UserCmd is one sample of a player's input (Quake III's usercmd_t): what
// the player wants, sent by the client many times a second and executed by
// the server and by the client's own prediction through Pmove.
// ServerTime is the server time the command belongs to, in milliseconds.
// RightMove is the horizontal stick, -127 (left) to 127 (right); UpMove
// is jump (> 0) or drop through platforms (< 0). Aim is the aim angle in
// 1/65536 turns, 0 pointing right, growing clockwise (screen y is down).
type UserCmd struct {
	ServerTime int32
	Aim        int32
	RightMove  int32
	UpMove     int32
	Buttons    int32
	Weapon     int32
}

// PlayerState is the complete state of one player as the movement code
// and the player's own client see it (Quake III's playerState_t). It is
// sent to its player in every snapshot and predicted by that client.
type PlayerState struct {
	CommandTime  int32 // server time of the last command executed
	PmType       int32
	PmFlags      int32
	PmTime       int32 // ms left of a timed PmFlags state
	Origin       Vec   // centre of the player's box, units
	Velocity     Vec   // units per second
	GroundEntity int32 // EntityNumWorld when standing, else EntityNumNone
	Aim          int32
	Weapon       int32
	WeaponState  int32
	WeaponTime   int32 // ms until the weapon may act again; may dip below 0
	EFlags       int32
	ClientNum    int32

	// Predictable events: the last MaxPSEvents events, indexed by
	// EventSequence modulo MaxPSEvents.
	EventSequence int32
	Events        [MaxPSEvents]int32
	EventParms    [MaxPSEvents]int32

	// An event the server adds from outside Pmove (a pickup, pain),
	// not predicted by the client.
	ExternalEvent     int32
	ExternalEventParm int32

	DamageEvent int32 // incremented on every hit taken
	DamageCount int32 // damage of the last hit
	DamageDir   int32 // direction it came from, as an aim angle

	Stats      [NumStats]int32
	Persistant [NumPersistant]int32
	Ammo       [NumWeapons]int32  // -1 is unlimited
	Powerups   [NumPowerups]int32 // server time a powerup expires, 0 if none
}

// EntityState is what a client is told about one entity in a snapshot
// (Quake III's entityState_t): enough to draw it and to run its events.
type EntityState struct {
	Number      int32 // entity number; travels separately on the wire
	EType       int32
	EFlags      int32
	Pos         Trajectory
	Aim         int32
	Origin2     Vec   // a second point: rail trail end, teleport destination
	OtherEntity int32 // the attacker of an obituary, a missile's owner
	ClientNum   int32 // for players: their client number
	ModelIndex  int32 // for items: the item number
	Weapon      int32
	Powerups    int32 // bit mask of active powerups
	Event       int32 // an event that happened to the entity this frame
	EventParm   int32
}
