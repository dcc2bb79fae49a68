package client

// State is the connection state (Quake III's connstate_t, without the
// states Tremor has no use for: authorizing, loading, cinematic).
type State int

// Connection states, in order: a state compares greater than those a
// connection goes through before it.
const (
	Disconnected State = iota // not talking to a server
	Connecting                // sending getchallenge
	Challenging               // sending connect with the challenge
	Connected                 // netchan up, waiting for the gamestate
	Primed                    // gamestate loaded, waiting for the first snapshot
	Active                    // in the game
)

var stateNames = [...]string{"disconnected", "connecting", "challenging", "connected", "primed", "active"}

// String returns the state's lowercase name.
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// DropKind says how a connection ended.
type DropKind int

// How a connection ended.
const (
	// NotDropped: the connection has not ended (or never started).
	NotDropped DropKind = iota
	// DropByUser: Disconnect was called (or Reconnect, or Connect to
	// another server).
	DropByUser
	// DropByServer: the server told the client to go (a reliable
	// "disconnect" command: kick, shutdown, ...).
	DropByServer
	// DropError: the connection failed: no answer to the handshake, a
	// timeout, a map the client cannot load, a broken protocol.
	DropError
)

var dropNames = [...]string{"", "user", "server", "error"}

// String returns "user", "server", "error", or "" for NotDropped.
func (k DropKind) String() string {
	if k >= 0 && int(k) < len(dropNames) {
		return dropNames[k]
	}
	return "unknown"
}
