package game

import (
	"errors"
	"strings"

	"tremor/bg"
	"tremor/game/bot"
)

// botNames are the names bot_minplayers gives the bots it adds.
var botNames = [...]string{
	"Anvil", "Brick", "Cinder", "Dagger", "Ember", "Flint", "Garnet", "Hatchet",
	"Iron", "Jasper", "Kestrel", "Lynx", "Mortar", "Nettle", "Onyx", "Pike",
}

// AddBot adds a bot called name of the given skill (1 to 5) to the game
// (G_AddBot), as the engine's addbot command does: the engine gives it a
// client slot (Engine.BotAllocateClient), and it connects and begins
// like any client. It returns the bot's client number.
func (g *Arena) AddBot(name string, skill int) (int, error) {
	skill = max(1, min(skill, 5))
	userinfo := `\name\` + sanitizeName(name) + `\skill\` + itoa(skill)
	n := g.engine.BotAllocateClient(userinfo)
	if n < 0 {
		return -1, errors.New("game: no free client slot for a bot")
	}
	if uint(n) >= bg.MaxClients {
		return -1, errors.New("game: engine gave an invalid client slot")
	}
	if reason := g.ClientConnect(n, userinfo, true); reason != "" {
		g.engine.DropClient(n, reason)
		return -1, errors.New("game: bot refused: " + reason)
	}
	g.ClientBegin(n)
	return n, nil
}

// botFrame runs one think of every bot in the game: the bot sees the
// world through a bot.View (refilled in place, nothing allocated), its
// command gets the level time and goes through ClientThink, as a human's
// command would.
func (g *Arena) botFrame() {
	if g.lv.intermission {
		return
	}
	items := g.botItems[:0]
	for _, i := range g.lv.itemEnts {
		items = append(items, bot.ItemInfo{
			Entity:    i,
			Item:      g.ents[i].item,
			Pos:       g.shared[i].S.Pos.Base,
			Available: g.shared[i].S.EFlags&bg.EFNoDraw == 0,
		})
	}
	g.botItems = items
	v := &g.view
	for n := range g.clients {
		cl := &g.clients[n]
		if !cl.isBot || cl.state != clientInGame || cl.bot == nil {
			continue
		}
		v.Time = g.lv.time
		v.Self = &g.ps[n]
		v.Items = items
		v.Team = cl.team
		v.Players = v.Players[:0]
		for k := range g.clients {
			o := &g.clients[k]
			if k == n || o.state != clientInGame || o.team == bg.TeamSpectator {
				continue
			}
			ps := &g.ps[k]
			v.Players = append(v.Players, bot.PlayerInfo{
				ClientNum: k,
				Origin:    ps.Origin,
				Velocity:  ps.Velocity,
				Health:    ps.Stats[bg.StatHealth],
				Dead:      ps.PmType != bg.PMNormal,
				Team:      o.team,
				Weapon:    ps.Weapon,
			})
		}
		cmd := cl.bot.Think(v)
		cmd.ServerTime = g.lv.time
		g.ClientThink(n, &cmd)
	}
	v.Self = nil
}

// checkBotMinPlayers applies bot_minplayers once a second
// (G_CheckMinimumPlayers): one bot is added while fewer players are in
// the game (spectators do not count), one of the game's bots removed
// while more are.
func (g *Arena) checkBotMinPlayers() {
	if g.cfg.BotMinPlayers <= 0 || g.lv.intermission || g.lv.time < g.lv.nextBotCheck {
		return
	}
	g.lv.nextBotCheck = g.lv.time + 1000
	players, lastBot := 0, -1
	for i := range g.clients {
		cl := &g.clients[i]
		if cl.state == clientFree || cl.team == bg.TeamSpectator && cl.state == clientInGame {
			continue
		}
		players++
		if cl.isBot {
			lastBot = i
		}
	}
	switch {
	case players < g.cfg.BotMinPlayers:
		_, _ = g.AddBot(g.freeBotName(), g.cfg.BotSkill) // a full server just has no room
	case players > g.cfg.BotMinPlayers && lastBot >= 0:
		g.engine.DropClient(lastBot, "removed by bot_minplayers")
	}
}

// freeBotName returns the first name of botNames nobody uses.
func (g *Arena) freeBotName() string {
	for _, name := range botNames {
		if g.clientByName(name) < 0 {
			return name
		}
	}
	return "Bot"
}

// clientByName returns the connected client called name (ignoring
// case), or -1.
func (g *Arena) clientByName(name string) int {
	for i := range g.clients {
		if g.clients[i].state != clientFree && strings.EqualFold(g.clients[i].name, name) {
			return i
		}
	}
	return -1
}
