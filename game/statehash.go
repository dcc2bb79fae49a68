package game

import "tremor/bg"

// The game's state hash: one 64-bit fingerprint of everything the next
// frame of the simulation depends on, so that two runs of the game (a
// session and its journal replay, a server and a test's second server
// fed the same commands) can be compared frame by frame and the first
// frame where they part found. See docs/statehash.md.

// StateHash returns the hash of the game's state (bg's FNV-1a/64, from
// bg.HashInit), in this order:
//
//   - the level time and the number of entity slots in use
//     (numEntities);
//   - the random generator's state, as the next value it would draw
//     (drawn from a copy: the game's own generator does not move);
//   - for every client slot that is not free, in client order: the
//     client number, its connection state, team, the timers that
//     decide its respawn, health ticks and pain, and the hash of its
//     PlayerState (bg.HashPlayerState);
//   - for every entity in use, in number order: the entity number, the
//     hash of its EntityState (bg.HashEntityState), whether it is linked,
//     its SvFlags and bounds, and the game's own fields that steer it
//     (kind, think and next think time, event time and count, owner,
//     item, damage, last origin).
//
// Names, userinfo and pings are left out: they do not move the world.
// StateHash allocates nothing; its cost per frame is in docs/statehash.md.
func (g *Arena) StateHash() uint64 {
	h := bg.HashInit
	h = bg.HashAdd(h, uint32(g.lv.time))
	h = bg.HashAdd(h, uint32(g.numEntities))
	rng := g.pcg // a copy: peeking must not move the game's generator
	h = bg.HashAdd64(h, rng.Uint64())
	for i := range g.clients {
		cl := &g.clients[i]
		if cl.state == clientFree {
			continue
		}
		h = bg.HashAdd(h, uint32(i))
		h = bg.HashAdd(h, uint32(cl.state))
		h = bg.HashAdd(h, uint32(cl.team))
		h = bg.HashAdd(h, uint32(cl.lastEvent))
		h = bg.HashAdd(h, uint32(cl.respawnTime))
		h = bg.HashAdd(h, uint32(cl.deathTime))
		h = bg.HashAdd(h, uint32(cl.protectUntil))
		h = bg.HashAdd(h, uint32(cl.nextHealthTick))
		h = bg.HashAdd(h, uint32(cl.lavaTime))
		h = bg.HashAdd(h, uint32(cl.painTime))
		h = bg.HashAdd64(h, bg.HashPlayerState(&g.ps[i]))
	}
	for i := 0; i < g.numEntities; i++ {
		e := &g.ents[i]
		if !e.inUse {
			continue
		}
		sh := &g.shared[i]
		h = bg.HashAdd(h, uint32(i))
		h = bg.HashAdd64(h, bg.HashEntityState(&sh.S))
		linked := uint32(0)
		if sh.Linked {
			linked = 1
		}
		h = bg.HashAdd(h, linked)
		h = bg.HashAdd(h, uint32(sh.SvFlags))
		h = bg.HashAdd(h, uint32(sh.Mins.X))
		h = bg.HashAdd(h, uint32(sh.Mins.Y))
		h = bg.HashAdd(h, uint32(sh.Maxs.X))
		h = bg.HashAdd(h, uint32(sh.Maxs.Y))
		h = bg.HashAdd(h, uint32(e.kind))
		h = bg.HashAdd(h, uint32(e.think))
		h = bg.HashAdd(h, uint32(e.nextThink))
		h = bg.HashAdd(h, uint32(e.eventTime))
		h = bg.HashAdd(h, uint32(e.eventCount))
		h = bg.HashAdd(h, uint32(e.owner))
		h = bg.HashAdd(h, uint32(e.item))
		h = bg.HashAdd(h, uint32(e.damage))
		h = bg.HashAdd(h, uint32(e.origin.X))
		h = bg.HashAdd(h, uint32(e.origin.Y))
	}
	return h
}
