package game

// LogKind says what a LogEntry records.
type LogKind int

// Log entry kinds (the lines of Quake III's games.log).
const (
	LogInit       LogKind = iota // a match started (Init)
	LogShutdown                  // the game shut down
	LogConnect                   // Client connected
	LogBegin                     // Client entered the game
	LogDisconnect                // Client left
	LogKill                      // Client (-1 for the world) killed Target by MOD
	LogItem                      // Client picked up Item
	LogShot                      // Client fired Weapon
	LogHit                       // Client hurt Target by Amount with MOD (after armor, before health)
	LogSay                       // Client said Text (Amount: 0 all, 1 team, 2 tell to Target)
	LogExit                      // the match ended: Text is the reason
)

// LogEntry is one thing that happened in the game, for statistics, logs
// and tests. Fields that do not apply to a Kind are zero, client numbers
// that do not apply are -1.
type LogEntry struct {
	Kind   LogKind
	Time   int32 // level time
	Client int   // who acted: killer, shooter, picker, speaker
	Target int   // who it was done to: victim, addressee
	Weapon int32 // the weapon fired
	Item   int32 // the item picked up, an index into bg.Items
	MOD    int32 // means of death
	Amount int32 // damage
	Text   string
}
