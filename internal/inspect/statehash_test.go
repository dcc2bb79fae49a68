package inspect

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/netchan"
)

// TestStateHashOp: the inspector shows an SvcStateHash with its fields
// and checks it against the snapshot it decoded before it: a match, a
// divergence named by entity and field, and a hash with no snapshot.
func TestStateHashOp(t *testing.T) {
	msgs := feed(New(), stateHashSession())
	want := []string{"match", "diverges: server time 2050: entity 12 field Pos.Base.Y differs (client has 80)", "unchecked"}
	for i, m := range msgs[6:] {
		if m.Kind != KindMessage || m.Err != "" {
			t.Fatalf("server message %d: %s", i+2, m.Summary())
		}
		o := findOp(&m, OpStateHash)
		if o == nil {
			t.Fatalf("server message %d: no %s op in %s", i+2, OpStateHash, m.Summary())
		}
		f := map[string]string{}
		for _, x := range o.Fields {
			f[x.Name] = x.Value
		}
		if f["check"] != want[i] || f["game"] != "0x0000000000abcdef" || f["detail"] != "true" {
			t.Errorf("server message %d: fields %v, want check %q", i+2, f, want[i])
		}
		checkBits(t, &m)
		if !strings.Contains(m.Summary(), OpStateHash) {
			t.Errorf("summary %q does not show the op", m.Summary())
		}
	}
	if len(msgs) != 9 {
		t.Errorf("%d messages", len(msgs))
	}
}

// stateHashSession is newSession's handshake and gamestate, a client
// command, and three server messages with state hashes: after a full
// snapshot they match, after a delta snapshot they were taken with
// entity 12 moved, and the third follows no snapshot.
func stateHashSession() []packet {
	s := newSession(false)
	pkts := append([]packet(nil), s.pkts[:5]...) // the handshake and the gamestate
	down, up := &capture{}, &capture{}
	sch := netchan.New(down, clientAddr, netchan.ServerSide, testQport)
	cch := netchan.New(up, serverAddr, netchan.ClientSide, testQport)
	const said = "say hashes"
	sch.Encode = func(seq uint32, m []byte) { proto.ScrambleServerMessage(m, testChallenge, seq, said) }
	cch.Encode = func(_ uint32, m []byte) { proto.ScrambleClientMessage(m, testChallenge, "print hello") }
	var buf [netchan.MaxMsgLen]byte
	w := msg.NewWriter(buf[:], msg.Huffman)
	sch.Transmit([]byte{0}) // message 1 was the gamestate
	down.take()
	w.Reset(buf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: testServerID, MessageAcknowledge: 1, ReliableAcknowledge: 1})
	proto.WriteClientCommand(w, 1, said)
	w.WriteUint8(proto.ClcEOF)
	cch.Transmit(w.Bytes())
	for _, p := range up.take() {
		pkts = append(pkts, packet{ClientToServer, p})
	}

	server := func(write func(w *msg.Writer)) {
		w.Reset(buf[:], msg.Huffman)
		proto.WriteReliableAck(w, 1)
		write(w)
		w.WriteUint8(proto.SvcEOF)
		sch.Transmit(w.Bytes())
		for _, p := range down.take() {
			pkts = append(pkts, packet{ServerToClient, p})
		}
	}
	hashOf := func(t int32, ps *bg.PlayerState, ents []bg.EntityState) *proto.StateHash {
		sh := new(proto.StateHash)
		sh.Compute(ps, ents, true)
		sh.ServerTime, sh.Game = t, 0xabcdef
		return sh
	}
	// Message 2: a full snapshot and its hashes.
	server(func(w *msg.Writer) {
		proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 2000}, nil, &s.ps1, nil, s.ents1, &s.gs.Baselines)
		proto.WriteStateHash(w, hashOf(2000, &s.ps1, s.ents1))
	})
	// Message 3: a delta snapshot whose hashes were taken with entity 12
	// elsewhere than the snapshot carries it.
	moved := append([]bg.EntityState(nil), s.ents2...)
	moved[1].Pos.Base.Y += 16
	server(func(w *msg.Writer) {
		proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 2050, DeltaNum: 1, BaseTime: 2000},
			&s.ps1, &s.ps2, s.ents1, s.ents2, &s.gs.Baselines)
		proto.WriteStateHash(w, hashOf(2050, &s.ps2, moved))
	})
	// Message 4: hashes with no snapshot.
	server(func(w *msg.Writer) { proto.WriteStateHash(w, hashOf(2100, &s.ps2, s.ents2)) })

	return pkts
}
