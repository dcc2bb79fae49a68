package inspect

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/maps/arenas"
	"tremor/net/msg"
	"tremor/net/netchan"
)

// frameSyncSession is newSession's handshake and gamestate, then a
// frame-sync exchange written with the encoders the engines use: a
// server message with the whole state of frame 40 and frames 40 to 42
// coded from nothing (events, a bot slot, a hash), one with frames 42 and
// 43 coded from frame 41, a client message asking for frames from 44 and
// one asking for the whole state of frame 45, and a server message coded
// from frame 20, which the inspector never saw.
func frameSyncSession(tb testing.TB) ([]packet, []framesync.Frame) {
	s := newSession(false)
	pkts := append([]packet(nil), s.pkts[:5]...) // the handshake and the gamestate
	down, up := &capture{}, &capture{}
	sch := netchan.New(down, clientAddr, netchan.ServerSide, testQport)
	cch := netchan.New(up, serverAddr, netchan.ClientSide, testQport)
	sch.Encode = func(seq uint32, m []byte) { proto.ScrambleServerMessage(m, testChallenge, seq, "") }
	cch.Encode = func(_ uint32, m []byte) { proto.ScrambleClientMessage(m, testChallenge, "print hello") }
	sch.Transmit([]byte{0}) // message 1 was the gamestate
	down.take()
	var buf [netchan.MaxMsgLen]byte
	w := msg.NewWriter(buf[:], msg.Huffman)

	frames := make([]framesync.Frame, 44)
	for n := 40; n <= 43; n++ {
		f := &frames[n]
		f.Number, f.Time = int32(n), int32(n)*50
		f.Present = 1<<0 | 1<<3
		f.Inputs[0] = bg.UserCmd{ServerTime: f.Time, Aim: 16384, RightMove: 127, Weapon: 2}
		f.Inputs[3] = bg.UserCmd{ServerTime: f.Time, Aim: int32(49152 + 100*n), RightMove: -127, Buttons: 1, Weapon: 3}
	}
	frames[41].Events = []framesync.Event{
		{Kind: framesync.EventConnect, Client: 5, Text: `\name\Late`},
		{Kind: framesync.EventBegin, Client: 5},
		{Kind: framesync.EventAddBot, Text: "Rook", Value: 3},
	}
	frames[41].BotSlots = []int32{6}
	frames[42].Events = []framesync.Event{{Kind: framesync.EventPing, Client: 3, Value: 48}}
	frames[42].HasHash, frames[42].Hash = true, 0x1122334455667788

	m, err := arenas.Load("arena1")
	if err != nil {
		tb.Fatal(err)
	}
	st := game.NewState()
	framesync.NewSim(m, game.DefaultConfig()).Save(st)

	server := func(write func(w *msg.Writer)) {
		w.Reset(buf[:], msg.Huffman)
		proto.WriteReliableAck(w, 0)
		write(w)
		w.WriteUint8(proto.SvcEOF)
		if w.Err() != nil {
			tb.Fatal(w.Err())
		}
		sch.Transmit(w.Bytes())
		sch.Flush()
		for _, p := range down.take() {
			pkts = append(pkts, packet{ServerToClient, p})
		}
	}
	run := func(w *msg.Writer, lead int8, base *framesync.Frame, from, to int) {
		var fs []*framesync.Frame
		for n := from; n <= to; n++ {
			fs = append(fs, &frames[n])
		}
		proto.WriteFramesHeader(w, lead)
		if err := framesync.AppendFrames(w, base, fs); err != nil {
			tb.Fatal(err)
		}
	}
	client := func(req proto.FrameRequest) {
		w.Reset(buf[:], msg.Huffman)
		proto.WriteClientHeader(w, proto.ClientHeader{ServerID: testServerID, MessageAcknowledge: 2, ReliableAcknowledge: 1})
		proto.WriteFrameRequest(w, req)
		w.WriteUint8(proto.ClcEOF)
		cch.Transmit(w.Bytes())
		for _, p := range up.take() {
			pkts = append(pkts, packet{ClientToServer, p})
		}
	}
	server(func(w *msg.Writer) {
		run(w, 2, nil, 40, 42)
		w.WriteUint8(proto.SvcWholeState)
		framesync.AppendWhole(w, 40, st)
	})
	server(func(w *msg.Writer) { run(w, -3, &frames[41], 42, 43) })
	client(proto.FrameRequest{From: 44})
	client(proto.FrameRequest{From: 45, Whole: true})
	based := frames[41]
	based.Number = 20
	server(func(w *msg.Writer) { run(w, 0, &based, 42, 43) })
	return pkts, frames
}

// TestFrameSyncOps: the inspector shows the frames, whole state and
// frame requests of frame sync with their values, and its bits add up;
// a frames message coded from a frame it did not see is undecodable.
func TestFrameSyncOps(t *testing.T) {
	pkts, frames := frameSyncSession(t)
	msgs := feed(New(), pkts)
	if len(msgs) < 10 {
		t.Fatalf("%d messages", len(msgs))
	}
	last := len(msgs) - 1
	for i, m := range msgs[5:last] {
		if m.Kind == KindFragment {
			continue
		}
		if m.Kind != KindMessage || m.Err != "" {
			t.Fatalf("message %d: %s", i+5, m.Summary())
		}
		checkBits(t, &m)
	}
	// The first server message: frames 40 to 42 and the whole state.
	var got []FrameInfo
	var whole *WholeState
	var requests []proto.FrameRequest
	var leads, bases []int32
	for i := range msgs[:last] {
		for _, o := range msgs[i].Ops {
			switch {
			case o.Frames != nil:
				got = append(got, o.Frames.Frames...)
				leads = append(leads, int32(o.Frames.Lead))
				bases = append(bases, o.Frames.Base)
				for _, f := range o.Fields[:2] {
					if f.Bits == 0 {
						t.Errorf("frames field %s has no bits", f.Name)
					}
				}
			case o.WholeState != nil:
				whole = o.WholeState
			case o.FrameRequest != nil:
				requests = append(requests, *o.FrameRequest)
			}
		}
	}
	if len(got) != 5 || !slices.Equal(leads, []int32{2, -3}) || !slices.Equal(bases, []int32{0, 41}) {
		t.Fatalf("frames %d, leads %v, bases %v", len(got), leads, bases)
	}
	for i, n := range []int{40, 41, 42, 42, 43} {
		g, want := &got[i], &frames[n]
		if g.Number != want.Number || g.Time != want.Time || len(g.Inputs) != 2 ||
			g.Inputs[0] != (FrameInput{0, want.Inputs[0]}) || g.Inputs[1] != (FrameInput{3, want.Inputs[3]}) ||
			len(g.Events) != len(want.Events) || len(g.BotSlots) != len(want.BotSlots) || (g.Hash != nil) != want.HasHash {
			t.Errorf("frame %d decoded as %+v", n, g)
		}
	}
	if got[1].Events[0].Text != `\name\Late` || got[1].BotSlots[0] != 6 || *got[2].Hash != 0x1122334455667788 {
		t.Errorf("frame 41's events %+v, bot slots %v, frame 42's hash", got[1].Events, got[1].BotSlots)
	}
	if whole == nil || whole.Frame != 40 || whole.Players != 0 || whole.Entities == 0 || whole.State == nil {
		t.Errorf("whole state %+v", whole)
	}
	if len(requests) != 2 || requests[0] != (proto.FrameRequest{From: 44}) || requests[1] != (proto.FrameRequest{From: 45, Whole: true}) {
		t.Errorf("requests %+v", requests)
	}
	if m := msgs[last]; !m.CannotDecode || !strings.Contains(m.Err, "frame 20, which was not seen") {
		t.Errorf("frames coded from an unseen frame: %s", m.Summary())
	}

	var text bytes.Buffer
	for i := range msgs {
		if err := msgs[i].WriteText(&text, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"frames(40-42 lead 2)", "wholeState(frame 40)", "frameRequest(from 44)", "frameRequest(whole 45)",
		"event kind=connect client=5 isBot=false userinfo=\\name\\Late", "event kind=ping client=3 ping=48",
		"hash=0x1122334455667788", "botSlots=6", "input client=3 Aim=53352"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + text.String())
	}
	if _, err := json.Marshal(msgs); err != nil {
		t.Error(err)
	}
}
