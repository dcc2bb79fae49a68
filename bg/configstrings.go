package bg

// Configstrings: numbered strings the server keeps and every client
// mirrors, sent whole in the gamestate and changed by reliable commands
// (Quake III's CS_* indices).
const (
	CSServerInfo     = 0  // serverinfo info string: sv_hostname, mapname, g_gametype, fraglimit, timelimit...
	CSSystemInfo     = 1  // systeminfo info string: sv_serverid, protocol settings both sides must share
	CSMapChecksum    = 2  // the map's checksum in decimal; a client with a different map refuses to play
	CSLevelStartTime = 3  // server time the match started, for the clock
	CSIntermission   = 4  // "1" during the intermission
	CSWarmup         = 5  // server time a warmup ends, or empty
	CSScores1        = 6  // free-for-all: the leader's frags; team games: red score
	CSScores2        = 7  // team games: blue score
	CSVote           = 8  // reserved
	CSPlayers        = 32 // CSPlayers+clientNum: that player's info string (n, t, skill, bot)
	MaxConfigstrings = CSPlayers + MaxClients
)

// Game types (g_gametype), numbered as in Quake III.
const (
	GTFFA  = 0 // free for all
	GTTeam = 3 // team deathmatch
)

// Teams.
const (
	TeamFree = iota
	TeamRed
	TeamBlue
	TeamSpectator
)
