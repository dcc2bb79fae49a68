// Package bot is Tremor's server-side bot AI. A bot sees the world through
// a View the game fills in each server frame and answers with a UserCmd:
// it acts only through usercmds, the path every human's input takes
// (Quake III's ai_*.c and trap_BotUserCommand, much smaller).
//
// Navigation (Nav) is a graph over the tiles a player can stand in, built
// once per map by running bg.Pmove with scripted inputs, so every edge is
// a movement the real movement code performs. A bot searches it with
// Dijkstra's algorithm, picks a goal (an item it needs, an enemy, a place
// to wander to), follows the path, fights what it sees, and recovers when
// stuck. docs/bots.md describes the whole.
//
// Bots are deterministic: the same seed and the same views give the same
// commands. Think does not allocate.
package bot

import (
	"math/rand/v2"

	"tremor/bg"
)

// PlayerInfo is what a bot knows of another player.
type PlayerInfo struct {
	ClientNum int
	Origin    bg.Vec
	Velocity  bg.Vec
	Health    int32
	Dead      bool
	Team      int32
	Weapon    int32
}

// ItemInfo is what a bot knows of an item spawn.
type ItemInfo struct {
	Entity    int
	Item      int32 // index into bg.Items
	Pos       bg.Vec
	Available bool
}

// View is the world as one bot sees it in one server frame. The game
// reuses its slices between frames; a bot must not keep them.
type View struct {
	Time    int32
	Self    *bg.PlayerState
	Players []PlayerInfo // every other player in the game
	Items   []ItemInfo
	// Team is the bot's own team; 0 (free for all) makes every other
	// player an enemy, otherwise players of another team are.
	Team int32
}

// Goal kinds.
const (
	goalNone = iota
	goalItem
	goalEnemy
	goalWander
)

// Bot is one bot's brain. It is not safe for concurrent use; each bot is
// thought by the game's frame loop in turn.
type Bot struct {
	Name  string
	Skill int // 1 (easy) to 5 (hard)
	nav   *Nav
	seed  uint64
	rng   *rand.Rand

	now, msec int32 // this think's time and the time since the last
	lastThink int32
	spawns    int32 // PersSpawnCount seen last
	alive     bool

	// Path and goal.
	srch     search
	path     []int32 // edges from the node the search started at
	pathPos  int
	goalKind int
	goalNode int32
	goalEnt  int    // item entity or client number
	goalPos  bg.Vec // the item's position
	goalAt   int32  // when the bot reached the goal node
	planAt   int32  // next time to review the goal
	lastNode int32  // last node stood in
	banned   []int32
	itemBan  [8]itemBan

	// Movement.
	sim           bg.PlayerState // scratch state for simulations
	fl            flight
	runup         int   // run-up state of a running jump
	runEdge       int32 // the edge runup is for
	runupAt       int32 // when the run-up began
	progressNode  int32
	progressPos   int
	progressAt    int32
	anchor        bg.Vec // where the bot was when it last moved a tile
	anchorAt      int32
	stuckCount    int // times the bot found itself stuck
	missCount     int // committed flights that landed elsewhere
	recoverUntil  int32
	recoverDir    int32
	prevUp        int32
	strafe        int32
	strafeAt      int32
	noStrafeUntil int32

	// Combat.
	enemy        int // client number, -1 if none
	enemyVisible bool
	enemySeen    int32
	enemyPos     bg.Vec
	enemyVel     bg.Vec
	reactAt      int32
	aim          int32
	aimErr       int32
	aimErrAt     int32
	burstEnd     int32 // when the trigger's burst ends (resting)
	weapon       int32
	weaponAt     int32
}

type itemBan struct {
	ent   int
	until int32
}

// New returns a bot of the given skill on nav's map. seed makes its
// choices reproducible.
func New(name string, skill int, seed uint64, nav *Nav) *Bot {
	b := &Bot{
		Name:  name,
		Skill: max(1, min(skill, 5)),
		nav:   nav,
		seed:  seed,
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		srch:  newSearch(nav),
		path:  make([]int32, 0, len(nav.nodes)+1),

		banned: make([]int32, len(nav.edges)),
	}
	b.reset()
	return b
}

// reset forgets everything tied to one life.
func (b *Bot) reset() {
	b.path = b.path[:0]
	b.pathPos = 0
	b.goalKind = goalNone
	b.planAt = 0
	b.lastNode = -1
	b.fl = flight{edge: -1}
	b.runup = runNone
	b.progressNode = -1
	b.progressAt = b.now
	b.recoverUntil = 0
	b.anchorAt = b.now
	b.enemy = -1
	b.enemyVisible = false
	b.weaponAt = 0
}

// Think decides the bot's command for this frame. The caller sets the
// command's ServerTime.
func (b *Bot) Think(v *View) bg.UserCmd {
	ps := v.Self
	b.now = v.Time
	b.msec = FrameMsec
	if d := v.Time - b.lastThink; b.lastThink != 0 && d > 0 && d <= 200 {
		b.msec = d
	}
	b.lastThink = v.Time
	cmd := bg.UserCmd{Aim: b.aim, Weapon: ps.Weapon}

	if ps.PmType == bg.PMDead || ps.Stats[bg.StatHealth] <= 0 {
		// Tap attack to respawn: a press, then a release.
		if b.alive {
			b.alive = false
			b.reset()
		}
		if (v.Time/FrameMsec)&1 == 0 {
			cmd.Buttons = bg.ButtonAttack
		}
		b.prevUp = 0
		return cmd
	}
	if ps.PmType != bg.PMNormal {
		return cmd
	}
	if !b.alive || ps.Persistant[bg.PersSpawnCount] != b.spawns {
		b.alive = true
		b.spawns = ps.Persistant[bg.PersSpawnCount]
		b.reset()
		b.aim = ps.Aim
	}

	b.perceive(v)
	b.plan(v)
	b.move(v, &cmd)
	b.fight(v, &cmd)
	b.prevUp = cmd.UpMove
	return cmd
}
