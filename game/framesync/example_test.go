package framesync

import (
	"encoding/hex"
	"testing"

	"tremor/bg"
	"tremor/net/msg"
)

// exampleFrames are docs/framesync.md's worked example: frames 41 and 42
// of two players, coded from frame 40.
func exampleFrames() (base *Frame, frames []*Frame) {
	base = &Frame{Number: 40, Time: 2000, Present: 1<<0 | 1<<3}
	base.Inputs[0] = bg.UserCmd{ServerTime: 2000, Aim: 16384, RightMove: 127, Weapon: 2}
	base.Inputs[3] = bg.UserCmd{ServerTime: 2000, Aim: 49152, RightMove: -127, Buttons: 1, Weapon: 3}
	f41 := &Frame{Number: 41, Time: 2050, Present: base.Present, Inputs: base.Inputs}
	f41.Inputs[0].ServerTime, f41.Inputs[3].ServerTime = 2050, 2050
	f41.Inputs[3].Aim = 49252
	f42 := &Frame{Number: 42, Time: 2100, Present: f41.Present, Inputs: f41.Inputs}
	f42.Inputs[0].ServerTime, f42.Inputs[3].ServerTime = 2100, 2100
	f42.Inputs[0].RightMove = 0
	f42.Events = []Event{{Kind: EventPing, Client: 3, Value: 48}}
	f42.HasHash, f42.Hash = true, 0x1122334455667788
	return base, []*Frame{f41, f42}
}

// exampleHex is the worked example's message as docs/framesync.md gives
// it, and exampleBits its length in bits.
const (
	exampleHex  = "dd00154d415fba19804b032507b222de995511cd884400"
	exampleBits = 178
)

// The worked example of docs/framesync.md codes to the bytes the document
// gives, and reads back.
func TestWorkedExample(t *testing.T) {
	base, frames := exampleFrames()
	w := msg.NewWriter(make([]byte, 256), msg.Huffman)
	if err := AppendFrames(w, base, frames); err != nil {
		t.Fatal(err)
	}
	got := hex.EncodeToString(w.Bytes())
	if got != exampleHex || w.BitLen() != exampleBits {
		t.Errorf("the example codes to %s (%d bits), the document says %s (%d bits)", got, w.BitLen(), exampleHex, exampleBits)
	}
	out := make([]Frame, 2)
	if _, err := ReadFrames(msg.NewReader(w.Bytes(), msg.Huffman), frameSet{base}, out); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if d := sameFrame(f, &out[i]); d != "" {
			t.Errorf("frame %d: %s differs", f.Number, d)
		}
	}
}
