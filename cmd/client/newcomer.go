package main

import "tremor/net/cmdargs"

// addTeamCommand adds the team command, forwarded to the server as the
// game's own team command.
func (g *game) addTeamCommand() {
	g.t.AddCommand("team", "change team, or print yours: team [free|red|blue|spectator|auto]", func(a *cmdargs.Args) {
		c := g.sess.Client()
		if c == nil {
			g.t.Printf("team: not connected\n")
			return
		}
		line := "team"
		if a.Argc() > 1 {
			line += " " + cmdargs.Quote(a.Argv(1))
		}
		if err := c.AddReliableCommand(line); err != nil {
			g.t.Printf("team: %v\n", err)
		}
	})
}

// holdNewcomer keeps the default match's player a spectator while the
// menu that opened over it is up (session.Newcomer). The team changes
// run at once through the console, not behind a script's wait in the
// command buffer.
func (g *game) holdNewcomer() {
	if line := g.newcomer.Step(g.sess.Client(), g.menu.IsOpen()); line != "" {
		g.t.ExecuteString(line)
	}
}
