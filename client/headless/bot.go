package headless

import (
	"strconv"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/client"
	"tremor/game/bot"
	"tremor/net/infostr"
)

// BotDriver plays a client with a game/bot bot thinking on the newest
// snapshot and the cgame's predicted player state: the headless
// clients' bots, and the classroom view's (cl_bot 1). The zero value is
// ready; a new map makes a new bot.
type BotDriver struct {
	bot      *bot.Bot
	botMap   *tilemap.Map
	cmd      bg.UserCmd // the bot's latest decision
	nextBot  int32      // client realtime of the next think
	view     bot.View
	players  []bot.PlayerInfo
	items    []bot.ItemInfo
	itemSeen [1024]int16 // index+1 into items by entity number
	snap     cgame.Snapshot
}

// Input returns the bot's command for c's frame, thinking again every
// bot.FrameMsec of client time; the zero command while c is not in a
// game. name, skill and seed make the bot when c's map changes.
func (d *BotDriver) Input(c *client.Client, name string, skill int, seed uint64) bg.UserCmd {
	if c.State() != client.Active || c.Map() == nil {
		return bg.UserCmd{}
	}
	if d.bot == nil || d.botMap != c.Map() {
		d.botMap = c.Map()
		nav := bot.NewNav(c.Map(), nil)
		d.bot = bot.New(name, skill, seed, nav)
		d.items = d.items[:0]
		d.itemSeen = [1024]int16{}
		d.nextBot = 0
	}
	now := c.Realtime()
	if d.nextBot != 0 && now < d.nextBot {
		return d.cmd
	}
	d.nextBot = now + bot.FrameMsec
	if !d.buildView(c) {
		return d.cmd
	}
	d.cmd = d.bot.Think(&d.view)
	return d.cmd
}

// buildView fills the bot's view from the newest snapshot and the
// predicted player state.
func (d *BotDriver) buildView(c *client.Client) bool {
	num, _ := c.CurrentSnapshotNumber()
	if !c.GetSnapshot(num, &d.snap) {
		return false
	}
	s := &d.snap
	self := &s.PS
	if cg := c.CGame(); cg != nil && cg.Predicting {
		self = &cg.Predicted
	}
	d.players = d.players[:0]
	for k := range s.Entities {
		e := &s.Entities[k]
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
			team, _ := strconv.Atoi(infostr.ValueForKey(c.Configstring(bg.CSPlayers+int(e.ClientNum)), "t"))
			d.players = append(d.players, bot.PlayerInfo{
				ClientNum: int(e.ClientNum), Origin: e.Pos.Base, Velocity: e.Pos.Delta,
				Health: health, Dead: dead, Team: int32(team), Weapon: e.Weapon,
			})
		case bg.ETItem:
			if e.Number < 0 || int(e.Number) >= len(d.itemSeen) {
				continue
			}
			it := bot.ItemInfo{Entity: int(e.Number), Item: e.ModelIndex, Pos: e.Pos.Base,
				Available: e.EFlags&bg.EFNoDraw == 0}
			if k := d.itemSeen[e.Number]; k > 0 {
				d.items[k-1] = it
			} else {
				d.items = append(d.items, it)
				d.itemSeen[e.Number] = int16(len(d.items))
			}
		}
	}
	team, _ := strconv.Atoi(infostr.ValueForKey(c.Configstring(bg.CSPlayers+int(self.ClientNum)), "t"))
	d.view = bot.View{Time: c.ServerTime(), Self: self, Players: d.players, Items: d.items, Team: int32(team)}
	return true
}
