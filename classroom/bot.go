package classroom

import (
	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/client"
	"tremor/game/bot"
)

// botSkill is the skill of the bot that plays a pane with cl_bot 1.
const botSkill = 3

// botDriver plays a pane's client with a game/bot bot thinking on the
// newest snapshot and the cgame's predicted player state, as the
// headless clients' bots do (client/headless).
type botDriver struct {
	bot     *bot.Bot
	botMap  *tilemap.Map
	cmd     bg.UserCmd
	nextBot int32
	view    bot.View
	players []bot.PlayerInfo
	items   []bot.ItemInfo
	snap    cgame.Snapshot
}

// input returns the bot's command for this frame, thinking again every
// bot.FrameMsec of client time.
func (d *botDriver) input(c *client.Client, num int) bg.UserCmd {
	if c.State() != client.Active || c.Map() == nil {
		return bg.UserCmd{}
	}
	if d.bot == nil || d.botMap != c.Map() {
		d.botMap = c.Map()
		d.bot = bot.New("classroom", botSkill, 0xc1a55+uint64(num), bot.NewNav(c.Map(), nil))
		d.nextBot = 0
	}
	now := c.Realtime()
	if d.nextBot != 0 && now < d.nextBot {
		return d.cmd
	}
	d.nextBot = now + bot.FrameMsec
	numSnap, _ := c.CurrentSnapshotNumber()
	if !c.GetSnapshot(numSnap, &d.snap) {
		return d.cmd
	}
	self := &d.snap.PS
	if cg := c.CGame(); cg != nil && cg.Predicting {
		self = &cg.Predicted
	}
	d.players, d.items = d.players[:0], d.items[:0]
	for k := range d.snap.Entities {
		e := &d.snap.Entities[k]
		switch e.EType {
		case bg.ETPlayer:
			if e.ClientNum == self.ClientNum {
				continue
			}
			dead := e.EFlags&bg.EFDead != 0
			health := int32(100)
			if dead {
				health = 0
			}
			d.players = append(d.players, bot.PlayerInfo{ClientNum: int(e.ClientNum), Origin: e.Pos.Base,
				Velocity: e.Pos.Delta, Health: health, Dead: dead, Weapon: e.Weapon})
		case bg.ETItem:
			d.items = append(d.items, bot.ItemInfo{Entity: int(e.Number), Item: e.ModelIndex, Pos: e.Pos.Base,
				Available: e.EFlags&bg.EFNoDraw == 0})
		}
	}
	d.view = bot.View{Time: c.ServerTime(), Self: self, Players: d.players, Items: d.items}
	d.cmd = d.bot.Think(&d.view)
	return d.cmd
}
