package main

import (
	"fmt"
	"math/rand/v2"

	"tremor/net/msg"
)

// The synthetic traffic model: until Tremor's own game structs exist, these
// stand-ins have the shape of a side-view arena's states (2D positions and
// velocities on a pixel grid, trajectories, events, weapons) so that the
// bytes the delta codec hands to the Huffman coder look like real traffic:
// mostly small integers, biased floats, zero bytes, short ASCII commands.

type synthEntity struct {
	Number                        uint32
	TrType, TrTime                int32
	TrBaseX, TrBaseY              float32
	TrDeltaX, TrDeltaY            float32
	Angle                         float32
	Event, EventParm              int32
	Weapon, Flags, Frame, Model   uint32
	OtherEntity, ClientNum, Solid uint32
}

var synthEntityTable = msg.MustTable[synthEntity]("synthEntity", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "TrTime", Bits: 32}, {Name: "TrBaseX", Bits: 0}, {Name: "TrBaseY", Bits: 0},
		{Name: "TrDeltaX", Bits: 0}, {Name: "TrDeltaY", Bits: 0}, {Name: "Angle", Bits: 0},
		{Name: "Event", Bits: 10}, {Name: "EventParm", Bits: 8}, {Name: "Frame", Bits: 8},
		{Name: "TrType", Bits: 8}, {Name: "Flags", Bits: 19}, {Name: "Weapon", Bits: 8},
		{Name: "Model", Bits: 8}, {Name: "OtherEntity", Bits: 10}, {Name: "ClientNum", Bits: 8},
		{Name: "Solid", Bits: 24},
	},
	Omit: []string{"Number"},
})

type synthPlayer struct {
	CommandTime                int32
	OriginX, OriginY           float32
	VelocityX, VelocityY       float32
	Angle                      float32
	WeaponTime                 int32
	Flags, Weapon, WeaponState uint32
	EventSequence, Event0      uint32
	GroundEntity               uint32
	Stats                      [16]int32
	Persistant                 [16]int32
	Ammo                       [16]int32
}

var synthPlayerTable = msg.MustTable[synthPlayer]("synthPlayer", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "CommandTime", Bits: 32}, {Name: "OriginX", Bits: 0}, {Name: "OriginY", Bits: 0},
		{Name: "VelocityX", Bits: 0}, {Name: "VelocityY", Bits: 0}, {Name: "Angle", Bits: 0},
		{Name: "WeaponTime", Bits: -16}, {Name: "GroundEntity", Bits: 10}, {Name: "Flags", Bits: 16},
		{Name: "EventSequence", Bits: 16}, {Name: "Event0", Bits: 8}, {Name: "Weapon", Bits: 5},
		{Name: "WeaponState", Bits: 4},
	},
	Arrays: []msg.ArrayField{{Name: "Stats", Bits: -16}, {Name: "Persistant", Bits: -16}, {Name: "Ammo", Bits: 16}},
})

type synthCmd struct {
	ServerTime uint32
	Angle      int32
	Forward    int32
	Right      int32
	Buttons    uint32
	Weapon     uint32
}

var synthCmdTable = msg.MustTable[synthCmd]("synthCmd", msg.TableSpec{
	Fields: []msg.Field{
		{Name: "ServerTime", Bits: 32}, {Name: "Angle", Bits: 16}, {Name: "Forward", Bits: -8},
		{Name: "Right", Bits: -8}, {Name: "Buttons", Bits: 16}, {Name: "Weapon", Bits: 8},
	},
})

var chatLines = []string{
	"print \"Bot3 was railed by Bot1\n\"", "chat \"Ana: gg\"", "cs 5 \"\\n\\Bot2\\t\\0\\model\\sarge\"",
	"cp \"Fight!\"", "scores 4 10 2 50 3 7 1 80", "tinfo 0", "disconnect", "say hi all", "score",
	"userinfo \"\\name\\Player\\rate\\25000\\snaps\\20\"", "map_restart", "print \"Bot7 fell to his death\n\"",
}

// Synthetic returns the bytes the Huffman coder would see for n synthetic
// messages: server snapshots (player state and a dozen moving entities
// delta-coded against the previous frame, now and then a server command)
// and client packets (a few usercmds). The delta fields they code are
// counted in stats (nil: nowhere).
func Synthetic(n int, seed uint64, stats *msg.FieldStats) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x7e3))
	var captured []byte
	w := &msg.Writer{Capture: &captured}
	w.SetFieldStats(stats)
	buf := make([]byte, msg.MaxBigStringChars*2)

	ents := make([]synthEntity, 24)
	for i := range ents {
		ents[i] = synthEntity{Number: uint32(i + 1), Model: uint32(rng.IntN(12)), TrType: int32(rng.IntN(4)),
			TrBaseX: float32(rng.IntN(3000)), TrBaseY: float32(rng.IntN(1200)), Solid: 0x20408}
	}
	var ps synthPlayer
	ps.Stats[0], ps.Ammo[2] = 100, 50
	var cmd synthCmd
	serverTime := int32(10000)
	for i := 0; i < n; i++ {
		w.Reset(buf, msg.Huffman)
		if i%3 == 2 {
			// client -> server: serverId, messageAck, reliableAck, move.
			w.WriteLong(int32(seed) * 77)
			w.WriteLong(int32(i))
			w.WriteLong(int32(i / 20))
			w.WriteUint8(2)
			count := 1 + rng.IntN(3)
			w.WriteUint8(uint8(count))
			for c := 0; c < count; c++ {
				next := cmd
				next.ServerTime += uint32(8 + rng.IntN(9))
				if rng.IntN(3) == 0 {
					next.Angle = int32(rng.IntN(65536))
				}
				if rng.IntN(6) == 0 {
					next.Forward = int32(rng.IntN(3)-1) * 127
					next.Buttons = uint32(rng.IntN(4))
				}
				synthCmdTable.WriteDeltaUsercmd(w, uint32(i*31), &cmd, &next)
				cmd = next
			}
			continue
		}
		// server -> client: reliableAck, maybe a command, a snapshot.
		serverTime += 50
		w.WriteLong(int32(i / 20))
		if rng.IntN(8) == 0 {
			w.WriteUint8(5)
			w.WriteLong(int32(i))
			w.WriteString(chatLines[rng.IntN(len(chatLines))])
		}
		w.WriteUint8(7)
		w.WriteLong(serverTime)
		w.WriteUint8(1)
		w.WriteUint8(0)
		prev := ps
		ps.CommandTime = serverTime - int32(rng.IntN(30))
		ps.VelocityX = float32(rng.IntN(640) - 320)
		ps.VelocityY = float32(rng.IntN(900) - 450)
		ps.OriginX += float32(int(ps.VelocityX) / 20)
		ps.OriginY += float32(int(ps.VelocityY) / 20)
		if rng.IntN(10) == 0 {
			ps.EventSequence++
			ps.Event0 = uint32(rng.IntN(20))
			ps.Stats[0] -= int32(rng.IntN(30))
			ps.Ammo[ps.Weapon%16]--
		}
		synthPlayerTable.WriteDeltaPlayerState(w, &prev, &ps)
		for k := range ents {
			e := &ents[k]
			old := *e
			if e.TrType != 0 {
				e.TrTime = serverTime
				e.TrBaseX += float32(rng.IntN(40) - 20)
				e.TrBaseY += float32(rng.IntN(30) - 15)
				e.TrDeltaX = float32(rng.IntN(700) - 350)
				if rng.IntN(3) == 0 {
					e.TrDeltaX += 0.5
				}
			}
			if rng.IntN(15) == 0 {
				e.Event = int32(rng.IntN(40))
				e.EventParm = int32(rng.IntN(256))
			}
			synthEntityTable.WriteDeltaEntity(w, &old, e, e.Number, false)
		}
		w.WriteBits(msg.MaxEntities-1, msg.EntityNumBits)
		w.WriteUint8(8)
		if w.Err() != nil {
			panic(fmt.Sprintf("synthetic message %d: %v", i, w.Err()))
		}
	}
	return captured
}
