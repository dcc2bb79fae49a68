package proto

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/net/cmdargs"
	"tremor/net/msg"
	"tremor/net/reliable"
)

func randomEntity(rng *rand.Rand, n int32) bg.EntityState {
	return bg.EntityState{
		Number: n, EType: int32(rng.IntN(5)),
		Pos: bg.Trajectory{Type: int32(rng.IntN(5)), Time: rng.Int32N(1 << 20),
			Base:  bg.Vec{X: rng.Int32N(200000) - 100000, Y: rng.Int32N(100000)},
			Delta: bg.Vec{X: rng.Int32N(20000) - 10000, Y: rng.Int32N(20000) - 10000}},
		Aim: bg.EntityAim(rng.Int32N(65536)), Event: rng.Int32N(30), Weapon: rng.Int32N(6),
	}
}

// randomList returns a sorted entity list derived from prev: some removed,
// some changed, some new.
func randomList(rng *rand.Rand, prev []bg.EntityState) []bg.EntityState {
	var out []bg.EntityState
	for _, e := range prev {
		switch rng.IntN(6) {
		case 0: // removed
		case 1, 2:
			e.Pos.Base.X += rng.Int32N(300) - 150
			e.Aim = bg.EntityAim(rng.Int32N(65536))
			out = append(out, e)
		default:
			out = append(out, e)
		}
	}
	for k := rng.IntN(6); k > 0; k-- {
		out = append(out, randomEntity(rng, rng.Int32N(EntityEnd)))
	}
	slices.SortFunc(out, func(a, b bg.EntityState) int { return int(a.Number - b.Number) })
	out = slices.CompactFunc(out, func(a, b bg.EntityState) bool { return a.Number == b.Number })
	if len(out) > MaxSnapshotEntities {
		out = out[:MaxSnapshotEntities]
	}
	return out
}

func TestSnapshotRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var gs Gamestate
	gs.Reset()
	for i := 0; i < 40; i++ {
		n := rng.IntN(EntityEnd)
		gs.Baselines[n] = randomEntity(rng, int32(n))
	}
	buf := make([]byte, 1<<16)
	var prev []bg.EntityState
	var prevPS bg.PlayerState
	var prevStep int32
	var prevFlags uint8
	for iter := 0; iter < 300; iter++ {
		ents := randomList(rng, prev)
		ps := prevPS
		ps.CommandTime += 50
		ps.Origin.X += rng.Int32N(100)
		full := iter%10 == 0
		fromEnts, fromPS := prev, &prevPS
		if full {
			fromEnts, fromPS = nil, nil
		}
		w := msg.NewWriter(buf, msg.Huffman)
		h := SnapshotHeader{ServerTime: int32(iter * 50), DeltaNum: 1, Flags: SnapRateDelayed, BaseTime: int32(iter*50 - 50), BaseStep: prevStep, BaseFlags: prevFlags}
		if iter%5 == 2 {
			h.Flags |= SnapServerCount // the flags change now and then
		}
		if iter%7 == 3 {
			h.BaseTime -= 300 // too far back for an increment or a step: the time goes whole
		}
		h.Step = SnapshotStep(h.ServerTime, h.BaseTime, h.DeltaNum, prevStep)
		WriteSnapshot(w, h, fromPS, &ps, fromEnts, ents, &gs.Baselines)
		w.WriteUint8(SvcEOF)
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		if op := r.ReadUint8(); op != SvcSnapshot {
			t.Fatalf("op %d", op)
		}
		gh := ReadSnapshotHeader(r)
		// Every 50 ms: the expected time, 2 bits (the step is 50 from the
		// first on); 350 ms: whole.
		if gh.TimeExpected != (iter%7 != 3) || gh.StepSame != (iter > 0 && h.Step == prevStep) || gh.FlagsSame != (h.Flags == prevFlags) {
			t.Fatalf("iter %d: expected time %v, step the base's %v, flags the base's %v", iter, gh.TimeExpected, gh.StepSame, gh.FlagsSame)
		}
		gh.Resolve(h.BaseTime, prevStep, prevFlags)
		if gh.ServerTime != h.ServerTime || gh.DeltaNum != h.DeltaNum || gh.Flags != h.Flags || gh.Step != 50 ||
			(gh.TimeIncrement != 0) != (iter%7 != 3) {
			t.Fatalf("header %+v, want %+v", gh, h)
		}
		var gotPS bg.PlayerState
		got := ReadSnapshotBody(r, gh, fromPS, fromEnts, &gs.Baselines, &gotPS, make([]bg.EntityState, 0, MaxSnapshotEntities))
		if r.ReadUint8() != SvcEOF || r.Err() != nil {
			t.Fatalf("iter %d: not aligned at the end: %v", iter, r.Err())
		}
		if gotPS != ps || !slices.Equal(got, ents) {
			t.Fatalf("iter %d: decoded %d entities, want %d", iter, len(got), len(ents))
		}
		prev, prevPS, prevStep, prevFlags = ents, ps, h.Step, h.Flags
	}
}

// An unusable base is still read to the end, so what follows stays aligned.
func TestSnapshotUnusableBaseStaysAligned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var gs Gamestate
	gs.Reset()
	prev := randomList(rng, nil)
	ents := randomList(rng, prev)
	ps := bg.PlayerState{CommandTime: 99}
	w := msg.NewWriter(make([]byte, 1<<16), msg.Huffman)
	WriteSnapshot(w, SnapshotHeader{DeltaNum: 3}, &bg.PlayerState{}, &ps, prev, ents, &gs.Baselines)
	WriteServerCommand(w, 7, "print \"after\"")
	r := msg.NewReader(w.Bytes(), msg.Huffman)
	r.ReadUint8()
	ReadSnapshotHeader(r)
	var junk bg.PlayerState
	ReadSnapshotBody(r, SnapshotHeader{}, nil, nil, &gs.Baselines, &junk, make([]bg.EntityState, 0, MaxSnapshotEntities))
	if op := r.ReadUint8(); op != SvcServerCommand {
		t.Fatalf("next op %d, err %v", op, r.Err())
	}
	if seq, text := ReadServerCommand(r); seq != 7 || text != "print \"after\"" {
		t.Fatalf("%d %q", seq, text)
	}
}

// An entity list whose numbers run past the last entity number, or
// whose gap code is longer than any gap below msg.MaxEntities, is an
// error, not a panic or a wrapped number.
func TestPacketEntitiesRejectsBadNumbers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(w *msg.Writer)
		want  string
	}{
		{"past the end", func(w *msg.Writer) {
			writeEntityGap(w, 1000)
			bg.EntityStateTable.WriteEntity(w, nil, &bg.EntityState{EType: 1}, 0)
			writeEntityGap(w, 30) // 1000 + 1 + 30 = 1031
			bg.EntityStateTable.WriteEntity(w, nil, &bg.EntityState{EType: 1}, 0)
			w.WriteRawBits(0, 1)
		}, "beyond"},
		{"long gap code", func(w *msg.Writer) {
			w.WriteRawBits(1, 1)
			w.WriteRawBits(0, 12)
			w.WriteRawBits(1, 1)
		}, "gap code longer"},
	} {
		w := msg.NewWriter(make([]byte, 256), msg.Huffman)
		tc.write(w)
		var gs Gamestate
		gs.Reset()
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		ReadPacketEntities(r, nil, &gs.Baselines, nil, 0)
		if r.Err() == nil || !errors.Is(r.Err(), ErrEntityOrder) || !strings.Contains(r.Err().Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrEntityOrder with %q", tc.name, r.Err(), tc.want)
		}
	}
}

func TestGamestateRoundTrip(t *testing.T) {
	var gs Gamestate
	gs.Reset()
	gs.CommandSequence = 42
	gs.Configstrings[bg.CSServerInfo] = `\sv_hostname\Tremor\mapname\arena1`
	gs.Configstrings[bg.CSPlayers+3] = `\n\Ana\t\0`
	gs.Configstrings[bg.MaxConfigstrings-1] = strings.Repeat("x", 5000)
	gs.Baselines[100] = bg.EntityState{Number: 100, EType: bg.ETItem, ModelIndex: 3, Pos: bg.Trajectory{Base: bg.Vec{X: 5, Y: 6}}}
	gs.ClientNum = 3
	gs.ChecksumFeed = -123456
	w := msg.NewWriter(make([]byte, 1<<15), msg.Huffman)
	WriteGamestate(w, &gs)
	r := msg.NewReader(w.Bytes(), msg.Huffman)
	if r.ReadUint8() != SvcGamestate {
		t.Fatal("op")
	}
	var got Gamestate
	ReadGamestate(r, &got)
	if r.Err() != nil || got != gs {
		t.Fatalf("gamestate differs: %v", r.Err())
	}
}

func TestMoveRoundTrip(t *testing.T) {
	cmds := []bg.UserCmd{
		{ServerTime: 1000, RightMove: 127, Aim: 300, Weapon: bg.WPMachinegun},
		{ServerTime: 1016, RightMove: 127, Aim: 310, Buttons: bg.ButtonAttack, Weapon: bg.WPMachinegun},
		{ServerTime: 1400, UpMove: -127, Weapon: bg.WPRailgun},
	}
	base := UsercmdBase(&bg.PlayerState{CommandTime: 880, Aim: 290, Weapon: bg.WPMachinegun, Origin: bg.Vec{X: 5}})
	if base != (bg.UserCmd{ServerTime: 880, Aim: 290, Weapon: bg.WPMachinegun}) {
		t.Fatalf("UsercmdBase = %+v", base)
	}
	key := UsercmdKey(77, 1234, "cs 3 \"x\"")
	write := func(base *bg.UserCmd) []byte {
		w := msg.NewWriter(make([]byte, 512), msg.Huffman)
		WriteClientHeader(w, ClientHeader{ServerID: 9, MessageAcknowledge: 1234, ReliableAcknowledge: 5})
		WriteClientCommand(w, 6, "say hi")
		WriteMove(w, key, base, cmds, true)
		w.WriteUint8(ClcEOF)
		return w.Bytes()
	}
	// read reads the message up to the move and returns the reader.
	read := func(b []byte) *msg.Reader {
		r := msg.NewReader(b, msg.Huffman)
		if h := ReadClientHeader(r); h != (ClientHeader{9, 1234, 5}) {
			t.Fatalf("header %+v", h)
		}
		if r.ReadUint8() != ClcClientCommand {
			t.Fatal("op")
		}
		if seq, text := ReadClientCommand(r); seq != 6 || text != "say hi" {
			t.Fatalf("%d %q", seq, text)
		}
		if r.ReadUint8() != ClcMoveNoDelta {
			t.Fatal("op")
		}
		return r
	}
	zero, based := write(nil), write(&base)
	var out [MaxPacketUsercmds]bg.UserCmd
	for _, tc := range []struct {
		name string
		msg  []byte
		base *bg.UserCmd // what the reader has
	}{
		{"zero base", zero, nil},
		{"zero base, reader has one", zero, &base},
		{"based", based, &base},
	} {
		r := read(tc.msg)
		n := ReadMove(r, key, tc.base, &out)
		if n != 3 || !slices.Equal(out[:n], cmds) || r.ReadUint8() != ClcEOF || r.Err() != nil {
			t.Errorf("%s: moves %v err %v", tc.name, out[:n], r.Err())
		}
	}
	// The based packet is shorter: the first command's time, aim and
	// weapon go as small differences from the base.
	if len(based) >= len(zero) {
		t.Errorf("based packet %d bytes, zero-based %d", len(based), len(zero))
	}
	// A reader without the base cannot read a based packet; one with
	// another base reads other commands.
	r := read(based)
	if n := ReadMove(r, key, nil, &out); n != 0 || !errors.Is(r.Err(), ErrNoUsercmdBase) {
		t.Errorf("no base: %d commands, err %v", n, r.Err())
	}
	other := base
	other.Aim++
	r = read(based)
	if n := ReadMove(r, key, &other, &out); n == 3 && slices.Equal(out[:n], cmds) {
		t.Error("another base decoded the same commands")
	}
	// A wrong key gives different commands.
	r = read(zero)
	if n := ReadMove(r, key^0x1234, nil, &out); n == 3 && slices.Equal(out[:n], cmds) {
		t.Fatal("a wrong key decoded the same commands")
	}
	// Too many commands is an error.
	w := msg.NewWriter(make([]byte, 64), msg.Huffman)
	w.WriteUint8(MaxPacketUsercmds + 1)
	r = msg.NewReader(w.Bytes(), msg.Huffman)
	if ReadMove(r, 0, &base, &out) != 0 || r.Err() == nil {
		t.Fatal("accepted too many commands")
	}
}

func TestScrambleRoundTrip(t *testing.T) {
	w := msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{ServerID: 0x7fff1234, MessageAcknowledge: 99999, ReliableAcknowledge: 3})
	WriteClientCommand(w, 4, "say scramble me please")
	plain := append([]byte(nil), w.Bytes()...)
	body := append([]byte(nil), plain...)
	ScrambleClientMessage(body, 0xabcdef, "print \"x\"")
	if bytes.Equal(body, plain) {
		t.Fatal("client message not scrambled")
	}
	// The header stays readable while scrambled.
	if h := ReadClientHeader(msg.NewReader(body, msg.Huffman)).Resolve(0x7fff1234, 100000, 3); h.ServerID != 0x7fff1234 || h.MessageAcknowledge != 99999 || h.ReliableAcknowledge != 3 {
		t.Fatalf("header unreadable: %+v", h)
	}
	ScrambleClientMessage(body, 0xabcdef, "print \"x\"")
	if !bytes.Equal(body, plain) {
		t.Fatal("client message did not unscramble")
	}

	w.Reset(make([]byte, 1024), msg.Huffman)
	w.WriteLong(12)
	WriteServerCommand(w, 13, "chat \"Ana: hello\"")
	plain = append([]byte(nil), w.Bytes()...)
	body = append([]byte(nil), plain...)
	ScrambleServerMessage(body, 5, 77, "say hello")
	if bytes.Equal(body, plain) {
		t.Fatal("server message not scrambled")
	}
	ScrambleServerMessage(body, 5, 77, "say hello")
	if !bytes.Equal(body, plain) {
		t.Fatal("server message did not unscramble")
	}
	// Too short to hold the prefix: left alone, no panic.
	short := []byte{1}
	ScrambleClientMessage(short, 1, "")
	ScrambleServerMessage(short[:0], 1, 1, "")
}

func TestConfigstringCommands(t *testing.T) {
	cases := []struct {
		name  string
		value string
		ops   []string
	}{
		{"short", `\n\Ana`, []string{"cs"}},
		{"empty", "", []string{"cs"}},
		{"one chunk exactly", strings.Repeat("a", bigChunk), []string{"bcs0", "bcs2"}},
		{"two chunks", strings.Repeat("b", bigChunk+1), []string{"bcs0", "bcs2"}},
		{"four chunks", strings.Repeat("c", 3*bigChunk+5), []string{"bcs0", "bcs1", "bcs1", "bcs2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmds := ConfigstringCommands(17, c.value)
			var big BigConfigstring
			var got string
			for i, cmd := range cmds {
				if len(cmd) > msg.MaxStringChars {
					t.Fatalf("command %d is %d bytes", i, len(cmd))
				}
				a := cmdargs.Tokenize(cmd)
				if a.Argv(0) != c.ops[i] || a.Argv(1) != "17" {
					t.Fatalf("command %d: %q", i, cmd)
				}
				if a.Argv(0) == "cs" {
					got = a.Argv(2)
					continue
				}
				idx, v, done, err := big.Piece(a.Argv(0), a.Argv(1), a.Argv(2))
				if err != nil {
					t.Fatal(err)
				}
				if done {
					if idx != 17 {
						t.Fatalf("index %d", idx)
					}
					got = v
				}
			}
			if len(cmds) != len(c.ops) || got != c.value {
				t.Fatalf("%d commands, value of %d bytes", len(cmds), len(got))
			}
		})
	}
	var big BigConfigstring
	if _, _, _, err := big.Piece("bcs1", "3", "x"); err == nil {
		t.Fatal("bcs1 without bcs0 accepted")
	}
	if _, _, _, err := big.Piece("bcs0", "-1", "x"); err == nil {
		t.Fatal("negative index accepted")
	}
	big.Piece("bcs0", "3", strings.Repeat("x", MaxBigConfigstring))
	if _, _, _, err := big.Piece("bcs1", "3", "y"); err == nil {
		t.Fatal("over-long configstring accepted")
	}
}

func TestHashKey(t *testing.T) {
	if HashKey("", 32) != 0 {
		t.Fatal("empty string hash")
	}
	if HashKey("abc", 32) == HashKey("abd", 32) {
		t.Fatal("hash ignores a byte")
	}
	long := strings.Repeat("z", 40)
	if HashKey(long, 32) != HashKey(long[:32]+"different tail", 32) {
		t.Fatal("hash reads past maxlen")
	}
}

func TestCountChanged(t *testing.T) {
	a := []bg.EntityState{{Number: 1}, {Number: 3, EType: 1}, {Number: 5}}
	b := []bg.EntityState{{Number: 1}, {Number: 3, EType: 2}, {Number: 4}, {Number: 9}}
	cases := []struct {
		name     string
		from, to []bg.EntityState
		want     int
	}{
		{"same", a, a, 0},
		{"from nothing", nil, a, 3},
		{"to nothing", a, nil, 3},
		{"changed, removed, added", a, b, 4}, // 3 changed, 5 removed, 4 and 9 added
	}
	for _, c := range cases {
		if got := CountChanged(c.from, c.to); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSystemInfo(t *testing.T) {
	for _, tc := range []struct {
		id       int32
		scramble bool
	}{{0, false}, {123456, true}, {-5, false}, {2147483647, true}} {
		id, scramble := ParseSystemInfo(FormatSystemInfo(tc.id, tc.scramble))
		if id != tc.id || scramble != tc.scramble {
			t.Errorf("round trip of %d, %v: %d, %v", tc.id, tc.scramble, id, scramble)
		}
	}
	if id, scramble := ParseSystemInfo(`\sv_serverid\junk\sv_scramble\yes`); id != 0 || scramble {
		t.Errorf("bad values read as %d, %v", id, scramble)
	}
}

// TestTimeRun: the later commands' times go as a run when each grew by
// step or step+1 ms; the run reads back, and costs fewer bits than the
// times coded each in its delta.
func TestTimeRun(t *testing.T) {
	cmds := func(times ...int32) []bg.UserCmd {
		out := make([]bg.UserCmd, len(times))
		for i, tm := range times {
			out[i] = bg.UserCmd{ServerTime: tm, Aim: 100 + int32(i), RightMove: 127, Weapon: bg.WPMachinegun}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		cmds  []bg.UserCmd
		run   bool
		step  uint32
		width int
	}{
		{"60 frames a second", cmds(1000, 1016, 1033, 1050), true, 16, 1},
		{"steady", cmds(500, 508, 516, 524, 532), true, 8, 0},
		{"jittery", cmds(1000, 1018, 1032, 1049, 1068), true, 14, 3},
		{"two commands: no run", cmds(1000, 1016), false, 0, 0},
		{"a hitch", cmds(1000, 1016, 1066, 1083), false, 0, 0},
		{"spread of 8", cmds(1000, 1010, 1028), false, 0, 0},
		{"step too long", cmds(1000, 1064, 1128), false, 0, 0},
		{"steps of 63 and 64", cmds(1000, 1063, 1127), true, 63, 1},
		{"steps of 62 and 63", cmds(1000, 1062, 1125), true, 62, 1},
		{"same time", cmds(1000, 1000, 1001), true, 0, 1},
		{"backwards", cmds(1000, 990, 1006), false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, step, width := timeRun(tc.cmds)
			if run != tc.run || step != tc.step || width != tc.width {
				t.Fatalf("timeRun = %v %d %d, want %v %d %d", run, step, width, tc.run, tc.step, tc.width)
			}
			base := UsercmdBase(&bg.PlayerState{CommandTime: tc.cmds[0].ServerTime - 40, Weapon: bg.WPMachinegun})
			w := msg.NewWriter(make([]byte, 512), msg.Huffman)
			WriteMove(w, 99, &base, tc.cmds, false)
			r := msg.NewReader(w.Bytes(), msg.Huffman)
			if r.ReadUint8() != ClcMove {
				t.Fatal("op")
			}
			var out [MaxPacketUsercmds]bg.UserCmd
			if n := ReadMove(r, 99, &base, &out); n != len(tc.cmds) || !slices.Equal(out[:n], tc.cmds) || r.Err() != nil {
				t.Fatalf("read %v, err %v", out[:n], r.Err())
			}
			if !tc.run {
				return
			}
			// The same commands with every time in its delta.
			each := msg.NewWriter(make([]byte, 512), msg.Huffman)
			from := &base
			for i := range tc.cmds {
				bg.UserCmdTable.WriteDeltaUsercmd(each, 99, from, &tc.cmds[i])
				from = &tc.cmds[i]
			}
			head := msg.NewWriter(make([]byte, 16), msg.Huffman)
			head.WriteUint8(ClcMove)
			head.WriteUint8(uint8(len(tc.cmds)))
			inRun := w.BitLen() - head.BitLen() - 1 // after the based bit: the run and the deltas
			if inRun >= each.BitLen() {
				t.Errorf("with the run %d bits, each time in its delta %d", inRun, each.BitLen())
			}
		})
	}
}

// SnapshotStep: the time per message when it divides evenly and fits,
// else the fallback.
func TestSnapshotStep(t *testing.T) {
	for _, tc := range []struct {
		now, base int32
		delta     uint8
		fallback  int32
		want      int32
	}{
		{1050, 1000, 1, 7, 50},
		{1100, 1000, 2, 7, 50},
		{1100, 1000, 3, 7, 7},   // 33.3 ms: not even
		{1300, 1000, 2, 7, 7},   // 150 ms: past MaxStep
		{1127, 1000, 1, 7, 127}, // MaxStep
		{1000, 1000, 1, 7, 7},   // no time passed
		{900, 1000, 1, 7, 7},    // backwards
		{1050, 0, 0, 7, 7},      // a full snapshot
	} {
		if got := SnapshotStep(tc.now, tc.base, tc.delta, tc.fallback); got != tc.want {
			t.Errorf("SnapshotStep(%d, %d, %d, %d) = %d, want %d", tc.now, tc.base, tc.delta, tc.fallback, got, tc.want)
		}
	}
}

// TestSnapshotHeaderBits: a delta snapshot from the message before with
// its base's flags spends 2 bits on deltaNum and flags; any other
// deltaNum or changed flags cost more and still read back.
func TestSnapshotHeaderBits(t *testing.T) {
	var gs Gamestate
	for _, tc := range []struct {
		name     string
		deltaNum uint8
		flags    uint8
		bits     int // of deltaNum and flags, at most
	}{
		{"the usual delta", 1, SnapServerCount, 2},
		{"flags changed", 1, SnapServerCount | SnapRateDelayed, 1 + 1 + SnapFlagBits},
		{"an older base", 3, SnapServerCount, 1 + 8 + 1},
		{"full", 0, SnapServerCount, 1 + 8 + SnapFlagBits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := SnapshotHeader{ServerTime: 1000, DeltaNum: tc.deltaNum, Flags: tc.flags, Step: 50,
				BaseTime: 1000 - 50*int32(tc.deltaNum), BaseStep: 50, BaseFlags: SnapServerCount}
			w := msg.NewWriter(make([]byte, 256), msg.Huffman)
			WriteSnapshot(w, h, nil, &bg.PlayerState{}, nil, nil, &gs.Baselines)
			r := msg.NewReader(w.Bytes(), msg.Huffman)
			r.ReadUint8()
			start := r.BitPos()
			var marks [2]int
			obs := observerFunc(func(e Event) { marks = e.Marks })
			got := readSnapshotHeader(r, obs)
			if n := marks[1] - start; n > tc.bits {
				t.Errorf("deltaNum and flags in %d bits, want at most %d", n, tc.bits)
			}
			got.Resolve(h.BaseTime, h.BaseStep, h.BaseFlags)
			if got.DeltaNum != h.DeltaNum || got.Flags != h.Flags || got.ServerTime != h.ServerTime || r.Err() != nil {
				t.Fatalf("read %+v (%v), want %+v", got, r.Err(), h)
			}
		})
	}
}

// observerFunc is an Observer calling a function.
type observerFunc func(Event)

func (f observerFunc) Observe(e Event) { f(e) }

// writeStandIn and readStandIn are the test handlers' stand-in for a
// frames or whole-state message: a byte count and the bytes.
func writeStandIn(w *msg.Writer, b []byte) {
	w.WriteUint8(uint8(len(b)))
	w.WriteData(b)
}

func readStandIn(r *msg.Reader) error {
	n := int(r.ReadUint8())
	for i := 0; i < n; i++ {
		r.ReadUint8()
	}
	return r.Err()
}

// frameHandler takes the frame-sync operations of a parse.
type frameHandler struct {
	fuzzHandler
	lead   int8
	frames []byte
	whole  []byte
	req    []FrameRequest
}

func readStandInInto(r *msg.Reader, dst *[]byte) error {
	n := int(r.ReadUint8())
	*dst = make([]byte, n)
	r.ReadData(*dst)
	return r.Err()
}

func (h *frameHandler) Frames(r *msg.Reader, lead int8) error {
	h.lead = lead
	return readStandInInto(r, &h.frames)
}
func (h *frameHandler) WholeState(r *msg.Reader) error { return readStandInInto(r, &h.whole) }
func (h *frameHandler) FrameRequest(req FrameRequest) error {
	h.req = append(h.req, req)
	return nil
}

func TestFrameSyncOperations(t *testing.T) {
	w := msg.NewWriter(make([]byte, 1<<14), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteFramesHeader(w, -3)
	writeStandIn(w, []byte{1, 2, 3})
	w.WriteUint8(SvcWholeState)
	writeStandIn(w, []byte{4, 5})
	w.WriteUint8(SvcEOF)
	h := &frameHandler{fuzzHandler: fuzzHandler{t: t}}
	var r msg.Reader
	if err := ParseServerMessage(&r, w.Bytes(), 1, h, nil); err != nil {
		t.Fatal(err)
	}
	if h.lead != -3 || !bytes.Equal(h.frames, []byte{1, 2, 3}) || !bytes.Equal(h.whole, []byte{4, 5}) {
		t.Fatalf("lead %d frames %v whole %v", h.lead, h.frames, h.whole)
	}

	w.Reset(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteFrameRequest(w, FrameRequest{From: 70000, Whole: true})
	WriteFrameRequest(w, FrameRequest{From: -1})
	w.WriteUint8(ClcEOF)
	if err := ParseClientMessage(&r, w.Bytes(), h, nil); err != nil {
		t.Fatal(err)
	}
	if want := []FrameRequest{{70000, true}, {-1, false}}; !slices.Equal(h.req, want) {
		t.Fatalf("requests %v, want %v", h.req, want)
	}

	// Refused: a body that runs past the message's end, and the
	// operations sent to a handler that takes no frames.
	w.Reset(make([]byte, 1024), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteFramesHeader(w, 0)
	w.WriteUint8(200)
	if err := ParseServerMessage(&r, w.Bytes(), 1, h, nil); err == nil {
		t.Error("a frames body past the message's end was read")
	}
	w.Reset(make([]byte, 1024), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteFramesHeader(w, 0)
	writeStandIn(w, []byte{1})
	w.WriteUint8(SvcEOF)
	if err := ParseServerMessage(&r, w.Bytes(), 1, &noFrames{t: t}, nil); !errors.Is(err, ErrBadOp) {
		t.Errorf("frames to a snapshot client: %v, want ErrBadOp", err)
	}
}

// noFrames is a server-message handler without FrameHandler.
type noFrames struct{ t *testing.T }

func (h *noFrames) ReliableAcknowledge(uint32, int32, []byte) (bool, error) { return false, nil }
func (h *noFrames) ServerCommand(int32, string) error                       { return nil }
func (h *noFrames) GamestateBuffer() *Gamestate                             { return new(Gamestate) }
func (h *noFrames) Gamestate(*Gamestate, error) error                       { return nil }
func (h *noFrames) SnapshotBase(SnapshotHeader) SnapshotBase                { return SnapshotBase{} }
func (h *noFrames) Snapshot(SnapshotBase, []bg.EntityState, error) error    { return nil }
func (h *noFrames) DownloadBuffer() *[DownloadBlockSize]byte                { return new([DownloadBlockSize]byte) }
func (h *noFrames) Download(*Download, error) error                         { return nil }
func (h *noFrames) StateHashBuffer() *StateHash                             { return new(StateHash) }
func (h *noFrames) StateHash(*StateHash, error) error                       { return nil }

// TestBlocksOfFrequentBytes: a message block whose bytes the Huffman
// code makes shorter than eight bits each (a run of zero bytes) is read
// whole, at the end of a message too; an earlier check refused any block
// longer than an eighth of the bits left.
func TestBlocksOfFrequentBytes(t *testing.T) {
	text := append([]byte("say "), bytes.Repeat([]byte{0}, 8000)...)
	block := reliable.AppendBlock(nil, []uint16{1}, [][]byte{text})
	w := msg.NewWriter(make([]byte, 1<<14), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteMessages(w, SvcMessages, block)
	w.WriteUint8(SvcEOF)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	if len(w.Bytes())*8 >= len(block)*8 {
		t.Fatalf("the message is %d bytes for a block of %d: not the case tested", len(w.Bytes()), len(block))
	}
	h := &fuzzHandler{t: t}
	var r msg.Reader
	if err := ParseServerMessage(&r, w.Bytes(), 1, h, nil); err != nil {
		t.Fatalf("a block of %d frequent bytes: %v", len(block), err)
	}
}
