package cgame

import (
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
)

// script is a Client whose snapshots, usercmds and server commands a test
// writes by hand: snapshot n is snaps[n-1], a nil entry a lost one.
type script struct {
	snaps   []*Snapshot
	latest  int32 // snapshots the engine has received
	render  int32
	cmds    []bg.UserCmd // usercmd n is cmds[n-1]
	scmds   []string     // server command n is scmds[n-1]; "" is overwritten
	cs      map[int]string
	scmdMax int32 // server commands received
}

func (c *script) CurrentSnapshotNumber() (int32, int32) {
	if c.latest < 1 || c.snaps[c.latest-1] == nil {
		return c.latest, 0
	}
	return c.latest, c.snaps[c.latest-1].ServerTime
}

func (c *script) GetSnapshot(num int32, s *Snapshot) bool {
	if num < 1 || num > c.latest || num <= c.latest-proto.PacketBackup || c.snaps[num-1] == nil {
		return false
	}
	ents := append(s.Entities[:0], c.snaps[num-1].Entities...)
	*s = *c.snaps[num-1]
	s.Entities = ents
	return true
}

func (c *script) CurrentCmdNumber() int32 { return int32(len(c.cmds)) }

func (c *script) GetUserCmd(num int32, cmd *bg.UserCmd) bool {
	if num < 1 || int(num) > len(c.cmds) {
		return false
	}
	*cmd = c.cmds[num-1]
	return true
}

func (c *script) ServerTime() int32 { return c.render }

func (c *script) Configstring(index int) string { return c.cs[index] }

func (c *script) GetServerCommand(seq int32) (string, bool) {
	if seq < 1 || seq > c.scmdMax || int(seq) > len(c.scmds) || c.scmds[seq-1] == "" {
		return "", false
	}
	return c.scmds[seq-1], true
}

// add appends a snapshot at server time st with the given entities; the
// player state is a player standing at the origin, client 0.
func (c *script) add(st int32, ents ...bg.EntityState) *Snapshot {
	s := &Snapshot{MessageNum: int32(len(c.snaps) + 1), ServerTime: st, Entities: ents}
	s.PS.CommandTime = st
	s.PS.GroundEntity = bg.EntityNumNone
	c.snaps = append(c.snaps, s)
	return s
}

// frame delivers every snapshot added so far and runs a frame at render
// time rt.
func (c *script) frame(g *CGame, rt int32) {
	c.latest = int32(len(c.snaps))
	c.render = rt
	g.Frame(rt)
}

// player returns a player entity numbered n at x (units), moving at vx.
func player(n, x, vx int32) bg.EntityState {
	return bg.EntityState{Number: n, EType: bg.ETPlayer, ClientNum: n,
		Pos: bg.Trajectory{Type: bg.TrInterpolate, Base: bg.Vec{X: x}, Delta: bg.Vec{X: vx}}}
}

// emptyMap is a room for scripted tests, where nothing moves by itself.
func emptyMap(t testing.TB) *tilemap.Map { return flatMap(t) }

func newScripted(t testing.TB, cfg *Config) (*script, *CGame) {
	c := &script{cs: map[int]string{}}
	return c, New(c, emptyMap(t), cfg)
}
