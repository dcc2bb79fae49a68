package client

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/msg"
)

// fuzzDemo holds the records of a small demo, encoded once with the
// writers the recorder uses, for FuzzPlayback to assemble with one part
// replaced by the fuzzer's bytes: a key frame holding a gamestate (no
// baselines, only the configstrings a playback needs), messages 2 to 4
// whose snapshots add, move and remove entities, with an obituary (a
// frag, for NextFrag) and a server command, a second key frame at
// message 4 (a gamestate and a snapshot), and message 5.
type fuzzDemo struct {
	header demo.Header
	gs1    []byte    // the first key frame's gamestate
	msgs   [][]byte  // messages 2, 3, 4, 5
	times  []int32   // their snapshots' server times
	kf2    [2][]byte // the second key frame: gamestate, snapshot
}

func newFuzzDemo(tb testing.TB) *fuzzDemo {
	tb.Helper()
	m, err := arenas.Load("arena1")
	if err != nil {
		tb.Fatal(err)
	}
	var gs proto.Gamestate
	gs.Reset()
	gs.Configstrings[bg.CSServerInfo] = `\mapname\arena1`
	gs.Configstrings[bg.CSMapChecksum] = strconv.FormatUint(uint64(m.Checksum), 10)
	gs.Configstrings[bg.CSPlayers] = `\n\Fuzz`
	buf := make([]byte, 4096)
	var mw msg.Writer
	body := func(write func(w *msg.Writer)) []byte {
		mw.Reset(buf, msg.Huffman)
		proto.WriteReliableAck(&mw, 0)
		write(&mw)
		mw.WriteUint8(proto.SvcEOF)
		if mw.Err() != nil {
			tb.Fatal(mw.Err())
		}
		return bytes.Clone(mw.Bytes())
	}
	d := &fuzzDemo{header: demo.Header{Protocol: proto.Version, Map: "arena1", Date: time.Unix(1e9, 0)}}
	d.gs1 = body(func(w *msg.Writer) { proto.WriteGamestate(w, &gs) })

	type snap struct {
		t    int32
		ps   bg.PlayerState
		ents []bg.EntityState
		cmds []string
	}
	snaps := []snap{
		{1000, bg.PlayerState{CommandTime: 1000, Origin: bg.Vec{X: 100, Y: 40}},
			[]bg.EntityState{{Number: 5, EType: bg.ETItem, ModelIndex: 2}}, nil},
		{1050, bg.PlayerState{CommandTime: 1050, Origin: bg.Vec{X: 110, Y: 40}, Velocity: bg.Vec{X: 200}},
			[]bg.EntityState{{Number: 5, EType: bg.ETItem, ModelIndex: 2, Pos: bg.Trajectory{Base: bg.Vec{X: 8}}},
				{Number: 20, EType: bg.ETEvents + bg.EvObituary, OtherEntity: 1, EventParm: 2}},
			[]string{`print "fuzz\n"`}},
		{1100, bg.PlayerState{CommandTime: 1100, Origin: bg.Vec{X: 120, Y: 40}}, nil, nil},
		{1150, bg.PlayerState{CommandTime: 1150, Origin: bg.Vec{X: 130, Y: 44}},
			[]bg.EntityState{{Number: 7, EType: bg.ETItem, ModelIndex: 3}}, []string{`cs 20 "x"`}},
	}
	cmdSeq := int32(0)
	for i := range snaps {
		s := &snaps[i]
		h := proto.SnapshotHeader{ServerTime: s.t}
		var fromPS *bg.PlayerState
		var fromEnts []bg.EntityState
		if i > 0 {
			h.DeltaNum, h.BaseTime = 1, snaps[i-1].t
			fromPS, fromEnts = &snaps[i-1].ps, snaps[i-1].ents
		}
		d.msgs = append(d.msgs, body(func(w *msg.Writer) {
			for _, c := range s.cmds {
				cmdSeq++
				proto.WriteServerCommand(w, cmdSeq, c)
			}
			proto.WriteSnapshot(w, h, fromPS, &s.ps, fromEnts, s.ents, &gs.Baselines)
			// The state hashes of sv_hashSnapshots: 1 and 2 in turn.
			var sh proto.StateHash
			sh.Compute(&s.ps, s.ents, i%2 == 1)
			sh.ServerTime = s.t
			proto.WriteStateHash(w, &sh)
		}))
		d.times = append(d.times, s.t)
	}
	gs.CommandSequence = 1
	d.kf2[0] = body(func(w *msg.Writer) { proto.WriteGamestate(w, &gs) })
	d.kf2[1] = body(func(w *msg.Writer) {
		proto.WriteSnapshot(w, proto.SnapshotHeader{ServerTime: snaps[2].t}, nil, &snaps[2].ps, nil, snaps[2].ents, &gs.Baselines)
	})
	return d
}

// Where FuzzPlayback puts its bytes in the demo.
const (
	inMessage  = iota // the body of message 3
	inKeyFrame        // the snapshot part of the second key frame
	inTail            // everything after the first key frame
	inFile            // the whole file
	inParts
)

// file assembles the demo with the part where names replaced by b,
// and the index and trailer unless the tail or the whole file is b.
func (d *fuzzDemo) file(where int, b []byte) []byte {
	if where == inFile {
		return b
	}
	var out bytes.Buffer
	w, _ := demo.NewWriter(&out, d.header)
	w.WriteKeyFrame(0, 0, []demo.Part{{Sequence: 1, Data: d.gs1}})
	if where == inTail {
		return append(out.Bytes(), b...)
	}
	for i, body := range d.msgs {
		seq := int32(i + 2)
		if seq == 3 && where == inMessage {
			body = b
		}
		w.WriteMessage(seq, body)
		w.NoteTime(d.times[i])
		if seq == 4 {
			part := d.kf2[1]
			if where == inKeyFrame {
				part = b
			}
			w.WriteKeyFrame(d.times[i], seq, []demo.Part{{Sequence: seq, Data: d.kf2[0]}, {Sequence: seq, Data: part}})
		}
	}
	w.Close()
	return out.Bytes()
}

// fuzzMaps loads each arena once for all of FuzzPlayback's runs: maps
// are not changed by the clients that use them.
var fuzzMaps = struct {
	sync.Mutex
	m map[string]*tilemap.Map
}{m: map[string]*tilemap.Map{}}

func loadFuzzMap(name string) (*tilemap.Map, error) {
	fuzzMaps.Lock()
	defer fuzzMaps.Unlock()
	if m, ok := fuzzMaps.m[name]; ok {
		return m, nil
	}
	m, err := arenas.Load(name)
	if err == nil {
		fuzzMaps.m[name] = m
	}
	return m, err
}

// playFuzz plays d as a demo: opens it and plays it to its end, then by
// ops seeks to a share of it (from the index, or from a summary of the
// whole file if it has none), steps back and forth, looks for the next
// frag (a summary) or runs an hour on; with the client game or without
// it (bit 0).
func playFuzz(d []byte, ops uint8) {
	cfg := PlaybackConfig{NoCGame: ops&1 == 0, Client: Config{LoadMap: loadFuzzMap}}
	p, err := NewPlayback(bytes.NewReader(d), int64(len(d)), cfg)
	if err != nil {
		return
	}
	defer p.Close()
	for i := 0; i < 400 && !p.ended; i++ {
		p.Frame(time.Duration(i) * 50 * time.Millisecond)
	}
	switch ops >> 1 & 3 {
	case 0:
		p.SeekPercent(float64(ops>>3) * 100 / 31)
		p.Frame(time.Hour)
	case 1:
		p.StepBack()
		p.StepForward()
	case 2:
		p.NextFrag()
	case 3:
		p.Frame(time.Hour)
	}
}

// FuzzPlayback plays demos with arbitrary bytes in one of their parts
// (fuzzDemo.file): the body of a message, a key frame's snapshot, every
// record after the first key frame, or the whole file. Opening, playing,
// seeking, stepping and summarising must never panic or hang, whatever
// the file holds. The demo is encoded once, before fuzzing, and the
// fuzzed part is small: the fuzzer minimizes every input that finds new
// coverage with O(n²) runs of the function, which with the 2 and 3 KB
// demos it was given before kept it minimizing instead of fuzzing (5
// executions counted in 5 s).
func FuzzPlayback(f *testing.F) {
	d := newFuzzDemo(f)
	f.Add(d.msgs[1], uint8(inMessage), uint8(0))
	f.Add(d.msgs[1], uint8(inMessage), uint8(3))
	f.Add(d.msgs[1], uint8(inMessage), uint8(5))
	f.Add(d.kf2[1], uint8(inKeyFrame), uint8(2))
	f.Add(d.kf2[1], uint8(inKeyFrame), uint8(9<<3))
	// The messages as records, without the index: seeking needs a
	// summary.
	var recs []byte
	for i, m := range d.msgs[:3] {
		var b bytes.Buffer
		w, _ := demo.NewWriter(&b, demo.Header{})
		start := b.Len()
		w.WriteMessage(int32(i+2), m)
		recs = append(recs, b.Bytes()[start:]...)
	}
	f.Add(recs, uint8(inTail), uint8(16<<3))
	f.Add(recs, uint8(inTail), uint8(7))
	f.Fuzz(func(t *testing.T, b []byte, where, ops uint8) {
		playFuzz(d.file(int(where%inParts), b), ops)
	})
}

// TestFuzzDemo: FuzzPlayback's demo plays as it was written, so that
// fuzzing starts from a demo that reaches every part of the playback.
func TestFuzzDemo(t *testing.T) {
	d := newFuzzDemo(t)
	file := d.file(inMessage, d.msgs[1])
	p, err := NewPlayback(bytes.NewReader(file), int64(len(file)), PlaybackConfig{Client: Config{LoadMap: loadFuzzMap}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var times []int32
	var cmds []string
	p.Client().Hooks.Snapshot = func(info SnapshotInfo, _ *bg.PlayerState, _ []bg.EntityState) {
		if info.Valid {
			times = append(times, info.ServerTime)
		}
	}
	p.Client().Hooks.ServerCommand = func(_ int32, text string) { cmds = append(cmds, text) }
	for i := 0; i < 100 && !p.ended; i++ {
		p.Frame(time.Duration(i) * 50 * time.Millisecond)
	}
	if ended, err := p.Ended(); !ended || err != nil {
		t.Errorf("ended %v, %v", ended, err)
	}
	if st := p.Client().HashStats(); st.Checked != 4 || st.Divergences != 0 {
		t.Errorf("state hashes: %d checked, %d divergences; want 4 and 0", st.Checked, st.Divergences)
	}
	if want := []int32{1000, 1050, 1100, 1150}; !slices.Equal(times, want) {
		t.Errorf("snapshots at %v, want %v", times, want)
	}
	if want := []string{`print "fuzz\n"`, `cs 20 "x"`}; !slices.Equal(cmds, want) {
		t.Errorf("server commands %q, want %q", cmds, want)
	}
	s, err := p.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Frags) != 1 || s.KeyFrames != 2 || !s.Indexed || s.FirstTime != 1000 || s.LastTime != 1150 {
		t.Errorf("summary %+v", s)
	}
	if err := p.StepBack(); err != nil {
		t.Errorf("step back: %v", err)
	}
}
