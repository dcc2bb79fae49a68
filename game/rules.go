package game

import (
	"strconv"
	"strings"

	"tremor/bg"
)

// pickTeam returns the team a client beginning with userinfo team want
// joins: in free for all bg.TeamFree unless it asks for spectator; in
// team deathmatch red or blue as asked, else the team with fewer
// players (then the lower score, then red).
func (g *Arena) pickTeam(n int, want string) int32 {
	switch t := parseTeam(want); {
	case t == bg.TeamSpectator:
		return bg.TeamSpectator
	case g.gametype != bg.GTTeam:
		return bg.TeamFree
	case t == bg.TeamRed || t == bg.TeamBlue:
		return t
	}
	var count [bg.TeamSpectator + 1]int
	for i := range g.clients {
		if i != n && g.clients[i].state == clientInGame {
			count[g.clients[i].team]++
		}
	}
	switch {
	case count[bg.TeamBlue] < count[bg.TeamRed]:
		return bg.TeamBlue
	case count[bg.TeamRed] < count[bg.TeamBlue]:
		return bg.TeamRed
	case g.lv.teamScores[bg.TeamBlue] < g.lv.teamScores[bg.TeamRed]:
		return bg.TeamBlue
	}
	return bg.TeamRed
}

// parseTeam reads a team name as the team command and userinfo give it;
// -1 means any (auto).
func parseTeam(s string) int32 {
	switch strings.ToLower(s) {
	case "red", "r":
		return bg.TeamRed
	case "blue", "b":
		return bg.TeamBlue
	case "spectator", "spec", "s":
		return bg.TeamSpectator
	case "free", "f":
		return bg.TeamFree
	}
	return -1
}

// TeamName returns a team's name.
func TeamName(t int32) string {
	switch t {
	case bg.TeamRed:
		return "red"
	case bg.TeamBlue:
		return "blue"
	case bg.TeamSpectator:
		return "spectator"
	}
	return "free"
}

// setTeam moves client n to the team named s (SetTeam). Changing team
// starts the player over: score and deaths go back to zero and it
// respawns (or spectates).
func (g *Arena) setTeam(n int, s string) {
	cl := &g.clients[n]
	t := g.pickTeam(n, s)
	if t == cl.team {
		return
	}
	cl.team = t
	ps := &g.ps[n]
	ps.Persistant[bg.PersScore] = 0
	ps.Persistant[bg.PersDeaths] = 0
	ps.Persistant[bg.PersKiller] = -1
	g.updatePlayerInfo(n)
	g.spawnClient(n)
	msg := cl.name + " joined the " + TeamName(t) + " team.\n"
	if t == bg.TeamSpectator {
		msg = cl.name + " joined the spectators.\n"
	} else if t == bg.TeamFree {
		msg = cl.name + " joined the battle.\n"
	}
	g.engine.SendServerCommand(-1, `print "`+msg+`"`)
}

// updateScores keeps CSScores1 and CSScores2 current (CalculateRanks):
// in team deathmatch the red and blue scores; in free for all the best
// and second-best frags of the players in the game, empty when there is
// no such player. Only a change is written, so a frame without frags
// formats nothing.
func (g *Arena) updateScores() {
	var v [2]int
	var ok [2]bool
	if g.gametype == bg.GTTeam {
		v = [2]int{g.lv.teamScores[bg.TeamRed], g.lv.teamScores[bg.TeamBlue]}
		ok = [2]bool{true, true}
	} else {
		for i := range g.clients {
			if g.clients[i].state != clientInGame || g.clients[i].team == bg.TeamSpectator {
				continue
			}
			s := int(g.ps[i].Persistant[bg.PersScore])
			switch {
			case !ok[0] || s > v[0]:
				v[1], ok[1] = v[0], ok[0]
				v[0], ok[0] = s, true
			case !ok[1] || s > v[1]:
				v[1], ok[1] = s, true
			}
		}
	}
	for k := 0; k < 2; k++ {
		if g.lv.scoresSet && v[k] == g.lv.scores[k] && ok[k] == g.lv.scoresValid[k] {
			continue
		}
		g.lv.scores[k], g.lv.scoresValid[k] = v[k], ok[k]
		s := ""
		if ok[k] {
			s = strconv.Itoa(v[k])
		}
		g.engine.SetConfigstring(bg.CSScores1+k, s)
	}
	g.lv.scoresSet = true
}

// checkExitRules ends the match when the fraglimit or the timelimit is
// reached, and asks for map_restart when the intermission is over
// (CheckExitRules). A tie at the timelimit ends the match too: there is
// no sudden death.
func (g *Arena) checkExitRules() {
	if g.lv.intermission {
		if !g.lv.exitSent && g.lv.time-g.lv.intermissionTime >= IntermissionTime {
			g.lv.exitSent = true
			g.engine.Command("map_restart 0")
		}
		return
	}
	if g.cfg.TimeLimit > 0 && int64(g.lv.time-g.lv.startTime) >= int64(g.cfg.TimeLimit)*60000 {
		g.beginIntermission("Timelimit hit.")
		return
	}
	if g.cfg.FragLimit <= 0 {
		return
	}
	if g.gametype == bg.GTTeam {
		if g.lv.teamScores[bg.TeamRed] >= g.cfg.FragLimit {
			g.beginIntermission("Red hit the fraglimit.")
		} else if g.lv.teamScores[bg.TeamBlue] >= g.cfg.FragLimit {
			g.beginIntermission("Blue hit the fraglimit.")
		}
		return
	}
	for i := range g.clients {
		if g.clients[i].state == clientInGame && g.clients[i].team != bg.TeamSpectator &&
			int(g.ps[i].Persistant[bg.PersScore]) >= g.cfg.FragLimit {
			g.beginIntermission("Fraglimit hit.")
			return
		}
	}
}

// beginIntermission ends the match (BeginIntermission): CSIntermission
// becomes "1", every player freezes (PMIntermission) and gets the final
// scores; IntermissionTime later the game asks for map_restart.
func (g *Arena) beginIntermission(reason string) {
	g.lv.intermission = true
	g.lv.intermissionTime = g.lv.time
	g.engine.SetConfigstring(bg.CSIntermission, "1")
	for i := range g.clients {
		if g.clients[i].state != clientInGame {
			continue
		}
		ps := &g.ps[i]
		if ps.PmType != bg.PMSpectator {
			ps.PmType = bg.PMIntermission
		}
		ps.Velocity = bg.Vec{}
		ps.EFlags &^= bg.EFFiring
		ps.Powerups = [bg.NumPowerups]int32{}
		g.syncPlayerEntity(i)
	}
	g.engine.SendServerCommand(-1, g.scoresCommand())
	g.engine.SendServerCommand(-1, `print "`+reason+"\n\"")
	g.engine.Print("game: " + reason)
	g.log(LogEntry{Kind: LogExit, Client: -1, Target: -1, Text: reason})
}

// MaxScoresLen bounds the scores command, so that it fits a reliable
// command; players past it are left off.
const MaxScoresLen = 1000

// scoresCommand formats the scoreboard (Quake III's scores command):
//
//	scores COUNT RED BLUE {CLIENT SCORE DEATHS PING MINUTES TEAM}×COUNT
//
// RED and BLUE are the team scores (0 in free for all); each player gets
// six numbers, players sorted by score (highest first), then deaths
// (fewest first), then client number, spectators last. PING is what the
// engine last gave SetPing (0 for bots), MINUTES the time since the
// player entered the game.
func (g *Arena) scoresCommand() string {
	var order [bg.MaxClients]int
	k := 0
	for i := range g.clients {
		if g.clients[i].state != clientInGame {
			continue
		}
		j := k
		for j > 0 && g.scoreLess(order[j-1], i) {
			order[j] = order[j-1]
			j--
		}
		order[j] = i
		k++
	}
	var body []byte
	count := 0
	for _, i := range order[:k] {
		ps, cl := &g.ps[i], &g.clients[i]
		var line []byte
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(ps.Persistant[bg.PersScore]), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(ps.Persistant[bg.PersDeaths]), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(cl.ping), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64((g.lv.time-cl.enterTime)/60000), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(cl.team), 10)
		if len(body)+len(line) > MaxScoresLen-40 {
			break
		}
		body = append(body, line...)
		count++
	}
	red, blue := 0, 0
	if g.gametype == bg.GTTeam {
		red, blue = g.lv.teamScores[bg.TeamRed], g.lv.teamScores[bg.TeamBlue]
	}
	return "scores " + strconv.Itoa(count) + " " + strconv.Itoa(red) + " " + strconv.Itoa(blue) + string(body)
}

// scoreLess reports whether client a ranks below client b.
func (g *Arena) scoreLess(a, b int) bool {
	sa, sb := g.clients[a].team == bg.TeamSpectator, g.clients[b].team == bg.TeamSpectator
	if sa != sb {
		return sa
	}
	pa, pb := &g.ps[a].Persistant, &g.ps[b].Persistant
	if pa[bg.PersScore] != pb[bg.PersScore] {
		return pa[bg.PersScore] < pb[bg.PersScore]
	}
	if pa[bg.PersDeaths] != pb[bg.PersDeaths] {
		return pa[bg.PersDeaths] > pb[bg.PersDeaths]
	}
	return a > b
}
