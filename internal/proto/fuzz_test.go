package proto

import (
	"testing"

	"tremor/bg"
	"tremor/net/msg"
)

// FuzzReadServerMessage feeds hostile server→client messages to the
// readers in the order a client applies them. Nothing may panic; a
// snapshot that decodes has sorted, bounded entities.
func FuzzReadServerMessage(f *testing.F) {
	var gs Gamestate
	gs.Reset()
	gs.Configstrings[0] = `\mapname\arena1`
	gs.Baselines[64] = bg.EntityState{Number: 64, EType: bg.ETItem, ModelIndex: 2}
	w := msg.NewWriter(make([]byte, 1<<14), msg.Huffman)
	w.WriteLong(3)
	WriteServerCommand(w, 4, "cs 2 \"1\"")
	WriteGamestate(w, &gs)
	ents := []bg.EntityState{{Number: 1, EType: bg.ETPlayer}, {Number: 64, EType: bg.ETItem, ModelIndex: 2}}
	WriteSnapshot(w, SnapshotHeader{ServerTime: 100}, nil, &bg.PlayerState{CommandTime: 90}, nil, ents, &gs.Baselines)
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, SvcSnapshot, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r msg.Reader
		r.Reset(data, msg.Huffman)
		r.ReadLong()
		var got Gamestate
		got.Reset()
		var ps bg.PlayerState
		out := make([]bg.EntityState, 0, MaxSnapshotEntities)
		for ops := 0; r.Err() == nil && ops < 1000; ops++ {
			switch r.ReadUint8() {
			case SvcServerCommand:
				ReadServerCommand(&r)
			case SvcGamestate:
				ReadGamestate(&r, &got)
			case SvcSnapshot:
				ReadSnapshotHeader(&r)
				out = ReadSnapshotBody(&r, &ps, ents, &got.Baselines, &ps, out)
				if r.Err() == nil {
					if len(out) > MaxSnapshotEntities {
						t.Fatalf("%d entities", len(out))
					}
					for i := 1; i < len(out); i++ {
						if out[i].Number <= out[i-1].Number {
							t.Fatal("entities not sorted")
						}
					}
				}
			case SvcNop:
			default:
				return
			}
		}
	})
}

// FuzzReadClientMessage feeds hostile client→server messages to the
// readers in the order a server applies them.
func FuzzReadClientMessage(f *testing.F) {
	w := msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteClientCommand(w, 4, "say hi")
	WriteMove(w, 5, []bg.UserCmd{{ServerTime: 100, RightMove: 50}, {ServerTime: 116}}, false)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, key uint32) {
		var r msg.Reader
		r.Reset(data, msg.Huffman)
		ReadClientHeader(&r)
		var cmds [MaxPacketUsercmds]bg.UserCmd
		for ops := 0; r.Err() == nil && ops < 1000; ops++ {
			switch r.ReadUint8() {
			case ClcClientCommand:
				ReadClientCommand(&r)
			case ClcMove, ClcMoveNoDelta:
				if n := ReadMove(&r, key, &cmds); n > MaxPacketUsercmds {
					t.Fatalf("%d commands", n)
				}
			case ClcNop:
			default:
				return
			}
		}
	})
}

// FuzzScramble: scrambling is its own inverse on any body.
func FuzzScramble(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint32(7), "print x")
	f.Fuzz(func(t *testing.T, body []byte, challenge uint32, text string) {
		orig := string(body)
		ScrambleClientMessage(body, challenge, text)
		ScrambleClientMessage(body, challenge, text)
		ScrambleServerMessage(body, challenge, 9, text)
		ScrambleServerMessage(body, challenge, 9, text)
		if string(body) != orig {
			t.Fatal("scrambling twice did not restore the body")
		}
	})
}
