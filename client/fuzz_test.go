package client

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// fuzzMessage frames a server message body as netchan message seq.
func fuzzMessage(seq uint32, body func(w *msg.Writer)) []byte {
	w := msg.NewWriter(make([]byte, netchan.MaxMsgLen), msg.Huffman)
	proto.WriteReliableAck(w, 0)
	body(w)
	w.WriteUint8(proto.SvcEOF)
	return append(netchan.Header{Sequence: seq}.Append(nil), w.Bytes()...)
}

// FuzzServerPacket feeds arbitrary packets from the server's address to
// a primed client: nothing may panic, hang or break the client's
// invariants, with or without the diagnostics (diag: cl_shownet 0, 1,
// 2, 3, 4, -1 by its low bits, showpackets by bit 3).
func FuzzServerPacket(f *testing.F) {
	m, err := arenas.Load("arena1")
	if err != nil {
		f.Fatal(err)
	}
	var gs proto.Gamestate
	gs.Reset()
	gs.Configstrings[bg.CSServerInfo] = `\mapname\arena1`
	gs.Configstrings[bg.CSSystemInfo] = `\sv_serverid\9`
	gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(m.Checksum), 10)
	gs.Baselines[40] = bg.EntityState{Number: 40, EType: bg.ETItem, ModelIndex: 3}
	f.Add(fuzzMessage(1, func(w *msg.Writer) { proto.WriteGamestate(w, &gs) }), false, uint8(0))
	src := newSnapSource(12)
	f.Add(append([]byte(nil), src.next()...), false, uint8(4))
	f.Add(append([]byte(nil), src.next()...), true, uint8(5))
	f.Add(append([]byte(nil), src.next()...), false, uint8(13))
	f.Add(fuzzMessage(1, func(w *msg.Writer) {
		proto.WriteServerCommand(w, 1, `cs 6 "7"`)
		proto.WriteServerCommand(w, 2, `bcs0 40 "abc"`)
		proto.WriteServerCommand(w, 3, `bcs2 40 "def"`)
		proto.WriteServerCommand(w, 5, `print "gap"`)
		proto.WriteServerCommand(w, 6, `map_restart`)
		proto.WriteServerCommand(w, 7, `disconnect "bye"`)
	}), false, uint8(3))
	// A full snapshot and its state hashes (sv_hashSnapshots 2), and
	// the same hashes after no snapshot.
	hashPS := bg.PlayerState{CommandTime: 990, Origin: bg.Vec{X: 800, Y: 640}}
	hashEnts := []bg.EntityState{{Number: 40, EType: bg.ETItem, ModelIndex: 3}}
	var sh proto.StateHash
	sh.Compute(&hashPS, hashEnts, true)
	sh.ServerTime = 1000
	f.Add(fuzzMessage(2, func(w *msg.Writer) {
		proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 1000}, nil, &hashPS, nil, hashEnts, &gs.Baselines)
		proto.WriteStateHash(w, &sh)
	}), false, uint8(2))
	f.Add(fuzzMessage(2, func(w *msg.Writer) { proto.WriteStateHash(w, &sh) }), false, uint8(0))
	f.Add(oob.Packet("challengeResponse 5"), false, uint8(8))
	f.Add(oob.Packet("print\nServer is full."), false, uint8(0))
	f.Add(oob.Packet("disconnect"), false, uint8(0))
	f.Add(netchan.Header{Sequence: 3, Fragment: true, FragmentStart: 0, FragmentLength: 4}.Append([]byte{}), false, uint8(8))
	// A gamestate naming a map the client lacks, the download's header
	// and its one block: the whole download in one message.
	example, err := os.ReadFile(filepath.Join("..", "maps", "examples", "courtyard.map"))
	if err != nil {
		f.Fatal(err)
	}
	em, err := tilemap.Parse("courtyard.map", example)
	if err != nil {
		f.Fatal(err)
	}
	dgs := gs
	dgs.Configstrings[bg.CSServerInfo] = `\mapname\courtyard`
	dgs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(em.Checksum), 10)
	f.Add(fuzzMessage(1, func(w *msg.Writer) {
		proto.WriteGamestate(w, &dgs)
		proto.WriteDownload(w, &proto.Download{Name: "courtyard", Size: int32(len(example)), Checksum: em.Checksum})
		proto.WriteDownload(w, &proto.Download{Block: 1, Data: example})
	}), false, uint8(2))
	mapDir := f.TempDir()

	c, addr := primedClient(f)
	f.Fuzz(func(t *testing.T, p []byte, scramble bool, diag uint8) {
		cfg := c.Config()
		cfg.ShowNet = [...]int{0, 1, 2, 3, 4, -1, 0, 4}[diag&7]
		cfg.ShowPackets = diag&8 != 0
		cfg.Logf = func(string, ...any) {}
		cfg.MapDir = mapDir
		c.SetConfig(cfg)
		c.resetConnection()
		c.state = Disconnected
		c.Connect(addr)
		c.conn.ch = netchan.New(c.out, addr, netchan.ClientSide, c.qport)
		c.conn.ch.Encode = c.encode
		c.applyShownet()
		c.state = Connected
		c.conn.scramble = scramble
		c.packetEvent(addr, p)
		c.Frame(time.Duration(c.realtime+16)*time.Millisecond, bg.UserCmd{})
		if c.active.parseEntNum < 0 || c.conn.serverCommandSequence < 0 && c.state != Disconnected {
			t.Fatalf("broken state: %d entities, command %d", c.active.parseEntNum, c.conn.serverCommandSequence)
		}
		if n, _ := c.CurrentSnapshotNumber(); n != 0 && !c.active.snap.valid {
			t.Fatal("current snapshot not valid")
		}
	})
}
