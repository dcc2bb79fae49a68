package protospec

import (
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/msg"
)

// specFrames is an SvcFrames header as protocol.md 6.8 lays it out.
type specFrames struct {
	lead                int8
	number              int32
	count, base, period int
	time                int32
}

// readSpecFrames reads the first SvcFrames header of a plain server
// message body with protocol.md 6.1's and 6.8's layout and msg.Reader's
// primitives alone: the reliable acknowledge, server commands, then the
// operation's lead and the frames message's number, count, base, time
// and period. ok is false when the message has no SvcFrames before an
// operation the reading does not lay out.
func readSpecFrames(body []byte) (f specFrames, ok bool) {
	r := msg.NewReader(body, msg.Huffman)
	r.ReadRawBits(proto.ReliableAckBits)
	for r.Err() == nil {
		switch r.ReadUint8() {
		case proto.SvcNop:
		case proto.SvcServerCommand:
			r.ReadLong()
			r.ReadBigString()
		case proto.SvcFrames:
			f.lead = int8(uint8(r.ReadBits(8)))
			f.number = r.ReadLong()
			f.count = int(r.ReadBits(8))
			f.base = int(r.ReadBits(8))
			f.time = r.ReadLong()
			if f.count > 1 {
				f.period = int(r.ReadBits(16))
			}
			return f, r.Err() == nil
		default:
			return f, false
		}
	}
	return f, false
}

// readSpecRequest reads the ClcFrameRequest of a plain client message
// body with protocol.md 6.6's and 6.8's layout: the 30-bit header,
// client commands, then the request's from and whole. ok is false when
// the message has none before its usercmds.
func readSpecRequest(body []byte) (req proto.FrameRequest, ok bool) {
	r := msg.NewReader(body, msg.Huffman)
	r.ReadRawBits(1 + proto.ServerIDBits + proto.MessageAckBits + proto.ReliableAckBits)
	for r.Err() == nil {
		switch r.ReadUint8() {
		case proto.ClcNop:
		case proto.ClcClientCommand:
			r.ReadLong()
			r.ReadString()
		case proto.ClcFrameRequest:
			req.From = r.ReadLong()
			req.Whole = r.ReadBits(1) == 1
			return req, r.Err() == nil
		default:
			return req, false
		}
	}
	return req, false
}

// TestFrameSyncAsSpecified reads the frame-sync vectors by protocol.md
// 6.8's text and checks them against the inspector's decoding (the
// frames' own decoder) and the rules the section states: every SvcFrames
// header and every ClcFrameRequest, read with the document's layout,
// says what was decoded; the client's input in every frame is the
// usercmd it sent stamped with that frame's time, or — the missing-input
// rule — its input of the frame before again, or the zero command before
// it had any; a request for frames is answered from that frame, coded
// from nothing, and one for a whole state with that frame's state. The
// vectors must show each case.
func TestFrameSyncAsSpecified(t *testing.T) {
	s, err := frameSyncSession()
	if err != nil {
		t.Fatal(err)
	}
	me := -1
	inputs := map[int32]bg.UserCmd{} // the client's input in each frame decoded
	var headers, requests, placed, repeated, zero, wholes, bases int
	var asked *proto.FrameRequest
	answered := 0
	for i, r := range s.records {
		if r.body == nil {
			continue
		}
		var ops []inspect.Op
		for _, m := range r.msgs {
			if m.Kind == inspect.KindMessage {
				ops = m.Ops
			}
		}
		if r.dir == inspect.ClientToServer {
			var want *proto.FrameRequest
			for _, op := range ops {
				if op.FrameRequest != nil {
					want = op.FrameRequest
				}
			}
			got, ok := readSpecRequest(r.plain)
			if ok != (want != nil) || ok && got != *want {
				t.Errorf("packet %d: frame request %+v (%v) by the layout, %+v decoded", i+1, got, ok, want)
			}
			if ok {
				requests++
				asked = &got
			}
			continue
		}
		for _, op := range ops {
			if op.Gamestate != nil {
				me = int(op.Gamestate.ClientNum)
			}
			if op.WholeState != nil {
				wholes++
				if asked != nil && asked.Whole {
					if op.WholeState.Frame != asked.From {
						t.Errorf("packet %d: whole state of frame %d for a request of frame %d", i+1, op.WholeState.Frame, asked.From)
					}
					asked, answered = nil, answered+1
				}
			}
			if op.Frames == nil {
				continue
			}
			fs := op.Frames
			f, ok := readSpecFrames(r.plain)
			want := specFrames{lead: fs.Lead, number: fs.Frames[0].Number, count: len(fs.Frames), time: fs.Frames[0].Time}
			if fs.Base != 0 {
				want.base = int(want.number - fs.Base)
				bases++
			}
			if len(fs.Frames) > 1 {
				want.period = int(fs.Frames[1].Time - fs.Frames[0].Time)
			}
			if !ok || f != want {
				t.Errorf("packet %d: frames header %+v (%v) by the layout, %+v decoded", i+1, f, ok, want)
			}
			headers++
			if asked != nil && !asked.Whole {
				if fs.Base != 0 || fs.Frames[0].Number != asked.From {
					t.Errorf("packet %d: frames %d on, base %d, for a request of frames from %d", i+1, fs.Frames[0].Number, fs.Base, asked.From)
				}
				asked, answered = nil, answered+1
			}
			// The client's inputs: first copies only (frames ride again).
			for k := range fs.Frames {
				fr := &fs.Frames[k]
				var in *bg.UserCmd
				for j := range fr.Inputs {
					if fr.Inputs[j].Client == me {
						in = &fr.Inputs[j].Cmd
					}
				}
				if in == nil {
					continue // not in the game yet
				}
				if in.ServerTime != fr.Time {
					t.Fatalf("packet %d: frame %d: the client's input has time %d, not the frame's %d", i+1, fr.Number, in.ServerTime, fr.Time)
				}
				if old, seen := inputs[fr.Number]; seen {
					if old != *in {
						t.Errorf("packet %d: frame %d: the client's input %+v, %+v in an earlier copy", i+1, fr.Number, *in, old)
					}
					continue
				}
				inputs[fr.Number] = *in
				sent, isSent := s.fs.sent[fr.Time]
				prev, hasPrev := inputs[fr.Number-1]
				rep := prev
				rep.ServerTime = fr.Time
				switch {
				case isSent && *in == sent:
					placed++
				case hasPrev && *in == rep && prev != (bg.UserCmd{ServerTime: prev.ServerTime}):
					repeated++
				case *in == (bg.UserCmd{ServerTime: fr.Time}):
					zero++
				default:
					t.Errorf("packet %d: frame %d: the client's input %+v is neither what it sent for the frame (%+v) nor its last one again (%+v)",
						i+1, fr.Number, *in, sent, rep)
				}
			}
		}
	}
	t.Logf("%d frames headers (%d with a base), %d requests, %d whole states; the client's inputs: %d placed, %d repeated, %d zero",
		headers, bases, requests, wholes, placed, repeated, zero)
	if headers < 6 || bases == 0 || requests != 2 || answered != 2 || wholes != 2 || placed == 0 || repeated == 0 || zero == 0 {
		t.Errorf("%d frames headers (%d with a base), %d requests (%d answered), %d whole states; the client's inputs: %d placed, %d repeated, %d zero",
			headers, bases, requests, answered, wholes, placed, repeated, zero)
	}
}
