package game

import "tremor/bg"

// Config holds the game's settings. Each field is the cvar of the same
// name in the server console (given in its doc comment); the engine fills
// a Config from its cvars and hands changes over with SetConfig, which
// applies them at once except where a field says it is latched.
// The zero Config turns every limit and every bot off and knockback with
// them; start from DefaultConfig.
type Config struct {
	// GameType is g_gametype: bg.GTFFA (0, free for all) or bg.GTTeam
	// (3, team deathmatch). Latched: it takes effect at the next
	// Init (map or map_restart), as in Quake III.
	GameType int32
	// FragLimit is fraglimit: the match ends when a player (a team, in
	// team deathmatch) reaches this many frags. 0 means no limit.
	FragLimit int
	// TimeLimit is timelimit, in minutes: the match ends this long after
	// it started. 0 means no limit.
	TimeLimit int
	// Knockback is g_knockback: how hard damage pushes. A hit of d
	// damage changes the victim's velocity by min(d, 200)·Knockback/200
	// pixels per second (Quake III's mass of 200).
	Knockback int32
	// FriendlyFire is g_friendlyFire: in team deathmatch, whether
	// teammates hurt each other. Knockback pushes teammates either way.
	FriendlyFire bool
	// ForceRespawn is g_forcerespawn, in seconds: a dead player is put
	// back in the game this long after dying even without pressing
	// attack. 0 means never.
	ForceRespawn int
	// SpawnProtect is g_spawnProtect, in milliseconds: how long a freshly
	// spawned player takes no damage (EFSpawnProtect). Firing ends it.
	SpawnProtect int32
	// BotMinPlayers is bot_minplayers: the game adds bots while fewer
	// players than this are in the game and removes its bots while there
	// are more. 0 turns it off.
	BotMinPlayers int
	// BotSkill is g_spSkill: the skill (1 to 5) of the bots
	// bot_minplayers adds (and the engine's addbot COUNT). The default,
	// 2, is Quake III's: a newcomer's first opponents (docs/bots.md).
	BotSkill int
	// Unlagged is g_unlagged: a human's hitscan shots (gauntlet,
	// machinegun, railgun) are traced against the other players where
	// that client saw them, at its usercmd's time (lag compensation,
	// unlag.go). Live.
	Unlagged bool
	// MaxUnlag is sv_maxUnlag, in milliseconds: the furthest back a
	// shot is rewound; an older command is traced at the level time
	// minus MaxUnlag. 0 rewinds nothing.
	MaxUnlag int32
	// ExternalBotInput is the frame-sync mode of the bots (no cvar: the
	// engine sets it in frame-sync mode, on the server's game and on
	// every client's copy alike). When set, RunFrame does not think the
	// bots: the engine asks ThinkBots for their commands before the frame
	// and passes them through ClientThink like any client's input, so
	// that a bot's command is an input of the frame that every copy of
	// the game replays, and no copy needs the bot's brain. Live. It is
	// an ordinary setting: saved, loaded and sent with the rest of
	// Config.
	ExternalBotInput bool
}

// DefaultConfig returns the settings a server starts with: free for all,
// fraglimit 20, timelimit 10, g_knockback 1000, g_forcerespawn 3,
// g_spawnProtect 1000, bot_minplayers 0, g_spSkill 2, g_unlagged 1,
// sv_maxUnlag 500.
func DefaultConfig() Config {
	return Config{
		Unlagged:     true,
		MaxUnlag:     DefaultMaxUnlag,
		GameType:     bg.GTFFA,
		FragLimit:    20,
		TimeLimit:    10,
		Knockback:    1000,
		ForceRespawn: 3,
		SpawnProtect: 1000,
		BotSkill:     2,
	}
}

// Timing and rule constants (Quake III's #defines in g_local.h and
// bg_public.h).
const (
	// EventValidMsec is how long an entity keeps an event before the
	// game clears it, and how long a temporary event entity lives
	// (EVENT_VALID_MSEC).
	EventValidMsec = 300
	// FreeReuseMsec is how long a freed entity slot stays unused, so
	// that clients do not mistake a new entity for the old one
	// interpolating.
	FreeReuseMsec = 1000
	// RespawnDelay is the least time a dead player stays dead.
	RespawnDelay = 1700
	// IntermissionTime is how long the scoreboard shows after a match
	// before the game asks the engine for map_restart.
	IntermissionTime = 10000
	// StartHealth is a new life's health; above the maximum it counts
	// down by one a second.
	StartHealth = 125
	// MaxHealth is a player's StatMaxHealth.
	MaxHealth = 100
	// StartBullets is the machinegun ammo a new life starts with.
	StartBullets = 100
	// QuadFactor multiplies the damage of a player holding quad damage.
	QuadFactor = 3
	// KnockbackMass is Quake III's player mass in the knockback formula.
	KnockbackMass = 200
	// MaxKnockback caps the damage that counts for knockback.
	MaxKnockback = 200
	// LavaDamage is the damage lava does, once every LavaInterval ms.
	LavaDamage   = 30
	LavaInterval = 500
	// PainDebounce is the least time between two pain events of a player.
	PainDebounce = 700
	// MaxSayText is the longest chat text relayed, in bytes.
	MaxSayText = 150
	// MaxNameLen is the longest player name, in bytes.
	MaxNameLen = 32
)
