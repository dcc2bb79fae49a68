package client

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/net/msg"
)

// TestStateHashPlayback plays a hand-made demo whose messages hold
// state hashes: after a snapshot that matches (checked), alone in a
// message (unchecked), and after a snapshot whose player state differs
// from the hashed one (a divergence naming the field, which stops the
// playback at that message).
func TestStateHashPlayback(t *testing.T) {
	d := newFuzzDemo(t)
	body := func(write func(w *msg.Writer)) []byte {
		w := msg.NewWriter(make([]byte, 4096), msg.Huffman)
		proto.WriteReliableAck(w, 0)
		write(w)
		w.WriteUint8(proto.SvcEOF)
		return bytes.Clone(w.Bytes())
	}
	var gs proto.Gamestate
	gs.Reset()
	ps1 := bg.PlayerState{CommandTime: 1000, Origin: bg.Vec{X: 100, Y: 40}}
	ps2 := ps1
	ps2.CommandTime, ps2.Origin.X = 1050, 110
	ents := []bg.EntityState{{Number: 5, EType: bg.ETItem, ModelIndex: 2}}
	hashOf := func(t int32, ps *bg.PlayerState) *proto.StateHash {
		sh := new(proto.StateHash)
		sh.Compute(ps, ents, true)
		sh.ServerTime = t
		return sh
	}
	hashed := ps2
	hashed.Ammo[bg.WPRailgun] = 10 // what the server says it sent
	msgs := [][]byte{
		body(func(w *msg.Writer) {
			proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 1000}, nil, &ps1, nil, ents, &gs.Baselines)
			proto.WriteStateHash(w, hashOf(1000, &ps1))
		}),
		body(func(w *msg.Writer) { proto.WriteStateHash(w, hashOf(1000, &ps1)) }),
		body(func(w *msg.Writer) {
			proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 1050, DeltaNum: 2, BaseTime: 1000}, &ps1, &ps2, ents, ents, &gs.Baselines)
			proto.WriteStateHash(w, hashOf(1050, &hashed))
		}),
		body(func(w *msg.Writer) {
			proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: 1100}, nil, &ps2, nil, ents, &gs.Baselines)
		}),
	}
	var out bytes.Buffer
	w, _ := demo.NewWriter(&out, d.header)
	w.WriteKeyFrame(0, 0, []demo.Part{{Sequence: 1, Data: d.gs1}})
	for i, m := range msgs {
		w.WriteMessage(int32(i+2), m)
	}
	w.Close()
	file := out.Bytes()

	var logged []string
	cfg := Config{LoadMap: loadFuzzMap, Logf: func(f string, a ...any) { logged = append(logged, f) }}
	p, err := NewPlayback(bytes.NewReader(file), int64(len(file)), PlaybackConfig{Client: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < 40 && !p.ended; i++ {
		p.Frame(time.Duration(i) * 50 * time.Millisecond)
	}
	ended, err := p.Ended()
	want := "message 4, server time 1050: player state field Ammo[5] differs (client has 0)"
	if !ended || !errors.Is(err, ErrDemoDiverges) || !strings.Contains(err.Error(), want) {
		t.Fatalf("ended %v with %v, want %q", ended, err, want)
	}
	st := p.Client().HashStats()
	if st.Received != 3 || st.Checked != 2 || st.Unchecked != 1 || st.Divergences != 1 ||
		st.First.Entity != -1 || st.First.Field != "Ammo[5]" || st.First != st.Last {
		t.Errorf("stats %+v", st)
	}
	if p.messages != 3 {
		t.Errorf("playback read %d messages, want it to stop at the third", p.messages)
	}
	if len(logged) != 1 {
		t.Errorf("logged %q", logged)
	}
}
