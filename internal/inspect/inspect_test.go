package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
)

// findOp returns the first op named name in m.
func findOp(m *Message, name string) *Op {
	for i := range m.Ops {
		if m.Ops[i].Name == name {
			return &m.Ops[i]
		}
	}
	return nil
}

// checkBits checks that the bits of a message's ops add up.
func checkBits(t *testing.T, m *Message) {
	t.Helper()
	sum := 0
	for _, o := range m.Ops {
		sum += o.Bits
		sub := 0
		for _, s := range o.Sub {
			sub += s.Bits
		}
		if sub > o.Bits {
			t.Errorf("%s: sub-ops take %d bits of %d", o.Name, sub, o.Bits)
		}
	}
	if sum != m.Bits || m.Bits > 8*m.MessageLen || m.Bits <= 8*(m.MessageLen-1) {
		t.Errorf("seq %d: ops take %d bits, message %d bits in %d bytes", m.Sequence, sum, m.Bits, m.MessageLen)
	}
}

func TestSession(t *testing.T) {
	s := newSession(true)
	msgs := feed(New(), s.pkts)
	if len(msgs) != len(s.pkts) {
		t.Fatalf("%d messages for %d packets", len(msgs), len(s.pkts))
	}
	// Handshake.
	for i, want := range []string{"getchallenge", "challengeResponse", "connect", "connectResponse"} {
		m := &msgs[i]
		if m.Kind != KindConnectionless || m.OOB == nil || m.OOB.Command != want {
			t.Fatalf("packet %d: %s, want %s", i, m.Summary(), want)
		}
	}
	if f := msgs[1].OOB.Fields; len(f) != 1 || f[0].Value != "19088743" {
		t.Errorf("challengeResponse fields %v", f)
	}
	if !slices.Contains(msgs[2].OOB.Fields, Field{Name: "qport", Value: "777"}) {
		t.Errorf("connect fields %v lack the qport", msgs[2].OOB.Fields)
	}

	// Gamestate, plain.
	m := &msgs[4]
	if m.Kind != KindMessage || m.Err != "" || m.Scrambled || m.Sequence != 1 || m.Dir != ServerToClient {
		t.Fatalf("gamestate message: %s", m.Summary())
	}
	checkBits(t, m)
	if o := findOp(m, OpServerCommand); o == nil || *o.Command != (Command{Sequence: 1, Text: "print hello", New: true}) {
		t.Errorf("server command: %+v", o)
	}
	g := findOp(m, OpGamestate)
	if g == nil || *g.Gamestate != (Gamestate{CommandSequence: 1, ClientNum: 0, ChecksumFeed: testFeed,
		Configstrings: 2, Baselines: 2, ServerID: testServerID, Scramble: true}) {
		t.Fatalf("gamestate: %+v", g)
	}
	if g.gs.Baselines[5] != s.gs.Baselines[5] || g.gs.Configstrings != s.gs.Configstrings {
		t.Errorf("gamestate contents differ")
	}

	// Client message, scrambled: header, command, usercmds.
	m = &msgs[5]
	if m.Kind != KindMessage || m.Err != "" || !m.Scrambled || m.Dir != ClientToServer || m.Qport != testQport {
		t.Fatalf("client message: %s", m.Summary())
	}
	checkBits(t, m)
	if o := findOp(m, OpClientHeader); o == nil || *o.Header != (proto.ClientHeader{ServerID: testServerID, MessageAcknowledge: 1, ReliableAcknowledge: 1}) {
		t.Errorf("client header: %+v", o)
	}
	if o := findOp(m, OpClientCommand); o == nil || *o.Command != (Command{Sequence: 1, Text: "say hi there", New: true}) {
		t.Errorf("client command: %+v", o)
	}
	mv := findOp(m, OpMoveNoDelta)
	if mv == nil || !slices.Equal(mv.Move.Cmds, s.cmds) || mv.Move.New != 3 || len(mv.Sub) != 3 {
		t.Fatalf("move: %+v", mv)
	}
	// Their times (1000, 1016, 1033) go as a run: the second and third
	// usercmds carry none (0 bits).
	if !slices.Contains(mv.Fields, Field{Name: "times", Value: "run +16, 1 bits"}) {
		t.Errorf("move fields %+v: want times = run +16, 1 bits", mv.Fields)
	}
	if f := mv.Sub[1].Fields; len(f) != 3 || f[0].Name != "ServerTime" || f[0].Value != "1016 (+16)" ||
		f[1] != (Field{Name: "Aim", Value: "310", Bits: f[1].Bits}) || f[2].Name != "Buttons" || f[0].Bits != 0 {
		t.Errorf("second usercmd fields %+v", f)
	}

	// Full snapshot, scrambled.
	m = &msgs[6]
	if m.Kind != KindMessage || m.Err != "" || !m.Scrambled || m.Sequence != 2 {
		t.Fatalf("snapshot message: %s", m.Summary())
	}
	checkBits(t, m)
	sn := findOp(m, OpSnapshot)
	if sn == nil || !sn.Snapshot.Valid || sn.Snapshot.Base != -1 || sn.Snapshot.ServerTime != 2000 ||
		sn.Snapshot.PS != s.ps1 || !slices.Equal(sn.Snapshot.Entities, s.ents1) {
		t.Fatalf("full snapshot: %+v", sn)
	}
	if sn.Snapshot.Added != 3 {
		t.Errorf("full snapshot added %d entities, want 3", sn.Snapshot.Added)
	}

	// The fragmented delta snapshot.
	n := s.fragments
	if n < 3 {
		t.Fatalf("big message went as %d packets", n)
	}
	for i := 7; i < 7+n-1; i++ {
		if msgs[i].Kind != KindFragment || !msgs[i].Fragment {
			t.Errorf("packet %d: %s, want a fragment", i, msgs[i].Summary())
		}
	}
	m = &msgs[7+n-1]
	if m.Kind != KindMessage || m.Err != "" || !m.Fragment || m.Sequence != 3 {
		t.Fatalf("last fragment: %s", m.Summary())
	}
	checkBits(t, m)
	if o := findOp(m, OpServerCommand); o == nil || o.Command.Text != s.bigCommand {
		t.Errorf("big command lost")
	}
	sn = findOp(m, OpSnapshot)
	if sn == nil {
		t.Fatal("no delta snapshot")
	}
	d := sn.Snapshot
	if !d.Valid || d.Base != 2 || d.DeltaNum != 1 || d.ServerTime != 2050 || d.TimeIncrement != 50 ||
		d.PS != s.ps2 || !slices.Equal(d.Entities, s.ents2) {
		t.Fatalf("delta snapshot: %+v", d)
	}
	if d.Changed != 1 || d.Added != 1 || d.Removed != 1 || d.Unchanged != 1 {
		t.Errorf("delta snapshot counts: changed %d added %d removed %d unchanged %d", d.Changed, d.Added, d.Removed, d.Unchanged)
	}
	var ps *Op
	for i := range sn.Sub {
		if sn.Sub[i].Name == OpPlayerState {
			ps = &sn.Sub[i]
		}
	}
	if ps == nil || len(ps.Fields) != 3 || ps.Fields[0].Name != "CommandTime" || ps.Fields[0].Value != "1083 (+50)" ||
		ps.Fields[2] != (Field{Name: "Stats", Value: "[0]=90", Bits: ps.Fields[2].Bits}) {
		t.Errorf("player state fields: %+v", ps)
	}
	var changes []string
	for _, o := range sn.Sub {
		if o.Entity != nil {
			changes = append(changes, o.Entity.Change)
		}
	}
	if !slices.Equal(changes, []string{"removed", "changed", "added"}) {
		t.Errorf("entity changes %v", changes)
	}

	// Client message 2: usercmds coded from the delta snapshot's
	// player state (proto.UsercmdBase), which its header acknowledges.
	m = &msgs[7+n]
	checkBits(t, m)
	mv = findOp(m, OpMove)
	if m.Dir != ClientToServer || m.Err != "" || mv == nil || !mv.Move.Based || !slices.Equal(mv.Move.Cmds, s.cmds2) {
		t.Fatalf("based move: %s %+v", m.Summary(), mv)
	}
	// Its first command's time is 17 ms after the base's (the command
	// time 1083): an increment.
	if f := mv.Sub[0].Fields; len(f) == 0 || f[0].Value != "1100 (+17)" {
		t.Errorf("first based usercmd fields %+v", f)
	}

	// Text and JSON render.
	var text bytes.Buffer
	for i := range msgs {
		if err := msgs[i].WriteText(&text, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"Origin.X = 1013", "CommandTime = 1083 (+50)", "entity 20 added", "Buttons = 1", "scrambled", "frag 0+1300"} {
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

// TestLoss: a lost fragment loses its message; a duplicate is dropped;
// a snapshot whose base was lost is read but not valid.
func TestLoss(t *testing.T) {
	s := newSession(true)
	n := s.fragments
	t.Run("lost fragment", func(t *testing.T) {
		pkts := slices.Clone(s.pkts)
		pkts = slices.Delete(pkts, 8, 9) // the second fragment
		msgs := feed(New(), pkts)
		if m := msgs[8]; m.Kind != KindDropped || m.Err == "" {
			t.Errorf("fragment after a lost one: %s", m.Summary())
		}
		for _, m := range msgs {
			if m.Sequence == 3 && m.Kind == KindMessage {
				t.Errorf("message 3 completed without its second fragment")
			}
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		pkts := append(slices.Clone(s.pkts), s.pkts[6])
		msgs := feed(New(), pkts)
		if m := msgs[len(msgs)-1]; m.Kind != KindDropped || m.Ops != nil {
			t.Errorf("duplicate: %s", m.Summary())
		}
	})
	t.Run("lost base", func(t *testing.T) {
		pkts := slices.Delete(slices.Clone(s.pkts), 6, 7) // the full snapshot
		msgs := feed(New(), pkts)
		// The client's usercmds are coded from the delta snapshot the
		// inspector could not read: it says so.
		if m := &msgs[len(msgs)-1]; m.Dir != ClientToServer || !m.CannotDecode {
			t.Errorf("usercmds based on an unread snapshot: %s", m.Summary())
		}
		m := &msgs[len(msgs)-2]
		if m.Kind != KindMessage || m.Err != "" || m.Dropped != 1 {
			t.Fatalf("delta after a lost base: %s", m.Summary())
		}
		if sn := findOp(m, OpSnapshot); sn == nil || sn.Snapshot.Valid || sn.Snapshot.Base != 2 {
			t.Errorf("snapshot from a lost base: %+v", sn)
		}
		if o := findOp(m, OpServerCommand); o == nil || !o.Command.New {
			t.Errorf("the command in the same message must still be read")
		}
	})
	t.Run("mid-stream", func(t *testing.T) {
		// Attached after the handshake and the gamestate: no challenge,
		// no server id, so the scrambled bodies cannot be read, and the
		// inspector says so rather than show garbage.
		msgs := feed(New(), s.pkts[5:])
		for i, m := range msgs {
			if m.Kind == KindMessage && (!m.CannotDecode || len(m.Ops) != 1) {
				t.Errorf("packet %d: %s", i, m.Summary())
			}
		}
		_ = n
	})
	t.Run("lost gamestate", func(t *testing.T) {
		// Attached before the handshake but blind to the gamestate: it
		// knows the challenge, not the server id the client writes
		// under, nor its checksum feed.
		pkts := slices.Delete(slices.Clone(s.pkts), 4, 5)
		msgs := feed(New(), pkts)
		// The header carries the id's low bits (proto.ServerIDBits).
		if m := msgs[4]; m.Dir != ClientToServer || !m.CannotDecode || m.Ops[0].Header.ServerID != testServerID&(1<<proto.ServerIDBits-1)|proto.ServerIDOther {
			t.Errorf("client message under an unseen gamestate: %s", m.Summary())
		}
	})
}

// TestCountNew: the usercmds of a packet the server executes, as
// server.userMove picks them: newer than the last executed, and not
// later than the packet's last one.
func TestCountNew(t *testing.T) {
	cmds := func(times ...int32) []bg.UserCmd {
		var c []bg.UserCmd
		for _, st := range times {
			c = append(c, bg.UserCmd{ServerTime: st})
		}
		return c
	}
	for _, tc := range []struct {
		last  int32
		cmds  []bg.UserCmd
		n     int
		after int32
	}{
		{0, nil, 0, 0},
		{0, cmds(10, 20, 30), 3, 30},
		{20, cmds(10, 20, 30), 1, 30},           // sent again for loss
		{30, cmds(10, 20, 30), 0, 30},           // all old
		{0, cmds(10, 40, 30), 2, 30},            // 40 is later than the last: skipped
		{0, cmds(50, 60, 20), 1, 20},            // a clock reset: only the last
		{0, cmds(10, 10, 20), 2, 20},            // equal times run once
		{25, cmds(10, 30, 20, 40), 2, 40},       // 30 then 40
		{-5, cmds(-3, -4, 0), 2, 0},             // out of order below the last
		{100, cmds(200, 150, 120, 110), 1, 110}, // all but the last are later
	} {
		last := tc.last
		n := countNew(tc.cmds, &last)
		if n != tc.n || last != tc.after {
			t.Errorf("countNew(%v from %d) = %d to %d, want %d to %d", tc.cmds, tc.last, n, last, tc.n, tc.after)
		}
	}
}

// TestLayoutMatchesTables sends random deltas through the bg tables and
// checks that the inspector's fields, taken from the tables' field
// trace, are what the tables read in the bits their own receive
// counters count: one Field per changed scalar field and per changed
// array, each with its value (an increment shown as one, when the table
// gives the field an Inc), the same bits as the field's counter grew
// by, and nothing else but the unchanged fields' changed bits and the
// delta's header in between. (The package's tests do not run in
// parallel, so the counters see only these reads.)
func TestLayoutMatchesTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randomize := func(v []int32) {
		for i := range v {
			switch rng.IntN(5) {
			case 0:
				v[i] = 0
			case 1:
				v[i] = int32(rng.IntN(200)) - 100
			case 2:
				v[i] += int32(rng.IntN(300))
			case 3:
				// unchanged
			default:
				v[i] = int32(rng.Uint32())
			}
		}
	}
	for i := 0; i < 300; i++ {
		var pf, pt bg.PlayerState
		randomize(psInts(&pf))
		pt = pf
		randomize(psInts(&pt)[:rng.IntN(len(psInts(&pt)))+1])
		checkDelta(t, fmt.Sprintf("player state %d", i), bg.PlayerStateTable, &pf, &pt, 0,
			func(w *msg.Writer) { bg.PlayerStateTable.WriteDeltaPlayerState(w, &pf, &pt) },
			func(r *msg.Reader, got *bg.PlayerState) []Field { return readPlayerState(r, &pf, got) })

		var ef, et bg.EntityState
		randomize(entInts(&ef))
		et = ef
		randomize(entInts(&et)[:rng.IntN(len(entInts(&et)))+1])
		checkDelta(t, fmt.Sprintf("entity %d", i), bg.EntityStateTable, &ef, &et, 0,
			func(w *msg.Writer) { bg.EntityStateTable.WriteDeltaEntity(w, &ef, &et, 7, true) },
			func(r *msg.Reader, got *bg.EntityState) []Field {
				r.ReadBits(msg.EntityNumBits)
				_, fields := readEntity(r, &ef, got)
				return fields
			})

		var cf, ct bg.UserCmd
		randomize(cmdInts(&cf))
		ct = cf
		randomize(cmdInts(&ct))
		key := rng.Uint32()
		fields := checkDelta(t, fmt.Sprintf("usercmd %d", i), bg.UserCmdTable, &cf, &ct, 1,
			func(w *msg.Writer) { bg.UserCmdTable.WriteDeltaUsercmd(w, key, &cf, &ct) },
			func(r *msg.Reader, got *bg.UserCmd) []Field { return readUsercmd(r, key, &cf, got) })
		// The server time comes first, always, as an increment, a
		// residual or whole; it has no counter.
		f0 := bg.UserCmdTable.Fields()[0]
		tf, want := fields[0], format(uint32(ct.ServerTime), f0.Bits)
		if d := uint32(ct.ServerTime - cf.ServerTime); d < 1<<f0.Inc {
			want += fmt.Sprintf(" (+%d)", d)
		} else if r := int32(d); r >= -(1<<(f0.Diff-1)) && r < 1<<(f0.Diff-1) {
			want += fmt.Sprintf(" (%+d)", r)
		}
		if tf.Name != "ServerTime" || tf.Value != want || tf.Bits < 2 {
			t.Fatalf("usercmd %d: server time %+v, want %s", i, tf, want)
		}
	}
}

// checkDelta truncates from and to to their widths in tab, writes the
// delta between them with write and reads it back with read, the way
// the inspector does, and checks the result and its fields
// (checkFields) but for the first skip fields, which have no counter.
// It returns the fields.
func checkDelta[T comparable](t *testing.T, what string, tab *msg.Table[T], from, to *T, skip int,
	write func(*msg.Writer), read func(*msg.Reader, *T) []Field) []Field {
	t.Helper()
	tab.Truncate(from)
	tab.Truncate(to)
	var buf [4096]byte
	w := msg.NewWriter(buf[:], msg.Huffman)
	write(w)
	r := msg.NewReader(w.Bytes(), msg.Huffman)
	var stats msg.FieldStats // the receiver's counters
	r.SetFieldStats(&stats)
	before := tab.Stats(&stats)
	var got T
	fields := read(r, &got)
	if r.Err() != nil || got != *to || r.BitPos() != w.BitLen() {
		t.Fatalf("%s: got %+v (%v, %d of %d bits), want %+v", what, got, r.Err(), r.BitPos(), w.BitLen(), *to)
	}
	if len(fields) < skip {
		t.Fatalf("%s: fields %+v", what, fields)
	}
	checkFields(t, what, tab.Fields()[skip:], before[skip:], tab.Stats(&stats)[skip:], fields[skip:],
		func(name string) (uint32, uint32) { return wordOf(from, name), wordOf(to, name) })
	return fields
}

// checkFields checks the fields the inspector gave for one delta read
// against the table's scalar fields (specs, wire order), its counters
// before and after the read, and the values each field had in the base
// and the result (words).
func checkFields(t *testing.T, what string, specs []msg.Field, before, after []msg.FieldStat, fields []Field, words func(string) (uint32, uint32)) {
	t.Helper()
	byName := map[string]Field{}
	for _, f := range fields {
		if _, dup := byName[f.Name]; dup {
			t.Fatalf("%s: field %s twice in %+v", what, f.Name, fields)
		}
		byName[f.Name] = f
	}
	for k, st := range after {
		grew := st.RecvBits - before[k].RecvBits
		f, ok := byName[st.Name]
		if ok != (st.RecvChanges != before[k].RecvChanges) || uint64(f.Bits) != grew {
			t.Fatalf("%s: field %s: inspector %+v (listed %v), counter grew by %d bits", what, st.Name, f, ok, grew)
		}
		if !ok || st.Array {
			continue
		}
		spec := specs[k]
		old, v := words(st.Name)
		want := format(v, spec.Bits)
		if d := v - old; spec.Inc > 0 && d < 1<<spec.Inc {
			want += fmt.Sprintf(" (+%d)", d)
		}
		if f.Value != want {
			t.Fatalf("%s: field %s = %q, want %q", what, st.Name, f.Value, want)
		}
	}
}

// wordOf returns the 32 bits of v's field at a dotted path.
func wordOf[T any](v *T, path string) uint32 {
	sf, ok := fieldByPath(reflect.TypeFor[T](), path)
	if !ok {
		panic(path)
	}
	return getBits(reflect.ValueOf(v).Elem().FieldByIndex(sf.Index))
}

// psInts, entInts and cmdInts view a wire struct (all 32-bit fields) as
// its words, for randomising.
func psInts(p *bg.PlayerState) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(p)), unsafe.Sizeof(*p)/4)
}

func entInts(p *bg.EntityState) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(p)), unsafe.Sizeof(*p)/4)[1:] // not Number
}

func cmdInts(p *bg.UserCmd) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(p)), unsafe.Sizeof(*p)/4)
}
