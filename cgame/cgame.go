package cgame

import (
	"math"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/lagometer"
	"tremor/net/cmdargs"
	"tremor/net/msg"
)

// Limits and timings of the client game.
const (
	// MaxGEntities is the number of entity numbers (MAX_GENTITIES).
	MaxGEntities = msg.MaxEntities
	// MaxExtrapolateMsec is how far past the last snapshot a player
	// entity is carried on its velocity when the next snapshot is late.
	// Past it the player stands still until a snapshot arrives: a longer
	// guess is more often wrong than right in a game where players turn
	// around in a tenth of a second.
	MaxExtrapolateMsec = 100
	// EventValidMsec is how long the server keeps an event on an entity
	// (EVENT_VALID_MSEC): an entity seen again after longer than this has
	// a fresh event history.
	EventValidMsec = 300
	// MaxPredictedEvents is how many predicted events cgame remembers to
	// compare with the server's (MAX_PREDICTED_EVENTS). A power of two.
	MaxPredictedEvents = 16
	// MaxReplayCommands bounds the usercmds replayed in one frame; a
	// longer unacknowledged window is treated as lost commands.
	MaxReplayCommands = 1024
	// MaxPlayedEvents is how many played events cgame remembers in frame
	// sync, to know them when a rollback runs their frame again: more
	// than the frames a rollback runs again (cl_maxPredictionFrames) make.
	MaxPlayedEvents = 128
	// MaxEventShift is how far, in ms, a rollback may move an event in
	// time for cgame to take it for one it played from an earlier run
	// of the frames run again (frame sync): a bot's shot predicted a
	// frame before it was fired is one shot.
	MaxEventShift = 100
)

// Point is a position in units (1/bg.UnitsPerPixel pixel), fractional
// where interpolation or the error decay puts it between whole units.
type Point struct{ X, Y float64 }

// PointOf converts a position in whole units.
func PointOf(v bg.Vec) Point { return Point{float64(v.X), float64(v.Y)} }

// Px returns p in pixels.
func (p Point) Px() (x, y float64) { return p.X / bg.UnitsPerPixel, p.Y / bg.UnitsPerPixel }

func (p Point) add(q Point) Point            { return Point{p.X + q.X, p.Y + q.Y} }
func (p Point) scale(f float64) Point        { return Point{p.X * f, p.Y * f} }
func lerp(a, b Point, f float64) Point       { return Point{a.X + (b.X-a.X)*f, a.Y + (b.Y-a.Y)*f} }
func (p Point) finite() bool                 { return isFinite(p.X) && isFinite(p.Y) }
func isFinite(f float64) bool                { return !math.IsNaN(f) && !math.IsInf(f, 0) }
func vecLenPx(v bg.Vec) float64              { return math.Hypot(float64(v.X), float64(v.Y)) / bg.UnitsPerPixel }
func pointOfDelta(v bg.Vec, f float64) Point { return Point{float64(v.X) * f, float64(v.Y) * f} }

// CEntity is cgame's view of one entity (Quake III's centity_t).
type CEntity struct {
	// Current is the entity's state in Snap.
	Current bg.EntityState
	// Next is its state in NextSnap; meaningful only when Interpolate.
	Next bg.EntityState
	// Interpolate: the entity is in both snapshots with no teleport or
	// level change between them, so it may be drawn between the two.
	Interpolate bool
	// Valid: the entity is in Snap.
	Valid bool
	// Extrapolated: Lerp was carried past Snap on velocity this frame.
	Extrapolated bool
	// Lerp is where to draw the entity this frame (cent->lerpOrigin).
	Lerp Point
	// SnapshotTime is the server time of the last snapshot the entity
	// was in.
	SnapshotTime int32

	previousEvent int32
}

// Stats are cgame's counters since New.
type Stats struct {
	Frames             int // frames drawn (with a snapshot)
	FramesExtrapolated int // of those, frames past the newest snapshot
	SnapshotsUsed      int // snapshots that became Snap
	SnapshotsSkipped   int // valid snapshots not used: duplicated, out of order, older than Snap, inactive
	SnapshotsDropped   int // snapshot numbers the engine did not have (lost, or an unusable delta)
	// PredictionMisses counts mispredictions: the new prediction put the
	// player elsewhere than the previous frame's prediction for the same
	// command, and nothing in the player state says the server acted on
	// the player. With shared, deterministic movement code on a link that
	// loses no usercmds, there are none.
	PredictionMisses int
	// PredictionCorrections counts the same differences when the server
	// explains them: between the two predictions' bases the player was
	// hit or pushed (DamageEvent changed) or its movement type changed
	// (death, intermission). No client could have predicted those.
	PredictionCorrections int
	// PredictionErrorMax is the largest misprediction or correction, in
	// pixels.
	PredictionErrorMax float64
	// PredictionCommandsLost counts frames whose oldest needed usercmd
	// had left the engine's command ring; the player was then drawn from
	// the snapshots.
	PredictionCommandsLost int
	CommandsReplayed       int // usercmds run through Pmove by prediction
	PredictionTeleports    int // prediction comparisons skipped for a teleport or respawn
	EventsFired            int // entries added to Events
	EventCorrections       int // predicted events the server replaced
	ServerCommands         int // server commands executed
	ServerCommandsLost     int // server commands overwritten before cgame read them
	UnknownServerCommands  int // server commands cgame did not know
	TimeHeld               int // frames the engine's server time went backwards and was held
	TimeJumpsBack          int // frames it went back by more than JumpBackTime and was followed
	LevelRestarts          int // snapshots from a restarted level with an earlier server time
	MapRestarts            int // map_restart commands
	// EventsRolledBack counts, in frame sync, the events of frames run
	// again that an event played from an earlier run of those frames
	// stood for: not played again.
	EventsRolledBack int
	// FrameEventsLost counts, in frame sync, the events the engine found
	// that it no longer held when cgame came to play them.
	FrameEventsLost int
}

// snapSlot is one snapshot cgame owns, with storage for its entities.
type snapSlot struct {
	s   Snapshot
	buf []bg.EntityState
}

// CGame is the client game of one level. The client engine creates it
// when a gamestate has been parsed (New) and calls Frame every client
// frame; a new map means a new CGame, as Quake III restarted its cgame.
// The exported fields are the frame's results, read by the drawing code
// and the tests after Frame; cgame overwrites them at the next Frame.
type CGame struct {
	c     Client
	m     *tilemap.Map
	world bg.World
	cfg   *Config
	// frameSync is set when the engine runs the game itself (frame
	// sync): its snapshots are its own simulation, the player's own
	// input already in them, so nothing is predicted.
	frameSync bool
	stalled   bool // SetStalled

	// RealTime is the real time given to the last Frame, in ms.
	RealTime int32
	// Time is the render time (cg.time): the server time this frame
	// shows. It never decreases (but see Stats.LevelRestarts).
	Time int32
	// OldTime is the previous frame's Time.
	OldTime int32
	// Snap is the snapshot at or before Time; nil until the first one.
	// NextSnap is the one after it, nil when it has not arrived: then
	// the frame extrapolates. Both are cgame's copies, valid until the
	// next Frame.
	Snap, NextSnap *Snapshot
	// Frac is how far Time lies between Snap and NextSnap, in [0, 1]
	// (cg.frameInterpolation); 0 without NextSnap.
	Frac float64
	// Extrapolating: no NextSnap and Time is past Snap.ServerTime.
	Extrapolating bool
	// LatestSnapshotNum and LatestSnapshotTime are the engine's newest
	// snapshot (cg.latestSnapshotNum, cg.latestSnapshotTime).
	LatestSnapshotNum, LatestSnapshotTime int32

	// Predicted is the local player's state this frame
	// (cg.predictedPlayerState): the latest snapshot's player state with
	// every newer usercmd replayed, or Snap's player state when not
	// predicting.
	Predicted bg.PlayerState
	// Predicting: Predicted was predicted this frame.
	Predicting bool
	// DrawnOrigin is where to draw the local player: Predicted.Origin
	// plus DrawnError when predicting, the snapshots' positions
	// interpolated otherwise.
	DrawnOrigin Point
	// PredictedError is the misprediction vector (old prediction minus
	// new, units) at PredictedErrorTime (cg.predictedError); DrawnError
	// is what remains of it this frame after the linear decay over
	// cg_errorDecay.
	PredictedError     Point
	PredictedErrorTime int32
	DrawnError         Point

	// Entities are the entities of Snap to draw this frame, in entity
	// number order, without the local player's own (drawn from
	// Predicted).
	Entities []*CEntity
	// Events are the events fired this frame, in order.
	Events []Event

	Chat        Lines // chat and tchat lines
	Prints      Lines // print lines
	CenterPrint Line  // the last cp, with the real time it arrived
	Scores      Scores
	Obituaries  Obituaries
	// Unlagged holds the local player's latest hits decided with lag
	// compensation (unlag.go).
	Unlagged  UnlaggedHits
	Stats     Stats
	Lagometer lagometer.Lagometer

	ents      []CEntity // MaxGEntities, by entity number
	slots     [3]snapSlot
	scratch   snapSlot
	processed int32 // last snapshot number read (cg.processedSnapshotNum)
	started   bool  // processed is meaningful

	nextFrameTeleport bool // no interpolation of the player state from Snap to NextSnap

	// prediction
	base          bg.PlayerState // player state of the newest snapshot
	baseNum       int32
	baseTime      int32
	baseFlags     int32
	haveBase      bool
	levelChanged  bool // the base crossed a level change since the last prediction
	old           bg.PlayerState
	oldMark       serverMark // of the base the previous prediction started from
	haveOldMark   bool
	havePredicted bool // Predicted holds last frame's prediction, usable for comparison
	predictFailed bool // the last frame could not predict
	pm            bg.Pmove
	cmd           bg.UserCmd

	// events
	firedPS           bg.PlayerState // the player state whose events have been fired
	predictableEvents [MaxPredictedEvents]int32
	eventSequence     int32

	// events in frame sync (frameevent.go)
	frameEvents   FrameEventSource // c's, if it has one
	frameEventSeq int32            // the last frame event taken
	frameEventsOn bool             // frameEventSeq is set
	frameEvent    FrameEvent       // the one being played
	// frameEventTaken marks the events of a batch an event played
	// before stands for in their own frames.
	frameEventTaken [frameEventBatch / 64]uint64
	played          [MaxPlayedEvents]playedEvent
	playedCount     int // events ever put in played

	// server commands
	cmdSeq    int32
	cmdSeqSet bool
	args      cmdargs.Args
}

// New returns the client game for the level the engine's gamestate
// describes, moving in m (the map the engine loaded and checked against
// the server's checksum) with the cvars in cfg (nil means
// DefaultConfig). Nothing happens until Frame.
func New(c Client, m *tilemap.Map, cfg *Config) *CGame {
	if cfg == nil {
		d := DefaultConfig()
		cfg = &d
	}
	g := &CGame{c: c, m: m, world: m, cfg: cfg}
	g.frameEvents, _ = c.(FrameEventSource)
	g.ents = make([]CEntity, MaxGEntities)
	for i := range g.slots {
		g.slots[i].buf = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	}
	g.scratch.buf = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	g.Entities = make([]*CEntity, 0, proto.MaxSnapshotEntities)
	g.Events = make([]Event, 0, 64)
	return g
}

// SetFrameSync tells cgame that the engine runs the game itself (frame
// sync, docs/framesync.md): the snapshots it is given are frames of the
// engine's own simulation, the player's input of each already run, so
// the player is drawn from them (interpolated, as with cl_nopredict)
// instead of predicted. If the engine is a FrameEventSource, the events
// played are the ones it found in every frame it ran, not the ones the
// snapshots show.
func (g *CGame) SetFrameSync(on bool) { g.frameSync = on }

// FrameSync reports whether SetFrameSync is on.
func (g *CGame) FrameSync() bool { return g.frameSync }

// Map returns the map cgame predicts in.
func (g *CGame) Map() *tilemap.Map { return g.m }

// Ready reports whether cgame has a snapshot: until then there is nothing
// to draw (Quake III drew the loading screen).
func (g *CGame) Ready() bool { return g.Snap != nil }

// ClientNum returns the local player's client number, from the player
// state.
func (g *CGame) ClientNum() int32 { return g.Predicted.ClientNum }

// Entity returns cgame's view of entity number n, or nil if n is out of
// range. Its Valid field says whether it is in Snap.
func (g *CGame) Entity(n int32) *CEntity {
	if n < 0 || int(n) >= len(g.ents) {
		return nil
	}
	return &g.ents[n]
}

// SetServerCommandSequence tells cgame the server command sequence the
// gamestate covered (Quake III passed it to CG_Init): commands after it
// are executed. Without it cgame starts with the oldest command the
// engine still holds when the first snapshot arrives.
func (g *CGame) SetServerCommandSequence(seq int32) {
	g.cmdSeq, g.cmdSeqSet = seq, true
}

// JumpBackTime: the engine's server time going back by more than this
// many milliseconds is its clock reset after a stall (client.JumpBackTime),
// which cgame follows; a smaller step back is held, so that a correction
// never runs the picture backwards.
const JumpBackTime = 1000

// Frame runs one client frame at real time realTimeMs (the part of Quake
// III's CG_DrawActiveFrame before drawing): it picks the snapshots for the
// render time, executes server commands, predicts the local player,
// places the entities and fires the events. Events holds this frame's
// events afterwards. Frame allocates nothing in steady state.
func (g *CGame) Frame(realTimeMs int32) {
	g.Events = g.Events[:0]
	g.RealTime = realTimeMs

	t := g.c.ServerTime()
	switch {
	case g.Snap != nil && t < g.Time-JumpBackTime:
		g.Stats.TimeJumpsBack++ // the engine's clock reset after a stall: follow it
	case g.Snap != nil && t < g.Time:
		t = g.Time
		g.Stats.TimeHeld++
	}
	g.OldTime, g.Time = g.Time, t

	g.processSnapshots()
	if g.Snap == nil {
		return
	}
	if g.Time < g.Snap.ServerTime {
		g.Time = g.Snap.ServerTime
	}
	g.Frac, g.Extrapolating = 0, false
	if g.NextSnap != nil {
		if d := g.NextSnap.ServerTime - g.Snap.ServerTime; d > 0 {
			g.Frac = min(max(float64(g.Time-g.Snap.ServerTime)/float64(d), 0), 1)
		}
	} else if g.Time > g.Snap.ServerTime {
		g.Extrapolating = true
	}

	g.predictPlayerState()
	g.addPacketEntities()

	g.Stats.Frames++
	if g.Extrapolating {
		g.Stats.FramesExtrapolated++
	}
	g.addLagometerFrame()
}
