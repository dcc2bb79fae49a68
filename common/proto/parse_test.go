package proto

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/net/msg"
)

// recorder is a ServerHandler and ClientHandler that keeps what it is
// handed, and an Observer that keeps the parts it sees.
type recorder struct {
	fuzzHandler
	log   []string
	parts []Event
}

func (h *recorder) ServerCommand(seq int32, text string) error {
	h.log = append(h.log, fmt.Sprintf("command %d %s", seq, text))
	return nil
}

func (h *recorder) Gamestate(gs *Gamestate, err error) error {
	h.log = append(h.log, fmt.Sprintf("gamestate %d %v", gs.ChecksumFeed, err))
	return nil
}

func (h *recorder) Snapshot(b SnapshotBase, ents []bg.EntityState, err error) error {
	h.log = append(h.log, fmt.Sprintf("snapshot t=%d ps=%d ents=%d %v", b.Header.ServerTime, b.IntoPS.CommandTime, len(ents), err))
	return h.fuzzHandler.Snapshot(b, ents, err)
}

func (h *recorder) Move(cmds []bg.UserCmd, noDelta bool, err error) error {
	h.log = append(h.log, fmt.Sprintf("move %d %v %v", len(cmds), noDelta, err))
	return nil
}

func (h *recorder) ClientCommand(seq int32, text string) error {
	h.log = append(h.log, fmt.Sprintf("clientCommand %d %s", seq, text))
	return nil
}

func (h *recorder) Observe(e Event) {
	h.fuzzHandler.Observe(e)
	h.parts = append(h.parts, e)
}

// opBits returns the bits of each operation the observer saw, by code.
func (h *recorder) opBits() map[uint8]int {
	bits := map[uint8]int{}
	for _, e := range h.parts {
		if e.Part == PartOpEnd {
			bits[e.Op] += e.End - e.Start
		}
	}
	return bits
}

// TestParseServerMessage: the parser hands every operation to the
// handler in order, and the observer sees each part where it is, deltas
// with their bases.
func TestParseServerMessage(t *testing.T) {
	var gs Gamestate
	gs.Reset()
	gs.Configstrings[0] = `\mapname\arena1`
	gs.Baselines[64] = bg.EntityState{Number: 64, EType: bg.ETItem, ModelIndex: 2}
	gs.ChecksumFeed = 77
	ents := []bg.EntityState{{Number: 1, EType: bg.ETPlayer}, {Number: 64, EType: bg.ETItem, ModelIndex: 2}}
	w := msg.NewWriter(make([]byte, 1<<14), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteServerCommand(w, 4, "cs 2 \"1\"")
	w.WriteUint8(SvcNop)
	WriteGamestate(w, &gs)
	WriteSnapshot(w, SnapshotHeader{ServerTime: 100}, nil, &bg.PlayerState{CommandTime: 90}, nil, ents, &gs.Baselines)
	w.WriteUint8(SvcEOF)
	body := slices.Clone(w.Bytes())

	h := &recorder{fuzzHandler: fuzzHandler{t: t, out: make([]bg.EntityState, 0, MaxSnapshotEntities)}}
	var r msg.Reader
	if err := ParseServerMessage(&r, body, 1, h, h); err != nil {
		t.Fatal(err)
	}
	want := []string{`command 4 cs 2 "1"`, "gamestate 77 <nil>", "snapshot t=100 ps=90 ents=2 <nil>"}
	if !slices.Equal(h.log, want) {
		t.Fatalf("handler saw\n%s\nwant\n%s", strings.Join(h.log, "\n"), strings.Join(want, "\n"))
	}
	if h.endOfOps != r.BitPos() {
		t.Errorf("operations end at %d, the message at %d", h.endOfOps, r.BitPos())
	}
	var ops []uint8
	var configstrings, baselines, entities, begins int
	for _, e := range h.parts {
		switch e.Part {
		case PartOp:
			ops = append(ops, e.Op)
		case PartConfigstring:
			configstrings++
		case PartBaseline:
			if !e.Begin {
				baselines++
			}
		case PartEntity:
			if e.Begin {
				begins++
				if !e.Added || e.FromEnt != &h.gs.Baselines[e.Index] {
					t.Errorf("entity %d of a full snapshot not from its baseline", e.Index)
				}
			} else {
				entities++
			}
		case PartSnapshotHeader:
			if e.Header.ServerTime != 100 || e.Marks[0] <= e.Start || e.Marks[1] <= e.Marks[0] || e.End <= e.Marks[1] {
				t.Errorf("snapshot header %+v", e)
			}
		}
	}
	if want := []uint8{SvcServerCommand, SvcNop, SvcGamestate, SvcSnapshot, SvcEOF}; !slices.Equal(ops, want) {
		t.Errorf("ops %v, want %v", ops, want)
	}
	if configstrings != 1 || baselines != 1 || entities != 2 || begins != 2 {
		t.Errorf("%d configstrings, %d baselines, %d entities (%d begun)", configstrings, baselines, entities, begins)
	}

	// Without an observer, the same.
	h2 := &recorder{fuzzHandler: fuzzHandler{t: t, out: make([]bg.EntityState, 0, MaxSnapshotEntities)}}
	var r2 msg.Reader
	if err := ParseServerMessage(&r2, body, 1, h2, nil); err != nil || !slices.Equal(h2.log, h.log) || r2.BitPos() != r.BitPos() {
		t.Errorf("without an observer: %v, %q at %d", err, h2.log, r2.BitPos())
	}
}

// TestParseClientMessage: the header, a command and a move, with the
// usercmds' bases: the zero command or the acknowledged snapshot's.
func TestParseClientMessage(t *testing.T) {
	cmds := []bg.UserCmd{{ServerTime: 100, RightMove: 50}, {ServerTime: 116}}
	for _, based := range []bool{false, true} {
		var base *bg.UserCmd
		if based {
			base = &bg.UserCmd{ServerTime: 60, Aim: 9}
		}
		w := msg.NewWriter(make([]byte, 1024), msg.Huffman)
		WriteClientHeader(w, ClientHeader{1, 2, 3})
		WriteClientCommand(w, 4, "say hi")
		WriteMove(w, 5, base, cmds, true)
		w.WriteUint8(ClcEOF)
		h := &recorder{fuzzHandler: fuzzHandler{t: t, key: 5}}
		if based {
			h.base = *base
		}
		var r msg.Reader
		if err := ParseClientMessage(&r, slices.Clone(w.Bytes()), h, h); err != nil {
			t.Fatal(err)
		}
		if want := []string{"clientCommand 4 say hi", "move 2 true <nil>"}; !slices.Equal(h.log, want) {
			t.Fatalf("based %v: handler saw %q, want %q", based, h.log, want)
		}
		if !slices.Equal(h.cmds[:2], cmds) {
			t.Errorf("based %v: usercmds %+v, want %+v", based, h.cmds[:2], cmds)
		}
		for _, e := range h.parts {
			switch {
			case e.Part == PartClientHeader && e.Client != (ClientHeader{1, 2, 3}):
				t.Errorf("header %+v", e.Client)
			case e.Part == PartUsercmd && e.Begin && e.Index == 0 && !based && *e.FromCmd != (bg.UserCmd{}):
				t.Errorf("first usercmd not from the zero command")
			case e.Part == PartUsercmd && e.Begin && e.Index == 0 && based && e.FromCmd != &h.base:
				t.Errorf("first usercmd not from the handler's base")
			case e.Part == PartUsercmd && e.Begin && e.Index == 1 && e.FromCmd != &h.cmds[0]:
				t.Errorf("second usercmd not from the first")
			case e.Part == PartMoveCount && (e.Index != 2 || e.Key != 5 || e.Based != based):
				t.Errorf("move count %d key %d based %v", e.Index, e.Key, e.Based)
			}
		}
		if h.endOfOps != r.BitPos() {
			t.Errorf("operations end at %d, the message at %d", h.endOfOps, r.BitPos())
		}
		if based {
			continue
		}
		bits := h.opBits()
		if bits[ClcMoveNoDelta] == 0 || bits[ClcClientCommand] == 0 || bits[ClcEOF] == 0 {
			t.Errorf("op bits %v", bits)
		}
	}
}

// TestDownloadRoundTrip writes download blocks and reads them back, and
// checks the reader refuses out-of-range blocks, sizes and lengths.
func TestDownloadRoundTrip(t *testing.T) {
	data := make([]byte, DownloadBlockSize)
	for i := range data {
		data[i] = byte(i)
	}
	cases := []Download{
		{Block: 0, Name: "example", Size: 3000, Checksum: 0xdeadbeef},
		{Block: 1, Data: data},
		{Block: 3, Data: []byte("end\n")},
	}
	for _, d := range cases {
		w := msg.NewWriter(make([]byte, 4096), msg.Huffman)
		WriteDownload(w, &d)
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		if op := r.ReadUint8(); op != SvcDownload {
			t.Fatalf("op %d, want %d", op, SvcDownload)
		}
		var got Download
		var buf [DownloadBlockSize]byte
		ReadDownload(r, &got, &buf)
		if r.Err() != nil {
			t.Fatalf("block %d: %v", d.Block, r.Err())
		}
		if got.Block != d.Block || got.Name != d.Name || got.Size != d.Size || got.Checksum != d.Checksum || string(got.Data) != string(d.Data) {
			t.Fatalf("read %+v, wrote %+v", got, d)
		}
	}
	bad := []struct {
		name  string
		write func(w *msg.Writer)
	}{
		{"negative block", func(w *msg.Writer) { w.WriteLong(-1) }},
		{"block past the last", func(w *msg.Writer) { w.WriteLong(MaxDownloadBlocks + 1) }},
		{"size 0", func(w *msg.Writer) { w.WriteLong(0); w.WriteString("x"); w.WriteLong(0); w.WriteLong(0) }},
		{"oversize", func(w *msg.Writer) {
			w.WriteLong(0)
			w.WriteString("x")
			w.WriteLong(MaxDownloadSize + 1)
			w.WriteLong(0)
		}},
		{"empty block", func(w *msg.Writer) { w.WriteLong(1); w.WriteShort(0) }},
		{"block too long", func(w *msg.Writer) { w.WriteLong(1); w.WriteShort(DownloadBlockSize + 1) }},
		{"block cut short", func(w *msg.Writer) { w.WriteLong(1); w.WriteShort(100); w.WriteData([]byte("abc")) }},
	}
	for _, b := range bad {
		w := msg.NewWriter(make([]byte, 4096), msg.Huffman)
		b.write(w)
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		var d Download
		var buf [DownloadBlockSize]byte
		ReadDownload(r, &d, &buf)
		if r.Err() == nil {
			t.Errorf("%s: read without error: %+v", b.name, d)
		}
	}
}
