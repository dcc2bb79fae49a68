package game

import (
	"strconv"

	"tremor/bg"
)

// Entity kinds.
const (
	kindFree = iota
	kindPlayer
	kindItem
	kindMissile
	kindTemp // a temporary event entity, or a missile turned into its explosion
)

// Think actions.
const (
	thinkNone = iota
	thinkItemRespawn
	thinkExplode
)

// entity is the game-only part of a game entity (Quake III's gentity_t
// without the entityState_t and entityShared_t, which live in
// Game.shared at the same index, where the engine reads them).
type entity struct {
	inUse          bool
	kind           int
	classname      string
	freeTime       int32 // level time it was freed
	eventTime      int32 // level time of its last event
	eventCount     int32 // the two-bit counter of addEvent
	freeAfterEvent bool  // a temporary entity: freed EventValidMsec after its event
	nextThink      int32 // level time of its next think, 0 for none
	think          int

	owner     int    // a missile's shooter
	item      int32  // an item's number in bg.Items
	damage    int32  // a missile's direct damage
	splash    int32  // a missile's splash damage at the centre
	radius    int32  // a missile's splash radius, units
	mod       int32  // means of death of a direct hit
	splashMod int32  // means of death of the splash
	origin    bg.Vec // where it was at the end of the last frame (r.currentOrigin)
}

// spawn returns a free entity slot, or -1 when all are taken (G_Spawn).
// A slot freed less than FreeReuseMsec ago is passed over while another
// is free, except in the first two seconds of a level, so that a client
// never mistakes a new entity for the one it replaces.
func (g *Arena) spawn() int {
	for pass := 0; pass < 2; pass++ {
		for i := bg.MaxClients; i < g.numEntities; i++ {
			e := &g.ents[i]
			if e.inUse {
				continue
			}
			if pass == 0 && e.freeTime > g.lv.startTime+2000 && g.lv.time-e.freeTime < FreeReuseMsec {
				continue
			}
			g.initEntity(i)
			return i
		}
		if g.numEntities < MaxNormalEntities {
			break // grow rather than reuse a fresh slot
		}
	}
	if g.numEntities >= MaxNormalEntities {
		return -1
	}
	i := g.numEntities
	g.numEntities++
	g.engine.LocateGameData(g.shared[:], g.numEntities, g.ps[:])
	g.initEntity(i)
	return i
}

func (g *Arena) initEntity(i int) {
	g.ents[i] = entity{inUse: true, eventTime: g.lv.time, owner: bg.EntityNumNone}
	g.shared[i] = SharedEntity{}
	g.shared[i].S.Number = int32(i)
	g.shared[i].S.OtherEntity = bg.EntityNumNone
}

// free releases entity i (G_FreeEntity).
func (g *Arena) free(i int) {
	g.shared[i] = SharedEntity{}
	g.ents[i] = entity{freeTime: g.lv.time}
}

// tempEntity spawns a temporary entity that carries event ev at origin
// for EventValidMsec and is then freed (G_TempEntity). It returns -1 when
// no slot is free.
func (g *Arena) tempEntity(origin bg.Vec, ev int32) int {
	i := g.spawn()
	if i < 0 {
		return -1
	}
	e, sh := &g.ents[i], &g.shared[i]
	e.kind = kindTemp
	e.classname = "tempEntity"
	e.freeAfterEvent = true
	e.eventTime = g.lv.time
	sh.S.EType = bg.ETEvents + ev
	sh.S.Pos = bg.Trajectory{Type: bg.TrStationary, Base: origin}
	sh.Linked = true
	return i
}

// addEvent gives entity i event ev with parm (G_AddEvent). A player gets
// it as its ExternalEvent; any other entity in its Event. The two-bit
// counter above the event number changes with every event of the
// entity, so the same event twice in a row still reads as new. (Quake
// III counted from the event field, which restarts at zero once the
// event is cleared; a client that missed the cleared snapshots then saw
// the same value again and lost the event. The counter here does not
// restart.)
func (g *Arena) addEvent(i int, ev, parm int32) {
	if ev == bg.EvNone {
		return
	}
	e := &g.ents[i]
	e.eventCount = (e.eventCount + 1) & 3
	bits := e.eventCount << bg.EventBitsShift
	if i < bg.MaxClients {
		ps := &g.ps[i]
		ps.ExternalEvent = ev | bits
		ps.ExternalEventParm = parm
	} else {
		s := &g.shared[i].S
		s.Event = ev | bits
		s.EventParm = parm
	}
	e.eventTime = g.lv.time
}

func itoa(n int) string { return strconv.Itoa(n) }
