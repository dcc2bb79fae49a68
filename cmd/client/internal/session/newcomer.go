package session

import "tremor/client"

// Newcomer keeps the player of the default match (WithDefaultMatch) out
// of it while the main menu that opened over it is up: a newcomer reads
// that menu before playing. The player watches as a spectator until the
// menu first closes (Escape, or anything else that closes it) and then
// joins, as Quake III's team games held a new client out until it chose
// a team in the menu.
//
// The match is not paused instead: pausing would stop both engines'
// clocks (Quake III's sv_paused and cl_paused) and hold up any LAN player
// who joined the match, while a spectator costs nothing and the arena
// keeps moving behind the menu. Only the first menu counts; later,
// Escape opens a menu over a match the player is in, as in any
// multiplayer game. Another connection (Play, Join, a demo) ends the
// hold. The zero Newcomer holds nothing.
type Newcomer struct {
	armed      bool
	c          *client.Client // the connection held, once there is one
	spectating bool           // "team spectator" was given
}

// Arm starts holding the next connection Step sees: the default match's.
func (h *Newcomer) Arm() { *h = Newcomer{armed: true} }

// Step runs once a frame after the session's with the session's client
// engine and whether the menu is open, and returns the console line to
// run at once, or "": "team spectator" as soon as the engine can send a
// reliable command (then it rides with the message that puts the player
// in the game, and the server moves the player to the spectators before
// any of the match's frames runs), "team auto" when the menu has closed.
// The window runs the line through its console, so that a journal
// records it as it records typed lines.
func (h *Newcomer) Step(c *client.Client, menuOpen bool) string {
	if !h.armed {
		return ""
	}
	if h.c == nil {
		h.c = c
	}
	switch {
	case c == nil || c != h.c || c.State() == client.Disconnected:
		h.armed = false // no match, or another one: nothing to hold
	case c.State() < client.Connected:
		// Still connecting: a reliable command waits for the netchan.
	case !h.spectating && menuOpen:
		h.spectating = true
		return "team spectator"
	case !h.spectating:
		h.armed = false // the menu closed first: the player is in already
	case !menuOpen && c.State() == client.Active:
		h.armed = false
		return "team auto"
	}
	return ""
}
