package game

import (
	"math/rand/v2"
	"sync/atomic"

	"tremor/bg"
)

// nudges is the process-wide sequence InjectNonDeterminism draws its
// amounts from. It starts at an unseeded random value, so that two
// processes almost never agree on it, and moves on at every draw, so
// that two games in one process never draw the same amount.
var nudges atomic.Uint64

func init() { nudges.Store(rand.Uint64()) }

// InjectNonDeterminism plants a deliberate non-determinism in the game.
// It exists only to prove that the state hash and DiffState catch one:
// frame sync's tests and game's own, and the server's desync command,
// which shows a class the check at work. A game with no reason to part
// from its copies must never call it.
//
// The first RunFrame that reaches atTime ends by changing the world by an
// amount the inputs do not decide: the lowest-numbered missile in flight
// gets 1 to 1024 units/s added to its Pos.Delta.X, or, with
// no missile flying, the lowest-numbered player in the game who is alive
// gets them added to its PlayerState Velocity.X. The amount comes from an
// unseeded, process-wide sequence: two games in one process fed the same
// inputs always draw different amounts, so they part exactly at that
// frame; two processes part there 1023 times in 1024. The trap fires
// once; a rollback that runs the frame again does not fire it again.
func (g *Arena) InjectNonDeterminism(atTime int32) {
	g.inject.armed, g.inject.at = true, atTime
}

// injectNow springs InjectNonDeterminism's trap.
func (g *Arena) injectNow() {
	g.inject.armed = false
	d := 1 + int32(nudges.Add(1)%1024)
	for i := bg.MaxClients; i < g.numEntities; i++ {
		if g.ents[i].inUse && g.ents[i].kind == kindMissile {
			g.shared[i].S.Pos.Delta.X += d
			return
		}
	}
	for n := range g.clients {
		if g.clients[n].state == clientInGame && g.ps[n].PmType == bg.PMNormal {
			g.ps[n].Velocity.X += d
			g.syncPlayerEntity(n)
			return
		}
	}
}
