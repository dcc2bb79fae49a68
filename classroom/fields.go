package classroom

import (
	"tremor/bg"
	"tremor/cgame/overlay"
	"tremor/client"
	"tremor/net/msg"
)

// fieldRates samples the delta-field counters of one player's
// connection, each direction from the end that sends it: the usercmds
// its client engine encoded (up) and the player and entity states the
// server encoded to it (down). Each engine counts its own connection
// only, so the two players' figures never mix with each other's.
type fieldRates struct {
	up, down *overlay.FieldSampler
}

func newFieldRates() fieldRates {
	return fieldRates{
		up: overlay.NewFieldSampler(overlay.DefaultFieldInterval, overlay.Source{Table: bg.UserCmdTable, Dir: overlay.Sent}),
		down: overlay.NewFieldSampler(overlay.DefaultFieldInterval,
			overlay.Source{Table: bg.PlayerStateTable, Dir: overlay.Sent}, overlay.Source{Table: bg.EntityStateTable, Dir: overlay.Sent}),
	}
}

// sampleFields takes the players' field counters at virtual time ms
// (each sampler keeps figures of its last whole second).
func (m *Model) sampleFields(ms int32) {
	for _, p := range m.players {
		var down *msg.FieldStats // the server's connection to the player, once it has a number
		if p.C.State() >= client.Primed {
			down = m.srv.FieldStats(int(p.C.ClientNum()))
		}
		p.fields.up.SetStats(p.C.FieldStats())
		p.fields.down.SetStats(down)
		p.fields.up.Sample(ms)
		p.fields.down.Sample(ms)
	}
}

// FieldBits returns how many bits a second of delta fields player i's
// connection carried in direction d over the last second of virtual
// time, as the sender counted them: its usercmds' fields (Up), or the
// player-state and entity fields of the snapshots and gamestates the
// server sent it (Down). Only the fields' bits count (each with its
// changed bit, after Huffman coding), not the framing around them. ok
// is false until a whole second has been measured.
func (m *Model) FieldBits(i int, d Dir) (bits int64, ok bool) {
	s := m.players[i].fields.up
	if d == Down {
		s = m.players[i].fields.down
	}
	for _, t := range s.Totals() {
		bits += t.Bits
	}
	return bits, s.Ready()
}
