package headless_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/client"
	"tremor/client/headless"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/server"
)

// TestStateHashLive runs a client against a server with
// sv_hashSnapshots 2 and 10% loss on the way down: every snapshot the
// client decodes matches the server's hashes, and the report says so.
// The session's demo carries the hashes: a straight playback checks them
// all, and a copy with one entity field changed in one snapshot (written
// so that it decodes fine) stops at that snapshot naming the entity and
// the field. It logs what the hashes cost on the wire.
func TestStateHashLive(t *testing.T) {
	if testing.Short() {
		t.Skip("6 s of real time")
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 14
	cfg.HashSnapshots = 2
	cfg.PacketLoss = 10
	ts := startServer(t, cfg, "arena2", 3)

	var (
		mu                      sync.Mutex
		snaps                   int
		snapBytes, bits1, bits2 int
	)
	wbuf := make([]byte, netchanMax)
	w := msg.NewWriter(wbuf, msg.Huffman)
	var sh proto.StateHash
	opBits := func(ps *bg.PlayerState, ents []bg.EntityState, detail bool) int {
		w.Reset(wbuf, msg.Huffman)
		sh.Compute(ps, ents, detail)
		sh.ServerTime, sh.Game = 1<<20, 0x9e3779b97f4a7c15 // a typical time, a random-looking hash
		proto.WriteStateHash(w, &sh)
		return w.BitLen()
	}
	file := &memFile{}
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   1,
		Duration:  6 * time.Second,
		ChatEvery: 500 * time.Millisecond,
		Seed:      9,
		OnSnapshot: func(_ int, info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
			if !info.Valid {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			snaps++
			snapBytes += info.Bytes
			bits1 += opBits(ps, ents, false)
			bits2 += opBits(ps, ents, true)
		},
		Record: func(int) (io.WriteCloser, error) { return file, nil },
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, 1)
	c := rep.Clients[0]
	if c.HashDivergences != 0 || c.FirstDivergence != "" {
		t.Errorf("%d divergences, first %q", c.HashDivergences, c.FirstDivergence)
	}
	if c.HashesChecked < c.Snapshots*9/10 || c.HashesChecked < 50 {
		t.Errorf("%d state hashes checked for %d snapshots (%d unchecked)", c.HashesChecked, c.Snapshots, c.HashesUnchecked)
	}
	if rep.Totals.HashesChecked != c.HashesChecked {
		t.Errorf("totals: %d checked, the client %d", rep.Totals.HashesChecked, c.HashesChecked)
	}
	mu.Lock()
	if snaps > 0 {
		t.Logf("%d snapshots of %.1f bytes on average (messages with sv_hashSnapshots 2); SvcStateHash: %.1f bytes (1), %.1f bytes (2)",
			snaps, float64(snapBytes)/float64(snaps), float64(bits1)/8/float64(snaps), float64(bits2)/8/float64(snaps))
	}
	mu.Unlock()
	t.Logf("client: %d snapshots, %d hashes checked, %d unchecked, %d bytes down in %.1f s",
		c.Snapshots, c.HashesChecked, c.HashesUnchecked, c.BytesDown, c.DurationS)

	data := file.buf.Bytes()
	checked := playHashed(t, data)
	if checked < 50 {
		t.Errorf("playback checked %d state hashes", checked)
	}

	bad, num, want := corruptDemo(t, data)
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	p, err := client.NewPlayback(bytes.NewReader(bad), int64(len(bad)), client.PlaybackConfig{Client: client.Config{Logf: logf}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res := p.TimeDemo(16*time.Millisecond, nil)
	if !errors.Is(res.Err, client.ErrDemoDiverges) || !strings.Contains(res.Err.Error(), want) {
		t.Fatalf("playback of the changed demo ended with %v, want %s", res.Err, want)
	}
	if at := fmt.Sprintf("message %d,", num); !strings.Contains(res.Err.Error(), at) {
		t.Errorf("playback did not stop at the changed message %d: %v", num, res.Err)
	}
	if st := p.Client().HashStats(); st.Divergences != 1 {
		t.Errorf("%d divergences counted, want the one", st.Divergences)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], want) {
		t.Errorf("the client logged %q, want one line naming %s", logged, want)
	}
	t.Logf("changed demo: %v", res.Err)
}

// netchanMax is room for any message.
const netchanMax = 1 << 14

// playHashed plays a demo through and returns how many state hashes it
// checked; it fails on any divergence.
func playHashed(t *testing.T, data []byte) uint64 {
	t.Helper()
	p, err := client.NewPlayback(bytes.NewReader(data), int64(len(data)), client.PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res := p.TimeDemo(16*time.Millisecond, nil)
	if res.Err != nil {
		t.Fatalf("playback ended with %v", res.Err)
	}
	st := p.Client().HashStats()
	if st.Divergences != 0 {
		t.Errorf("playback: %d divergences, first %v", st.Divergences, st.First)
	}
	return st.Checked
}

// corruptDemo returns a copy of the demo in which one entity of one
// delta snapshot, half-way through, has its Pos.Base.X moved by one
// pixel: the message is written again from what it held (its commands,
// the snapshot as a delta from the same base, the server's state hash
// unchanged), so it decodes fine. It returns the message's number and
// the text the divergence must contain.
func corruptDemo(t *testing.T, data []byte) (out []byte, num int32, want string) {
	t.Helper()
	rd, err := demo.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	dw, err := demo.NewWriter(&buf, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	m := &mirror{out: make([]bg.EntityState, 0, proto.MaxSnapshotEntities)}
	var r msg.Reader
	var kf demo.KeyFrame
	messages, target := 0, int32(-1)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case demo.KindKeyFrame:
			if err := demo.ParseKeyFrame(rec.Data, &kf); err != nil {
				t.Fatal(err)
			}
			if err := dw.WriteKeyFrame(kf.ServerTime, kf.MessageNum, kf.Parts); err != nil {
				t.Fatal(err)
			}
			continue
		case demo.KindMessage:
		default:
			continue
		}
		messages++
		m.begin(rec.Sequence)
		body := slices.Clone(rec.Data)
		if err := proto.ParseServerMessage(&r, body, uint32(rec.Sequence), m, nil); err != nil {
			t.Fatalf("message %d: %v", rec.Sequence, err)
		}
		if m.snap.ok {
			dw.NoteTime(m.snap.time)
		}
		if target < 0 && messages > 60 && m.fits() {
			target = rec.Sequence
			body, want = m.rewrite()
		}
		if err := dw.WriteMessage(rec.Sequence, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	if target < 0 {
		t.Fatalf("no message of the %d fits the change", messages)
	}
	return buf.Bytes(), target, want
}

// mirrorSnap is a snapshot as the mirror decoded it.
type mirrorSnap struct {
	ok         bool
	num, time  int32
	base       int32 // message number of the base, -1 for none
	header     proto.SnapshotHeader
	ps         bg.PlayerState
	ents       []bg.EntityState
	hasHash    bool
	hash       proto.StateHash
	commands   []string
	commandSeq []int32
	gamestate  bool
}

// mirror reads a demo's messages as a client would, keeping the last
// snapshots as delta bases, so that a message can be written again.
type mirror struct {
	gs   proto.Gamestate
	ring [proto.PacketBackup]mirrorSnap
	seq  int32
	ack  int32
	snap mirrorSnap // the message being read
	ps   bg.PlayerState
	out  []bg.EntityState
	dl   [proto.DownloadBlockSize]byte
	sh   proto.StateHash
}

func (m *mirror) begin(seq int32) {
	m.seq = seq
	m.snap = mirrorSnap{num: seq, base: -1}
}

func (m *mirror) ReliableAcknowledge(_ uint32, ack int32, _ []byte) (bool, error) {
	m.ack = ack
	return false, nil
}

func (m *mirror) ServerCommand(seq int32, text string) error {
	m.snap.commands = append(m.snap.commands, text)
	m.snap.commandSeq = append(m.snap.commandSeq, seq)
	return nil
}

func (m *mirror) GamestateBuffer() *proto.Gamestate { return &m.gs }

func (m *mirror) Gamestate(_ *proto.Gamestate, err error) error {
	m.snap.gamestate = true
	m.ring = [proto.PacketBackup]mirrorSnap{}
	return err
}

func (m *mirror) SnapshotBase(h proto.SnapshotHeader) proto.SnapshotBase {
	b := proto.SnapshotBase{Header: h, Base: -1, Valid: h.DeltaNum == 0, Baselines: &m.gs.Baselines,
		IntoPS: &m.ps, Out: m.out[:0]}
	if h.DeltaNum != 0 {
		n := m.seq - int32(h.DeltaNum)
		if e := &m.ring[n&proto.PacketMask]; e.ok && e.num == n {
			b.Base, b.Valid, b.PS, b.Entities = n, true, &e.ps, e.ents
			b.Header.Resolve(e.time, e.header.Step, e.header.Flags)
		}
	}
	return b
}

func (m *mirror) Snapshot(b proto.SnapshotBase, ents []bg.EntityState, err error) error {
	if err != nil || !b.Valid {
		return err
	}
	s := &m.snap
	s.ok, s.time, s.base, s.header, s.ps = true, b.Header.ServerTime, b.Base, b.Header, m.ps
	s.ents = slices.Clone(ents)
	e := &m.ring[m.seq&proto.PacketMask]
	*e = *s
	return nil
}

func (m *mirror) DownloadBuffer() *[proto.DownloadBlockSize]byte { return &m.dl }
func (m *mirror) Download(*proto.Download, error) error          { return nil }
func (m *mirror) StateHashBuffer() *proto.StateHash              { return &m.sh }

func (m *mirror) StateHash(sh *proto.StateHash, err error) error {
	if err == nil {
		m.snap.hasHash, m.snap.hash = true, *sh
	}
	return err
}

// fits reports whether the message just read can carry the change: a
// delta snapshot from a base the mirror has, with its state hash, and an
// entity to change.
func (m *mirror) fits() bool {
	s := &m.snap
	return s.ok && !s.gamestate && s.base >= 0 && s.hasHash && s.hash.Detail && len(s.ents) >= 2
}

// rewrite writes the message just read again with entity 1 of its
// snapshot moved, and returns it with the divergence it must cause.
func (m *mirror) rewrite() ([]byte, string) {
	s := &m.snap
	base := &m.ring[s.base&proto.PacketMask]
	ents := slices.Clone(s.ents)
	ents[1].Pos.Base.X += bg.UnitsPerPixel
	h := s.header
	h.BaseTime = base.time
	w := msg.NewWriter(make([]byte, netchanMax), msg.Huffman)
	proto.WriteReliableAck(w, m.ack)
	for i, text := range s.commands {
		proto.WriteServerCommand(w, s.commandSeq[i], text)
	}
	proto.WriteSnapshot(w, h, &base.ps, &s.ps, base.ents, ents, &m.gs.Baselines)
	proto.WriteStateHash(w, &s.hash)
	w.WriteUint8(proto.SvcEOF)
	// The changed entity must be what the client then holds: keep the
	// mirror's base right for the messages after it.
	m.ring[s.num&proto.PacketMask].ents = ents
	return slices.Clone(w.Bytes()), "entity " + strconv.Itoa(int(ents[1].Number)) + " field Pos.Base.X"
}
