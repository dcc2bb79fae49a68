package proto

import (
	"slices"
	"testing"

	"tremor/bg"
	"tremor/net/msg"
	"tremor/net/reliable"
)

// fuzzHandler is a receiver for the fuzz targets: it keeps one
// gamestate and the last snapshot as the base of the next, and checks
// what the parsers hand it.
type fuzzHandler struct {
	t        *testing.T
	gs       Gamestate
	ps       bg.PlayerState
	ents     []bg.EntityState
	out      []bg.EntityState
	cmds     [MaxPacketUsercmds]bg.UserCmd
	base     bg.UserCmd
	key      uint32
	lastSeq  int32
	dlBuf    [DownloadBlockSize]byte
	sh       StateHash
	lastEnd  int // end of the last event
	endOfOps int // where the last operation ended
	// The acks carrier: blocks go into a real receiver.
	msgs    *reliable.Messages
	msgsBuf [MaxMessagesBlock]byte
}

// Frame sync: the test handlers read a stand-in body, a byte count and
// the bytes (game/framesync fuzzes the real ones).
func (h *fuzzHandler) Frames(r *msg.Reader, _ int8) error { return readStandIn(r) }
func (h *fuzzHandler) WholeState(r *msg.Reader) error     { return readStandIn(r) }
func (h *fuzzHandler) FrameRequest(FrameRequest) error    { return nil }

func (h *fuzzHandler) Ack(uint16, uint32) error                { return nil }
func (h *fuzzHandler) MessagesBuffer() *[MaxMessagesBlock]byte { return &h.msgsBuf }
func (h *fuzzHandler) Messages(block []byte, err error) error {
	if err != nil {
		return err
	}
	if len(block) < 1 || len(block) > MaxMessagesBlock {
		h.t.Fatalf("a block of %d bytes accepted", len(block))
	}
	if h.msgs == nil {
		h.msgs = reliable.NewMessages(MessagesConfig(100))
	}
	if _, err := h.msgs.Receive(block); err != nil {
		return err
	}
	for {
		_, data, ok := h.msgs.Next()
		if !ok {
			return nil
		}
		if len(data) > MaxMessageBytes {
			h.t.Fatalf("a message of %d bytes delivered", len(data))
		}
	}
}
func (h *fuzzHandler) MessageBase(id uint16) error {
	if h.msgs != nil {
		h.msgs.SkipTo(id)
	}
	return nil
}

func (h *fuzzHandler) ReliableAcknowledge(uint32, int32, []byte) (bool, error) { return false, nil }
func (h *fuzzHandler) ServerCommand(seq int32, _ string) error {
	if err := CheckCommandWindow(seq, h.lastSeq); err != nil {
		return err
	}
	h.lastSeq = max(h.lastSeq, seq)
	return nil
}
func (h *fuzzHandler) GamestateBuffer() *Gamestate              { return &h.gs }
func (h *fuzzHandler) DownloadBuffer() *[DownloadBlockSize]byte { return &h.dlBuf }
func (h *fuzzHandler) Download(d *Download, err error) error {
	if err == nil && (d.Block < 0 || d.Block > MaxDownloadBlocks || len(d.Data) > DownloadBlockSize ||
		d.Block == 0 && (d.Size < 1 || d.Size > MaxDownloadSize) || d.Block > 0 && len(d.Data) == 0) {
		h.t.Fatalf("download block %d size %d with %d bytes accepted", d.Block, d.Size, len(d.Data))
	}
	return nil
}
func (h *fuzzHandler) StateHashBuffer() *StateHash { return &h.sh }
func (h *fuzzHandler) StateHash(sh *StateHash, err error) error {
	if err == nil && (sh.NumEntities < 0 || sh.NumEntities > MaxSnapshotEntities || sh.NumPS > MaxStateHashFields ||
		sh.NumCols > MaxStateHashFields || !sh.Detail && (sh.NumPS != 0 || sh.NumCols != 0)) {
		h.t.Fatalf("state hash with %d entities, %d and %d field hashes accepted", sh.NumEntities, sh.NumPS, sh.NumCols)
	}
	if err == nil && len(h.ents) <= MaxSnapshotEntities {
		var mine StateHash
		CheckStateHash(sh, &h.ps, h.ents, &mine)
	}
	return nil
}
func (h *fuzzHandler) Gamestate(*Gamestate, error) error               { return nil }
func (h *fuzzHandler) ClientHeader(ClientHeader, []byte) (bool, error) { return false, nil }
func (h *fuzzHandler) ClientCommand(int32, string) error               { return nil }
func (h *fuzzHandler) MoveKey(based bool) (uint32, *bg.UserCmd, *[MaxPacketUsercmds]bg.UserCmd, error) {
	if based {
		return h.key, &h.base, &h.cmds, nil
	}
	return h.key, nil, &h.cmds, nil
}
func (h *fuzzHandler) Move(cmds []bg.UserCmd, _ bool, _ error) error {
	if len(cmds) > MaxPacketUsercmds {
		h.t.Fatalf("%d commands", len(cmds))
	}
	return nil
}

func (h *fuzzHandler) SnapshotBase(sh SnapshotHeader) SnapshotBase {
	b := SnapshotBase{Header: sh, Base: -1, Valid: true, Baselines: &h.gs.Baselines, IntoPS: &h.ps, Out: h.out}
	if sh.DeltaNum != 0 {
		b.PS, b.Entities = &h.ps, h.ents
	}
	return b
}

func (h *fuzzHandler) Snapshot(_ SnapshotBase, out []bg.EntityState, err error) error {
	if err != nil {
		return nil
	}
	if len(out) > MaxSnapshotEntities {
		h.t.Fatalf("%d entities", len(out))
	}
	for i := 1; i < len(out); i++ {
		if out[i].Number <= out[i-1].Number {
			h.t.Fatal("entities not sorted")
		}
	}
	h.ents = append(h.ents[:0], out...)
	return nil
}

// Observe checks the positions the parsers report: every part within
// the message, the operations one after the other.
func (h *fuzzHandler) Observe(e Event) {
	if e.Start < 0 || e.End < e.Start || e.Start < h.endOfOps && e.Part == PartOp {
		h.t.Fatalf("part %d at %d-%d after operations up to %d", e.Part, e.Start, e.End, h.endOfOps)
	}
	if e.Part == PartReliableAck || e.Part == PartClientHeader {
		h.endOfOps = e.End
	}
	if e.Part == PartOpEnd {
		h.endOfOps = e.End
	}
	h.lastEnd = e.End
}

// FuzzReadServerMessage feeds hostile server→client messages to
// ParseServerMessage, the client engine's and the inspector's reader.
// Nothing may panic; a snapshot that decodes has sorted, bounded
// entities; the operations an observer sees follow each other.
func FuzzReadServerMessage(f *testing.F) {
	var gs Gamestate
	gs.Reset()
	gs.Configstrings[0] = `\mapname\arena1`
	gs.Baselines[64] = bg.EntityState{Number: 64, EType: bg.ETItem, ModelIndex: 2}
	w := msg.NewWriter(make([]byte, 1<<14), msg.Huffman)
	w.WriteLong(3)
	WriteServerCommand(w, 4, "cs 2 \"1\"")
	WriteGamestate(w, &gs)
	ents := []bg.EntityState{{Number: 1, EType: bg.ETPlayer}, {Number: 64, EType: bg.ETItem, ModelIndex: 2}}
	WriteSnapshot(w, SnapshotHeader{ServerTime: 100}, nil, &bg.PlayerState{CommandTime: 90}, nil, ents, &gs.Baselines)
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, SvcSnapshot, 0xff, 0xff})
	// Download blocks: a header, a data block, a block too long.
	w.Reset(make([]byte, 4096), msg.Huffman)
	w.WriteLong(3)
	WriteDownload(w, &Download{Block: 0, Name: "example", Size: 1500, Checksum: 77})
	WriteDownload(w, &Download{Block: 1, Data: make([]byte, DownloadBlockSize)})
	WriteDownload(w, &Download{Block: 2, Data: []byte("end\n")})
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	// State hashes after a snapshot: summary only, with detail, and a
	// detail list longer than the message.
	for _, detail := range []bool{false, true} {
		w.Reset(make([]byte, 4096), msg.Huffman)
		w.WriteLong(3)
		ps := bg.PlayerState{CommandTime: 90}
		WriteSnapshot(w, SnapshotHeader{ServerTime: 100}, nil, &ps, nil, ents, &gs.Baselines)
		var sh StateHash
		sh.Compute(&ps, ents, detail)
		sh.ServerTime, sh.Game = 100, 0x1234
		WriteStateHash(w, &sh)
		w.WriteUint8(SvcEOF)
		f.Add(append([]byte(nil), w.Bytes()...))
	}
	w.Reset(make([]byte, 4096), msg.Huffman)
	w.WriteLong(3)
	w.WriteUint8(SvcStateHash)
	for i := 0; i < 7; i++ {
		w.WriteLong(1)
	}
	w.WriteShort(MaxSnapshotEntities)
	w.WriteUint8(1)
	w.WriteUint8(MaxStateHashFields)
	f.Add(append([]byte(nil), w.Bytes()...))
	w.Reset(make([]byte, 4096), msg.Huffman)
	w.WriteLong(3)
	w.WriteUint8(SvcDownload)
	w.WriteLong(1)
	w.WriteShort(DownloadBlockSize + 1)
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	// The acks carrier: packet acks, a block of two commands, a
	// gamestate's message base; and a block whose length passes the end.
	w.Reset(make([]byte, 4096), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteAck(w, SvcAck, 300, 0xfffffffd)
	WriteMessages(w, SvcMessages, reliable.AppendBlock(nil, []uint16{7, 9}, [][]byte{[]byte("print \"hi\"\n"), []byte("chat \"x\"")}))
	WriteMessageBase(w, 10)
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	w.Reset(make([]byte, 4096), msg.Huffman)
	WriteReliableAck(w, 3)
	w.WriteUint8(SvcMessages)
	w.WriteShort(MaxMessagesBlock)
	w.WriteUint8(1)
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	// Frame sync: frames, a whole state, and a body longer than the
	// message.
	w.Reset(make([]byte, 4096), msg.Huffman)
	WriteReliableAck(w, 3)
	WriteFramesHeader(w, -2)
	writeStandIn(w, []byte{1, 2, 3, 4, 5})
	w.WriteUint8(SvcWholeState)
	writeStandIn(w, []byte{9, 8, 7})
	w.WriteUint8(SvcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	w.Reset(make([]byte, 4096), msg.Huffman)
	WriteReliableAck(w, 3)
	w.WriteUint8(SvcWholeState)
	w.WriteUint8(255)
	f.Add(append([]byte(nil), w.Bytes()...))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := &fuzzHandler{t: t, out: make([]bg.EntityState, 0, MaxSnapshotEntities), ents: slices.Clone(ents)}
		var r msg.Reader
		err := ParseServerMessage(&r, data, 1, h, h)
		if err == nil && h.endOfOps != r.BitPos() {
			t.Fatalf("operations end at %d, the message at %d", h.endOfOps, r.BitPos())
		}
		// Without an observer the parse is the same.
		var r2 msg.Reader
		h2 := &fuzzHandler{t: t, out: make([]bg.EntityState, 0, MaxSnapshotEntities), ents: slices.Clone(ents)}
		err2 := ParseServerMessage(&r2, data, 1, h2, nil)
		if (err == nil) != (err2 == nil) || r.BitPos() != r2.BitPos() {
			t.Fatalf("with an observer: %v at %d, without: %v at %d", err, r.BitPos(), err2, r2.BitPos())
		}
	})
}

// FuzzReadClientMessage feeds hostile client→server messages to
// ParseClientMessage.
func FuzzReadClientMessage(f *testing.F) {
	w := msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteClientCommand(w, 4, "say hi")
	WriteMove(w, 5, nil, []bg.UserCmd{{ServerTime: 100, RightMove: 50}, {ServerTime: 116}}, false)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	w = msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteMove(w, 5, &bg.UserCmd{ServerTime: 40, Aim: 7, Weapon: 2}, []bg.UserCmd{{ServerTime: 100, Aim: 9, Weapon: 2}, {ServerTime: 500}}, true)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	w = msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteMove(w, 5, &bg.UserCmd{ServerTime: 40}, []bg.UserCmd{{ServerTime: 100}, {ServerTime: 116, Aim: 3}, {ServerTime: 133}, {ServerTime: 150}}, false)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	w = msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteAck(w, ClcAck, 41, 0x7)
	WriteMessages(w, ClcMessages, reliable.AppendBlock(nil, []uint16{65535, 0}, [][]byte{[]byte("say a"), []byte("say b")}))
	WriteMove(w, 5, nil, []bg.UserCmd{{ServerTime: 100}}, false)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	w = msg.NewWriter(make([]byte, 1024), msg.Huffman)
	WriteClientHeader(w, ClientHeader{1, 2, 3})
	WriteFrameRequest(w, FrameRequest{From: 1234, Whole: true})
	WriteMove(w, 5, nil, []bg.UserCmd{{ServerTime: 100}}, false)
	w.WriteUint8(ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...), uint32(5))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, key uint32) {
		h := &fuzzHandler{t: t, key: key}
		var r msg.Reader
		err := ParseClientMessage(&r, data, h, h)
		if err == nil && h.endOfOps != r.BitPos() {
			t.Fatalf("operations end at %d, the message at %d", h.endOfOps, r.BitPos())
		}
		var r2 msg.Reader
		err2 := ParseClientMessage(&r2, data, &fuzzHandler{t: t, key: key}, nil)
		if (err == nil) != (err2 == nil) || r.BitPos() != r2.BitPos() {
			t.Fatalf("with an observer: %v at %d, without: %v at %d", err, r.BitPos(), err2, r2.BitPos())
		}
	})
}

// FuzzScramble: scrambling is its own inverse on any body.
func FuzzScramble(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint32(7), "print x")
	f.Fuzz(func(t *testing.T, body []byte, challenge uint32, text string) {
		orig := string(body)
		ScrambleClientMessage(body, challenge, text)
		ScrambleClientMessage(body, challenge, text)
		ScrambleServerMessage(body, challenge, 9, text)
		ScrambleServerMessage(body, challenge, 9, text)
		if string(body) != orig {
			t.Fatal("scrambling twice did not restore the body")
		}
	})
}
