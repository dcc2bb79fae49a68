package inspect

import (
	"fmt"
	"strconv"

	"tremor/common/proto"
)

// StateHashBuffer returns where a state hash is read.
func (p *parse) StateHashBuffer() *proto.StateHash { return &p.c.sh }

// StateHash shows an SvcStateHash (sv_hashSnapshots, docs/statehash.md):
// its hashes, and how they compare with the snapshot the inspector
// decoded before it in the same message ("match", where it diverges, or
// "unchecked" without a valid snapshot of that time).
func (p *parse) StateHash(sh *proto.StateHash, err error) error {
	if err != nil {
		return err
	}
	hex := func(v uint64) string { return fmt.Sprintf("%#016x", v) }
	p.cur.Fields = []Field{
		{Name: "serverTime", Value: strconv.Itoa(int(sh.ServerTime))},
		{Name: "game", Value: hex(sh.Game)},
		{Name: "playerState", Value: hex(sh.PlayerState)},
		{Name: "entities", Value: hex(sh.Entities)},
		{Name: "numEntities", Value: strconv.Itoa(sh.NumEntities)},
		{Name: "detail", Value: strconv.FormatBool(sh.Detail)},
	}
	check := "unchecked"
	if s := p.lastSnap; s != nil && s.Valid && s.ServerTime == sh.ServerTime {
		var mine proto.StateHash
		if d, bad := proto.CheckStateHash(sh, &s.PS, s.Entities, &mine); bad {
			check = "diverges: " + d.String()
		} else {
			check = "match"
		}
	}
	p.cur.Fields = append(p.cur.Fields, Field{Name: "check", Value: check})
	return nil
}
