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
// command would. With Config.ExternalBotInput RunFrame does not call it:
// the engine gets the commands from ThinkBots instead.
func (g *Arena) botFrame() {
	if g.lv.intermission {
		return
	}
	g.fillBotItems()
	for n := range g.clients {
		if !g.botThinks(n) {
			continue
		}
		cmd := g.thinkBot(n, g.lv.time)
		g.ClientThink(n, &cmd)
	}
	g.view.Self = nil
}

// ThinkBots thinks every bot in the game once against the current state
// (the state after the last RunFrame) and returns their commands for the
// frame of levelTime: bit n of present is set when client n is a bot in
// the game with a brain, and then cmds[n] is its command, ServerTime
// levelTime. The other entries of cmds are left as they were. During the
// intermission no bot thinks (as in RunFrame) and present is 0.
//
// This is the bots' half of Config.ExternalBotInput (frame sync): the
// engine calls ThinkBots before the frame and passes each command
// through ClientThink, in client order with the humans' commands of the
// frame, then calls RunFrame(levelTime). Each bot's brain moves on by one
// think, as in RunFrame. It allocates nothing.
func (g *Arena) ThinkBots(levelTime int32, cmds *[bg.MaxClients]bg.UserCmd) (present uint64) {
	if g.lv.intermission {
		return 0
	}
	g.fillBotItems()
	for n := range g.clients {
		if !g.botThinks(n) {
			continue
		}
		cmds[n] = g.thinkBot(n, levelTime)
		present |= 1 << n
	}
	g.view.Self = nil
	return present
}

// botThinks reports whether client n is a bot in the game with a brain.
func (g *Arena) botThinks(n int) bool {
	cl := &g.clients[n]
	return cl.isBot && cl.state == clientInGame && cl.bot != nil
}

// fillBotItems refills the item list the bots see, in place.
func (g *Arena) fillBotItems() {
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
}

// thinkBot runs bot n's brain once on the world as it is, seen at time
// now, and returns its command stamped now.
func (g *Arena) thinkBot(n int, now int32) bg.UserCmd {
	cl := &g.clients[n]
	v := &g.view
	v.Time = now
	v.Self = &g.ps[n]
	v.Items = g.botItems
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
	cmd.ServerTime = now
	return cmd
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
