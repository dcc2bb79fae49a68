package game

import (
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/net/cmdargs"
)

// Chat modes.
const (
	sayAll = iota
	sayTeam
	sayTell
)

// ClientCommand executes a reliable command from client n
// (ClientCommand). The commands:
//
//	say TEXT             chat "NAME: TEXT" to everyone
//	say_team TEXT        tchat "(NAME): TEXT" to the team (say in free for all)
//	tell CLIENT TEXT     chat "[NAME]: TEXT" to CLIENT (number or name) and back
//	score                scores ... (see scoresCommand) to n
//	team [red|blue|free|spectator|auto]   change team, or print the current one
//	kill                 suicide
//
// Anything else is answered with print "unknown command NAME". Only
// say, say_team, tell and score work during the intermission.
func (g *Arena) ClientCommand(n int, args *cmdargs.Args) {
	if uint(n) >= bg.MaxClients || g.clients[n].state != clientInGame || args == nil || args.Argc() == 0 {
		return
	}
	cmd := strings.ToLower(args.Argv(0))
	switch cmd {
	case "say":
		g.say(n, -1, sayAll, args.ArgsFrom(1))
		return
	case "say_team":
		g.say(n, -1, sayTeam, args.ArgsFrom(1))
		return
	case "tell":
		target := g.clientByArg(args.Argv(1))
		if target < 0 {
			g.engine.SendServerCommand(n, "print \"no such player\n\"")
			return
		}
		g.say(n, target, sayTell, args.ArgsFrom(2))
		return
	case "score":
		g.engine.SendServerCommand(n, g.scoresCommand())
		return
	}
	if g.lv.intermission {
		return
	}
	switch cmd {
	case "team":
		if args.Argc() < 2 {
			g.engine.SendServerCommand(n, `print "team: `+TeamName(g.clients[n].team)+"\n\"")
			return
		}
		g.setTeam(n, args.Argv(1))
	case "kill":
		ps := &g.ps[n]
		if ps.PmType != bg.PMNormal {
			return
		}
		ps.Stats[bg.StatHealth] = 0
		g.die(n, n, n, bg.MODSuicide)
	default:
		g.engine.SendServerCommand(n, `print "unknown command `+sanitizeText(cmd, 32)+"\n\"")
	}
}

// clientByArg finds a client in the game by number or by name (ignoring
// case); -1 if none.
func (g *Arena) clientByArg(s string) int {
	if k, err := strconv.Atoi(s); err == nil {
		if g.InGame(k) {
			return k
		}
		return -1
	}
	for i := range g.clients {
		if g.clients[i].state == clientInGame && strings.EqualFold(g.clients[i].name, s) {
			return i
		}
	}
	return -1
}

// say relays chat from client n (G_Say). The text is sanitised (double
// quotes become single ones, control bytes go) and cut at MaxSayText.
func (g *Arena) say(n, target, mode int, text string) {
	text = sanitizeText(text, MaxSayText)
	if text == "" {
		return
	}
	if mode == sayTeam && g.gametype != bg.GTTeam {
		mode = sayAll
	}
	name := g.clients[n].name
	g.log(LogEntry{Kind: LogSay, Client: n, Target: target, Amount: int32(mode), Text: text})
	switch mode {
	case sayAll:
		g.engine.Print("say: " + name + ": " + text)
		g.engine.SendServerCommand(-1, `chat "`+name+": "+text+`"`)
	case sayTeam:
		g.engine.Print("sayteam: " + name + ": " + text)
		line := `tchat "(` + name + "): " + text + `"`
		for i := range g.clients {
			if g.clients[i].state == clientInGame && g.clients[i].team == g.clients[n].team {
				g.engine.SendServerCommand(i, line)
			}
		}
	case sayTell:
		g.engine.Print("tell: " + name + " to " + g.clients[target].name + ": " + text)
		line := `chat "[` + name + "]: " + text + `"`
		g.engine.SendServerCommand(target, line)
		if target != n {
			g.engine.SendServerCommand(n, line)
		}
	}
}

// sanitizeText makes s safe inside a quoted server command: double
// quotes become single quotes, control bytes are dropped, and it is cut
// at limit bytes without splitting a UTF-8 character.
func sanitizeText(s string, limit int) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r == '"':
			r = '\''
		case !printable(r):
			continue // control, escape, bidi and zero-width characters
		}
		if b.Len()+len(string(r)) > limit {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
