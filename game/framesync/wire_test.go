package framesync

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// frameSet is a FrameSource over a few frames.
type frameSet []*Frame

func (s frameSet) Frame(n int32) (*Frame, bool) {
	for _, f := range s {
		if f.Number == n {
			return f, true
		}
	}
	return nil, false
}

// mkFrame returns frame n at time t with inputs for the clients in
// present, each moving by its number.
func mkFrame(n, t int32, present ...int) *Frame {
	f := &Frame{Number: n, Time: t}
	for _, c := range present {
		f.Present |= 1 << c
		f.Inputs[c] = bg.UserCmd{ServerTime: t, Aim: int32(c*1000) + n, RightMove: int32(c) - 3, Buttons: int32(n % 2), Weapon: 2}
	}
	return f
}

// allEvents is one event of every kind.
func allEvents() []Event {
	cfg := game.DefaultConfig()
	cfg.GameType, cfg.FriendlyFire, cfg.ExternalBotInput, cfg.FragLimit = bg.GTTeam, true, true, -7
	return []Event{
		{Kind: EventInit, Value: 123456, Seed: 0xfedcba9876543210, Restart: true},
		{Kind: EventConnect, Client: 63, IsBot: true, Text: `\name\Anvil\skill\4`},
		{Kind: EventBegin, Client: 0},
		{Kind: EventUserinfo, Client: 5, Text: `\name\Ünïcode\team\blue`},
		{Kind: EventCommand, Client: 7, Text: `say "hi there"`},
		{Kind: EventDisconnect, Client: 9},
		{Kind: EventAddBot, Text: "Brick", Value: 5},
		{Kind: EventConfig, Config: cfg},
		{Kind: EventPing, Client: 12, Value: MaxPing},
		{Kind: EventCommand, Client: 1, Text: strings.Repeat("x", MaxEventText)},
		{Kind: EventUserinfo, Client: 2, Text: ""},
	}
}

// roundTrips are messages AppendFrames writes and ReadFrames must read
// back as they were.
func roundTrips() []struct {
	name   string
	base   *Frame
	frames []*Frame
} {
	f1 := mkFrame(1, 50, 0, 1, 2)
	f1.Events = allEvents()
	f1.BotSlots = []int32{-1, 0, 63}
	f1.HasHash, f1.Hash = true, 0x0123456789abcdef
	f2 := mkFrame(2, 100, 0, 1, 2)
	f2.Inputs[1] = f1.Inputs[1] // unchanged but for the time
	f2.Inputs[1].ServerTime = 100
	f3 := mkFrame(3, 150, 0, 2, 63) // present changes
	f4 := mkFrame(4, 5000, 0, 2, 63)
	f4.HasHash = true // hash 0
	f5 := mkFrame(5, 5050)
	big := mkFrame(1000, 1<<30, 0, 1, 2, 3, 4, 5, 6, 7)
	next := mkFrame(1001, 1<<30+50, 0, 1, 2, 3, 4, 5, 6, 7)
	extreme := &Frame{Number: 77, Time: -1 << 31, Present: 1<<63 | 1}
	extreme.Inputs[0] = bg.UserCmd{ServerTime: -1 << 31, Aim: 0xffff, RightMove: -128, UpMove: 127, Buttons: 255, Weapon: 255}
	extreme.Inputs[63] = bg.UserCmd{ServerTime: -1 << 31, RightMove: 127, UpMove: -128}
	var run []*Frame
	for n := int32(1); n <= MaxMessageFrames; n++ {
		run = append(run, mkFrame(n, n*16, int(n%5), 10))
	}
	return []struct {
		name   string
		base   *Frame
		frames []*Frame
	}{
		{"one frame of everything", nil, []*Frame{f1}},
		{"a run with a time jump and a present change", nil, []*Frame{f1, f2, f3, f4, f5}},
		{"based on the frame before", f1, []*Frame{f2, f3}},
		{"based on a frame further back", f1, []*Frame{f3}},
		{"empty frame", nil, []*Frame{f5}},
		{"eight players", big, []*Frame{next}},
		{"extreme values", nil, []*Frame{extreme}},
		{"the longest message", nil, run},
	}
}

// encode writes a frames message.
func encode(tb testing.TB, base *Frame, frames []*Frame) []byte {
	tb.Helper()
	w := msg.NewWriter(make([]byte, 1<<18), msg.Huffman)
	if err := AppendFrames(w, base, frames); err != nil {
		tb.Fatal(err)
	}
	if err := w.Err(); err != nil {
		tb.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

// sameFrame reports the first field where a and b differ, or "".
func sameFrame(a, b *Frame) string {
	switch {
	case a.Number != b.Number:
		return "Number"
	case a.Time != b.Time:
		return "Time"
	case a.Present != b.Present:
		return "Present"
	case a.Inputs != b.Inputs:
		return "Inputs"
	case a.HasHash != b.HasHash || a.Hash != b.Hash:
		return "Hash"
	case len(a.BotSlots) != len(b.BotSlots) || len(a.BotSlots) > 0 && !reflect.DeepEqual(a.BotSlots, b.BotSlots):
		return "BotSlots"
	case len(a.Events) != len(b.Events) || len(a.Events) > 0 && !reflect.DeepEqual(a.Events, b.Events):
		return "Events"
	}
	return ""
}

func TestFramesRoundTrip(t *testing.T) {
	for _, tc := range roundTrips() {
		t.Run(tc.name, func(t *testing.T) {
			data := encode(t, tc.base, tc.frames)
			out := make([]Frame, MaxMessageFrames)
			var bases FrameSource
			if tc.base != nil {
				bases = frameSet{tc.base}
			}
			n, err := ReadFrames(msg.NewReader(data, msg.Huffman), bases, out)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tc.frames) {
				t.Fatalf("read %d frames, wrote %d", n, len(tc.frames))
			}
			for i, f := range tc.frames {
				if d := sameFrame(f, &out[i]); d != "" {
					t.Errorf("frame %d: %s differs:\nwrote %+v\nread  %+v", f.Number, d, f, &out[i])
				}
			}
			t.Logf("%d frames in %d bytes", n, len(data))
		})
	}
}

// Every field of game.Config makes the round trip in an EventConfig (a
// field added to Config and forgotten by its encoding fails here).
func TestConfigEventCarriesEveryField(t *testing.T) {
	var cfg game.Config
	v := reflect.ValueOf(&cfg).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int32:
			f.SetInt(int64(1000 + i))
		default:
			t.Fatalf("Config.%s is a %v: teach this test its values", v.Type().Field(i).Name, f.Kind())
		}
	}
	f := mkFrame(1, 50)
	f.Events = []Event{{Kind: EventConfig, Config: cfg}}
	out := make([]Frame, 1)
	if _, err := ReadFrames(msg.NewReader(encode(t, nil, []*Frame{f}), msg.Huffman), nil, out); err != nil {
		t.Fatal(err)
	}
	if got := out[0].Events[0].Config; got != cfg {
		t.Errorf("config read back %+v, wrote %+v", got, cfg)
	}
}

// Frames AppendFrames cannot write are refused before anything is
// written.
func TestAppendFramesRefuses(t *testing.T) {
	ok := mkFrame(10, 500, 1)
	withEvent := func(e Event) *Frame {
		f := mkFrame(10, 500)
		f.Events = []Event{e}
		return f
	}
	badTime := mkFrame(10, 500, 1)
	badTime.Inputs[1].ServerTime = 499
	badWidth := mkFrame(10, 500, 1)
	badWidth.Inputs[1].RightMove = 200
	badSlot := mkFrame(10, 500)
	badSlot.BotSlots = []int32{64}
	cfg := game.DefaultConfig()
	cfg.FragLimit = 1 << 40
	many := make([]*Frame, MaxMessageFrames+1)
	for i := range many {
		many[i] = mkFrame(int32(i+1), 50)
	}
	cases := []struct {
		name   string
		base   *Frame
		frames []*Frame
		want   string
	}{
		{"no frames", nil, nil, "1 to 64 frames"},
		{"too many frames", nil, many, "not 65"},
		{"frame 0", nil, []*Frame{mkFrame(0, 50)}, "out of range"},
		{"a gap", nil, []*Frame{ok, mkFrame(12, 550)}, "frame 12 follows frame 10"},
		{"base after", mkFrame(10, 500), []*Frame{ok}, "base frame 10"},
		{"base too far", mkFrame(1, 50), []*Frame{mkFrame(300, 500)}, "not 1 to 255"},
		{"input time", nil, []*Frame{badTime}, "server time 499"},
		{"input width", nil, []*Frame{badWidth}, "RightMove"},
		{"bot slot", nil, []*Frame{badSlot}, "bot slot 64"},
		{"event kind", nil, []*Frame{withEvent(Event{Kind: 0})}, "unknown kind 0"},
		{"event client", nil, []*Frame{withEvent(Event{Kind: EventBegin, Client: 64})}, "client 64"},
		{"text too long", nil, []*Frame{withEvent(Event{Kind: EventCommand, Text: strings.Repeat("a", MaxEventText+1)})}, "1024 bytes"},
		{"zero byte", nil, []*Frame{withEvent(Event{Kind: EventCommand, Text: "a\x00b"})}, "zero byte"},
		{"skill", nil, []*Frame{withEvent(Event{Kind: EventAddBot, Text: "x", Value: 6})}, "skill 6"},
		{"ping", nil, []*Frame{withEvent(Event{Kind: EventPing, Value: MaxPing + 1})}, "1000 ms"},
		{"config", nil, []*Frame{withEvent(Event{Kind: EventConfig, Config: cfg})}, "32 bits"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := msg.NewWriter(make([]byte, 1<<16), msg.Huffman)
			err := AppendFrames(w, tc.base, tc.frames)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if w.BitLen() != 0 {
				t.Errorf("%d bits written", w.BitLen())
			}
		})
	}
}

// ReadFrames refuses what AppendFrames would not write, with an error
// saying where.
func TestReadFramesRefuses(t *testing.T) {
	good := encode(t, nil, []*Frame{mkFrame(5, 250, 1)})
	based := encode(t, mkFrame(4, 200, 1), []*Frame{mkFrame(5, 250, 1)})
	header := func(number int32, count, base uint32) []byte {
		w := msg.NewWriter(make([]byte, 64), msg.Huffman)
		w.WriteLong(number)
		w.WriteBits(count, countBits)
		w.WriteBits(base, baseBits)
		w.WriteLong(50)
		return append([]byte(nil), w.Bytes()...)
	}
	withEventBits := func(write func(w *msg.Writer)) []byte {
		w := msg.NewWriter(make([]byte, 4096), msg.Huffman)
		w.WriteLong(1)
		w.WriteBits(1, countBits)
		w.WriteBits(0, baseBits)
		w.WriteLong(50)
		w.WriteBits(1, 1) // present unchanged (none)
		w.WriteBits(1, 1) // events
		w.WriteBits(1, eventsBits)
		write(w)
		w.WriteBits(0, 1)
		w.WriteBits(0, 1)
		return append([]byte(nil), w.Bytes()...)
	}
	cases := []struct {
		name  string
		data  []byte
		bases FrameSource
		room  int
		want  string
	}{
		{"empty", nil, nil, 4, "header"},
		{"cut short", good[:len(good)-2], nil, 4, "frame 5"},
		{"count 0", header(1, 0, 0), nil, 4, "of 0 frames"},
		{"count too big", header(1, MaxMessageFrames+1, 0), nil, 100, "of 65 frames"},
		{"no room", header(1, 3, 0), nil, 2, "room for 2"},
		{"frame 0", header(0, 1, 0), nil, 4, "frame number 0"},
		{"no base held", based, nil, 4, "does not hold"},
		{"base not that frame", based, frameSet{mkFrame(3, 150, 1)}, 4, "does not hold"},
		{"unknown event", withEventBits(func(w *msg.Writer) { w.WriteBits(15, kindBits) }), nil, 4, "unknown kind 15"},
		{"bad skill", withEventBits(func(w *msg.Writer) {
			w.WriteBits(uint32(EventAddBot), kindBits)
			w.WriteString("x")
			w.WriteBits(0, skillBits)
		}), nil, 4, "skill 0"},
		{"bad ping", withEventBits(func(w *msg.Writer) {
			w.WriteBits(uint32(EventPing), kindBits)
			w.WriteBits(3, clientBits)
			w.WriteBits(1023, pingBits)
		}), nil, 4, "1023 ms"},
		{"text past its cap", withEventBits(func(w *msg.Writer) {
			w.WriteBits(uint32(EventCommand), kindBits)
			w.WriteBits(3, clientBits)
			w.WriteBigString(strings.Repeat("y", MaxEventText+1))
		}), nil, 4, "cap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := ReadFrames(msg.NewReader(tc.data, msg.Huffman), tc.bases, make([]Frame, tc.room))
			if err == nil || n != 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("read %d frames, error %v; want one saying %q", n, err, tc.want)
			}
		})
	}
	if _, err := ReadFrames(msg.NewReader(based, msg.Huffman), nil, make([]Frame, 1)); !errors.Is(err, ErrNoBase) {
		t.Errorf("a message from a base not held: %v, want ErrNoBase", err)
	}
}

// FuzzReadFrames: ReadFrames never panics on any input, and what it
// reads writes again and reads back the same.
func FuzzReadFrames(f *testing.F) {
	bases := frameSet{mkFrame(1, 50, 0, 1, 2)}
	for _, tc := range roundTrips() {
		f.Add(encode(f, tc.base, tc.frames))
	}
	f.Add(encode(f, bases[0], []*Frame{mkFrame(2, 100, 0, 1, 2)}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	out := make([]Frame, MaxMessageFrames)
	again := make([]Frame, MaxMessageFrames)
	w := msg.NewWriter(make([]byte, 1<<20), msg.Huffman)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ReadFrames(msg.NewReader(data, msg.Huffman), bases, out)
		if err != nil {
			return
		}
		list := make([]*Frame, n)
		for i := range list {
			list[i] = &out[i]
		}
		var base *Frame
		if b, ok := bases.Frame(out[0].Number - 1); ok {
			base = b
		}
		w.Reset(w.Bytes()[:cap(w.Bytes())], msg.Huffman)
		if err := AppendFrames(w, base, list); err != nil {
			t.Fatalf("frames read cannot be written again: %v", err)
		}
		if err := w.Err(); err != nil {
			t.Fatalf("writing again: %v", err)
		}
		m, err := ReadFrames(msg.NewReader(w.Bytes(), msg.Huffman), bases, again)
		if err != nil || m != n {
			t.Fatalf("reading again: %d frames of %d, %v", m, n, err)
		}
		for i := 0; i < n; i++ {
			if d := sameFrame(&out[i], &again[i]); d != "" {
				t.Fatalf("frame %d: %s differs after writing again", out[i].Number, d)
			}
		}
	})
}

// FuzzReadWhole: the whole-state message's reader never panics, and a
// Sync refuses what it cannot load without changing.
func FuzzReadWhole(f *testing.F) {
	srv := newTestServer(f, "arena2", matchConfig(), RecorderConfig{HashEvery: 1})
	_, _ = srv.rec.AddBot("Anvil", 3)
	srv.eng.connect(f, `\name\Seed`)
	for i := 0; i < 40; i++ {
		srv.frame()
	}
	data, _ := wholeMessage(f, srv.rec, 40)
	f.Add(data)
	f.Add(data[:8])
	f.Add([]byte{})
	s := NewSync(NewSim(srv.rec.Game().Map(), game.DefaultConfig()), SyncConfig{})
	f.Fuzz(func(t *testing.T, data []byte) {
		before := s.Confirmed()
		loaded, err := s.LoadWhole(msg.NewReader(data, msg.Huffman))
		if err != nil && (loaded || s.Confirmed() != before) {
			t.Fatalf("a refused whole state changed the Sync: loaded %v, confirmed %d → %d", loaded, before, s.Confirmed())
		}
	})
}
