package journal

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"tremor/bg"
)

// sample writes one record of every kind and returns the file and the
// records a reader should return.
func sample(t testing.TB) ([]byte, []Record) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := netip.MustParseAddrPort("[fd00::1]:1")
	cl := netip.MustParseAddrPort("127.0.0.1:27960")
	ps1 := bg.PlayerState{CommandTime: 1234, Origin: bg.Vec{X: -5, Y: 900}, Aim: 77}
	ps2 := ps1
	ps2.CommandTime, ps2.Velocity.X = 1250, -320
	st1 := new(ServerState)
	st1.PlayerIn[0], st1.PlayerIn[3] = true, true
	st1.Players[0], st1.Players[3] = ps1, ps2
	for _, n := range []int32{0, 3, 70} {
		st1.EntityIn[n] = true
		st1.Entities[n] = bg.EntityState{Number: n, EType: 1, Pos: bg.Trajectory{Base: bg.Vec{X: 10 * n, Y: -n}}}
	}
	st2 := new(ServerState)
	*st2 = *st1
	st2.PlayerIn[0], st2.EntityIn[70], st2.EntityIn[100] = false, false, true
	st2.Players[3].Origin.X += 7
	st2.Entities[100] = bg.EntityState{Number: 100, Event: 5}
	want := []Record{
		{Kind: KindStart, Start: Start{ClientSeed: 1<<63 | 5, ServerSeed: 42, Map: "duel1", ServerAddr: srv, ClientAddr: cl}},
		{Kind: KindCvar, Name: "cl_packetloss", Value: "10"},
		{Kind: KindConsole, Value: "addbot 2"},
		{Kind: KindFrame, Frame: Frame{ClientTime: 16 * time.Millisecond, ServerTime: -3, Flags: FlagScores}},
		{Kind: KindUserCmd, Cmd: bg.UserCmd{ServerTime: 1000, Aim: -1, RightMove: 127, UpMove: -127, Buttons: 5, Weapon: 2}},
		{Kind: KindPacket, Side: Server, From: cl, At: 17 * time.Millisecond, Data: []byte("\xff\xff\xff\xffgetchallenge 7")},
		{Kind: KindHash, Side: Server, Hash: 0xdeadbeefcafef00d},
		{Kind: KindChallenge, Challenge: 123456789},
		{Kind: KindPacket, Side: Client, From: srv, At: 0, Data: []byte{}},
		{Kind: KindHash, Side: Client, Hash: 1},
		{Kind: KindPlayerState, PS: ps1},
		{Kind: KindPlayerState, PS: ps2},
		{Kind: KindPlayerState, PS: ps2},
		{Kind: KindServerState, Server: st1},
		{Kind: KindServerState, Server: st2},
		{Kind: KindServerState, Server: st2},
	}
	for _, r := range want {
		var err error
		switch r.Kind {
		case KindStart:
			err = w.Start(r.Start)
		case KindCvar:
			err = w.Cvar(r.Name, r.Value)
		case KindConsole:
			err = w.Console(r.Value)
		case KindFrame:
			err = w.Frame(r.Frame)
		case KindUserCmd:
			err = w.UserCmd(r.Cmd)
		case KindPacket:
			err = w.Packet(r.Side, r.From, r.At, r.Data)
		case KindHash:
			err = w.Hash(r.Side, r.Hash)
		case KindChallenge:
			err = w.Challenge(r.Challenge)
		case KindPlayerState:
			err = w.PlayerState(&r.PS)
		case KindServerState:
			err = w.ServerState(r.Server)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != w.Size() {
		t.Fatalf("Size %d, file %d bytes", w.Size(), buf.Len())
	}
	return buf.Bytes(), want
}

func readAll(data []byte) ([]Record, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []Record
	for {
		var rec Record
		err := r.Next(&rec)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if rec.Data != nil {
			rec.Data = append([]byte{}, rec.Data...)
		}
		if rec.Server != nil {
			st := *rec.Server // the reader's own, changed by the next record
			rec.Server = &st
		}
		out = append(out, rec)
	}
}

func TestRoundTrip(t *testing.T) {
	data, want := sample(t)
	got, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		g := got[i]
		g.Offset = 0
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, g, want[i])
		}
	}
	// Write copies a journal record by record.
	var cp bytes.Buffer
	w, err := NewWriter(&cp, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if err := w.Write(&got[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cp.Bytes(), data) {
		t.Errorf("copy differs from the original")
	}
	if err := w.Write(&Record{Kind: 99}); err == nil {
		t.Errorf("wrote a record of an unknown kind")
	}
	// The second identical player state costs only its mask, the second
	// identical server state four zero counts.
	if n := len(data); n > 500 {
		t.Errorf("sample journal is %d bytes", n)
	}
}

func TestPeek(t *testing.T) {
	data, want := sample(t)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	for i := range want {
		p, err := r.Peek()
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != want[i].Kind {
			t.Fatalf("peek %d: %v, want %v", i, p.Kind, want[i].Kind)
		}
		if err := r.Next(&rec); err != nil || rec.Kind != want[i].Kind {
			t.Fatalf("next %d: %v %v", i, rec.Kind, err)
		}
	}
	if _, err := r.Peek(); err != io.EOF {
		t.Fatalf("peek at the end: %v", err)
	}
}

// TestTruncated cuts the journal at every byte: each cut either ends
// cleanly between records or gives an *Error with an offset inside the
// file, and never panics.
func TestTruncated(t *testing.T) {
	data, want := sample(t)
	clean := 0
	for n := 0; n < len(data); n++ {
		got, err := readAll(data[:n])
		if err == nil {
			clean++
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("cut at %d: %v is not an *Error", n, err)
		}
		if e.Offset < 0 || e.Offset > int64(n) {
			t.Errorf("cut at %d: error offset %d outside the file", n, e.Offset)
		}
		if len(got) > len(want) {
			t.Fatalf("cut at %d: %d records", n, len(got))
		}
	}
	// Clean ends: the header alone and after each record but the last.
	if clean != len(want) {
		t.Errorf("%d clean cuts, want %d", clean, len(want))
	}
}

func TestCorrupt(t *testing.T) {
	data, _ := sample(t)
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		msg  string
		off  int64
	}{
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, "not a journal", 0},
		{"version", func(b []byte) []byte { b[4] = 9; return b }, "version 9", 4},
		{"kind", func(b []byte) []byte { b[HeaderLen] = 200; return b }, "unknown record kind 200", HeaderLen},
		{"length", func(b []byte) []byte {
			return append(b[:HeaderLen], byte(KindConsole), 0xff, 0xff, 0xff, 0x7f)
		}, "exceeds", HeaderLen + 1},
		{"side", func(b []byte) []byte {
			return append(b[:HeaderLen], byte(KindHash), 9, 7, 0, 0, 0, 0, 0, 0, 0, 0)
		}, "bad side 7", HeaderLen + 2},
		{"left over", func(b []byte) []byte {
			return append(b[:HeaderLen], byte(KindChallenge), 2, 1, 1)
		}, "left over", HeaderLen + 3},
		{"entity number", func(b []byte) []byte {
			return append(b[:HeaderLen], byte(KindServerState), 5, 0, 0, 1, 0x80, 0x08)
		}, "entity number 1024 out of range", HeaderLen + 5},
		{"address", func(b []byte) []byte {
			return append(b[:HeaderLen], byte(KindPacket), 5, 0, 3, 'a', 'b', 'c')
		}, "bad address", HeaderLen + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.edit(append([]byte{}, data...))
			_, err := readAll(b)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if !strings.Contains(e.Msg, tc.msg) || e.Offset != tc.off {
				t.Errorf("error %q, want %q at offset %d", err, tc.msg, tc.off)
			}
		})
	}
}

// TestCap checks that the writer stops at its cap with ErrFull and
// leaves a file that reads back whole up to the last record it took.
func TestCap(t *testing.T) {
	var buf bytes.Buffer
	const limit = 1000
	w, err := NewWriter(&buf, limit)
	if err != nil {
		t.Fatal(err)
	}
	pkt := make([]byte, 100)
	n := 0
	for ; n < 100; n++ {
		if err := w.Packet(Client, netip.AddrPort{}, 0, pkt); err != nil {
			if err != ErrFull {
				t.Fatal(err)
			}
			break
		}
	}
	if err := w.Hash(Server, 1); err != ErrFull {
		t.Fatalf("after the cap: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > limit || buf.Len() != int(w.Size()) {
		t.Fatalf("file %d bytes, Size %d, cap %d", buf.Len(), w.Size(), limit)
	}
	got, err := readAll(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || n == 0 {
		t.Fatalf("read %d records, wrote %d", len(got), n)
	}
}

func FuzzReader(f *testing.F) {
	data, _ := sample(f)
	f.Add(data)
	f.Add(data[:HeaderLen])
	f.Add(data[:len(data)/2])
	f.Add([]byte(Magic + "\x01\x00\x09\x07\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		var rec Record
		for range 10000 {
			if err := r.Next(&rec); err != nil {
				var e *Error
				if err != io.EOF && !errors.As(err, &e) {
					t.Fatalf("error %v is neither io.EOF nor an *Error", err)
				}
				return
			}
		}
	})
}

// TestWriterAllocs checks that recording a frame allocates nothing once
// the writer is warm: it runs in every frame of a recorded session.
func TestWriterAllocs(t *testing.T) {
	w, err := NewWriter(io.Discard, 0)
	if err != nil {
		t.Fatal(err)
	}
	from := netip.MustParseAddrPort("[fd00::1]:2")
	pkt := make([]byte, 600)
	var ps bg.PlayerState
	st := new(ServerState)
	st.PlayerIn[1], st.EntityIn[1], st.EntityIn[80] = true, true, true
	allocs := testing.AllocsPerRun(100, func() {
		ps.CommandTime += 16
		st.Players[1].CommandTime += 50
		st.Entities[80].Pos.Base.X++
		_ = w.ServerState(st)
		_ = w.Frame(Frame{ClientTime: time.Second, ServerTime: 1000})
		_ = w.UserCmd(bg.UserCmd{ServerTime: 1000, Buttons: 1})
		_ = w.Packet(Server, from, time.Millisecond, pkt)
		_ = w.Hash(Client, 12345)
		_ = w.PlayerState(&ps)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per frame recorded", allocs)
	}
}

// TestStateWords checks what the player and server state records rely
// on: a PlayerState and an EntityState are int32s only, so the memory of
// each is an array of words.
func TestStateWords(t *testing.T) {
	var walk func(reflect.Type) int
	walk = func(typ reflect.Type) int {
		switch typ.Kind() {
		case reflect.Int32:
			return 1
		case reflect.Array:
			return typ.Len() * walk(typ.Elem())
		case reflect.Struct:
			n := 0
			for i := range typ.NumField() {
				n += walk(typ.Field(i).Type)
			}
			return n
		}
		t.Fatalf("PlayerState holds a %v", typ)
		return 0
	}
	if n := walk(reflect.TypeFor[bg.PlayerState]()); n != psWords {
		t.Fatalf("PlayerState has %d int32s, psWords is %d", n, psWords)
	}
	if n := walk(reflect.TypeFor[bg.EntityState]()); n != esWords {
		t.Fatalf("EntityState has %d int32s, esWords is %d", n, esWords)
	}
}
